"""The Werewords cards as data (seed 004, «Preparar», «Otros roles»).

The Mayor card is not a role: its holder shows it and takes the centre card as a secret
role. The roles are what a player may secretly be; each has a side and, if it wakes at
night, the call it wakes in.
"""

from __future__ import annotations

from dataclasses import dataclass

VILLAGE = "village"
WEREWOLVES = "werewolves"

MAYOR_CARD = "mayor"


@dataclass(frozen=True, slots=True)
class Role:
    name: str
    side: str
    call: str | None  # the night call it wakes in; None: it sleeps all night
    max_copies: int | None  # None: any number


ROLES: dict[str, Role] = {
    r.name: r
    for r in (
        Role("villager", VILLAGE, None, None),
        Role("seer", VILLAGE, "seer", 1),
        Role("werewolf", WEREWOLVES, "werewolves", 2),
        Role("minion", WEREWOLVES, "minion", 1),
        Role("beholder", VILLAGE, "beholder", 1),
    )
}

OPTIONAL_ROLES: tuple[str, ...] = ("minion", "beholder")

# The calls of a night, in the order the app makes them (seed 004, «Fase nocturna»; the
# minion and the beholder, «Otros roles», after the werewolves they see or the seer).
# Stable ids: the narrator turns each into its lines.
MAYOR_CALL = "mayor"
CALL_ORDER: tuple[str, ...] = (MAYOR_CALL, "seer", "werewolves", "minion", "beholder")

# The cards the narrator may print, in the order a deck lists them.
CARD_ORDER: tuple[str, ...] = (MAYOR_CARD, "seer", "werewolf", "minion", "beholder", "villager")


def side_of(role: str) -> str:
    return ROLES[role].side
