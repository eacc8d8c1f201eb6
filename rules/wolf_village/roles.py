"""The 13 Wolf Village roles as data (seed 000, «Todos los roles»).

A role's behaviour lives in small functions elsewhere; here is only what a role *is*:
its side, whether the seer sees a werewolf, its night power, whether a deck may hold
more than one, and its weight in the balance rating (see balance.py for why).
"""

from __future__ import annotations

from dataclasses import dataclass

VILLAGE = "village"
WOLVES = "werewolves"
JESTER = "jester"
FOX = "fox"


@dataclass(frozen=True, slots=True)
class Role:
    name: str
    side: str
    night_verb: str | None  # what the role does at night, None for no night power
    seen_as_wolf: bool
    max_copies: int | None  # None: any number
    balance: int
    exact_copies: int | None = None  # masons come as a pair


ROLES: dict[str, Role] = {
    r.name: r
    for r in (
        Role("werewolf", WOLVES, "kill", True, None, -6),
        Role("villager", VILLAGE, None, False, None, 1),
        Role("seer", VILLAGE, "inspect", False, 1, 7),
        Role("doctor", VILLAGE, "protect", False, 1, 4),
        Role("witch", VILLAGE, "witch", False, 1, 4),
        Role("hunter", VILLAGE, None, False, 1, 3),
        Role("cupid", VILLAGE, "link", False, 1, -2),
        Role("mason", VILLAGE, None, False, 2, 2, exact_copies=2),
        Role("idiot", VILLAGE, None, False, 1, 2),
        Role("cursed", VILLAGE, None, False, 1, -3),
        Role("minion", WOLVES, None, False, 1, -6),
        Role("jester", JESTER, None, False, 1, -1),
        Role("fox", FOX, None, False, 1, -3),
    )
}

# The narrator's call order for a narrated night (seed 000, «El orden de la noche»).
# One declared order; rulesets for other games declare their own.
NIGHT_ORDER: tuple[str, ...] = ("cupid", "werewolf", "seer", "doctor", "witch")

SOLO_SIDES = frozenset({JESTER, FOX})


def side_of(role: str) -> str:
    return ROLES[role].side
