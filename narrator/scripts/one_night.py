"""The One Night script (seed 001): its set-up, its one night, the debate and the vote.

Phases: night (every role of the deck called in the seed's order, each call held open as
long, with its card in play or in the centre: narrator/calls.py), debate (the clock), vote
(everybody points: by roll call or on the phones), then the core's over.

The rules pass a call at once when it asks nothing (its card lies in the centre, or its
role only looks), and reach the day the moment the last night decision is in. This script
keeps its own night until its calls are over: a player may choose only while their call is
open, each phone shows a fact only once the call it was learned in has been made
(`shown_after`), and no vote is shown or taken before the debate ends. So nothing that the
table hears or sees moves with what lies in the centre.
"""

from __future__ import annotations

from typing import Any, ClassVar

from narrator.calls import CALL, NightCalls
from narrator.cues import Chapter, Clock, Cue, Heard, Host, Input, Listen, Reply, Say, Tap
from narrator.scripts.base import Script
from narrator.scripts.one_night_lines import narrate
from narrator.table import TableConfig
from narrator.voting import PHONES, ROLL_CALL, VoteLines, ask_votes
from rules.core import SetupError
from rules.one_night.balance import rating
from rules.one_night.knowledge import private_knowledge, public_knowledge, shown_after
from rules.one_night.presets import MAX_PLAYERS, MIN_PLAYERS, suggested_deck
from rules.one_night.roles import ROLES

NIGHT = "night"
DEBATE = "debate"
VOTE = "vote"

SUGGESTED = "suggested"  # the one ready deck: the rules' suggested deck for the count
CLOCKS = (0, 120, 180, 240, 300)  # the debate: none, 2, 3, 4 or 5 minutes (the rules' own)
VOTE_LINES = VoteLines(ask="on_ask_point", phones="on_vote_phones")
# what a voter may answer: a name, and nobody/skip to be told that every vote counts
VOTE_INTENTS = ("VoteIntent", "NobodyIntent", "SkipIntent")


def wake_key(call: str) -> str:
    return f"on_wake_{call}"


def sleep_key(call: str) -> str:
    return f"on_sleep_{call}"


class OneNightScript(Script):
    ruleset: ClassVar[str] = "one-night"
    min_players: ClassVar[int] = MIN_PLAYERS
    max_players: ClassVar[int] = MAX_PLAYERS
    # a spoken ballot the table misheard may be taken back before the last one is in
    undoable: ClassVar[tuple[str, ...]] = ("vote",)
    undo_phases: ClassVar[tuple[str, ...]] = (VOTE,)
    after_reveal: ClassVar[str] = NIGHT
    setup_commands: ClassVar[tuple[str, ...]] = ("preset", "deck")
    lobby_intents: ClassVar[tuple[str, ...]] = ("PresetIntent",)
    # the rules want every ballot (the hunter takes his own with him): a show of hands,
    # where the table reports only who had the most, cannot give them
    protocols: ClassVar[tuple[str, ...]] = (ROLL_CALL, PHONES)
    protocol_refused: ClassVar[str] = "on_no_show_of_hands"
    clocks: ClassVar[tuple[int, ...]] = CLOCKS
    bad_clock: ClassVar[str] = "on_bad_clock"
    name_lines: ClassVar[tuple[str, ...]] = ("on_ask_point", "on_out")

    def __init__(self, narrator: Any):
        super().__init__(narrator)
        self.night = NightCalls(wake=self._wake_key, sleep=sleep_key)
        self.opened: list[str] = []  # the calls made so far tonight (said aloud)

    # ------------------------------------------------------------------ the lobby

    @classmethod
    def default_setup(cls, config: TableConfig) -> None:
        config.preset, config.deck, config.options = SUGGESTED, None, {}

    @classmethod
    def deck_cards(cls, config: TableConfig) -> list[str] | None:
        """The cards this table would be dealt (None: no suggested deck for this count)."""
        if config.deck is not None:
            return [card for card, count in config.deck.items() for _ in range(count)]
        try:
            return suggested_deck(len(config.players))
        except SetupError:
            return None

    @classmethod
    def setup_doc(cls, config: TableConfig, seed: int) -> dict[str, Any]:
        # the debate clock is the table's, in the rules' own terms (they show it to all)
        minutes = config.clock // 60 if config.clock else None
        doc: dict[str, Any] = {"ruleset": cls.ruleset, "seed": seed,
                               "players": list(config.players),
                               "options": {"debate_minutes": minutes}}
        if config.deck is not None:
            doc["deck"] = cls.deck_cards(config)
        return doc

    @classmethod
    def rating(cls, config: TableConfig) -> str | None:
        cards = cls.deck_cards(config)
        return None if not cards else rating(cards)

    @classmethod
    def setup_inputs(cls, config: TableConfig) -> list[Input]:
        if config.deck is not None:
            return [Host("deck", dict(config.deck))]
        return [Host("preset", SUGGESTED)]

    def lobby(self, command: str, arg: Any) -> Reply:
        n = self.narrator
        cfg = n.config
        if command == "preset":
            if arg != SUGGESTED:
                return n.refuse("on_unknown_preset")
            cfg.preset, cfg.deck = SUGGESTED, None
            return n.ok(self._rating_cues())
        # deck: {card: how many}; the rules check it against the table when it starts
        if not isinstance(arg, dict) or not arg or not all(
            card in ROLES and isinstance(count, int) and not isinstance(count, bool)
            and 0 <= count <= MAX_PLAYERS + 3 for card, count in arg.items()
        ) or not any(arg.values()):
            return n.refuse("on_bad_deck")
        cfg.deck = {card: count for card, count in arg.items() if count}
        return n.ok(self._rating_cues())

    def heard_lobby(self, heard: Heard) -> Reply | None:
        if heard.intent == "PresetIntent":
            return self.lobby("preset", heard.slots.get("preset"))
        return None

    def _rating_cues(self) -> list[Cue]:
        cfg = self.narrator.config
        verdict = cfg.rating()
        if verdict is None:
            return [Say("preset_range", {"preset": SUGGESTED, "min": MIN_PLAYERS,
                                         "max": MAX_PLAYERS})]
        name = SUGGESTED if cfg.deck is None else "custom"
        return [Say("preset_set", {"preset": name, "rating": verdict})]

    # ------------------------------------------------------------------ the game

    def reveal_cues(self) -> list[Cue]:
        return [Say("on_look_at_card")]

    def help_key(self) -> str:
        phase = self.narrator.phase
        return f"on_help_{phase}" if phase in (NIGHT, VOTE) else f"help_{phase}"

    def begin(self) -> None:
        self.night.reset()
        self.opened = []

    def plan_night(self) -> None:
        """At nightfall: every role of the deck is called (public: from the deck alone)."""
        self.night.plan(self.narrator.game.night_calls())
        self.opened = []

    def _wake_key(self, call: str) -> str:
        if call == "werewolves" and "little_girl" in self.narrator.game.deck:
            return "on_wake_werewolves_girl"  # the little girl may peek in their call
        return wake_key(call)

    def narrate(self, events: list[dict[str, Any]]) -> list[Cue]:
        return narrate(self, events)

    def ask(self) -> list[Cue]:
        n = self.narrator
        if n.phase == NIGHT:
            return self._night()
        if n.phase == VOTE:
            return self._ask_vote()
        return list(n.prompt)

    def heard(self, heard: Heard) -> Reply:
        n = self.narrator
        if n.phase == NIGHT:
            return n.refuse("night_use_phone")
        if n.phase == DEBATE:
            if heard.intent in ("SkipClockIntent", "ReadyIntent"):
                return self._end_debate()
            return n.refuse("debate_now")
        question = n.listening()
        if question is None or question.player is None or heard.intent not in VOTE_INTENTS:
            return n.refuse("on_vote_phones" if n.config.protocol == PHONES else "not_now")
        if heard.intent != "VoteIntent":
            return n.refuse("on_vote_someone")  # «señala a la vez a otro jugador»
        raw = heard.slots.get("player")
        target = n.resolve_name(raw)
        if target is None:
            return n.refuse("unknown_name", name=str(raw or ""))
        if target == question.player:
            return n.refuse("on_point_other")
        return n.act(question.player, "vote", target)

    def tap_refusal(self, tap: Tap) -> str | None:
        n = self.narrator
        if n.phase == NIGHT:
            if tap.verb == "vote":
                return "not_now"
            # only the call in progress may choose: a choice taken early or late would
            # tell that player how long the calls around it lasted, and so the centre
            return None if self._called(tap.player) else "not_your_turn"
        if n.phase == DEBATE:
            return "not_now"  # the vote opens when the debate ends
        if tap.verb == "vote" and n.config.protocol != PHONES:
            return "vote_aloud"
        return None

    def time_up(self) -> Reply:
        n = self.narrator
        if n.timer_kind == CALL:
            return n.ok(n.advance())  # the call has lasted its time
        return self._end_debate()

    def skip_timer(self) -> Reply:
        if self.narrator.phase == DEBATE:
            return self._end_debate()
        return self.narrator.refuse("not_now")

    # ------------------------------------------------------------------ the night

    def _called(self, name: str) -> bool:
        """Whether `name` has a decision in the call in progress (the rules' call is the
        narrator's, and `name` has not answered it yet)."""
        game = self.narrator.game
        calling = self.night.calling
        if calling is None or game.current_call() != calling:
            return False
        return any(d.player == name for d in game.pending())

    def _answered(self) -> bool:
        """The call in progress asks nothing more (its card in the centre, a role that only
        looks, or its players have chosen)."""
        game = self.narrator.game
        return game.current_call() != self.night.calling or not game.pending()

    def _night(self) -> list[Cue]:
        n = self.narrator
        opened = self.night.next(n, answered=self._answered())
        if opened is None:
            return []  # the call in progress goes on: the same question stands
        if self.night.calling is not None:
            self.opened.append(self.night.calling)
            return opened
        return opened + self._dawn()  # the last call has ended

    def _dawn(self) -> list[Cue]:
        """«Todos se despiertan»: the night is over for the table too; the debate."""
        n = self.narrator
        # every call has been made and answered, so the rules are at the day already
        assert n.game.phase != "night", "the narrator's night ended before the rules'"
        n.phase = DEBATE
        minutes = n.game.options.debate_minutes
        cues: list[Cue] = [Chapter(), Say("on_dawn")]
        if minutes:
            n.start_timer(minutes * 60, "debate")
            debate: list[Cue] = [Say("on_debate_clock", {"minutes": minutes}),
                                 Clock("start", minutes * 60)]
        else:
            debate = [Say("on_debate_free")]
        n.prompt = [*debate, Listen(("SkipClockIntent", "ReadyIntent"))]
        return [*cues, *n.prompt]

    # ------------------------------------------------------------------ the day

    def _end_debate(self) -> Reply:
        """The clock ran out, or the table is ready: everybody points at once."""
        n = self.narrator
        cues: list[Cue] = [Clock("stop")] if n.game.options.debate_minutes else []
        if n.timer is None and n.timer_kind == "debate":
            cues.append(Say("on_time_up"))  # (not when the table cut the debate short)
        n.stop_timer()
        n.phase = VOTE
        countdown = "on_countdown_phones" if n.config.protocol == PHONES else "on_countdown"
        return n.ok([*cues, Chapter(), Say(countdown), *self._ask_vote()])

    def _ask_vote(self) -> list[Cue]:
        n = self.narrator
        game = n.game
        voters = [d.player for d in game.pending() if d.action == "vote"]
        first = len(voters) == len(game.players)
        cues = ask_votes(n.config.protocol, "vote", voters, game.players, VOTE_LINES,
                         VOTE_INTENTS, first)
        # a ballot came in on the phones: the others are not asked again, but "repeat" (and
        # Alexa's reprompt) still says what the phones wait for
        n.prompt = ([Say(VOTE_LINES.phones), *[c for c in cues if not isinstance(c, Say)]]
                    if n.config.protocol == PHONES else cues)
        return cues

    # ------------------------------------------------------------------ phones' views

    def player_view(self, name: str, turns: dict[str, str]) -> dict[str, Any]:
        n = self.narrator
        game = n.game
        over = n.phase == "over"
        narrated = game.night_calls() if n.phase in (DEBATE, VOTE) or over else self.opened
        view: dict[str, Any] = {"me": shown_after(private_knowledge(game, name), narrated)}
        calling = self.night.calling
        if n.phase == NIGHT and calling is not None and name in game.woken(calling):
            view["awake"] = calling  # «abre los ojos»: this player's own call is on
        turn = turns.get(name)
        if turn is None:
            return view
        if n.phase == NIGHT and self._called(name):
            view["turn"] = {"verb": turn, "targets": game.legal_targets(name, turn),
                            "as": game.acting_as(name)}
        elif n.phase == VOTE and turn == "vote" and n.config.protocol == PHONES:
            view["turn"] = {"verb": turn, "targets": game.legal_targets(name, turn)}
        return view

    def public_knowledge(self) -> dict[str, Any]:
        return {**public_knowledge(self.narrator.game), "called": list(self.opened)}

    def waiting(self) -> dict[str, Any]:
        """Only the day's voters: at night, whom the rules wait for would say who holds
        the card being called (or that it lies in the centre)."""
        n = self.narrator
        if n.phase != VOTE:
            return {}
        return {"players": [d.player for d in n.game.pending() if d.action == "vote"]}
