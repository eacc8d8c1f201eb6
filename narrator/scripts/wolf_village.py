"""The Wolf Village script (seed 000): its set-up, its nights and days, what each phone shows.

Phases: night (narrated: the roles called one by one in the seed's order; all_at_once and
pass_phones: every secret turn at once), settle (the hunter's shot, the sheriff's badge),
election (day 1, with the sheriff), debate (the clock), vote (by the table's protocol), tie.
"""

from __future__ import annotations

from typing import Any, ClassVar

from narrator.cues import Clock, Cue, Heard, Host, Input, Listen, Pause, Reply, Say, Tap, Wait
from narrator.protocols import NAME_ANSWER
from narrator.scripts.base import Script
from narrator.scripts.wolf_village_lines import narrate
from narrator.table import TableConfig
from rules.core import TABLE
from rules.wolf_village.balance import rating
from rules.wolf_village.knowledge import private_knowledge, public_knowledge
from rules.wolf_village.options import NIGHT_MODES, Options
from rules.wolf_village.presets import MAX_PLAYERS, MIN_PLAYERS, PRESETS
from rules.wolf_village.roles import NIGHT_ORDER

NIGHT = "night"
SETTLE = "settle"
ELECTION = "election"
DEBATE = "debate"
VOTE = "vote"
TIE = "tie"

DEFAULT_PRESET = "basic"


class WolfVillageScript(Script):
    ruleset: ClassVar[str] = "wolf-village"
    min_players: ClassVar[int] = MIN_PLAYERS
    max_players: ClassVar[int] = MAX_PLAYERS
    undoable: ClassVar[tuple[str, ...]] = ("vote", "elect")
    undo_phases: ClassVar[tuple[str, ...]] = (VOTE, ELECTION)
    after_reveal: ClassVar[str] = NIGHT
    setup_commands: ClassVar[tuple[str, ...]] = ("preset", "deck", "option")
    lobby_intents: ClassVar[tuple[str, ...]] = ("PresetIntent", "OptionIntent",
                                                "NightModeIntent")

    def __init__(self, narrator: Any):
        super().__init__(narrator)
        self.calls: list[str] = []  # roles still to call tonight (narrated nights)
        self.calling: str | None = None
        self.debated_day = 0

    # ------------------------------------------------------------------ the lobby

    @classmethod
    def default_setup(cls, config: TableConfig) -> None:
        config.preset, config.deck, config.options = DEFAULT_PRESET, None, {}

    @classmethod
    def setup_doc(cls, config: TableConfig, seed: int) -> dict[str, Any]:
        options = dict(config.options)
        options["show_of_hands"] = config.protocol == "show_of_hands"
        doc: dict[str, Any] = {"seed": seed, "players": list(config.players),
                               "options": options}
        if config.deck is not None:
            doc["deck"] = dict(config.deck)
        else:
            doc["preset"] = config.preset
        return doc

    @classmethod
    def deck_for_count(cls, config: TableConfig) -> dict[str, int] | None:
        if config.deck is not None:
            return config.deck
        spec = PRESETS[config.preset or DEFAULT_PRESET]
        if not spec.min_players <= len(config.players) <= spec.max_players:
            return None
        return spec.deck(len(config.players))

    @classmethod
    def rating(cls, config: TableConfig) -> str | None:
        deck = cls.deck_for_count(config)
        return None if deck is None else rating(deck)

    @classmethod
    def setup_inputs(cls, config: TableConfig) -> list[Input]:
        inputs: list[Input] = [Host("deck", config.deck) if config.deck is not None
                               else Host("preset", config.preset)]
        for key, value in config.options.items():
            inputs.append(Host("option", [key, value]))
        return inputs

    def lobby(self, command: str, arg: Any) -> Reply:
        n = self.narrator
        cfg = n.config
        if command == "preset":
            if arg not in PRESETS:
                return n.refuse("unknown_preset")
            cfg.preset, cfg.deck = arg, None
            return n.ok(self._rating_cues())
        if command == "deck":
            if not isinstance(arg, dict):
                return n.refuse("not_understood")
            cfg.deck = dict(arg)
            return n.ok(self._rating_cues())
        # option
        key, value = (arg or [None, None]) if isinstance(arg, list) else (None, None)
        if key not in Options.__dataclass_fields__ or key == "show_of_hands":
            return n.refuse("not_understood")
        if key == "night_mode":
            if value not in NIGHT_MODES:
                return n.refuse("not_understood")
        elif not isinstance(value, bool):
            return n.refuse("not_understood")
        cfg.options[key] = value
        return n.ok([Say("option_set", {"option": key, "value": value})])

    def heard_lobby(self, heard: Heard) -> Reply | None:
        slots = heard.slots
        if heard.intent == "OptionIntent":
            value = slots.get("toggle")
            return self.lobby("option", [slots.get("option"), value in ("on", True)])
        if heard.intent == "PresetIntent":
            return self.lobby("preset", slots.get("preset"))
        if heard.intent == "NightModeIntent":
            return self.lobby("option", ["night_mode", slots.get("night_mode")])
        return None

    def _rating_cues(self) -> list[Cue]:
        cfg = self.narrator.config
        verdict = cfg.rating()
        if verdict is None:
            spec = PRESETS[cfg.preset or DEFAULT_PRESET]
            return [Say("preset_range", {"preset": spec.name, "min": spec.min_players,
                                         "max": spec.max_players})]
        name = cfg.preset if cfg.deck is None else "custom"
        return [Say("preset_set", {"preset": name, "rating": verdict})]

    # ------------------------------------------------------------------ the game

    def begin(self) -> None:
        self.calls, self.calling, self.debated_day = [], None, 0

    def narrate(self, events: list[dict[str, Any]]) -> list[Cue]:
        return narrate(self, events)

    def heard(self, heard: Heard) -> Reply:
        n = self.narrator
        if n.phase == DEBATE:
            if heard.intent in ("SkipClockIntent", "ReadyIntent"):
                return self._end_debate()
            return n.refuse("debate_now")
        if n.phase == NIGHT:
            return n.refuse("night_use_phone")
        return self._heard_decision(heard)

    def _heard_decision(self, heard: Heard) -> Reply:
        """A spoken answer to the pending question: a name, nobody, yes/no, a verdict."""
        n = self.narrator
        question = n.listening()
        if question is None or heard.intent not in question.intents:
            return n.refuse("not_now")
        actor = question.player
        verb = self._asked_verb()
        if verb is None:
            return n.refuse("not_now")
        if heard.intent in ("AMAZON.YesIntent", "AMAZON.NoIntent"):
            return n.act(TABLE, "revote" if heard.intent == "AMAZON.YesIntent" else "spare",
                         None)
        if heard.intent in ("NobodyIntent", "SkipIntent"):
            target = None
        elif heard.intent == "HandsTieIntent":
            names = [n.resolve_name(heard.slots.get(k)) for k in ("player", "other")]
            unknown = [heard.slots.get(k) for k, name in zip(("player", "other"), names,
                                                             strict=True) if name is None]
            if unknown:
                return n.refuse("unknown_name", name=str(unknown[0]))
            target = {"tie": names}
        else:
            raw = heard.slots.get("player")
            target = n.resolve_name(raw)
            if target is None:
                return n.refuse("unknown_name", name=str(raw or ""))
            if target not in n.game.alive_names():
                return n.refuse("player_dead", name=target)
        return n.act(actor or TABLE, verb, target)

    def _asked_verb(self) -> str | None:
        n = self.narrator
        if n.phase == SETTLE:
            decisions = n.game.pending()
            return decisions[0].action if decisions else None
        if n.phase == ELECTION:
            return "elect"
        if n.phase == VOTE:
            return "verdict" if n.config.protocol == "show_of_hands" else "vote"
        if n.phase == TIE:
            return "break_tie" if n.game.sheriff is not None else "tie"
        return None

    def tap_refusal(self, tap: Tap) -> str | None:
        if tap.verb in ("vote", "elect") and self.narrator.config.protocol != "phones":
            return "vote_aloud"
        return None

    def time_up(self) -> Reply:
        return self._end_debate()

    def skip_timer(self) -> Reply:
        if self.narrator.phase == DEBATE:
            return self._end_debate()
        return self.narrator.refuse("not_now")

    def _end_debate(self) -> Reply:
        n = self.narrator
        n.stop_timer()
        self.debated_day = n.game.day
        n.phase = VOTE
        return n.ok([Clock("stop"), Say("time_up"), *self.ask()])

    # ------------------------------------------------------------------ the flow

    def ask(self) -> list[Cue]:
        """Set and return the current question, from the rules' pending decisions."""
        n = self.narrator
        game = n.game
        phase = game.phase
        cues: list[Cue] = []
        if phase == "night":
            n.phase = NIGHT
            cues = self._night_calls()
        elif phase == "settle":
            n.phase = SETTLE
            decision = game.pending()[0]
            key = "hunter_aims" if decision.action == "shoot" else "pass_badge"
            intents = NAME_ANSWER if decision.action == "shoot" else (*NAME_ANSWER,
                                                                        "NobodyIntent")
            cues = [Say(key, {"name": decision.player}),
                    Listen(intents, decision.player, names=n.living_names())]
        elif phase == "election":
            n.phase = ELECTION
            cues = self._ask_votes("elect")
        elif phase == "vote":
            if self.debated_day != game.day:
                n.phase = DEBATE
                return self._start_debate()
            n.phase = VOTE
            cues = self._ask_votes("vote")
        elif phase == "tie":
            n.phase = TIE
            if game.sheriff is not None:
                sheriff = game.sheriff_name()
                cues = [Say("sheriff_breaks_tie", {"name": sheriff}),
                        Listen(NAME_ANSWER, sheriff, names=tuple(game.tied_names()))]
            else:
                cues = [Say("revote_question"),
                        Listen(("AMAZON.YesIntent", "AMAZON.NoIntent"))]
        n.prompt = cues
        return cues

    def _start_debate(self) -> list[Cue]:
        n = self.narrator
        clock = n.config.clock
        if clock:
            n.start_timer(clock)
            cues: list[Cue] = [Say("debate_clock", {"minutes": clock // 60}),
                               Clock("start", clock)]
        else:
            cues = [Say("debate_free")]
        n.prompt = [*cues, Listen(("SkipClockIntent", "ReadyIntent"))]
        return n.prompt

    def _ask_votes(self, verb: str) -> list[Cue]:
        n = self.narrator
        game = n.game
        names = n.living_names()
        protocol = n.config.protocol
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
        first = len(voters) == len([name for name in names if game.can_vote(name)])
        cues: list[Cue] = [Say(intro)] if first else []
        cues += [Say("ask_vote" if verb == "vote" else "ask_elect", {"name": voter}),
                 Listen((*NAME_ANSWER, "NobodyIntent", "SkipIntent"), voter, names=names)]
        return cues

    # ------------------------------------------------------------------ the night

    def _night_calls(self) -> list[Cue]:
        """Call the roles in the seed's order; a dead role is called with the same pause
        when dead roles are secret, so neither silence nor timing gives anything away."""
        n = self.narrator
        game = n.game
        cues: list[Cue] = []
        if game.options.night_mode != "narrated":
            waiting = tuple(d.player for d in game.pending())
            verb = "secret_turn"
            return [Wait(waiting, verb)] if waiting else cues
        pending = game.pending()
        if self.calling is not None:
            if any(game.current_role(d.player) == self.calling for d in pending):
                return [Wait(tuple(d.player for d in pending), pending[0].action,
                             n.call_pause)]
            cues.append(Say(f"sleep_{self.calling}"))
            self.calling = None
        while self.calls:
            role = self.calls.pop(0)
            cues.append(Say(f"wake_{role}"))
            called = [d for d in pending if game.current_role(d.player) == role]
            if called:
                self.calling = role
                cues.append(Wait(tuple(d.player for d in called), called[0].action,
                                 n.call_pause))
                return cues
            cues += [Pause(n.call_pause), Say(f"sleep_{role}")]
        return cues

    def plan_night_calls(self) -> None:
        """At nightfall: the roles the narrator will call tonight, in order."""
        game = self.narrator.game
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

    def player_view(self, name: str, turns: dict[str, str]) -> dict[str, Any]:
        game = self.narrator.game
        view: dict[str, Any] = {"me": private_knowledge(game, name)}
        turn = turns.get(name)
        phones_vote = self.narrator.config.protocol == "phones"
        if turn and (turn not in ("vote", "elect") or phones_vote):
            view["turn"] = {"verb": turn, "targets": game.legal_targets(name, turn)}
        return view

    def public_knowledge(self) -> dict[str, Any]:
        return public_knowledge(self.narrator.game)
