"""The ruleset-independent core: refusals, decisions, tallies and the ruleset registry.

Every game (Wolf Village now; One Night, Millers Hollow, Lupus in Tabula and Werewords
later) is a ruleset that turns a set-up and a seed into a state machine answering three
questions: which decisions are pending, is this action acceptable, what happened.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

TABLE = "table"
"""The actor that stands for the whole table (e.g. deciding to revote or spare on a tie)."""

CLOCK = "clock"
"""The actor that stands for a timer the narrator keeps (Werewords: the day's timer ran out)."""

RESERVED_ACTORS = (TABLE, CLOCK)
"""Actors that are not players, so no player may take their names."""


class Refused(Exception):
    """An action that answers no pending decision or breaks a rule. The game is unchanged."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class SetupError(Exception):
    """A set-up that breaks the rules (a preset outside its range, a deck that does not fit).

    `reason` is the sentence for a log or a terminal (English). A set-up a host can reach
    from the set-up page also carries a stable `code` and the `params` it names (counts,
    role ids), so each page says it in its own language; `code` is "" for the shapes only a
    hand-written document can have (a deck that is not a list, a seed that is a string)."""

    def __init__(self, reason: str, code: str = "", **params: Any):
        super().__init__(reason)
        self.reason = reason
        self.code = code
        self.params = params


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision the game is waiting for: `player` must answer with `action`."""

    player: str
    action: str

    def to_json(self) -> dict[str, str]:
        return {"player": self.player, "action": self.action}


Event = dict[str, Any]


def plurality(votes: Iterable[tuple[Any, int]]) -> tuple[list[Any], int]:
    """Return (the options with the most weight, that weight), in first-seen order."""
    totals: dict[Any, int] = {}
    for option, weight in votes:
        totals[option] = totals.get(option, 0) + weight
    if not totals:
        return [], 0
    best = max(totals.values())
    return [o for o, w in totals.items() if w == best], best


def pick(rng: random.Random, options: list[Any]) -> Any:
    """A seeded choice that consumes no randomness when there is nothing to choose."""
    if len(options) == 1:
        return options[0]
    return options[rng.randrange(len(options))]


class Game(Protocol):
    """What every ruleset's game offers to the narrator, the replay and the tests."""

    players: list[str]

    def pending(self) -> list[Decision]: ...

    def apply(self, actor: str, verb: str, target: Any) -> list[Event]: ...

    def legal_targets(self, actor: str, verb: str) -> list[Any]: ...

    # Also: roles_as_dealt(), alive_names(), events, winner, winners, and optionally
    # replay_fields() -> dict of ruleset-specific fields for `wolfvillage replay`.


@dataclass(frozen=True)
class Ruleset:
    """A game the narrator can run: its name and how to start one from a set-up document."""

    name: str
    start: Callable[[dict[str, Any]], Any]


_RULESETS: dict[str, Ruleset] = {}


def register(ruleset: Ruleset) -> None:
    _RULESETS[ruleset.name] = ruleset


def ruleset(name: str) -> Ruleset:
    try:
        return _RULESETS[name]
    except KeyError:
        known = ", ".join(sorted(_RULESETS))
        raise SetupError(f"unknown ruleset {name!r} (known: {known})") from None
