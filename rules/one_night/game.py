"""The One Night game: a deterministic state machine over (set-up, seed, actions).

The night walks the calls of `night_calls()` in the seed's order. Entering a call wakes
the players it calls (by the card dealt at the start, or the role the doppelganger
copied), records what they see (the pack, the minion's werewolves, the other masons, the
insomniac's card) and asks the decisions of that call. A call that asks nothing (its card
in the centre, or a role that only looks) is passed at once: the narrator, which calls
every role of the deck, makes the same pause there. Once every call is passed it is day
and everybody points at once; when the last vote is in, the table's result follows at
once: who is out, the hunter's shot, the winners (seed 001, «La votación», «¿Quién gana?»).

Cards move, so the game tracks cards, not roles: `printed[c]` is what card `c` shows,
`at[p]` the card at position `p` (seats 0..n-1, then the centre 0, 1, 2), and `counts_as`
what a card has turned into (the doppelganger's copy, the investigator's werewolf or
tanner), for whoever holds it at the end.

As in Wolf Village, `apply` checks everything before it changes anything, so a refused
action leaves the game exactly as it was, and no refusal names who holds what.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from rules.core import Decision, Event, Refused
from rules.one_night import wins
from rules.one_night.roles import (
    CENTER_CARDS,
    COPIED_VERBS,
    DOPPELGANGER_INSOMNIAC,
    ROLES,
    TURNS_INVESTIGATOR,
    VERB_ROLES,
    VERBS,
    call_of,
    is_werewolf,
    night_calls,
)
from rules.one_night.setup import Setup

# Phases
NIGHT = "night"
DAY = "day"
OVER = "over"

MAX_INVESTIGATIONS = 2

# The call a fact is known from when it was seen at the deal, before any call
DEALT = None

_WOKEN_BY_COPY = {
    "werewolf": "werewolves",
    "mystic_wolf": "werewolves",
    "little_girl": "werewolves",
    "minion": "minion",
    "mason": "masons",
    "insomniac": DOPPELGANGER_INSOMNIAC,
}

_PAST = {"copy": "copied", "peek_center": "looked at the centre", "look": "looked",
         "peek": "peeked", "investigate": "investigated", "rob": "robbed", "swap": "swapped",
         "drunk": "taken a centre card", "vote": "voted"}


class OneNightGame:
    """One table's game. Build it with `rules.one_night.start(doc)`."""

    def __init__(self, setup: Setup, rng: random.Random):
        self.setup = setup
        self.options = setup.options
        self.rng = rng  # it dealt the cards; nothing in the game is left to chance after
        self.players: list[str] = list(setup.players)
        self.seat: dict[str, int] = {name: i for i, name in enumerate(self.players)}
        self.n = len(self.players)
        self.deck: list[str] = setup.deck
        self.calls: list[str] = night_calls(self.deck)

        self.printed: list[str] = [*setup.roles, *setup.center]  # card id -> what it shows
        self.at: list[int] = list(range(self.n + CENTER_CARDS))  # position -> card id
        self.counts_as: dict[int, str] = {}  # card id -> what it has turned into
        self.copied: str | None = None  # the role the doppelganger copied

        self.phase = NIGHT
        self.call: str | None = None
        self.next_call = 0  # index in self.calls of the call to enter next
        self.pending_by: dict[int, tuple[str, str | None]] = {}  # seat -> (verb, as role)
        self.answered: dict[int, set[str]] = {}  # seat -> the verbs it has answered
        self.wolves: list[int] = []  # the seats woken as werewolves
        self.investigated: list[int] = []  # the seats the investigator at work has seen

        # what each player learned, in order: (seat, call, fact, value); knowledge.py
        self.facts: list[tuple[int, str | None, str, Any]] = [
            (s, DEALT, "card", self.printed[s]) for s in range(self.n)
        ]
        self.events: list[Event] = []

        self.votes: dict[int, int] = {}  # voter -> the player pointed at
        self.counts: dict[int, int] | None = None  # once the vote is resolved
        self.out: list[int] = []  # in the order they went out
        self.out_cause: dict[int, str] = {}
        self.winner: list[str] | None = None
        self.winners: list[str] = []

        self._handlers = {
            "copy": self._copy,
            "peek_center": self._peek_center,
            "look": self._look,
            "peek": self._peek,
            "investigate": self._investigate,
            "rob": self._rob,
            "swap": self._swap,
            "drunk": self._drunk,
            "vote": self._vote,
        }
        self._emit({"type": "night"})
        self._advance()

    # ------------------------------------------------------------------ queries

    def pending(self) -> list[Decision]:
        return [Decision(self.players[s], verb) for s, (verb, _) in sorted(self.pending_by.items())]

    def night_calls(self) -> list[str]:
        """Tonight's calls in the seed's order, from the deck alone (public): every role of
        the deck is called, even with its card in the centre."""
        return list(self.calls)

    def current_call(self) -> str | None:
        """The call the pending decisions belong to; None by day and at the end."""
        return self.call if self.phase == NIGHT else None

    def woken(self, call: str) -> list[str]:
        """Who that call wakes: by the card dealt at the start, or the doppelganger's copy
        (known once she has copied). Secret: the narrator may use it for the phones it
        calls, never say it."""
        return [self.players[s] for s in range(self.n) if self._wakes(s, call)]

    def acting_as(self, name: str) -> str | None:
        """The role whose action `name`'s pending decision is (a doppelganger's `look` is
        the seer's or the mystic wolf's, as she copied), or None: what a phone's page for
        that choice should say. Secret, like the decision itself."""
        asked = self.pending_by.get(self.seat.get(name, -1))
        return None if asked is None else asked[1]

    def alive_names(self) -> list[str]:
        """The players not out."""
        return [p for s, p in enumerate(self.players) if s not in self.out_cause]

    def roles_as_dealt(self) -> dict[str, str]:
        return dict(zip(self.players, self.setup.roles, strict=True))

    def center_as_dealt(self) -> list[str]:
        return list(self.setup.center)

    def cards(self) -> dict[str, str]:
        """Each player's card as it stands (at the end of the night, once it is day)."""
        return {p: self.printed[self.at[s]] for s, p in enumerate(self.players)}

    def center(self) -> list[str]:
        return [self.printed[self.at[self.n + i]] for i in range(CENTER_CARDS)]

    def final_roles(self) -> dict[str, str]:
        """What each player's card counts as (the doppelganger card as its copy, the
        investigator's card as what he became). The win is decided on these."""
        return {p: self._counts_as(self.at[s]) for s, p in enumerate(self.players)}

    def replay_fields(self) -> dict[str, Any]:
        return {"cards": self.cards(), "center": self.center()}

    def legal_targets(self, actor: Any, verb: Any) -> list[Any]:
        """Exactly the targets `apply` accepts from `actor` for `verb` right now."""
        s = self.seat.get(actor) if isinstance(actor, str) else None
        asked = None if s is None else self.pending_by.get(s)
        if asked is None or asked[0] != verb:
            return []
        as_role = asked[1]
        others = [p for t, p in enumerate(self.players) if t != s]
        if verb in ("copy", "vote"):
            return others
        if verb == "peek_center":
            return [None, *range(CENTER_CARDS)]
        if verb == "look":
            if as_role == "mystic_wolf":
                return [None, *others]
            pairs = [[i, j] for i in range(CENTER_CARDS) for j in range(CENTER_CARDS) if i != j]
            return [None, *others, *pairs]
        if verb == "peek":
            return [True, False]
        if verb == "investigate":
            seen = {self.players[t] for t in self.investigated}
            return [None, *(p for p in others if p not in seen)]
        if verb == "rob":
            return [None, *others]
        if verb == "swap":
            return [None, *([a, b] for a in others for b in others if a != b)]
        if verb == "drunk":
            return list(range(CENTER_CARDS))
        return []

    # ------------------------------------------------------------------ actions

    def apply(self, actor: Any, verb: Any, target: Any = None) -> list[Event]:
        """Accept one action or raise Refused with the reason; return the new events."""
        if self.phase == OVER:
            raise Refused("the game is over")
        if not isinstance(actor, str):
            raise Refused(f"the actor must be a player's name, not {actor!r}")
        if not isinstance(verb, str) or verb not in self._handlers:
            raise Refused(f"unknown action {verb!r} (One Night's actions: {', '.join(VERBS)})")
        s = self.seat.get(actor)
        if s is None:
            raise Refused(f"there is no player called {actor!r}")
        roles = VERB_ROLES[verb]
        if roles and not any(r in self.deck for r in roles):
            raise Refused(f"there is no {' or '.join(roles)} in this game")
        expected = self.pending_by.get(s)
        if expected is None or expected[0] != verb:
            raise Refused(self._not_now(s, actor, verb, expected))
        mark = len(self.events)
        self._handlers[verb](s, expected[1], target)
        return self.events[mark:]

    def _not_now(self, s: int, actor: str, verb: str,
                 expected: tuple[str, str | None] | None) -> str:
        # Said to that player alone, and never where the rules are in the night: a call
        # whose card is in the centre passes at once, so naming the call the rules are at
        # (or saying it is day already) while the narrator still calls would tell the centre.
        if verb in self.answered.get(s, ()):
            return f"{actor} has already {_PAST[verb]}"
        if verb == "vote" and self.phase == NIGHT:
            return "the vote comes after the night"
        if expected is not None and self.phase == NIGHT:
            return f"{actor} must {expected[0]} now, not {verb}"
        return f"{actor} has nothing to do now"

    def _emit(self, event: Event) -> None:
        self.events.append(event)

    def _learn(self, s: int, fact: str, value: Any) -> None:
        self.facts.append((s, self.call, fact, value))

    def _done(self, s: int, verb: str) -> None:
        self.answered.setdefault(s, set()).add(verb)
        del self.pending_by[s]
        if not self.pending_by:
            self._advance()

    # -- target checks (they raise before anything changes)

    def _other(self, s: int, target: Any, verb: str) -> int:
        if not isinstance(target, str):
            raise Refused(f"{self.players[s]} must {verb} a player (a name), not {target!r}")
        t = self.seat.get(target)
        if t is None:
            raise Refused(f"there is no player called {target!r}")
        if t == s:
            own = "for themselves" if verb == "vote" else "their own card"
            raise Refused(f"{self.players[s]} cannot {verb} {own}")
        return t

    @staticmethod
    def _center(target: Any) -> int:
        if isinstance(target, bool) or not isinstance(target, int):
            raise Refused(f"a centre card is a number 0, 1 or 2, not {target!r}")
        if not 0 <= target < CENTER_CARDS:
            raise Refused(f"centre cards are numbered 0, 1 and 2, not {target}")
        return target

    # ------------------------------------------------------------------ the night

    def _wakes(self, s: int, call: str) -> bool:
        dealt = self.printed[s]  # card s was dealt to seat s
        if call == "werewolves" and is_werewolf(dealt):
            return True  # the mystic wolf wakes with the pack, and again in her own call
        if dealt == "doppelganger":
            if call == "doppelganger":
                return True
            return self.copied is not None and _WOKEN_BY_COPY.get(self.copied) == call
        return call_of(dealt) == call

    def _advance(self) -> None:
        """Enter the calls in order until one asks for a decision; then it is day."""
        while not self.pending_by and self.next_call < len(self.calls):
            self.call = self.calls[self.next_call]
            self.next_call += 1
            self._enter(self.call)
        if not self.pending_by and self.phase == NIGHT:
            self._start_day()

    def _enter(self, call: str) -> None:
        woken = [s for s in range(self.n) if self._wakes(s, call)]
        if call == "werewolves":
            girls = [s for s in woken if self._as(s) == "little_girl"]
            self.wolves = [s for s in woken if s not in girls]
            for w in self.wolves:
                self._learn(w, "pack", [self.players[o] for o in self.wolves if o != w])
            if len(self.wolves) == 1:  # «Si estás solo, puedes mirar una carta del centro.»
                self.pending_by[self.wolves[0]] = ("peek_center", "werewolf")
            for g in girls:
                self.pending_by[g] = ("peek", "little_girl")
            return
        if call == "minion":
            # the werewolves show themselves to the minion; they do not see the minion
            for s in woken:
                self._learn(s, "werewolves", [self.players[w] for w in self.wolves])
            return
        if call == "masons":
            for s in woken:
                self._learn(s, "masons", [self.players[m] for m in woken if m != s])
            return
        if call in ("insomniac", DOPPELGANGER_INSOMNIAC):
            for s in woken:
                card = self.printed[self.at[s]]
                self._learn(s, "own_card", card)
                self._emit({"type": "looked", "player": self.players[s],
                            "target": self.players[s], "role": card})
            return
        for s in woken:
            self.pending_by[s] = (ROLES[self._as(s)].verb or "", self._as(s))

    def _as(self, s: int) -> str:
        """The role seat `s` wakes as: its dealt card, or the doppelganger's copy."""
        dealt = self.printed[s]
        if dealt == "doppelganger" and self.copied is not None:
            return self.copied
        return dealt

    def _counts_as(self, card: int) -> str:
        return self.counts_as.get(card, self.printed[card])

    def _copy(self, s: int, as_role: str | None, target: Any) -> None:
        t = self._other(s, target, "copy")
        role = self.printed[self.at[t]]
        self.copied = role
        self.counts_as[self.at[s]] = role
        self._emit({"type": "copied", "player": self.players[s], "target": self.players[t],
                    "role": role})
        self._learn(s, "copied", {"player": self.players[t], "role": role})
        verb = COPIED_VERBS.get(role)
        if verb is None:
            self._done(s, "copy")
            return
        # «una acción nocturna se hace en el acto»: the copied action, still in her turn
        self.answered.setdefault(s, set()).add("copy")
        self.pending_by[s] = (verb, role)

    def _look_at(self, s: int, t: int) -> str:
        role = self.printed[self.at[t]]
        self._emit({"type": "looked", "player": self.players[s], "target": self.players[t],
                    "role": role})
        self._learn(s, "looked", {"player": self.players[t], "role": role})
        return role

    def _look_center(self, s: int, cards: list[int]) -> None:
        roles = [self.printed[self.at[self.n + i]] for i in cards]
        self._emit({"type": "looked", "player": self.players[s], "center": list(cards),
                    "roles": roles})
        self._learn(s, "looked_center",
                    [{"center": i, "role": r} for i, r in zip(cards, roles, strict=True)])

    def _peek_center(self, s: int, as_role: str | None, target: Any) -> None:
        if target is not None:
            self._look_center(s, [self._center(target)])
        self._done(s, "peek_center")

    def _look(self, s: int, as_role: str | None, target: Any) -> None:
        if as_role == "mystic_wolf":
            if target is not None:
                self._look_at(s, self._other(s, target, "look at"))
            self._done(s, "look")
            return
        # the seer: another player's card, two centre cards, or nothing
        if target is None:
            pass
        elif isinstance(target, list | tuple):
            if len(target) != 2:
                raise Refused(f"the seer looks at two centre cards, [i, j], not {target!r}")
            i, j = self._center(target[0]), self._center(target[1])
            if i == j:
                raise Refused("the seer looks at two different centre cards")
            self._look_center(s, [i, j])
        else:
            self._look_at(s, self._other(s, target, "look at"))
        self._done(s, "look")

    def _peek(self, s: int, as_role: str | None, target: Any) -> None:
        if not isinstance(target, bool):
            raise Refused(f"the little girl peeks (true) or keeps her eyes shut (false), "
                          f"not {target!r}")
        if target:
            self._emit({"type": "peeked", "player": self.players[s]})
            self._learn(s, "werewolves", [self.players[w] for w in self.wolves])
        self._done(s, "peek")

    def _investigate(self, s: int, as_role: str | None, target: Any) -> None:
        if target is None:
            self.investigated = []
            self._done(s, "investigate")
            return
        t = self._other(s, target, "investigate")
        if t in self.investigated:
            raise Refused(f"{self.players[s]} has already looked at {target}'s card")
        role = self._look_at(s, t)
        if role in TURNS_INVESTIGATOR:
            # «Se une a ese bando»: the card he holds now counts as what he saw, and he
            # looks no further
            self.counts_as[self.at[s]] = role
            self._emit({"type": "became", "player": self.players[s], "role": role})
            self._learn(s, "became", role)
        elif len(self.investigated) + 1 < MAX_INVESTIGATIONS:
            self.investigated.append(t)
            return  # he may look at one more
        self.investigated = []
        self._done(s, "investigate")

    def _exchange(self, a: int, b: int) -> None:
        self.at[a], self.at[b] = self.at[b], self.at[a]

    def _rob(self, s: int, as_role: str | None, target: Any) -> None:
        if target is not None:
            t = self._other(s, target, "rob")
            self._exchange(s, t)
            card = self.printed[self.at[s]]
            self._emit({"type": "swapped", "by": self.players[s],
                        "players": [self.players[s], self.players[t]]})
            self._emit({"type": "looked", "player": self.players[s],
                        "target": self.players[s], "role": card})
            self._learn(s, "robbed", {"player": self.players[t], "role": card})
        self._done(s, "rob")

    def _swap(self, s: int, as_role: str | None, target: Any) -> None:
        if target is not None:
            if not isinstance(target, list | tuple) or len(target) != 2:
                raise Refused(f"the troublemaker swaps two players, [A, B], not {target!r}")
            a = self._other(s, target[0], "swap")
            b = self._other(s, target[1], "swap")
            if a == b:
                raise Refused("the troublemaker swaps two different players")
            self._exchange(a, b)
            pair = [self.players[a], self.players[b]]
            self._emit({"type": "swapped", "by": self.players[s], "players": pair})
            self._learn(s, "swapped", pair)
        self._done(s, "swap")

    def _drunk(self, s: int, as_role: str | None, target: Any) -> None:
        if target is None:
            raise Refused("the drunk must take a centre card: 0, 1 or 2")
        i = self._center(target)
        self._exchange(s, self.n + i)
        self._emit({"type": "swapped", "by": self.players[s], "players": [self.players[s]],
                    "center": i})
        self._learn(s, "took_center", i)
        self._done(s, "drunk")

    # ------------------------------------------------------------------ the day

    def _start_day(self) -> None:
        self.phase = DAY
        self.call = None
        self._emit({"type": "day"})
        self.pending_by = {s: ("vote", None) for s in range(self.n)}

    def _vote(self, s: int, as_role: str | None, target: Any) -> None:
        t = self._other(s, target, "vote")
        self.votes[s] = t
        self.answered.setdefault(s, set()).add("vote")
        del self.pending_by[s]
        if not self.pending_by:
            self._resolve_vote()

    def _resolve_vote(self) -> None:
        counts = Counter(self.votes.values())
        self.counts = {t: counts[t] for t in sorted(counts)}
        names = self.players
        self._emit({"type": "votes",
                    "counts": {names[t]: c for t, c in self.counts.items()},
                    "ballots": {names[v]: names[t] for v, t in sorted(self.votes.items())}})
        final = [self._counts_as(self.at[s]) for s in range(self.n)]
        outs = wins.voted_out(self.counts)
        if not outs:
            self._emit({"type": "nobody_out"})  # «si nadie tiene más de un voto»
        for t in outs:
            self._go_out(t, "vote")
        for t in wins.hunted(outs, self.votes, final):
            self._go_out(t, "hunter")
        sides, winners = wins.check(final, set(self.out))
        self.phase = OVER
        self.winner = sides
        self.winners = [names[s] for s in winners]
        self._emit({"type": "game_over", "winner": list(sides), "winners": list(self.winners)})

    def _go_out(self, t: int, cause: str) -> None:
        self.out.append(t)
        self.out_cause[t] = cause
        self._emit({"type": "out", "player": self.players[t], "cause": cause})


__all__ = ["DAY", "DEALT", "NIGHT", "OVER", "OneNightGame"]
