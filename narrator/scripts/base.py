"""What a ruleset's script tells the game-neutral narrator core.

The core (narrator/narrator.py) runs what every game has: the lobby (players, seats,
language, voting protocol, clock), the deal and "look at your phone", pause/resume/repeat,
the timer, spoken and tapped inputs, undo, the phones' views. A script says everything that
depends on the game: its set-up (presets, decks, options), what to call and when, what each
phone shows, what to listen for and what the table hears when something happens. It is
written only against what its ruleset exposes: pending decisions, legal targets, events and
what each player may know.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from narrator.table import CLOCKS, PROTOCOLS

if TYPE_CHECKING:
    from narrator.cues import Cue, Heard, Input, Tap
    from narrator.narrator import Narrator, Reply
    from narrator.setup_form import GameForm
    from narrator.table import TableConfig


class Script:
    """One ruleset's narration. One instance per table; it may keep state of its own, but
    all of it must follow from the inputs the narrator accepted (a table is its log)."""

    ruleset: ClassVar[str] = ""
    min_players: ClassVar[int] = 0
    max_players: ClassVar[int] = 0
    # the spoken or tapped votes "undo" may take back, and the phases where it may
    undoable: ClassVar[tuple[str, ...]] = ()
    undo_phases: ClassVar[tuple[str, ...]] = ()
    # the phase the game enters when the table says it is ready (after the role reveal)
    after_reveal: ClassVar[str] = "night"
    # the set-up commands of this game (Host inputs and their lobby intents)
    setup_commands: ClassVar[tuple[str, ...]] = ()
    lobby_intents: ClassVar[tuple[str, ...]] = ()
    # the voting protocols this game can take (the first is the one a table that chose
    # another is switched to), and the line that refuses the others
    protocols: ClassVar[tuple[str, ...]] = PROTOCOLS
    protocol_refused: ClassVar[str] = "not_understood"
    # the debate clocks this game offers (seconds; 0: none), and the line that refuses others
    clocks: ClassVar[tuple[int, ...]] = CLOCKS
    bad_clock: ClassVar[str] = "bad_clock"
    # lines with a player's name the table may hear right after a spoken answer (a mouth
    # with a slow voice makes them for every name when the game starts)
    name_lines: ClassVar[tuple[str, ...]] = ()
    # this game's part of the host's set-up form (narrator/setup_form.py; None: nothing of
    # its own to show): what the page shows of the set-up and the inputs a form makes
    setup_form: ClassVar[GameForm | None] = None

    def __init__(self, narrator: Narrator):
        self.narrator = narrator

    # ------------------------------------------------------------------ the lobby

    @classmethod
    def default_setup(cls, config: TableConfig) -> None:
        """Set `config`'s game fields (preset, deck, options) to this game's defaults."""

    @classmethod
    def setup_doc(cls, config: TableConfig, seed: int) -> dict[str, Any]:
        """The rules' set-up document for this table."""
        raise NotImplementedError

    def game_doc(self, seed: int) -> dict[str, Any]:
        """The rules' set-up document for the table's next deal: `setup_doc`, and what only
        the table knows (Werewords: the word list's language is the table's own)."""
        return self.setup_doc(self.narrator.config, seed)

    @classmethod
    def rating(cls, config: TableConfig) -> str | None:
        """The balance rating of the set-up at the current count (None: none applies)."""
        return None

    @classmethod
    def setup_inputs(cls, config: TableConfig) -> list[Input]:
        """Host inputs that rebuild this game's set-up from scratch (a new game)."""
        return []

    def lobby(self, command: str, arg: Any) -> Reply:
        """One of `setup_commands`."""
        raise NotImplementedError

    def heard_lobby(self, heard: Heard) -> Reply | None:
        """A spoken set-up command of this game (None: not one of this game's)."""
        return None

    # ------------------------------------------------------------------ the game

    def reveal_cues(self) -> list[Cue]:
        """What the table hears when the cards are dealt, after "the game begins"."""
        from narrator.cues import Say

        return [Say("look_at_phone")]

    def help_key(self) -> str:
        """The help line of the moment."""
        return f"help_{self.narrator.phase}"

    def begin(self) -> None:
        """A game was just dealt (`narrator.game`): forget the last game's state."""

    def narrate(self, events: list[dict[str, Any]]) -> list[Cue]:
        """What the table hears of these new events."""
        raise NotImplementedError

    def ask(self) -> list[Cue]:
        """Set `narrator.phase` and `narrator.prompt` from the rules' pending decisions and
        return the cues that ask for the next answer."""
        raise NotImplementedError

    def heard(self, heard: Heard) -> Reply:
        """A spoken answer during the game (the core has handled what works at any time)."""
        raise NotImplementedError

    def tap_refusal(self, tap: Tap) -> str | None:
        """Why a phone's choice cannot be taken now (a stable reason key), or None."""
        return None

    def take(self, tap: Tap) -> Reply:
        """A phone's choice that passed `tap_refusal`: by default applied at once."""
        return self.narrator.apply_tap(tap)

    def shared_tap(self, tap: Any) -> Reply:
        """A choice tapped on a shared phone for the role being called (`SharedTap`);
        by default there is no such call."""
        return self.narrator.shared_refused("not_your_turn")

    def shared_view(self) -> dict[str, Any] | None:
        """The choice every shared phone shows now (None: nothing)."""
        return None

    def time_up(self) -> Reply:
        """The narrator's timer ran out."""
        raise NotImplementedError

    def time_passed(self, before: float, after: float) -> list[Cue]:
        """Time passed on the running timer, from `before` to `after` seconds left (the
        core calls `time_up` next if it ran out). What to say or do meanwhile: a warning
        ("one minute left"), a tap held back whose moment came. It may stop the timer."""
        return []

    def due(self) -> float | None:
        """Seconds until `time_passed` has something to do, if sooner than the timer's end
        (None: nothing before it)."""
        return None

    def skip_timer(self) -> Reply:
        """The host ends the timed part early ("we are ready to vote")."""
        raise NotImplementedError

    def player_view(self, name: str, turns: dict[str, str]) -> dict[str, Any]:
        """What `name`'s phone shows of the game (the core adds the player and phase)."""
        raise NotImplementedError

    def public_knowledge(self) -> dict[str, Any]:
        """What everyone may know of the game now."""
        raise NotImplementedError

    def waiting(self) -> dict[str, Any]:
        """What the host's screen may show of whom the table is waiting for, once a game
        is dealt (`players`: names that may be shown; `turns_left` of `turns`: a count)."""
        raise NotImplementedError
