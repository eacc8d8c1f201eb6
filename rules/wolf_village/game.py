"""The Wolf Village game: a deterministic state machine over (set-up, seed, actions).

The game always knows which decisions it is waiting for (`pending`). `apply` accepts an
action that answers one of them, or raises `Refused` *before touching anything*, so a
refused action leaves the game exactly as it was. Every validation happens first; the
mutation that follows cannot fail.

Phases: night -> (dawn, settle) -> [election on day 1] -> vote -> [tie] -> (settle) -> night.
"Settle" is the queue of consequences every death can leave behind: the hunter's shot and
the sheriff's badge. The win check runs only once that queue is empty (seed 000: «cuando ya
se han resuelto todas las muertes, los disparos y la placa»).
"""

from __future__ import annotations

import random
from itertools import combinations
from typing import Any

from rules.core import TABLE, Decision, Event, Refused, pick, plurality
from rules.wolf_village import night as night_rules
from rules.wolf_village import wins
from rules.wolf_village.roles import ROLES
from rules.wolf_village.setup import Setup

# Phases
NIGHT = "night"
SETTLE = "settle"
ELECTION = "election"
VOTE = "vote"
TIE = "tie"
OVER = "over"

# What a settled queue leads to
AFTER_DAWN = "dawn"
AFTER_VOTE = "vote"


class WolfVillageGame:
    """One table's game. Build it with `rules.wolf_village.start(doc)`."""

    def __init__(self, setup: Setup, rng: random.Random):
        self.setup = setup
        self.options = setup.options
        self.rng = rng
        self.players: list[str] = list(setup.players)
        self.seat: dict[str, int] = {name: i for i, name in enumerate(self.players)}
        self.dealt: list[str] = list(setup.roles)
        self.role: list[str] = list(setup.roles)  # current roles: the cursed may turn
        self.alive: list[bool] = [True] * len(self.players)
        self.events: list[Event] = []

        self.night = 0
        self.day = 0
        self.phase = NIGHT
        self.pending_by: dict[int | str, str] = {}

        self.lovers: tuple[int, int] | None = None
        self.sheriff: int | None = None
        self.election_held = False
        self.spared: set[int] = set()  # idiots the vote forgave; they no longer vote
        self.heal_left = True
        self.poison_left = True
        self.last_protected: tuple[int, int] | None = None  # (night, seat)

        # the night in progress, resolved at dawn on these scratch choices
        self.stages: list[list[int]] = []
        self.kills: dict[int, int] = {}
        self.victim: int | None = None
        self.inspected: int | None = None
        self.protected: int | None = None
        self.healed = False
        self.poisoned: int | None = None
        self.witch_waiting: int | None = None  # all_at_once: the witch waits for the pack

        # consequences of deaths still to settle
        self.shots: list[int] = []
        self.badge_from: int | None = None
        self.after_settle = AFTER_DAWN

        # the day in progress
        self.votes: dict[int, int | None] = {}
        self.tied: list[int] = []

        self.jester_voted_out: int | None = None
        self.winner: str | None = None
        self.winners: list[str] = []
        # what pending() answers, until the next action: the engine's most asked question
        # (every view, every simulated move), and its answer only changes in apply
        self._pending: tuple[Decision, ...] | None = None

        self._handlers = {
            "link": self._link,
            "kill": self._kill,
            "inspect": self._inspect,
            "protect": self._protect,
            "witch": self._witch,
            "suspect": self._suspect,
            "shoot": self._shoot,
            "pass_badge": self._pass_badge,
            "elect": self._elect,
            "vote": self._vote,
            "break_tie": self._break_tie,
            "revote": self._revote,
            "verdict": self._verdict,
            "spare": self._spare,
        }
        self._start_night()

    # ------------------------------------------------------------------ queries

    def pending(self) -> list[Decision]:
        if self._pending is None:
            self._pending = tuple(self._decisions())
        return list(self._pending)

    def _decisions(self) -> list[Decision]:
        out: list[Decision] = []
        for actor in sorted((a for a in self.pending_by if a != TABLE), key=int):
            out.append(Decision(self.players[actor], self.pending_by[actor]))
        table_verb = self.pending_by.get(TABLE)
        if table_verb == "tie":
            out += [Decision(TABLE, "revote"), Decision(TABLE, "spare")]
        elif table_verb is not None:
            out.append(Decision(TABLE, table_verb))
        return out

    def alive_names(self) -> list[str]:
        return [p for i, p in enumerate(self.players) if self.alive[i]]

    def roles_as_dealt(self) -> dict[str, str]:
        return dict(zip(self.players, self.dealt, strict=True))

    def current_role(self, name: str) -> str:
        return self.role[self.seat[name]]

    def lovers_names(self) -> list[str] | None:
        return [self.players[s] for s in self.lovers] if self.lovers else None

    def lovers_mixed(self) -> bool:
        return wins.lovers_mixed(self.role, self.lovers)

    def seen_as_werewolf(self, name: str) -> bool:
        """What the seer's look at `name` answers (the minion looks a villager, the fox's
        kin...: the role's own `seen_as_wolf`)."""
        return ROLES[self.current_role(name)].seen_as_wolf

    def werewolf_names(self) -> list[str]:
        """The pack as it is now (a bitten cursed included), in seat order."""
        return [p for i, p in enumerate(self.players) if self.role[i] == "werewolf"]

    def pack_choices(self) -> dict[str, str]:
        """The pack's current choices, wolf by wolf (what the wolves' phones show)."""
        return {self.players[w]: self.players[t] for w, t in self.kills.items()}

    def pack_victim(self) -> str | None:
        return None if self.victim is None else self.players[self.victim]

    def sheriff_name(self) -> str | None:
        return None if self.sheriff is None else self.players[self.sheriff]

    def tied_names(self) -> list[str]:
        return [self.players[s] for s in self.tied]

    def can_vote(self, name: str) -> bool:
        s = self.seat[name]
        return self.alive[s] and s not in self.spared

    def legal_targets(self, actor: str, verb: str) -> list[Any]:
        """Every target the rules would accept from `actor` for `verb` right now."""
        key = TABLE if actor == TABLE else self.seat.get(actor)
        if key is None:
            return []
        if key == TABLE:
            table_verb = self.pending_by.get(TABLE)
            if table_verb == "tie" and verb in ("revote", "spare"):
                return [None]
            if table_verb != verb:
                return []
            living_names = [self.players[i] for i in range(len(self.players)) if self.alive[i]]
            if verb == "elect":
                return [None, *living_names]
            # verdict: one name, nobody, or a tie between two or more
            ties = [{"tie": list(pair)} for pair in combinations(living_names, 2)]
            return [None, *living_names, *ties]
        if self.pending_by.get(key) != verb:
            return []
        s = int(key)
        living = [i for i in range(len(self.players)) if self.alive[i]]
        names = self.players
        if verb == "link":
            return [[names[a], names[b]] for a, b in combinations(living, 2)]
        if verb == "kill":
            return [names[i] for i in living if self.role[i] != "werewolf"]
        if verb in ("inspect", "suspect", "shoot"):
            return [names[i] for i in living if i != s]
        if verb == "protect":
            return [names[i] for i in self._protectable(s)]
        if verb == "witch":
            heals = [False, True] if self.heal_left else [False]
            poisons = [None] + (
                [names[i] for i in living if i != s] if self.poison_left else []
            )
            return [{"heal": h, "poison": p} for h in heals for p in poisons]
        if verb == "pass_badge":
            return [None] + [names[i] for i in living if i != s and i not in self.spared]
        if verb in ("elect", "vote"):
            return [None] + [names[i] for i in living]
        if verb == "break_tie":
            return [names[i] for i in self.tied]
        return []

    # ------------------------------------------------------------------ actions

    def apply(self, actor: Any, verb: Any, target: Any = None) -> list[Event]:
        """Accept one action or raise Refused with the reason; return the new events."""
        if self.phase == OVER:
            raise Refused("the game is over")
        if not isinstance(actor, str):
            raise Refused(f"the actor must be a player's name, not {actor!r}")
        if not isinstance(verb, str) or verb not in self._handlers:
            raise Refused(f"unknown action {verb!r}")
        if actor == TABLE:
            table_verb = self.pending_by.get(TABLE)
            asked = verb in ("revote", "spare") if table_verb == "tie" else verb == table_verb
            if not asked:
                raise Refused(f"the table is not being asked to {verb} now")
            if verb in ("revote", "spare") and target is not None:
                raise Refused(f"{verb} takes no target")
            mark = len(self.events)
            self._handlers[verb](TABLE, target)
            self._pending = None  # (a refused action changed nothing, this included)
            return self.events[mark:]
        s = self.seat.get(actor)
        if s is None:
            raise Refused(f"there is no player called {actor!r}")
        expected = self.pending_by.get(s)
        if expected is None:
            if not self.alive[s]:
                raise Refused(f"{actor} is dead")
            raise Refused(f"it is not {actor}'s turn: {self._waiting_for()}")
        if expected != verb:
            raise Refused(f"{actor} must {expected} now, not {verb}")
        mark = len(self.events)
        self._handlers[verb](s, target)
        self._pending = None  # (a refused action changed nothing, this included)
        return self.events[mark:]

    def _waiting_for(self) -> str:
        decisions = self.pending()
        if not decisions:
            return "nothing is pending"
        shown = ", ".join(f"{d.player} to {d.action}" for d in decisions[:6])
        more = "" if len(decisions) <= 6 else f" and {len(decisions) - 6} more"
        return f"waiting for {shown}{more}"

    def _living(self, target: Any, what: str) -> int:
        if not isinstance(target, str):
            raise Refused(f"{what} must be a player's name, not {target!r}")
        t = self.seat.get(target)
        if t is None:
            raise Refused(f"there is no player called {target!r}")
        if not self.alive[t]:
            raise Refused(f"{target} is dead")
        return t

    def _emit(self, event: Event) -> None:
        self.events.append(event)

    # ------------------------------------------------------------------ night

    def _start_night(self) -> None:
        self.night += 1
        self.phase = NIGHT
        self.kills = {}
        self.victim = None
        self.inspected = None
        self.protected = None
        self.healed = False
        self.poisoned = None
        self.witch_waiting = None
        self.pending_by = {}
        self._emit({"type": "night", "number": self.night})
        living = [i for i in range(len(self.players)) if self.alive[i]]
        if self.options.night_mode == "narrated":
            self.stages = night_rules.narrated_stages(self, living)
            self._next_stage()
            return
        # all_at_once and pass_phones: every living player takes a secret turn at once
        self.stages = []
        for s in living:
            verb = night_rules.secret_turn(self, s)
            if verb == "witch" and self.options.night_mode == "all_at_once":
                # with her own phone she can wait for the pack without giving herself away
                self.witch_waiting = s
                continue
            self.pending_by[s] = verb

    def _next_stage(self) -> None:
        while self.stages and not self.pending_by:
            stage = self.stages.pop(0)
            for s in stage:
                self.pending_by[s] = night_rules.narrated_verb(self, s)
        if not self.pending_by:
            self._dawn()

    def _night_answered(self, s: int) -> None:
        del self.pending_by[s]
        if self.pending_by:
            return
        if self.options.night_mode == "narrated":
            self._next_stage()
        elif self.witch_waiting is None:
            self._dawn()

    def _link(self, s: int, target: Any) -> None:
        if not (isinstance(target, list | tuple) and len(target) == 2):
            raise Refused("cupid links exactly two players: [A, B]")
        a = self._living(target[0], "a lover")
        b = self._living(target[1], "a lover")
        if a == b:
            raise Refused("cupid must link two different players")
        self.lovers = (a, b)
        self._emit({"type": "lovers", "players": [self.players[a], self.players[b]]})
        self._night_answered(s)

    def _kill(self, s: int, target: Any) -> None:
        t = self._living(target, "the victim")
        if self.role[t] == "werewolf":
            raise Refused(f"{self.players[s]} cannot attack {target}: the pack never bites its own")
        self.kills[s] = t
        pack = [w for w in range(len(self.players)) if self.alive[w] and self.role[w] == "werewolf"]
        if all(w in self.kills for w in pack):
            # fixed as soon as the whole pack has chosen, so the witch can be shown it
            top, _ = plurality((self.kills[w], 1) for w in pack)
            self.victim = pick(self.rng, top)
            self._emit({"type": "pack_victim", "player": self.players[self.victim]})
            if self.witch_waiting is not None:
                self.pending_by[self.witch_waiting] = "witch"
                self.witch_waiting = None
        self._night_answered(s)

    def _inspect(self, s: int, target: Any) -> None:
        t = self._living(target, "the seer's choice")
        if t == s:
            raise Refused("the seer cannot look at herself")
        self.inspected = t
        self._emit(
            {
                "type": "inspection",
                "seer": self.players[s],
                "target": self.players[t],
                "werewolf": self.seen_as_werewolf(self.players[t]),
            }
        )
        self._night_answered(s)

    def _protectable(self, s: int) -> list[int]:
        return night_rules.protectable(self, s)

    def _protect(self, s: int, target: Any) -> None:
        t = self._living(target, "the doctor's choice")
        if t == s and not self.options.doctor_self_protect:
            raise Refused("the doctor cannot protect himself in this game")
        if t not in self._protectable(s):
            raise Refused(f"the doctor protected {target} last night and cannot repeat")
        self.protected = t
        self.last_protected = (self.night, t)
        self._night_answered(s)

    def _witch(self, s: int, target: Any) -> None:
        if not isinstance(target, dict) or not set(target) <= {"heal", "poison"}:
            raise Refused('the witch answers {"heal": true/false, "poison": name or null}')
        heal = target.get("heal", False)
        poison = target.get("poison")
        if not isinstance(heal, bool):
            raise Refused("heal must be true or false")
        if heal and not self.heal_left:
            raise Refused("the witch has already used her healing potion")
        p = None
        if poison is not None:
            if not self.poison_left:
                raise Refused("the witch has already used her poison")
            p = self._living(poison, "the poisoned player")
            if p == s:
                raise Refused("the witch cannot poison herself")
        if heal:
            self.heal_left = False
            self.healed = True
        if p is not None:
            self.poison_left = False
            self.poisoned = p
        self._night_answered(s)

    def _suspect(self, s: int, target: Any) -> None:
        t = self._living(target, "the suspect")
        if t == s:
            raise Refused("you cannot suspect yourself")
        self._emit(
            {
                "type": "suspicion",
                "player": self.players[s],
                "target": self.players[t],
                "night": self.night,
            }
        )
        self._night_answered(s)

    def _dawn(self) -> None:
        self._emit({"type": "dawn", "number": self.night})
        outcome = night_rules.resolve_dawn(self)
        for step in outcome:
            kind, seat = step
            if kind == "saved_doctor":
                self._emit({"type": "saved", "player": self.players[seat], "by": "doctor"})
            elif kind == "saved_witch":
                self._emit({"type": "saved", "player": self.players[seat], "by": "witch"})
            elif kind == "transformed":
                self.role[seat] = "werewolf"
                self._emit({"type": "transformed", "player": self.players[seat]})
            elif kind == "unharmed":
                self._emit({"type": "unharmed", "player": self.players[seat]})
            elif self.alive[seat]:
                self._die(seat, kind)
        self.after_settle = AFTER_DAWN
        self._settle()

    # ------------------------------------------------------------------ deaths

    def _die(self, s: int, cause: str) -> None:
        self.alive[s] = False
        self._emit({"type": "death", "player": self.players[s], "cause": cause})
        if self.role[s] == "hunter":
            self.shots.append(s)
        if self.sheriff == s:
            self.sheriff = None
            self.badge_from = s
        if self.lovers and s in self.lovers:
            other = self.lovers[1] if self.lovers[0] == s else self.lovers[0]
            if self.alive[other]:
                self._die(other, "grief")

    def _settle(self) -> None:
        """Ask for the next shot or badge; once there are none, check for a winner."""
        self.phase = SETTLE
        self.pending_by = {}
        while self.shots:
            if any(self.alive):
                self.pending_by[self.shots[0]] = "shoot"
                return
            self.shots.pop(0)
        if self.badge_from is not None:
            self.pending_by[self.badge_from] = "pass_badge"
            return
        result = wins.check(self)
        if result is not None:
            self._game_over(*result)
        elif self.after_settle == AFTER_DAWN:
            self.day += 1
            self._emit({"type": "day", "number": self.day})
            if self.options.sheriff and not self.election_held:
                self._start_election()
            else:
                self._start_vote()
        else:
            self._start_night()

    def _shoot(self, s: int, target: Any) -> None:
        t = self._living(target, "the hunter's target")
        if t == s:
            raise Refused("the hunter cannot shoot himself")
        self.shots.pop(0)
        self._die(t, "hunter")
        self._settle()

    def _pass_badge(self, s: int, target: Any) -> None:
        heir = None
        if target is not None:
            heir = self._living(target, "the new sheriff")
            if heir == s:
                raise Refused("the sheriff must pass the badge to someone else")
            if heir in self.spared:
                raise Refused(f"{target} was spared as the village idiot and cannot vote")
        self.badge_from = None
        self.sheriff = heir
        self._emit({"type": "sheriff", "player": self.players[heir] if heir is not None else None,
                    "how": "badge"})
        self._settle()

    def _game_over(self, winner: str, winners: list[int]) -> None:
        self.phase = OVER
        self.pending_by = {}
        self.winner = winner
        self.winners = [self.players[s] for s in sorted(winners)]
        self._emit({"type": "game_over", "winner": winner, "winners": list(self.winners)})

    # ------------------------------------------------------------------ day

    def _start_election(self) -> None:
        self.phase = ELECTION
        self.votes = {}
        if self.options.show_of_hands:
            self.pending_by = {TABLE: "elect"}
            return
        self.pending_by = {s: "elect" for s in range(len(self.players)) if self.alive[s]}

    def _elect(self, s: int | str, target: Any) -> None:
        choice = None if target is None else self._living(target, "the candidate")
        if s == TABLE:
            self.pending_by = {}
            self._elected(choice)
            return
        self.votes[int(s)] = choice
        del self.pending_by[s]
        if self.pending_by:
            return
        # «El pueblo puede también no elegir a nadie»: nobody is a candidate like any other;
        # a tie at the top is broken by the game's seeded generator, like the pack's.
        top, _ = plurality((self.votes[v], 1) for v in sorted(self.votes))
        self._elected(pick(self.rng, top))

    def _elected(self, chosen: int | None) -> None:
        self.election_held = True
        self.sheriff = chosen
        self._emit({"type": "sheriff",
                    "player": None if chosen is None else self.players[chosen],
                    "how": "elected"})
        self._start_vote()

    def _start_vote(self) -> None:
        self.phase = VOTE
        self.votes = {}
        self.tied = []
        if self.options.show_of_hands:
            self.pending_by = {TABLE: "verdict"}
            return
        self.pending_by = {
            s: "vote"
            for s in range(len(self.players))
            if self.alive[s] and s not in self.spared
        }

    def _vote(self, s: int, target: Any) -> None:
        choice = None if target is None else self._living(target, "the vote")
        self.votes[s] = choice
        del self.pending_by[s]
        if self.pending_by:
            return
        # the sheriff's vote counts double
        top, weight = plurality(
            (t, 2 if v == self.sheriff else 1)
            for v, t in sorted(self.votes.items())
            if t is not None
        )
        self._result(None if weight == 0 else top)

    def _verdict(self, actor: Any, target: Any) -> None:
        """The table's show of hands: a name, {"tie": [names]}, or null for nobody."""
        if target is None:
            self._result(None)
        elif isinstance(target, str):
            self._result([self._living(target, "the most voted player")])
        elif isinstance(target, dict) and set(target) == {"tie"} and isinstance(
            target["tie"], list
        ):
            tied = {self._living(name, "a tied player") for name in target["tie"]}
            if len(tied) < 2:
                raise Refused("a tie needs at least two different players")
            self._result(sorted(tied))
        else:
            raise Refused('the verdict is a name, {"tie": [names]} or null')

    def _result(self, top: list[int] | None) -> None:
        if not top:
            self._no_elimination()
        elif len(top) == 1:
            self._eliminate(top[0])
        else:
            self.phase = TIE
            self.tied = sorted(top)
            self._emit({"type": "tie", "players": self.tied_names()})
            if self.sheriff is not None:
                self.pending_by = {self.sheriff: "break_tie"}
            else:
                self.pending_by = {TABLE: "tie"}

    def _break_tie(self, s: int, target: Any) -> None:
        if not isinstance(target, str) or self.seat.get(target) not in self.tied:
            raise Refused(
                f"the sheriff must choose among the tied players: {', '.join(self.tied_names())}"
            )
        self._eliminate(self.seat[target])

    def _revote(self, actor: Any, target: Any) -> None:
        self._emit({"type": "revote"})
        self._start_vote()

    def _spare(self, actor: Any, target: Any) -> None:
        self._no_elimination()

    def _no_elimination(self) -> None:
        self._emit({"type": "no_elimination"})
        self.after_settle = AFTER_VOTE
        self._settle()

    def _eliminate(self, t: int) -> None:
        self.after_settle = AFTER_VOTE
        if self.role[t] == "idiot" and t not in self.spared:
            # «¡Pero es el tonto del pueblo!» He stays, his card shown, and never votes again.
            self.spared.add(t)
            self._emit({"type": "spared", "player": self.players[t]})
            if self.sheriff == t:
                self.sheriff = None
                self.badge_from = t
        else:
            if self.role[t] == "jester" and not (
                self.lovers and t in self.lovers and self.lovers_mixed()
            ):
                self.jester_voted_out = t
            self._die(t, "vote")
        self._settle()
