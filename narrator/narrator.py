"""The narrator: one I/O-free state machine that runs a whole table, lobby to final reveal.

It turns the rules' pending decisions into a conversation (cues) and what it hears or
receives (inputs) into game actions. It never reads a clock or a device: time passes by
`Tick` inputs, and its whole state is the replay of the inputs it accepted, so a store that
keeps those inputs keeps the table.

Every input gets a `Reply`: whether it was accepted (and so must be stored) and the cues
to execute. An input the narrator cannot use (nonsense, an unknown or dead name, a vote out
of turn) is not accepted: it gets a short reason and the same question again.

This module is the game-neutral core: the lobby (players, seats, the game, language, voting
protocol, clock), the deal and "look at your phone", pause/resume/repeat, the timer, taps
and spoken answers, undo and the phones' views. What depends on the game (its set-up, what
to call and when, what each phone shows, what the table hears) is the ruleset's script in
`narrator/scripts/` (`narrator.scripts.script_class`).
"""

from __future__ import annotations

from typing import Any

from narrator.cues import (
    Chapter,
    Clock,
    Cue,
    Heard,
    Host,
    Input,
    Listen,
    Pause,
    Record,
    Reply,
    Say,
    SharedTap,
    Show,
    Tap,
    Tick,
)
from narrator.protocols import ALWAYS, NAME_ANSWER, NOBODY_ANSWER, YES_NO
from narrator.scripts import DEFAULT_RULESET, lobby_intents, script_class
from narrator.scripts.base import Script
from narrator.table import LANGUAGES, PROTOCOLS, TableConfig
from rules.core import Refused, SetupError
from rules.names import name_problem, same_name
from rules.replay import start as start_game

__all__ = ["ALWAYS", "LOBBY_INTENTS", "NAME_ANSWER", "Narrator", "Reply"]

LOBBY = "lobby"
REVEAL = "reveal"
OVER = "over"

DEFAULT_CALL_PAUSE = 12.0
TOLD = (Say, Pause, Clock)  # what the table hears (a Show is one phone's secret)

# What the lobby understands: the core's set-up and every game's own.
CORE_LOBBY_INTENTS = (
    "JoinIntent",
    "GameIntent",
    "VotingIntent",
    "ClockIntent",
    "PlayTooIntent",
    "StartGameIntent",
    "NewGameIntent",
)
LOBBY_INTENTS = (*CORE_LOBBY_INTENTS[:1], *lobby_intents(), *CORE_LOBBY_INTENTS[1:])


class Narrator:
    def __init__(self, lang: str = "en", seed: int = 0, call_pause: float = DEFAULT_CALL_PAUSE):
        if lang not in LANGUAGES:
            raise ValueError(f"unknown language {lang!r} (known: {', '.join(LANGUAGES)})")
        self.lang = lang
        self.seed = seed
        self.call_pause = call_pause
        self.config = TableConfig()
        self.script: Script = script_class(self.config.ruleset)(self)
        self.phase = LOBBY
        self.game: Any = None
        self.actions: list[list[Any]] = []
        self.games_started = 0
        self.narrated = 0  # how many of the game's events have been told
        self.timer: float | None = None  # seconds left on the running timer, if one runs
        self.timer_kind = ""  # what it times: "debate", "call" (a night call held open)...
        self.paused = False
        self.prompt: list[Cue] = []  # the current question, for "repeat"
        self.shown: dict[str, dict[str, Any]] = {}
        # every cue the table heard from accepted inputs (Say, Pause, Clock: never a private
        # Show), in order, so any mouth can catch up (the host's phone reads it); `chapters`
        # are where each part of the game starts in it (the script's Chapter marks)
        self.told: list[Cue] = []
        self.chapters: list[int] = [0]
        # an answer the recogniser was unsure of, waiting for a yes (aloud, or one tap on the
        # voter's phone), with the question it answered
        self.confirming: tuple[Heard, list[Cue]] | None = None

    # ------------------------------------------------------------------ replay

    @classmethod
    def restore(cls, setup: dict[str, Any], inputs: list[Input]) -> Narrator:
        """Rebuild a table from its stored set-up and accepted inputs."""
        narrator = cls(
            lang=setup.get("lang", "en"),
            seed=setup.get("seed", 0),
            call_pause=setup.get("call_pause", DEFAULT_CALL_PAUSE),
        )
        for inp in inputs:
            narrator.handle(inp)
        return narrator

    def setup_doc(self) -> dict[str, Any]:
        return {"lang": self.lang, "seed": self.seed, "call_pause": self.call_pause}

    def lobby_inputs(self) -> list[Input]:
        """Host inputs that rebuild this table's lobby (players and set-up) from scratch."""
        cfg = self.config
        inputs: list[Input] = []
        for name in cfg.players:
            inputs.append(Host("host_plays" if name == cfg.host else "join", name))
        if cfg.ruleset != DEFAULT_RULESET:
            inputs.append(Host("game", cfg.ruleset))
        inputs += type(self.script).setup_inputs(cfg)
        inputs += [Host("protocol", cfg.protocol), Host("clock", cfg.clock)]
        return inputs

    # ------------------------------------------------------------------ inputs

    def handle(self, inp: Input) -> Reply:
        reply = self._handle(inp)
        if any(isinstance(c, Chapter) for c in reply.cues):
            if reply.accepted:
                for cue in reply.cues:
                    if isinstance(cue, Chapter):
                        self.chapters.append(len(self.told))
                    elif isinstance(cue, TOLD):
                        self.told.append(cue)
            reply.cues = [c for c in reply.cues if not isinstance(c, Chapter)]
        elif reply.accepted:
            self.told += [c for c in reply.cues if isinstance(c, TOLD)]
        return reply

    def _handle(self, inp: Input) -> Reply:
        if isinstance(inp, Tick):
            return self._tick(inp.seconds)
        if isinstance(inp, Host):
            return self._host(inp.command, inp.arg)
        if isinstance(inp, Tap):
            return self._tap(inp)
        if isinstance(inp, SharedTap):
            return self._shared_tap(inp)
        if isinstance(inp, Heard):
            return self._heard(inp)
        return self.refuse("not_understood")

    def told_since(self, index: int) -> list[Cue]:
        """What the table has heard after the first `index` told cues."""
        return self.told[max(0, index):]

    def story(self) -> list[dict[str, Any]]:
        """The lines of the last two parts of the game (say, the vote and the night that
        followed it), for every screen to show: all of it was said aloud."""
        start = self.chapters[-2] if len(self.chapters) > 1 else 0
        return [{"key": c.key, "params": dict(c.params)} for c in self.told[start:]
                if isinstance(c, Say)]

    def current_prompt(self) -> list[Cue]:
        return list(self.prompt)

    def listening(self) -> Listen | None:
        """What the microphone should listen for now (the box builds its grammar from it)."""
        for cue in reversed(self.prompt):
            if isinstance(cue, Listen):
                return cue
        return None

    def rating(self) -> str | None:
        return self.config.rating()

    # ------------------------------------------------------------------ for the scripts

    def refuse(self, key: str, **params: Any) -> Reply:
        """Not taken: a short reason, then the same question again."""
        return Reply(False, [Say(key, params), *self.prompt])

    def ok(self, cues: list[Cue]) -> Reply:
        return Reply(True, cues)

    def answers_ahead(self) -> list[Say]:
        """What the narrator would say first to each answer it listens for now that names
        a player (each player who may be named, and nobody): the lines up to its next
        question, worked out on copies of itself (nothing here changes). The box's mouth
        makes these ahead while the question is spoken, so that the answer to a last vote
        that ties ("It's a tie between Tamsin, Siobhan and Ben.", a line no name's lines
        hold) starts at once."""
        from copy import deepcopy

        listen = self.listening()
        if listen is None or not listen.names or self.paused or self.confirming:
            return []
        named = next((i for i in listen.intents if i in NAME_ANSWER), None)
        if named is None:
            return []
        answers = [Heard(named, {"player": name}, listen.player) for name in listen.names]
        answers += [Heard(i, {}, listen.player) for i in listen.intents
                    if i in NOBODY_ANSWER][:1]
        out: list[Say] = []
        for heard in answers:
            reply = deepcopy(self).handle(heard)
            if not reply.accepted:
                continue
            for cue in reply.cues:
                if isinstance(cue, Listen):
                    break
                if isinstance(cue, Say) and cue not in out:
                    out.append(cue)
        return out

    def living_names(self) -> tuple[str, ...]:
        return tuple(self.game.alive_names()) if self.game else tuple(self.config.players)

    def resolve_name(self, raw: Any) -> str | None:
        """The player a spoken or typed name means (exact, ignoring case), or None."""
        if not isinstance(raw, str):
            return None
        names = self.game.players if self.game else self.config.players
        folded = raw.strip().casefold()
        return next((n for n in names if n.casefold() == folded), None)

    def act(self, actor: str, verb: str, target: Any) -> Reply:
        """A spoken answer as a game action: taken, told and the next question asked, or
        refused aloud with the reason."""
        try:
            self.game.apply(actor, verb, target)
        except Refused as refusal:
            return self.refuse("cannot", reason=refusal.reason)
        self.actions.append([actor, verb, target])
        return self.ok(self.advance())

    def advance(self) -> list[Cue]:
        """After an accepted action: tell what happened, then ask what comes next."""
        self.confirming = None  # the question it confirmed has been answered
        cues = self.script.narrate(self.game.events[self.narrated:])
        self.narrated = len(self.game.events)
        if self.game.winner is not None:
            cues += self._views()
            self.phase = OVER
            self.timer = None
            self.prompt = [Listen(("NewGameIntent",))]
            return cues
        asked = self.script.ask()
        # the phones as they are once the question is asked (a night call it opened shows
        # its choice on the called phone)
        return cues + self._views() + asked

    def start_timer(self, seconds: float, kind: str) -> None:
        """Run the timer (the debate clock, a night call held open, a day's timer): Ticks
        count it down and the script hears `time_up` when it runs out."""
        self.timer = float(seconds)
        self.timer_kind = kind

    def stop_timer(self) -> None:
        self.timer = None

    def timer_due(self) -> float | None:
        """Seconds until the running timer next needs to hear that time passed: its end,
        or sooner a moment the script waits for (a spoken warning, a tap held back), so a
        mouth that lets time pass in steps knows when to send the next Tick."""
        if self.timer is None:
            return None
        due = self.script.due()
        return self.timer if due is None else max(0.0, min(self.timer, due))

    # ------------------------------------------------------------------ host commands

    def _host(self, command: str, arg: Any) -> Reply:
        if command == "repeat":
            return Reply(False, list(self.prompt))
        if command == "ears":
            # a box with a microphone joins the table (or leaves it), at any moment
            if not isinstance(arg, bool) or arg == self.config.ears:
                return Reply(False, [])
            self.config.ears = arg
            return self.ok([])
        if command == "pause":
            if self.paused or self.phase == LOBBY:
                return Reply(False, [Say("not_now"), *self.prompt])
            self.paused = True
            return self.ok([Say("paused")])
        if command == "resume":
            if not self.paused:
                return Reply(False, list(self.prompt))
            self.paused = False
            return self.ok([Say("resumed"), *self.prompt])
        if self.paused:
            return Reply(False, [Say("is_paused")])
        if command == "skip_clock":
            return self.script.skip_timer() if self.game is not None else self.refuse("not_now")
        if command == "undo_vote":
            return self._undo_vote()
        if command == "new_game":
            return self._new_game()
        if self.phase != LOBBY:
            return self.refuse("not_now")
        return self._lobby(command, arg)

    # ------------------------------------------------------------------ lobby

    def _lobby(self, command: str, arg: Any) -> Reply:
        cfg = self.config
        if command in ("join", "host_plays"):
            name = arg.strip() if isinstance(arg, str) else ""
            problem = name_problem(name, cfg.players)
            if problem is not None:
                return self.refuse(problem, name=same_name(name, cfg.players) or name)
            if len(cfg.players) >= self.script.max_players:
                return self.refuse("table_full", count=self.script.max_players)
            cfg.players.append(name)
            if command == "host_plays":
                cfg.host = name
            joined = [Say("joined", {"name": name, "seat": len(cfg.players)})]
            return self.ok(joined + self._record_name(name))
        if command == "record_name":
            name = cfg.find(arg) if isinstance(arg, str) else None
            if name is None or not cfg.ears:
                return self.refuse("unknown_name" if cfg.ears else "not_now", name=str(arg))
            return self.ok(self._record_name(name))
        if command == "leave":
            name = cfg.find(arg) if isinstance(arg, str) else None
            if name is None:
                return self.refuse("unknown_name", name=str(arg))
            cfg.players.remove(name)
            return self.ok([Say("left", {"name": name, "count": len(cfg.players)})])
        if command == "seats":
            if (not isinstance(arg, list) or not all(isinstance(n, str) for n in arg)
                    or sorted(arg) != sorted(cfg.players)):
                return self.refuse("not_understood")
            cfg.players = list(arg)
            return self.ok([])
        if command in self.script.setup_commands:
            return self.script.lobby(command, arg)
        if command == "game":
            return self._choose_game(arg)
        if command == "protocol":
            if not isinstance(arg, str) or arg not in PROTOCOLS:
                return self.refuse("not_understood")
            if arg not in self.script.protocols:
                return self.refuse(self.script.protocol_refused)
            cfg.protocol = arg
            return self.ok([Say("protocol_set", {"protocol": arg})])
        if command == "clock":
            if type(arg) is not int or arg not in self.script.clocks:
                return self.refuse(self.script.bad_clock)
            cfg.clock = arg
            if not arg:
                return self.ok([Say("clock_none")])
            return self.ok([Say("clock_set", {"minutes": arg // 60})])
        if command == "language":
            if not isinstance(arg, str) or arg not in LANGUAGES:
                return self.refuse("not_understood")
            self.lang = arg
            return self.ok([Say("language_set")])
        if command == "start":
            return self._start()
        return self.refuse("not_understood")

    def _record_name(self, name: str) -> list[Cue]:
        """With a box listening: the player says their own name once, for its ears."""
        if not self.config.ears:
            return []
        return [Say("say_your_name", {"name": name}), Record(name)]

    def _choose_game(self, ruleset: Any) -> Reply:
        """Another game at this table: its script, and its own set-up from its defaults."""
        try:
            chosen = script_class(ruleset)
        except (KeyError, TypeError):
            return self.refuse("unknown_game")
        if len(self.config.players) > chosen.max_players:
            return self.refuse("table_full", count=chosen.max_players)
        self.config.ruleset = chosen.ruleset
        chosen.default_setup(self.config)
        self.script = chosen(self)
        cues: list[Cue] = [Say("game_set", {"game": chosen.ruleset})]
        if self.config.protocol not in chosen.protocols:
            # a vote this game cannot take (One Night needs every ballot): its first one
            self.config.protocol = chosen.protocols[0]
            cues.append(Say("protocol_set", {"protocol": self.config.protocol}))
        if self.config.clock not in chosen.clocks:
            self.config.clock = min(chosen.clocks, key=lambda c: abs(c - self.config.clock))
        return self.ok(cues)

    def _start(self) -> Reply:
        cfg = self.config
        if len(cfg.players) < self.script.min_players:
            return self.refuse("too_few", count=len(cfg.players), min=self.script.min_players)
        try:
            game = start_game(self.script.game_doc(self.seed + self.games_started))
        except SetupError as problem:
            return self.refuse("setup_problem", reason=problem.reason)
        self.games_started += 1
        self.game = game
        self.actions = []
        self.narrated = 0
        self.timer = None
        self.shown = {}
        self.told, self.chapters = [], [0]
        self.script.begin()
        self.phase = REVEAL
        self.prompt = [Say("ready_question"), Listen(("ReadyIntent", "AMAZON.YesIntent"))]
        cues: list[Cue] = [Say("game_starts", {"count": len(cfg.players)}),
                           *self.script.reveal_cues()]
        cues += self._views()
        return self.ok(cues + self.prompt)

    def _new_game(self) -> Reply:
        if self.phase not in (OVER, LOBBY):
            return self.refuse("not_now")
        self.phase = LOBBY
        self.game = None
        self.timer = None
        self.prompt = []
        # what was said before belongs to another game (and, on a new log, to lobby inputs
        # replayed to seat the same table: the table never heard them again)
        self.told, self.chapters = [], [0]
        return self.ok([Say("new_game", {"count": len(self.config.players)})])

    # ------------------------------------------------------------------ voice

    def _heard(self, heard: Heard) -> Reply:
        intent = heard.intent
        if intent == "AMAZON.RepeatIntent":
            return Reply(False, list(self.prompt))
        if intent == "AMAZON.PauseIntent":
            return self._host("pause", None)
        if intent == "AMAZON.ResumeIntent":
            return self._host("resume", None)
        if intent == "AMAZON.HelpIntent":
            return Reply(False, [Say(self.script.help_key()), *self.prompt])
        if intent == "TimeLeftIntent":
            if self.timer is None:
                return self.refuse("no_clock")
            seconds = max(0, round(self.timer))
            return Reply(False, [Say("time_left", {"minutes": seconds // 60,
                                                   "seconds": seconds % 60})])
        if self.paused:
            return Reply(False, [Say("is_paused")])
        if "voter" in heard.slots:
            # the host's roll-call form says whose vote it records: the box may have heard
            # that vote (and moved on to the next voter) while the host was choosing
            voter = self.resolve_name(heard.slots["voter"])
            asked = self.listening()
            if voter is None or asked is None or asked.player != voter:
                return self.refuse("vote_moved_on", name=str(heard.slots["voter"]))
        if self.confirming is not None:
            if intent in YES_NO:
                return self._confirmed(intent == "AMAZON.YesIntent")
            asked = next((c for c in reversed(self.confirming[1]) if isinstance(c, Listen)),
                         None)
            if asked is not None and intent in asked.intents:
                # a new answer to the question instead of a yes or no: it replaces the one
                # being confirmed
                self.prompt, self.confirming = self.confirming[1], None
        if not heard.sure:
            unsure = self._confirm(heard)
            if unsure is not None:
                return unsure
        if intent in ("AMAZON.StopIntent", "AMAZON.CancelIntent"):
            return Reply(False, [Say("goodbye")])
        if intent == "UndoIntent":
            return self._undo_vote()
        if intent == "AMAZON.FallbackIntent":
            return self.refuse("not_understood")
        if self.phase == LOBBY:
            return self._heard_lobby(heard)
        if self.phase == OVER:
            if intent == "NewGameIntent":
                return self._new_game()
            return self.refuse("game_over_help")
        if self.phase == REVEAL:
            if intent in ("ReadyIntent", "AMAZON.YesIntent"):
                self.phase = self.script.after_reveal
                return self.ok(self.advance())
            return self.refuse("not_now")
        return self.script.heard(heard)

    def _heard_lobby(self, heard: Heard) -> Reply:
        slots = heard.slots
        mine = self.script.heard_lobby(heard)
        if mine is not None:
            return mine
        if heard.intent == "ClockIntent":
            minutes = str(slots.get("minutes") or "")
            # isdigit() is also true of "²" and other digits that int() does not read
            seconds = 0 if minutes in ("", "0") else (
                int(minutes) * 60 if minutes.isascii() and minutes.isdigit() else -1
            )
            return self._lobby("clock", seconds)
        mapping = {
            "JoinIntent": ("join", slots.get("player")),
            "GameIntent": ("game", slots.get("game")),
            "PlayTooIntent": ("host_plays", slots.get("player")),
            "VotingIntent": ("protocol", slots.get("protocol")),
            "StartGameIntent": ("start", None),
        }
        if heard.intent == "NewGameIntent":
            return self._new_game()
        if heard.intent in mapping:
            return self._lobby(*mapping[heard.intent])
        return self.refuse("lobby_help")

    def _confirm(self, heard: Heard) -> Reply | None:
        """An answer naming a player (or nobody) that the recogniser was unsure of: ask
        again with the player's number ("Was that number three, Ana? Say yes or no."),
        aloud and on the voter's phone, before it counts. None: not such an answer."""
        question = self.listening()
        if (self.game is None or question is None or heard.intent not in question.intents
                or heard.intent in YES_NO):
            return None
        voter = question.player
        if heard.intent in NOBODY_ANSWER:
            target = None
        else:
            target = self.resolve_name(heard.slots.get("player"))
            if target is None:
                return None  # nobody by that name: the script says so
        key = "confirm_nobody" if target is None else "confirm_player"
        asked = Say(key if voter else f"{key}_table",
                    {"seat": self._seat(target), "name": voter})
        self.confirming = (heard, list(self.prompt))
        self.prompt = [asked, Listen(YES_NO, voter)]
        return self.ok([*self._views(), *self.prompt])

    def _confirmed(self, yes: bool) -> Reply:
        """The first answer to "Was that ...?" counts, once: yes takes the answer, no asks
        the question again."""
        assert self.confirming is not None
        (heard, question), self.confirming = self.confirming, None
        self.prompt = question
        if yes:
            reply = self.script.heard(Heard(heard.intent, heard.slots, heard.speaker))
            # taken or not, the confirmation itself changed the table
            return Reply(True, reply.cues)
        return self.ok([*self._views(), *question])

    def _seat(self, name: str | None) -> int | None:
        if name is None:
            return None
        names = self.game.players if self.game else self.config.players
        return names.index(name) + 1

    # ------------------------------------------------------------------ phones

    def _tap(self, tap: Tap) -> Reply:
        if self.game is None or self.phase in (LOBBY, REVEAL, OVER):
            return Reply(False, [Show(tap.player, {"screen": "error", "reason": "not_now"})])
        if self.paused:
            return Reply(False, [Show(tap.player, {"screen": "error", "reason": "paused"})])
        if tap.verb == "confirm":
            voter = self.listening().player if self.confirming else None
            if voter is None or tap.player != voter or tap.target not in ("yes", "no"):
                return self.tap_refused(tap, "not_your_turn")
            return self._confirmed(tap.target == "yes")
        reason = self.script.tap_refusal(tap)
        if reason is not None:
            return self.tap_refused(tap, reason)
        return self.script.take(tap)

    def _shared_tap(self, tap: SharedTap) -> Reply:
        if self.game is None or self.phase in (LOBBY, REVEAL, OVER):
            return self.shared_refused("not_now")
        if self.paused:
            return self.shared_refused("paused")
        if not isinstance(tap.call, str) or not isinstance(tap.verb, str):
            return self.shared_refused("not_your_turn")
        return self.script.shared_tap(tap)

    @staticmethod
    def shared_refused(reason: str) -> Reply:
        """A shared phone's choice refused: shown on that phone only (it names nobody)."""
        return Reply(False, [Show(None, {"screen": "error", "reason": reason})])

    def shared_view(self) -> dict[str, Any] | None:
        """What every shared phone shows now of a narrated night's call in progress: the
        called role's choice (None: nothing to choose on a shared phone now)."""
        return None if self.game is None or self.paused else self.script.shared_view()

    def tap_refused(self, tap: Tap, reason: str) -> Reply:
        # refusals of a secret choice stay on that phone: nothing is said aloud
        return Reply(False, [Show(tap.player, {"screen": "error", "reason": reason})])

    def apply_tap(self, tap: Tap) -> Reply:
        """A phone's choice as a game action: taken and told, or refused on that phone."""
        try:
            self.game.apply(tap.player, tap.verb, tap.target)
        except Refused as refusal:
            return self.tap_refused(tap, refusal.reason)
        self.actions.append([tap.player, tap.verb, tap.target])
        return self.ok(self.advance())

    def _undo_vote(self) -> Reply:
        script = self.script
        if (
            self.game is None
            or self.phase not in script.undo_phases
            or not self.actions
            or self.actions[-1][1] not in script.undoable
        ):
            return self.refuse("nothing_to_undo")
        undone = self.actions.pop()
        self.confirming = None
        self.game = start_game(self.script.game_doc(self.seed + self.games_started - 1))
        for action in self.actions:
            self.game.apply(*action)
        self.narrated = min(self.narrated, len(self.game.events))
        return self.ok([Say("vote_undone", {"name": undone[0]}), *script.ask()])

    # ------------------------------------------------------------------ time

    def _tick(self, seconds: float) -> Reply:
        if self.timer is None or self.paused or seconds <= 0:
            return Reply(False, [])
        before = self.timer
        self.timer -= seconds
        # what the script does while its timer runs (a warning, a tap held back now taken)
        passing = self.script.time_passed(before, self.timer)
        if self.timer is None or self.timer > 0:
            return self.ok(passing)  # still running, or what passed ended it
        self.timer = None
        reply = self.script.time_up()
        reply.cues = passing + reply.cues
        return reply

    # ------------------------------------------------------------------ phones' views

    def player_view(self, name: str, turns: dict[str, str] | None = None) -> dict[str, Any]:
        """What `name`'s phone shows: their number, their private knowledge and, if it is
        their turn, the choice with only the legal targets. `turns` (each player's first
        pending decision) saves a caller that builds every player's view from asking the
        rules for the pending decisions once per player."""
        view: dict[str, Any] = {"player": name, "phase": self.phase}
        if self.game is None:
            view["seat"] = self.config.seat_of(name)
            return view
        view.update(self.script.player_view(
            name, turns if turns is not None else first_turns(self.game)))
        if self.phase == REVEAL:
            # «look at your role»: no choice yet, even where the rules already wait for one
            view.pop("turn", None)
        if self.confirming is not None and self.listening().player == name:
            # the box was unsure of what `name` said: one tap confirms it
            heard = self.confirming[0]
            target = (None if heard.intent in NOBODY_ANSWER
                      else self.resolve_name(heard.slots.get("player")))
            view["turn"] = {"verb": "confirm", "targets": ["yes", "no"],
                            "heard": {"target": target, "seat": self._seat(target)}}
        view["seat"] = self._seat(name)
        view["story"] = self.story()
        return view

    def public_view(self) -> dict[str, Any]:
        view: dict[str, Any] = {"phase": self.phase, "lang": self.lang,
                                "table": self.config.to_json(), "paused": self.paused}
        if self.game is not None:
            view["game"] = self.script.public_knowledge()
            view["story"] = self.story()
        if self.timer is not None:
            view["timer"] = {"kind": self.timer_kind, "left": max(0, round(self.timer))}
        return view

    def _views(self) -> list[Cue]:
        """A Show cue for every phone whose private view changed."""
        cues: list[Cue] = []
        turns = first_turns(self.game)
        for name in self.game.players:
            view = self.player_view(name, turns)
            if self.shown.get(name) != view:
                self.shown[name] = view
                cues.append(Show(name, view))
        return cues


def first_turns(game: Any) -> dict[str, str]:
    """Each player's first pending decision (the one their phone shows)."""
    turns: dict[str, str] = {}
    for decision in game.pending():
        turns.setdefault(decision.player, decision.action)
    return turns
