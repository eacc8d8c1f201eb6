"""The Werewords script (seed 004): the mayor, the magic word, the tokens, the two endings.

Phases (`narrator.phase`):

- `night`: the calls of the deck (`game.night_calls()`), one at a time, each held open
  `call_pause` seconds of ticks (narrator/calls.py). The mayor's call shows the secret role
  and the word choice on the mayor's phone; the seer's and the werewolves' show the word,
  the minion's the werewolves, the beholder's the seer. A phone shows a fact only once its
  call has been made (`shown_after`). The rules are in their day as soon as the word is
  chosen; the narrator's day starts when the last call is over.
- `ww_day`: the day's timer (`options.day_seconds`), with "one minute left" and "ten
  seconds"; the mayor taps tokens on the phone, each said aloud once given. A token is held
  back `TAKE_BACK_SECONDS` of ticks before the rules and the table get it, so a mistaken tap
  taken back in that window never reaches the rules (see `HeldToken`).
- `ww_hunt` (the word guessed): the werewolves show themselves and have 15 seconds to point
  at the seer; then the narrator presses them (on their phones, or by name, aloud).
- `ww_discuss` (not guessed): one minute of talk, then the countdown to point.
- `ww_point`: everybody points at a werewolf, on the phones or aloud one by one.

"Whoops" (the host aloud or from the host's page, the mayor on the phone) swaps the ending
while the rules allow it. The pointing is by phone with the `phones` protocol; with
`roll_call` (and `show_of_hands`, which cannot give the rules each player's pointing) every
player points at once and then says, when asked by name, whom they pointed at.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, ClassVar

from narrator.calls import CALL, NightCalls
from narrator.cues import Chapter, Clock, Cue, Heard, Host, Input, Listen, Reply, Say, Tap, Wait
from narrator.protocols import NAME_ANSWER
from narrator.scripts.base import Script
from narrator.scripts.werewords_lines import narrate
from narrator.scripts.werewords_setup import SETUP_FORM
from narrator.table import TableConfig
from rules.core import CLOCK, TABLE, Refused
from rules.werewords.knowledge import private_knowledge, public_knowledge, shown_after
from rules.werewords.options import DAY_SECONDS, WORDS_OFFERED
from rules.werewords.roles import CARD_ORDER, OPTIONAL_ROLES
from rules.werewords.setup import MAX_PLAYERS, MIN_PLAYERS
from rules.werewords.wordlists import LANGUAGES as WORD_LANGUAGES
from rules.werewords.wordlists import LEVELS

NIGHT = "night"
DAY = "ww_day"
HUNT = "ww_hunt"
DISCUSS = "ww_discuss"
POINT = "ww_point"
ENDING_PHASES = (HUNT, DISCUSS, POINT)

# the narrator's timers (timer_kind)
DAY_TIMER = "ww_day"
HUNT_TIMER = "ww_hunt"
DISCUSS_TIMER = "ww_discuss"
HUNT_SECONDS = 15  # «El Hombre Lobo tiene solo 15 segundos para resolver esto»
DISCUSS_SECONDS = 60  # «los jugadores tienen un minuto para discutir»
# the spoken warnings: seconds left -> line
WARNINGS: dict[str, dict[int, str]] = {
    DAY_TIMER: {60: "ww_one_minute_left", 10: "ww_ten_seconds_left"},
    DISCUSS_TIMER: {10: "ww_ten_seconds_left"},
}
# how long a tapped token waits before it is given (and may be taken back meanwhile)
TAKE_BACK_SECONDS = 4.0

POINT_ANSWERS = (*NAME_ANSWER, "PointIntent", "WhoopsIntent")
SKIP = ("SkipClockIntent", "ReadyIntent")
# in config.options: the last game's mayor, for the next deal (play again)
LAST_MAYOR = "last_mayor"
OPTION_KEYS = ("difficulty", "day_seconds", "words_offered", *OPTIONAL_ROLES, "language",
               LAST_MAYOR)


@dataclass(frozen=True)
class HeldToken:
    """A token the mayor tapped, not given yet: the rules and the table get it when the
    day's timer reaches `until` (TAKE_BACK_SECONDS after the tap), unless it is taken back.
    Nothing about it is public meanwhile; only the mayor's phone shows it."""

    to: str
    token: str
    until: float

    def target(self) -> dict[str, str]:
        return {"to": self.to, "token": self.token}


def _whole(value: Any) -> int | None:
    """A spoken or typed number (Alexa sends slot values as text)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        return int(value.strip())  # "²" is a digit to isdigit(), not to int()
    return None


class WerewordsScript(Script):
    ruleset: ClassVar[str] = "werewords"
    setup_form = SETUP_FORM
    min_players: ClassVar[int] = MIN_PLAYERS
    max_players: ClassVar[int] = MAX_PLAYERS
    undoable: ClassVar[tuple[str, ...]] = ("vote", "guess_seer")
    undo_phases: ClassVar[tuple[str, ...]] = (HUNT, POINT)
    after_reveal: ClassVar[str] = NIGHT
    setup_commands: ClassVar[tuple[str, ...]] = ("option", "deck")
    lobby_intents: ClassVar[tuple[str, ...]] = (
        "WordsDifficultyIntent", "DayTimerIntent", "WordsOfferedIntent", "WerewordsRoleIntent",
        "WerewordsNoRoleIntent")

    def __init__(self, narrator: Any):
        super().__init__(narrator)
        self.night = NightCalls(wake=self._wake_key, sleep=self._sleep_key)
        self.called: list[str] = []  # the night calls made so far (their facts may show)
        self.day_open = False  # the narrator's day has started (the night's calls are over)
        self.held: HeldToken | None = None
        self.pressed = False  # the hunt's 15 seconds are over: the werewolves must point now
        self.discussed = False  # the minute of discussion is over: everybody points

    # ------------------------------------------------------------------ the lobby

    @classmethod
    def default_setup(cls, config: TableConfig) -> None:
        config.preset, config.deck, config.options = None, None, {}

    @classmethod
    def setup_doc(cls, config: TableConfig, seed: int) -> dict[str, Any]:
        options = {k: v for k, v in config.options.items() if k != LAST_MAYOR}
        doc: dict[str, Any] = {"ruleset": cls.ruleset, "seed": seed,
                               "players": list(config.players)}
        if config.deck is not None:
            # a deck of its own says which optional roles play
            for role in OPTIONAL_ROLES:
                options.pop(role, None)
            doc["deck"] = dict(config.deck)
        doc["options"] = options
        last = config.options.get(LAST_MAYOR)
        if last in config.players:
            # «el jugador a la izquierda del último jugador que fue Alcalde»
            doc["last_mayor"] = last
        return doc

    def game_doc(self, seed: int) -> dict[str, Any]:
        doc = self.setup_doc(self.narrator.config, seed)
        # the words are in the table's language unless the host chose another list
        doc["options"].setdefault("language", self.narrator.lang)
        return doc

    @classmethod
    def setup_inputs(cls, config: TableConfig) -> list[Input]:
        inputs: list[Input] = []
        if config.deck is not None:
            inputs.append(Host("deck", dict(config.deck)))
        for key, value in config.options.items():
            inputs.append(Host("option", [key, value]))
        return inputs

    def lobby(self, command: str, arg: Any) -> Reply:
        n = self.narrator
        cfg = n.config
        if command == "deck":
            if arg is None:
                cfg.deck = None  # back to the seed's own deck
                return n.ok([Say("ww_deck_standard")])
            if not isinstance(arg, dict) or not all(
                    k in CARD_ORDER and isinstance(v, int) and not isinstance(v, bool)
                    and v >= 0 for k, v in arg.items()):
                return n.refuse("not_understood")  # the rules check the deck at the deal
            cfg.deck = dict(arg)
            return n.ok([Say("ww_deck_set", {"count": sum(cfg.deck.values())})])
        key, value = arg if isinstance(arg, list) and len(arg) == 2 else (None, None)
        said = self._option_line(key, value)
        if said is None:
            return n.refuse(self._option_problem(key))
        cfg.options[key] = value
        return n.ok([said])

    def _option_line(self, key: Any, value: Any) -> Say | None:
        """What the table hears when the option is set, or None: not a valid value."""
        if key == "difficulty" and value in LEVELS:
            return Say(f"ww_difficulty_{value}")
        whole = isinstance(value, int) and not isinstance(value, bool)
        if key == "day_seconds" and whole and value % 60 == 0 and (
                DAY_SECONDS[0] <= value <= DAY_SECONDS[1]):
            return Say("ww_day_set", {"minutes": value // 60})
        if key == "words_offered" and whole and (
                WORDS_OFFERED[0] <= value <= WORDS_OFFERED[1]):
            return Say("ww_words_offered_set", {"count": value})
        if key in OPTIONAL_ROLES and isinstance(value, bool):
            return Say(f"ww_{key}_{'on' if value else 'off'}")
        if key == "language" and value in WORD_LANGUAGES:
            return Say(f"ww_words_in_{value}")
        if key == LAST_MAYOR and value in self.narrator.config.players:
            return Say("ww_last_mayor_set", {"name": value})
        return None

    @staticmethod
    def _option_problem(key: Any) -> str:
        problems = {"day_seconds": "ww_bad_day", "words_offered": "ww_bad_words_offered",
                    "difficulty": "ww_bad_difficulty"}
        return problems.get(key, "not_understood") if isinstance(key, str) else "not_understood"

    def heard_lobby(self, heard: Heard) -> Reply | None:
        slots = heard.slots
        if heard.intent == "WordsDifficultyIntent":
            return self.lobby("option", ["difficulty", slots.get("difficulty")])
        if heard.intent in ("DayTimerIntent", "ClockIntent"):
            # in Werewords "the clock" is the day's timer
            minutes = _whole(slots.get("minutes"))
            return self.lobby("option", ["day_seconds", -1 if minutes is None else minutes * 60])
        if heard.intent == "WordsOfferedIntent":
            return self.lobby("option", ["words_offered", _whole(slots.get("count"))])
        if heard.intent in ("WerewordsRoleIntent", "WerewordsNoRoleIntent"):
            role = slots.get("ww_role")
            on = heard.intent == "WerewordsRoleIntent" and slots.get("toggle") != "off"
            return self.lobby("option", [role, on])
        return None

    # ------------------------------------------------------------------ the game

    def begin(self) -> None:
        self.night.reset()
        self.called, self.day_open, self.held = [], False, None
        self.pressed = self.discussed = False

    def narrate(self, events: list[dict[str, Any]]) -> list[Cue]:
        return narrate(self, events)

    @property
    def phones(self) -> bool:
        return self.narrator.config.protocol == "phones"

    def ask(self) -> list[Cue]:
        n = self.narrator
        game = n.game
        if not self.day_open:
            n.phase = NIGHT
            return self._night()
        phase = game.phase
        if phase == "day":
            n.phase = DAY
            n.prompt = []  # nothing to say aloud: the mayor answers on the phone
        elif phase == "seer_hunt":
            n.phase = HUNT
            self._ask_hunt()
        elif phase == "final_vote" and not self.discussed:
            n.phase = DISCUSS
            n.prompt = [Listen((*SKIP, "WhoopsIntent"))]
        elif phase == "final_vote":
            n.phase = POINT
            self._ask_point()
        return list(n.prompt)

    def _ask_hunt(self) -> None:
        n = self.narrator
        game = n.game
        wolves = [d.player for d in game.pending() if d.action == "guess_seer"]
        if self.phones:
            n.prompt = [Wait(tuple(wolves), "guess_seer")]
        elif not self.pressed:
            n.prompt = []  # they talk it over for 15 seconds; asked by name after
        else:
            wolf = wolves[0]
            n.prompt = [Say("ww_ask_seer", {"name": wolf}),
                        Listen(POINT_ANSWERS, wolf,
                               names=tuple(game.legal_targets(wolf, "guess_seer")))]

    def _ask_point(self) -> None:
        n = self.narrator
        game = n.game
        voters = [d.player for d in game.pending() if d.action == "vote"]
        if self.phones:
            n.prompt = [Wait(tuple(voters), "vote")]
            return
        voter = voters[0]
        n.prompt = [Say("ww_ask_point", {"name": voter}),
                    Listen(POINT_ANSWERS, voter,
                           names=tuple(p for p in game.players if p != voter))]

    # ------------------------------------------------------------------ the night

    def _wake_key(self, call: str) -> str:
        if call == "werewolves" and dict(self.narrator.game.setup.deck).get("werewolf") == 1:
            return "ww_wake_werewolf"  # the deck is public: one werewolf is called as one
        return f"ww_wake_{call}"

    def _sleep_key(self, call: str) -> str:
        if call == "werewolves" and dict(self.narrator.game.setup.deck).get("werewolf") == 1:
            return "ww_sleep_werewolf"
        return f"ww_sleep_{call}"

    def plan_night(self) -> None:
        self.night.plan(self.narrator.game.night_calls())

    def _night(self) -> list[Cue]:
        """The next call once the one in progress has lasted its time (and the mayor has
        chosen the word, for the mayor's); after the last, the day."""
        n = self.narrator
        cues = self.night.next(n, answered=n.game.phase != "night")
        if cues is None:
            return []  # the call in progress goes on
        if self.night.calling is not None:
            self.called.append(self.night.calling)
            return cues
        return cues + self._open_day()

    def _open_day(self) -> list[Cue]:
        n = self.narrator
        self.day_open = True
        seconds = n.game.options.day_seconds
        n.start_timer(seconds, DAY_TIMER)
        n.phase = DAY
        n.prompt = []
        return [Chapter(), Say("ww_day_starts", {"minutes": seconds // 60}),
                Clock("start", seconds, "ww_continue_day")]

    # ------------------------------------------------------------------ the endings

    def end_day(self) -> list[Cue]:
        """The day is over (guessed, no more tokens, time up): its timer stops."""
        n = self.narrator
        if n.timer_kind == DAY_TIMER:
            n.stop_timer()
        self.held = None
        return [Clock("stop"), Chapter()]

    def begin_hunt(self, wolves: list[str]) -> list[Cue]:
        n = self.narrator
        self.pressed = False
        if len(wolves) == 1:
            cues: list[Cue] = [Say("ww_werewolf_shows", {"name": wolves[0]}),
                               Say("ww_hunt_one", {"seconds": HUNT_SECONDS})]
        else:
            cues = [Say("ww_werewolves_show", {"names": wolves}),
                    Say("ww_hunt_many", {"seconds": HUNT_SECONDS})]
        if self.phones:
            cues.append(Say(f"ww_hunt_phones_{self._wolves_count()}"))
        n.start_timer(HUNT_SECONDS, HUNT_TIMER)
        return [*cues, Clock("start", HUNT_SECONDS, "ww_continue_hunt")]

    def begin_discussion(self) -> list[Cue]:
        n = self.narrator
        self.discussed = False
        n.start_timer(DISCUSS_SECONDS, DISCUSS_TIMER)
        return [Say("ww_discuss", {"minutes": DISCUSS_SECONDS // 60}),
                Clock("start", DISCUSS_SECONDS, "ww_continue_discuss")]

    def stop_ending(self) -> list[Cue]:
        """Whoops: the ending in progress is dropped, its time with it."""
        n = self.narrator
        self.pressed = self.discussed = False
        if n.timer_kind in (HUNT_TIMER, DISCUSS_TIMER) and n.timer is not None:
            n.stop_timer()
            return [Clock("stop")]
        return []

    def _press_hunt(self) -> Reply:
        n = self.narrator
        n.stop_timer()
        self.pressed = True
        said = "ww_hunt_now_phones" if self.phones else "ww_hunt_now"
        return n.ok([Clock("stop"), Say(f"{said}_{self._wolves_count()}"), *self.ask()])

    def _wolves_count(self) -> str:
        """The lines speak to one werewolf ("one") or to the pack ("many"): public once
        they have shown themselves)."""
        return "one" if len(self.narrator.game.werewolves()) == 1 else "many"

    def _countdown(self) -> Reply:
        n = self.narrator
        n.stop_timer()
        self.discussed = True
        said = "ww_point_phones" if self.phones else "ww_point_tell"
        return n.ok([Clock("stop"), Say("ww_countdown"), Say(said), *self.ask()])

    # ------------------------------------------------------------------ time

    def time_up(self) -> Reply:
        n = self.narrator
        kind = n.timer_kind
        if kind == CALL:
            return n.ok(n.advance())  # the call has lasted its time: the next one
        if kind == HUNT_TIMER:
            return self._press_hunt()
        if kind == DISCUSS_TIMER:
            return self._countdown()
        # the day: a token tapped in time is given first (it may end the day itself)
        cues = self._give_held() if self.held is not None else []
        if n.game.phase == "day":
            n.game.apply(CLOCK, "time_up", None)
            n.actions.append([CLOCK, "time_up", None])
            cues += n.advance()
        return n.ok(cues)

    def time_passed(self, before: float, after: float) -> list[Cue]:
        n = self.narrator
        kind = n.timer_kind
        cues: list[Cue] = []
        if kind == DAY_TIMER and self.held is not None and after <= self.held.until:
            cues += self._give_held()
        if n.timer_kind == kind and n.timer is not None and after > 0:
            # only the last warning passed is said (a long step says one, not two)
            crossed = [s for s in WARNINGS.get(kind, {}) if after <= s < before]
            if crossed:
                cues.append(Say(WARNINGS[kind][min(crossed)]))
        return cues

    def due(self) -> float | None:
        n = self.narrator
        if n.timer is None:
            return None
        marks = [n.timer - s for s in WARNINGS.get(n.timer_kind, {}) if n.timer > s]
        if n.timer_kind == DAY_TIMER and self.held is not None:
            marks.append(n.timer - self.held.until)
        return min(marks) if marks else None

    def skip_timer(self) -> Reply:
        n = self.narrator
        if n.phase == DISCUSS and not self.discussed:
            return self._countdown()
        if n.phase == HUNT and not self.pressed and n.timer_kind == HUNT_TIMER:
            return self._press_hunt()
        return n.refuse("not_now")

    # ------------------------------------------------------------------ voice

    def heard(self, heard: Heard) -> Reply:
        n = self.narrator
        intent = heard.intent
        if intent == "WhoopsIntent":
            if n.phase not in ENDING_PHASES:
                return n.refuse("ww_no_whoops")
            return n.act(TABLE, "whoops", None)
        if n.phase == NIGHT:
            return n.refuse("night_use_phone")
        if n.phase == DAY:
            return n.refuse("ww_day_tokens")
        if intent in SKIP and ((n.phase == DISCUSS and not self.discussed)
                               or (n.phase == HUNT and not self.pressed)):
            return self.skip_timer()
        if n.phase == DISCUSS:
            return n.refuse("ww_discuss_now")
        question = n.listening()
        if question is None or question.player is None or intent not in question.intents:
            return n.refuse("ww_hunt_talk" if n.phase == HUNT and not self.pressed
                            else "not_now")
        raw = heard.slots.get("player")
        target = n.resolve_name(raw)
        if target is None:
            return n.refuse("unknown_name", name=str(raw or ""))
        return n.act(question.player, "guess_seer" if n.phase == HUNT else "vote", target)

    # ------------------------------------------------------------------ phones

    def tap_refusal(self, tap: Tap) -> str | None:
        n = self.narrator
        game = n.game
        verb = tap.verb
        if verb == "choose_word":
            if n.phase != NIGHT or self.night.calling != "mayor" or game.phase != "night":
                return "not_your_turn"  # only while the mayor is called
        elif verb in ("answer", "take_back"):
            if tap.player != game.mayor_name:
                return "not_your_turn"
            if n.phase != DAY:
                return "not_now"
            if verb == "take_back" and self.held is None:
                return "nothing_to_take_back"
        elif verb == "whoops":
            if n.phase not in ENDING_PHASES:
                return "not_now"
        elif verb in ("guess_seer", "vote"):
            if not self.phones:
                return "vote_aloud"
            if n.phase != (HUNT if verb == "guess_seer" else POINT):
                return "not_now"
        return None

    def take(self, tap: Tap) -> Reply:
        if tap.verb == "answer":
            return self._hold(tap)
        if tap.verb == "take_back":
            self.held = None  # it never reached the rules: nothing else to undo
            return self.narrator.ok(self.narrator.advance())
        return self.narrator.apply_tap(tap)

    def _hold(self, tap: Tap) -> Reply:
        """A token is checked now (on a copy of the game with the token still held given
        first) and held back; the one still held is given now, said aloud."""
        n = self.narrator
        probe = self._after_held()
        try:
            if probe.phase != "day":
                raise Refused("the day is over: no more answers")
            probe.apply(tap.player, "answer", tap.target)
        except Refused as refusal:
            return n.tap_refused(tap, refusal.reason)
        cues = self._give_held() if self.held is not None else []
        assert n.timer is not None  # the day's timer runs while tokens are given
        self.held = HeldToken(tap.target["to"], tap.target["token"],
                              n.timer - TAKE_BACK_SECONDS)
        return n.ok(cues + n.advance())

    def _after_held(self) -> Any:
        """A copy of the game with the token still held given (what the next tap meets)."""
        probe = copy.deepcopy(self.narrator.game)
        if self.held is not None:
            probe.apply(probe.mayor_name, "answer", self.held.target())
        return probe

    def _give_held(self) -> list[Cue]:
        n = self.narrator
        held, self.held = self.held, None
        assert held is not None
        # checked on a copy of this very game state when it was tapped: it cannot fail
        n.game.apply(n.game.mayor_name, "answer", held.target())
        n.actions.append([n.game.mayor_name, "answer", held.target()])
        return n.advance()

    # ------------------------------------------------------------------ phones' views

    def player_view(self, name: str, turns: dict[str, str]) -> dict[str, Any]:
        n = self.narrator
        game = n.game
        me = shown_after(private_knowledge(game, name), self.called)
        view: dict[str, Any] = {"me": me}
        mayor = name == game.mayor_name
        if n.phase == NIGHT:
            if mayor and self.night.calling == "mayor" and game.phase == "night":
                view["turn"] = {"verb": "choose_word", "targets": list(game.words)}
        elif n.phase == DAY and mayor:
            probe = self._after_held()
            view["turn"] = {"verb": "answer",
                            "targets": probe.legal_targets(name, "answer")
                            if probe.phase == "day" else []}
            # the mayor's own: the tokens left once the held one is given, and the held one
            me["tokens_left"] = probe.tokens_left()
            me["held"] = None if self.held is None else self.held.target()
        elif n.phase in (HUNT, POINT) and self.phones:
            verb = "guess_seer" if n.phase == HUNT else "vote"
            if turns.get(name) == verb:
                view["turn"] = {"verb": verb, "targets": game.legal_targets(name, verb)}
        if mayor and n.phase in ENDING_PHASES:
            me["whoops"] = True  # the mayor's phone has the whoops button
        return view

    def waiting(self) -> dict[str, Any]:
        """Whom the host's screen may show as awaited: the pointing players once pointing
        is open, the werewolves (shown by then) in the seer hunt; nobody otherwise (during
        the minute of talk nobody may point yet, at night a name would say who is called)."""
        n = self.narrator
        if n.phase not in (POINT, HUNT):
            return {}
        verb = "vote" if n.phase == POINT else "guess_seer"
        return {"players": [d.player for d in n.game.pending() if d.action == verb]}

    def public_knowledge(self) -> dict[str, Any]:
        game = self.narrator.game
        public = public_knowledge(game)
        if not self.day_open and game.winner is None:
            # the rules are in their day once the word is chosen; the table is not until
            # the night's calls are over
            public["phase"] = "night"
            public["current_call"] = self.night.calling
        return public
