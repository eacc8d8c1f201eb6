"""The narrator: one I/O-free state machine that runs a whole table, lobby to final reveal.

It turns the rules' pending decisions into a conversation (cues) and what it hears or
receives (inputs) into game actions. It never reads a clock or a device: time passes by
`Tick` inputs, and its whole state is the replay of the inputs it accepted, so a store that
keeps those inputs keeps the table.

Every input gets a `Reply`: whether it was accepted (and so must be stored) and the cues
to execute. An input the narrator cannot use (nonsense, an unknown or dead name, a vote out
of turn) is not accepted: it gets a short reason and the same question again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from narrator import lines
from narrator.cues import Clock, Cue, Heard, Host, Input, Listen, Pause, Say, Show, Tap, Tick, Wait
from narrator.table import CLOCKS, LANGUAGES, PROTOCOLS, TableConfig
from rules.core import TABLE, Refused, SetupError
from rules.names import name_problem, same_name
from rules.replay import start as start_game
from rules.wolf_village.knowledge import private_knowledge, public_knowledge
from rules.wolf_village.options import NIGHT_MODES, Options
from rules.wolf_village.presets import MAX_PLAYERS, MIN_PLAYERS, PRESETS
from rules.wolf_village.roles import NIGHT_ORDER, ROLES

LOBBY = "lobby"
REVEAL = "reveal"
NIGHT = "night"
SETTLE = "settle"
ELECTION = "election"
DEBATE = "debate"
VOTE = "vote"
TIE = "tie"
OVER = "over"

DEFAULT_CALL_PAUSE = 12.0

# Intents that work at any moment.
ALWAYS = (
    "AMAZON.RepeatIntent",
    "AMAZON.HelpIntent",
    "AMAZON.PauseIntent",
    "AMAZON.ResumeIntent",
    "TimeLeftIntent",
)
NAME_ANSWER = ("VoteIntent", "ElectIntent")
LOBBY_INTENTS = (
    "JoinIntent",
    "PresetIntent",
    "OptionIntent",
    "NightModeIntent",
    "VotingIntent",
    "ClockIntent",
    "PlayTooIntent",
    "StartGameIntent",
    "NewGameIntent",
)


@dataclass
class Reply:
    accepted: bool
    cues: list[Cue] = field(default_factory=list)


class Narrator:
    def __init__(self, lang: str = "en", seed: int = 0, call_pause: float = DEFAULT_CALL_PAUSE):
        if lang not in LANGUAGES:
            raise ValueError(f"unknown language {lang!r} (known: {', '.join(LANGUAGES)})")
        self.lang = lang
        self.seed = seed
        self.call_pause = call_pause
        self.config = TableConfig()
        self.phase = LOBBY
        self.game: Any = None
        self.actions: list[list[Any]] = []
        self.games_started = 0
        self.narrated = 0  # how many of the game's events have been told
        self.calls: list[str] = []  # roles still to call tonight (narrated nights)
        self.calling: str | None = None
        self.debated_day = 0
        self.clock_left = 0.0
        self.paused = False
        self.prompt: list[Cue] = []  # the current question, for "repeat"
        self.shown: dict[str, dict[str, Any]] = {}

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
        inputs.append(Host("deck", cfg.deck) if cfg.deck is not None
                      else Host("preset", cfg.preset))
        for key, value in cfg.options.items():
            inputs.append(Host("option", [key, value]))
        inputs += [Host("protocol", cfg.protocol), Host("clock", cfg.clock)]
        return inputs

    # ------------------------------------------------------------------ inputs

    def handle(self, inp: Input) -> Reply:
        if isinstance(inp, Tick):
            return self._tick(inp.seconds)
        if isinstance(inp, Host):
            return self._host(inp.command, inp.arg)
        if isinstance(inp, Tap):
            return self._tap(inp)
        if isinstance(inp, Heard):
            return self._heard(inp)
        return self._refuse("not_understood")

    def current_prompt(self) -> list[Cue]:
        return list(self.prompt)

    def listening(self) -> Listen | None:
        """What the microphone should listen for now (the box builds its grammar from it)."""
        for cue in reversed(self.prompt):
            if isinstance(cue, Listen):
                return cue
        return None

    # ------------------------------------------------------------------ helpers

    def _refuse(self, key: str, **params: Any) -> Reply:
        return Reply(False, [Say(key, params), *self.prompt])

    def _ok(self, cues: list[Cue]) -> Reply:
        return Reply(True, cues)

    def _living_names(self) -> tuple[str, ...]:
        return tuple(self.game.alive_names()) if self.game else tuple(self.config.players)

    def _resolve_name(self, raw: Any) -> str | None:
        if not isinstance(raw, str):
            return None
        names = self.game.players if self.game else self.config.players
        folded = raw.strip().casefold()
        return next((n for n in names if n.casefold() == folded), None)

    # ------------------------------------------------------------------ host commands

    def _host(self, command: str, arg: Any) -> Reply:
        if command == "repeat":
            return Reply(False, list(self.prompt))
        if command == "pause":
            if self.paused or self.phase == LOBBY:
                return Reply(False, [Say("not_now"), *self.prompt])
            self.paused = True
            return self._ok([Say("paused")])
        if command == "resume":
            if not self.paused:
                return Reply(False, list(self.prompt))
            self.paused = False
            return self._ok([Say("resumed"), *self.prompt])
        if self.paused:
            return Reply(False, [Say("is_paused")])
        if command == "skip_clock":
            return self._end_debate() if self.phase == DEBATE else self._refuse("not_now")
        if command == "undo_vote":
            return self._undo_vote()
        if command == "new_game":
            return self._new_game()
        if self.phase != LOBBY:
            return self._refuse("not_now")
        return self._lobby(command, arg)

    # ------------------------------------------------------------------ lobby

    def _lobby(self, command: str, arg: Any) -> Reply:
        cfg = self.config
        if command in ("join", "host_plays"):
            name = arg.strip() if isinstance(arg, str) else ""
            problem = name_problem(name, cfg.players)
            if problem is not None:
                return self._refuse(problem, name=same_name(name, cfg.players) or name)
            if cfg.is_full():
                return self._refuse("table_full", count=MAX_PLAYERS)
            cfg.players.append(name)
            if command == "host_plays":
                cfg.host = name
            return self._ok([Say("joined", {"name": name, "count": len(cfg.players)})])
        if command == "leave":
            name = cfg.find(arg) if isinstance(arg, str) else None
            if name is None:
                return self._refuse("unknown_name", name=str(arg))
            cfg.players.remove(name)
            return self._ok([Say("left", {"name": name, "count": len(cfg.players)})])
        if command == "seats":
            if (not isinstance(arg, list) or not all(isinstance(n, str) for n in arg)
                    or sorted(arg) != sorted(cfg.players)):
                return self._refuse("not_understood")
            cfg.players = list(arg)
            return self._ok([])
        if command == "preset":
            if not isinstance(arg, str) or arg not in PRESETS:
                return self._refuse("unknown_preset")
            cfg.preset, cfg.deck = arg, None
            return self._ok(self._rating_cues())
        if command == "deck":
            if not isinstance(arg, dict) or not all(
                    role in ROLES and type(count) is int and 0 <= count <= MAX_PLAYERS
                    for role, count in arg.items()):
                return self._refuse("not_understood")
            cfg.deck = dict(arg)
            return self._ok(self._rating_cues())
        if command == "option":
            key, value = arg if isinstance(arg, list) and len(arg) == 2 else (None, None)
            if (not isinstance(key, str) or key not in Options.__dataclass_fields__
                    or key == "show_of_hands"):
                return self._refuse("not_understood")
            if key == "night_mode":
                if not isinstance(value, str) or value not in NIGHT_MODES:
                    return self._refuse("not_understood")
            elif not isinstance(value, bool):
                return self._refuse("not_understood")
            cfg.options[key] = value
            return self._ok([Say("option_set", {"option": key, "value": value})])
        if command == "protocol":
            if arg not in PROTOCOLS:
                return self._refuse("not_understood")
            cfg.protocol = arg
            return self._ok([Say("protocol_set", {"protocol": arg})])
        if command == "clock":
            if type(arg) is not int or arg not in CLOCKS:
                return self._refuse("bad_clock")
            cfg.clock = arg
            return self._ok([Say("clock_set", {"minutes": arg // 60})])
        if command == "language":
            if arg not in LANGUAGES:
                return self._refuse("not_understood")
            self.lang = arg
            return self._ok([Say("language_set")])
        if command == "start":
            return self._start()
        return self._refuse("not_understood")

    def _rating_cues(self) -> list[Cue]:
        cfg = self.config
        verdict = cfg.rating()
        if verdict is None:
            spec = PRESETS[cfg.preset or "basic"]
            return [Say("preset_range", {"preset": spec.name, "min": spec.min_players,
                                         "max": spec.max_players})]
        name = cfg.preset if cfg.deck is None else "custom"
        return [Say("preset_set", {"preset": name, "rating": verdict})]

    def _start(self) -> Reply:
        cfg = self.config
        if len(cfg.players) < MIN_PLAYERS:
            return self._refuse("too_few", count=len(cfg.players), min=MIN_PLAYERS)
        try:
            game = start_game(cfg.setup_doc(self.seed + self.games_started))
        except SetupError as problem:
            return self._refuse("setup_problem", reason=problem.reason)
        self.games_started += 1
        self.game = game
        self.actions = []
        self.narrated = 0
        self.debated_day = 0
        self.shown = {}
        self.phase = REVEAL
        self.prompt = [Say("ready_question"), Listen(("ReadyIntent", "AMAZON.YesIntent"))]
        cues: list[Cue] = [Say("game_starts", {"count": len(cfg.players)}), Say("look_at_phone")]
        cues += self._views()
        return self._ok(cues + self.prompt)

    def _new_game(self) -> Reply:
        if self.phase not in (OVER, LOBBY):
            return self._refuse("not_now")
        self.phase = LOBBY
        self.game = None
        self.prompt = []
        return self._ok([Say("new_game", {"count": len(self.config.players)})])

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
            return Reply(False, [Say(f"help_{self.phase}"), *self.prompt])
        if intent == "TimeLeftIntent":
            if self.phase != DEBATE or not self.config.clock:
                return self._refuse("no_clock")
            seconds = max(0, round(self.clock_left))
            return Reply(False, [Say("time_left", {"minutes": seconds // 60,
                                                   "seconds": seconds % 60})])
        if self.paused:
            return Reply(False, [Say("is_paused")])
        if intent in ("AMAZON.StopIntent", "AMAZON.CancelIntent"):
            return Reply(False, [Say("goodbye")])
        if intent == "UndoIntent":
            return self._undo_vote()
        if intent == "AMAZON.FallbackIntent":
            return self._refuse("not_understood")
        if self.phase == LOBBY:
            return self._heard_lobby(heard)
        if self.phase == OVER:
            if intent == "NewGameIntent":
                return self._new_game()
            return self._refuse("game_over_help")
        if self.phase == REVEAL:
            if intent in ("ReadyIntent", "AMAZON.YesIntent"):
                self.phase = NIGHT
                return self._ok(self._advance())
            return self._refuse("not_now")
        if self.phase == DEBATE:
            if intent in ("SkipClockIntent", "ReadyIntent"):
                return self._end_debate()
            return self._refuse("debate_now")
        if self.phase == NIGHT:
            return self._refuse("night_use_phone")
        return self._heard_decision(heard)

    def _heard_lobby(self, heard: Heard) -> Reply:
        slots = heard.slots
        mapping = {
            "JoinIntent": ("join", slots.get("player")),
            "PlayTooIntent": ("host_plays", slots.get("player")),
            "PresetIntent": ("preset", slots.get("preset")),
            "NightModeIntent": ("option", ["night_mode", slots.get("night_mode")]),
            "VotingIntent": ("protocol", slots.get("protocol")),
            "StartGameIntent": ("start", None),
            "NewGameIntent": ("new_game", None),
        }
        if heard.intent == "OptionIntent":
            value = slots.get("toggle")
            return self._lobby("option", [slots.get("option"), value in ("on", True)])
        if heard.intent == "ClockIntent":
            minutes = str(slots.get("minutes") or "")
            # isdigit() is also true of "²" and other digits that int() does not read
            seconds = 0 if minutes in ("", "0") else (
                int(minutes) * 60 if minutes.isascii() and minutes.isdigit() else -1
            )
            return self._lobby("clock", seconds)
        if heard.intent in mapping:
            command, arg = mapping[heard.intent]
            if command == "new_game":
                return self._new_game()
            return self._lobby(command, arg)
        return self._refuse("lobby_help")

    def _heard_decision(self, heard: Heard) -> Reply:
        """A spoken answer to the pending question: a name, nobody, yes/no, a verdict."""
        question = self.listening()
        if question is None or heard.intent not in question.intents:
            return self._refuse("not_now")
        actor = question.player
        verb = self._asked_verb()
        if verb is None:
            return self._refuse("not_now")
        if heard.intent in ("AMAZON.YesIntent", "AMAZON.NoIntent"):
            return self._act(TABLE, "revote" if heard.intent == "AMAZON.YesIntent" else "spare",
                             None)
        if heard.intent in ("NobodyIntent", "SkipIntent"):
            target = None
        elif heard.intent == "HandsTieIntent":
            names = [self._resolve_name(heard.slots.get(k)) for k in ("player", "other")]
            unknown = [heard.slots.get(k) for k, n in zip(("player", "other"), names,
                                                          strict=True) if n is None]
            if unknown:
                return self._refuse("unknown_name", name=str(unknown[0]))
            target = {"tie": names}
        else:
            raw = heard.slots.get("player")
            target = self._resolve_name(raw)
            if target is None:
                return self._refuse("unknown_name", name=str(raw or ""))
            if target not in self.game.alive_names():
                return self._refuse("player_dead", name=target)
        return self._act(actor or TABLE, verb, target)

    def _asked_verb(self) -> str | None:
        if self.phase == SETTLE:
            decisions = self.game.pending()
            return decisions[0].action if decisions else None
        if self.phase == ELECTION:
            return "elect"
        if self.phase == VOTE:
            return "verdict" if self.config.protocol == "show_of_hands" else "vote"
        if self.phase == TIE:
            return "break_tie" if self.game.sheriff is not None else "tie"
        return None

    # ------------------------------------------------------------------ phones

    def _tap(self, tap: Tap) -> Reply:
        if self.game is None or self.phase in (LOBBY, REVEAL, OVER):
            return Reply(False, [Show(tap.player, {"screen": "error", "reason": "not_now"})])
        if self.paused:
            return Reply(False, [Show(tap.player, {"screen": "error", "reason": "paused"})])
        if tap.verb in ("vote", "elect") and self.config.protocol != "phones":
            return Reply(False, [Show(tap.player, {"screen": "error", "reason": "vote_aloud"})])
        try:
            self.game.apply(tap.player, tap.verb, tap.target)
        except Refused as refusal:
            # refusals of a secret choice stay on that phone: nothing is said aloud
            return Reply(False, [Show(tap.player, {"screen": "error",
                                                   "reason": refusal.reason})])
        self.actions.append([tap.player, tap.verb, tap.target])
        return self._ok(self._advance())

    def _act(self, actor: str, verb: str, target: Any) -> Reply:
        if verb == "tie":
            verb = "revote" if target else "spare"
        try:
            self.game.apply(actor, verb, target)
        except Refused as refusal:
            return self._refuse("cannot", reason=refusal.reason)
        self.actions.append([actor, verb, target])
        return self._ok(self._advance())

    def _undo_vote(self) -> Reply:
        if (
            self.game is None
            or self.phase not in (VOTE, ELECTION)
            or not self.actions
            or self.actions[-1][1] not in ("vote", "elect")
        ):
            return self._refuse("nothing_to_undo")
        undone = self.actions.pop()
        self.game = start_game(self.config.setup_doc(self.seed + self.games_started - 1))
        for action in self.actions:
            self.game.apply(*action)
        self.narrated = min(self.narrated, len(self.game.events))
        return self._ok([Say("vote_undone", {"name": undone[0]}), *self._ask()])

    # ------------------------------------------------------------------ time

    def _tick(self, seconds: float) -> Reply:
        if self.phase != DEBATE or self.paused or not self.config.clock or seconds <= 0:
            return Reply(False, [])
        self.clock_left -= seconds
        if self.clock_left > 0:
            return self._ok([])
        return self._end_debate()

    def _end_debate(self) -> Reply:
        self.debated_day = self.game.day
        self.phase = VOTE
        return self._ok([Clock("stop"), Say("time_up"), *self._ask()])

    # ------------------------------------------------------------------ the flow

    def _advance(self) -> list[Cue]:
        """After an accepted action: tell what happened, then ask what comes next."""
        cues = lines.narrate(self, self.game.events[self.narrated:])
        self.narrated = len(self.game.events)
        cues += self._views()
        if self.game.winner is not None:
            self.phase = OVER
            self.prompt = [Listen(("NewGameIntent",))]
            return cues
        return cues + self._ask()

    def _ask(self) -> list[Cue]:
        """Set and return the current question, from the rules' pending decisions."""
        game = self.game
        phase = game.phase
        cues: list[Cue] = []
        if phase == "night":
            self.phase = NIGHT
            cues = self._night_calls()
        elif phase == "settle":
            self.phase = SETTLE
            decision = game.pending()[0]
            key = "hunter_aims" if decision.action == "shoot" else "pass_badge"
            intents = NAME_ANSWER if decision.action == "shoot" else (*NAME_ANSWER,
                                                                        "NobodyIntent")
            cues = [Say(key, {"name": decision.player}),
                    Listen(intents, decision.player, names=self._living_names())]
        elif phase == "election":
            self.phase = ELECTION
            cues = self._ask_votes("elect")
        elif phase == "vote":
            if self.debated_day != game.day:
                self.phase = DEBATE
                return self._start_debate()
            self.phase = VOTE
            cues = self._ask_votes("vote")
        elif phase == "tie":
            self.phase = TIE
            if game.sheriff is not None:
                sheriff = game.sheriff_name()
                cues = [Say("sheriff_breaks_tie", {"name": sheriff}),
                        Listen(NAME_ANSWER, sheriff, names=tuple(game.tied_names()))]
            else:
                cues = [Say("revote_question"),
                        Listen(("AMAZON.YesIntent", "AMAZON.NoIntent"))]
        self.prompt = cues
        return cues

    def _start_debate(self) -> list[Cue]:
        minutes = self.config.clock // 60
        if self.config.clock:
            self.clock_left = float(self.config.clock)
            cues: list[Cue] = [Say("debate_clock", {"minutes": minutes}),
                               Clock("start", self.config.clock)]
        else:
            cues = [Say("debate_free")]
        self.prompt = [*cues, Listen(("SkipClockIntent", "ReadyIntent"))]
        return self.prompt

    def _ask_votes(self, verb: str) -> list[Cue]:
        game = self.game
        names = self._living_names()
        protocol = self.config.protocol
        intro = "election_intro" if verb == "elect" else "vote_intro"
        if protocol == "show_of_hands":
            key = "hands_election" if verb == "elect" else "hands_vote"
            intents = ("HandsResultIntent", "VoteIntent", "ElectIntent", "NobodyIntent")
            if verb == "vote":
                intents += ("HandsTieIntent",)
            return [Say(key), Listen(intents, None, names=names)]
        voters = [d.player for d in game.pending() if d.action == verb]
        if protocol == "phones":
            return [Say(f"{intro}_phones"), Wait(tuple(voters), verb)]
        # roll call: ask the first voter who has not answered, in seat order
        voter = voters[0]
        first = len(voters) == len([n for n in names if game.can_vote(n)])
        cues: list[Cue] = [Say(intro)] if first else []
        cues += [Say("ask_vote" if verb == "vote" else "ask_elect", {"name": voter}),
                 Listen((*NAME_ANSWER, "NobodyIntent", "SkipIntent"), voter, names=names)]
        return cues

    # ------------------------------------------------------------------ the night

    def _night_calls(self) -> list[Cue]:
        """Call the roles in the seed's order; a dead role is called with the same pause
        when dead roles are secret, so neither silence nor timing gives anything away."""
        game = self.game
        cues: list[Cue] = []
        if game.options.night_mode != "narrated":
            waiting = tuple(d.player for d in game.pending())
            verb = "secret_turn"
            return [Wait(waiting, verb)] if waiting else cues
        pending = game.pending()
        if self.calling is not None:
            if any(game.current_role(d.player) == self.calling for d in pending):
                return [Wait(tuple(d.player for d in pending), pending[0].action,
                             self.call_pause)]
            cues.append(Say(f"sleep_{self.calling}"))
            self.calling = None
        while self.calls:
            role = self.calls.pop(0)
            cues.append(Say(f"wake_{role}"))
            called = [d for d in pending if game.current_role(d.player) == role]
            if called:
                self.calling = role
                cues.append(Wait(tuple(d.player for d in called), called[0].action,
                                 self.call_pause))
                return cues
            cues += [Pause(self.call_pause), Say(f"sleep_{role}")]
        return cues

    def plan_night_calls(self) -> None:
        """At nightfall: the roles the narrator will call tonight, in order."""
        game = self.game
        self.calling = None
        if game.options.night_mode != "narrated":
            self.calls = []
            return
        in_game = set(game.dealt) | set(game.role)
        calls = []
        for role in NIGHT_ORDER:
            if role not in in_game or (role == "cupid" and game.night != 1):
                continue
            holders = [p for p in game.players if game.current_role(p) == role]
            living = [p for p in holders if p in game.alive_names()]
            if living or (holders and not game.options.reveal_dead_roles):
                calls.append(role)
        self.calls = calls

    # ------------------------------------------------------------------ phones' views

    def player_view(self, name: str, turns: dict[str, str] | None = None) -> dict[str, Any]:
        """What `name`'s phone shows: their private knowledge and, if it is their turn,
        the choice with only the legal targets. `turns` (each player's first pending
        decision) saves a caller that builds every player's view from asking the rules
        for the pending decisions once per player."""
        game = self.game
        view: dict[str, Any] = {"player": name, "phase": self.phase}
        if game is None:
            return view
        view["me"] = private_knowledge(game, name)
        turn = (turns if turns is not None else first_turns(game)).get(name)
        phones_vote = self.config.protocol == "phones"
        if turn and (turn not in ("vote", "elect") or phones_vote):
            view["turn"] = {"verb": turn, "targets": game.legal_targets(name, turn)}
        return view

    def public_view(self) -> dict[str, Any]:
        view: dict[str, Any] = {"phase": self.phase, "lang": self.lang,
                                "table": self.config.to_json(), "paused": self.paused}
        if self.game is not None:
            view["game"] = public_knowledge(self.game)
            if self.phase == DEBATE:
                view["clock_left"] = max(0, round(self.clock_left))
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
