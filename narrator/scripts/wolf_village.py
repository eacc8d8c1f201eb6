"""The Wolf Village script (seed 000): its set-up, its nights and days, what each phone shows.

Phases: night (narrated: the roles called one by one in the seed's order; all_at_once and
pass_phones: every secret turn at once), settle (the hunter's shot, the sheriff's badge),
election (day 1, with the sheriff), debate (the clock), vote (by the table's protocol), tie.
"""

from __future__ import annotations

import copy
from typing import Any, ClassVar

from narrator.calls import CALL, NightCalls
from narrator.cues import (
    Chapter,
    Clock,
    Cue,
    Heard,
    Host,
    Input,
    Listen,
    Reply,
    Say,
    SharedTap,
    Show,
    Tap,
    Wait,
)
from narrator.protocols import NAME_ANSWER
from narrator.scripts.base import Script
from narrator.scripts.wolf_village_lines import narrate
from narrator.scripts.wolf_village_setup import SETUP_FORM
from narrator.table import TableConfig
from narrator.voting import VoteLines, ask_votes
from rules.core import TABLE, Refused
from rules.wolf_village.balance import rating
from rules.wolf_village.knowledge import private_knowledge, public_knowledge
from rules.wolf_village.options import NIGHT_MODES, Options
from rules.wolf_village.presets import MAX_PLAYERS, MIN_PLAYERS, PRESETS
from rules.wolf_village.roles import NIGHT_ORDER, ROLES

NIGHT = "night"
SETTLE = "settle"
ELECTION = "election"
DEBATE = "debate"
VOTE = "vote"
TIE = "tie"

DEFAULT_PRESET = "basic"


class WolfVillageScript(Script):
    ruleset: ClassVar[str] = "wolf-village"
    setup_form = SETUP_FORM
    min_players: ClassVar[int] = MIN_PLAYERS
    max_players: ClassVar[int] = MAX_PLAYERS
    undoable: ClassVar[tuple[str, ...]] = ("vote", "elect")
    undo_phases: ClassVar[tuple[str, ...]] = (VOTE, ELECTION)
    after_reveal: ClassVar[str] = NIGHT
    setup_commands: ClassVar[tuple[str, ...]] = ("preset", "deck", "option")
    lobby_intents: ClassVar[tuple[str, ...]] = ("PresetIntent", "OptionIntent",
                                                "NightModeIntent")
    name_lines: ClassVar[tuple[str, ...]] = (
        "ask_vote", "ask_elect", "death_vote", "death_werewolves", "death_poison",
        "death_vanished", "death_grief", "death_hunter", "sheriff_elected", "badge_passed",
        "pass_badge", "sheriff_breaks_tie", "player_dead", "hunter_aims")

    def __init__(self, narrator: Any):
        super().__init__(narrator)
        self.night = NightCalls()  # the roles called tonight (narrated nights)
        # the answer that ends the rules' night, kept until the narrator's night is over
        # too (the calls still to make, theatre included): see `take`
        self.held: list[Any] | None = None
        self.debated_day = 0
        self.after_time_up = False  # "time's up, it's time to vote" was just said
        # (night, call) whose choice a shared phone has taken: one tap per call
        self.shared_answered: tuple[int, str] | None = None

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
            if not isinstance(arg, str) or arg not in PRESETS:
                return n.refuse("unknown_preset")
            cfg.preset, cfg.deck = arg, None
            return n.ok(self._rating_cues())
        if command == "deck":
            if not isinstance(arg, dict) or not all(
                    role in ROLES and type(count) is int and 0 <= count <= MAX_PLAYERS
                    for role, count in arg.items()):
                return n.refuse("not_understood")
            cfg.deck = dict(arg)
            return n.ok(self._rating_cues())
        # option
        key, value = arg if isinstance(arg, list) and len(arg) == 2 else (None, None)
        if (not isinstance(key, str) or key not in Options.__dataclass_fields__
                or key == "show_of_hands"):
            return n.refuse("not_understood")
        if key == "night_mode":
            if not isinstance(value, str) or value not in NIGHT_MODES:
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
        self.night.reset()
        self.held, self.debated_day = None, 0
        self.shared_answered = None

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
        n = self.narrator
        if tap.verb in ("vote", "elect") and n.config.protocol != "phones":
            return "vote_aloud"
        if n.phase == DEBATE:
            return "not_now"  # the vote opens when the debate ends
        if self._narrated_night() and not self._called(tap.player):
            # only the role being called may choose: a choice taken before its call would
            # tell that player how long the calls before it lasted
            return "not_your_turn"
        return None

    def take(self, tap: Tap) -> Reply:
        """A narrated night's last answer is kept until the night's calls are over.

        The rules resolve the dawn the moment the last choice is in; telling it then would
        give away how long the last call took (a living witch answers in three seconds, a
        dead one's call lasts the full pause), and the morning would show on every phone
        before the speaker has closed the last eyes. So an answer that would end the rules'
        night while a call is still being held open, or while roles remain to be called, is
        checked on a copy of the game and kept; it is applied when the last call ends."""
        n = self.narrator
        if not self._narrated_night() or self.night.done(n):
            return n.apply_tap(tap)
        probe = copy.deepcopy(n.game)
        try:
            probe.apply(tap.player, tap.verb, tap.target)
        except Refused as refusal:
            return n.tap_refused(tap, refusal.reason)
        if probe.phase == "night":
            return n.apply_tap(tap)
        self.held = [tap.player, tap.verb, tap.target]
        return n.ok(n.advance())

    def _narrated_night(self) -> bool:
        n = self.narrator
        return n.phase == NIGHT and n.game.options.night_mode == "narrated"

    def _called(self, name: str) -> bool:
        """Whether `name` is woken by the call in progress and has not answered it yet."""
        game = self.narrator.game
        if (self.night.calling is None or name not in game.seat
                or game.current_role(name) != self.night.calling):
            return False
        return self.held is None or self.held[0] != name

    def _call_unanswered(self) -> bool:
        return any(self._called(d.player) for d in self.narrator.game.pending())

    def time_up(self) -> Reply:
        n = self.narrator
        if n.timer_kind == CALL:
            # the call has lasted its time: on to the next one if it was answered
            return n.ok(n.advance())
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
        # «Se acabó el tiempo. Es hora de votar.» already says it is time to vote
        self.after_time_up = True
        cues = [Clock("stop"), Say("time_up"), *self.ask()]
        self.after_time_up = False
        return n.ok(cues)

    # ------------------------------------------------------------------ the flow

    def ask(self) -> list[Cue]:
        """Set and return the current question, from the rules' pending decisions."""
        n = self.narrator
        game = n.game
        phase = game.phase
        cues: list[Cue] = []
        if phase == "night":
            n.phase = NIGHT
            if self._night_is_over():
                self._apply_held()
                return n.advance()  # the morning, then the day's first question
            opened = self._night_calls()
            # None: a call is still open, and the same question stands
            return [] if opened is None else opened
        elif phase == "settle":
            n.phase = SETTLE
            decision = game.pending()[0]
            # the hunter's role and aim are told with his death (wolf_village_lines)
            key = "hunter_shoots" if decision.action == "shoot" else "pass_badge"
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
            n.start_timer(clock, "debate")
            cues: list[Cue] = [Say("debate_clock", {"minutes": clock // 60}),
                               Clock("start", clock)]
        else:
            cues = [Say("debate_free")]
        n.prompt = [*cues, Listen(("SkipClockIntent", "ReadyIntent"))]
        return [Chapter(), *n.prompt]

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
        ask = "ask_vote" if verb == "vote" else "ask_elect"
        phones = "vote_now_phones" if self.after_time_up else f"{intro}_phones"
        # the vote is just opening: nobody has answered yet
        first = len(voters) == len([name for name in names if game.can_vote(name)])
        return ask_votes(protocol, verb, voters, names,
                         VoteLines(ask, phones, None if self.after_time_up else intro),
                         (*NAME_ANSWER, "NobodyIntent", "SkipIntent"), first)

    # ------------------------------------------------------------------ the night

    def _night_calls(self) -> list[Cue] | None:
        """Call the roles in the seed's order, one at a time, each held open as long
        (narrator.calls): a dead role is called all the same when dead roles are secret.
        None: the call in progress is not over yet (its time runs, or its player has not
        answered)."""
        n = self.narrator
        game = n.game
        if game.options.night_mode != "narrated":
            waiting = tuple(d.player for d in game.pending())
            n.prompt = [Wait(waiting, "secret_turn")] if waiting else []
            return list(n.prompt)
        return self.night.next(n, answered=not self._call_unanswered())

    def _night_is_over(self) -> bool:
        """The last call has lasted its time and the rules' night ends with the answer
        that was kept (`take`)."""
        return (self.held is not None and self.night.done(self.narrator)
                and not self._call_unanswered())

    def _apply_held(self) -> None:
        n = self.narrator
        held, self.held = self.held, None
        assert held is not None
        # checked on a copy of this very game state when it was kept: it cannot fail
        n.game.apply(*held)
        n.actions.append(held)

    def close_call(self) -> list[Cue]:
        """The night is over: the last call's "close your eyes", if one is open."""
        return self.night.close(self.narrator)

    def plan_night_calls(self) -> None:
        """At nightfall: the roles the narrator will call tonight, in order."""
        game = self.narrator.game
        if game.options.night_mode != "narrated":
            self.night.reset()
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
        self.night.plan(calls)

    # ------------------------------------------------------------------ shared phones

    def shared_view(self) -> dict[str, Any] | None:
        """The called role's choice, as every shared phone shows it (seed 000: «los
        llamados ... tocan su elección en el más cercano»).

        Built from what the table already knows (the call was said aloud, who is alive is
        public), never from who holds the card: a dead role's call shows exactly what a
        living one's does. So the targets are every living player (the rules still refuse
        what they refuse: the seer herself, the pack's own), and the witch sees the pack's
        victim and the potions left, both of the game and not of her."""
        n = self.narrator
        call = self.night.calling
        if not self._narrated_night() or call is None:
            return None
        game = n.game
        verb = ROLES[call].night_verb
        living = list(game.alive_names())
        view: dict[str, Any] = {"call": call}
        if verb == "link":
            targets: list[Any] = [[a, b] for i, a in enumerate(living) for b in living[i + 1:]]
        elif verb == "witch":
            heals = [False, True] if game.heal_left else [False]
            poisons = [None, *living] if game.poison_left else [None]
            targets = [{"heal": h, "poison": p} for h in heals for p in poisons]
            view["victim"] = game.pack_victim()
        else:
            targets = living
        view["turn"] = {"verb": verb, "targets": targets}
        view["answered"] = self.shared_answered == (game.night, call)
        return view

    def shared_tap(self, tap: SharedTap) -> Reply:
        """One tap on a shared phone answers the call in progress: the called player's
        choice, or for the pack every living werewolf's kill, so that «la manada toca una
        sola vez en el teléfono más cercano, y ese toque es la víctima» (seed 000). Taken
        once per call. A tap on a dead role's call (or one whose players all chose on their
        own phones) is taken and changes nothing, and answers the same as any other."""
        n = self.narrator
        view = self.shared_view()
        if view is None or tap.call != view["call"] or tap.verb != view["turn"]["verb"]:
            return n.shared_refused("not_your_turn")
        if view["answered"]:
            return n.shared_refused("already_chosen")
        target = tap.target
        if tap.verb == "link" and isinstance(target, list) and len(target) == 2:
            # a pair is the same pair in either order
            target = next((pair for pair in view["turn"]["targets"]
                           if sorted(pair) == sorted(target)), target)
        if target not in view["turn"]["targets"]:
            return n.shared_refused("bad_target")
        learnt = self._learnt(tap.call, target)
        called = [d.player for d in n.game.pending() if self._called(d.player)]
        # all or nothing: every wolf's kill is checked before any is taken
        probe = copy.deepcopy(n.game)
        try:
            for player in called:
                probe.apply(player, tap.verb, target)
        except Refused:
            return n.shared_refused("refused")
        cues: list[Cue] = []
        for player in called:
            reply = self.take(Tap(player, tap.verb, target))
            assert reply.accepted  # checked on a copy of this very state just above
            cues += reply.cues
        self.shared_answered = (n.game.night, tap.call)
        return n.ok([*cues, Show(None, {"screen": "learnt", "call": tap.call, **learnt})])

    def _learnt(self, call: str, target: Any) -> dict[str, Any]:
        """What the tapping player learns (shown on that phone only): the seer's answer,
        cupid's lovers, the pack. From the card tapped, never from the caller's life (the
        rules' own answers: the same a living seer gets)."""
        game = self.narrator.game
        if call == "seer":
            return {"inspections": [{"night": game.night, "target": target,
                                     "werewolf": game.seen_as_werewolf(target)}]}
        if call == "cupid":
            return {"linked": list(target)}
        if call == "werewolf":
            return {"pack": game.werewolf_names()}
        return {}

    # ------------------------------------------------------------------ phones' views

    def waiting(self) -> dict[str, Any]:
        """Whom the host's screen may show as awaited: the voters once the vote is open,
        a count of the night's turns left on a night with phones, nobody otherwise."""
        n = self.narrator
        game = n.game
        if n.phase == DEBATE:
            # the rules already wait for the day's votes, but the vote opens only when the
            # debate ends (every vote until then is refused): nobody is awaited yet
            return {}
        if n.phase in ("reveal", NIGHT) or game.phase == "night":
            # before "ready" the rules already wait for the night's first turns: naming them
            # would name the cupid or the pack
            if n.phase != NIGHT:
                return {}
            if self._narrated_night():
                # nothing: a live role's call ends when its player chooses, a dead role's
                # after the speaker's pause, so naming the call would betray the dead
                return {}
            # a witch waiting for the pack still has her turn to take: counting her keeps
            # the count from telling whether a witch with a potion is alive
            waiting_witch = 1 if getattr(game, "witch_waiting", None) is not None else 0
            return {"turns_left": len(game.pending()) + waiting_witch,
                    "turns": len(game.alive_names())}
        # the host is awaited too (the tie's revote), but is no player
        return {"players": [d.player for d in game.pending() if d.player != TABLE]}

    def player_view(self, name: str, turns: dict[str, str]) -> dict[str, Any]:
        n = self.narrator
        game = n.game
        view: dict[str, Any] = {"me": private_knowledge(game, name)}
        turn = turns.get(name)
        if turn is None or n.phase == DEBATE:
            return view  # nothing to choose (the vote opens when the debate ends)
        if self._narrated_night() and not self._called(name):
            return view  # a night choice shows only while that role is called
        if turn in ("vote", "elect") and n.config.protocol != "phones":
            return view  # votes are said aloud
        view["turn"] = {"verb": turn, "targets": game.legal_targets(name, turn)}
        return view

    def public_knowledge(self) -> dict[str, Any]:
        return public_knowledge(self.narrator.game)
