"""The five ready set-ups of seed 000, exactly as its tables give them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rules.core import SetupError

MIN_PLAYERS = 4
MAX_PLAYERS = 20


def recommended_wolves(players: int) -> int:
    """Seed 000: 1 for 4-6, 2 for 7-10, 3 for 11-16, 4 for 17-20.

    A minion takes a wolf's place in this count, because it plays for the pack.
    """
    if players <= 6:
        return 1
    if players <= 10:
        return 2
    if players <= 16:
        return 3
    return 4


def _fox_chaos_wolves(players: int) -> int:
    # «Hombres lobo: 1 hasta 10 jugadores, 2 hasta 16, 3 desde 17»
    if players <= 10:
        return 1
    if players <= 16:
        return 2
    return 3


def _basic(n: int) -> dict[str, int]:
    deck = {"werewolf": recommended_wolves(n), "seer": 1}
    if n >= 7:
        deck["doctor"] = 1
    return deck


def _classic(n: int) -> dict[str, int]:
    deck = {"werewolf": recommended_wolves(n), "seer": 1, "witch": 1, "hunter": 1, "cupid": 1}
    if n >= 11:
        deck["idiot"] = 1
    if n >= 17:
        deck["doctor"] = 1
    return deck


def _standard12(n: int) -> dict[str, int]:
    return {"werewolf": 4, "seer": 1, "witch": 1, "hunter": 1, "idiot": 1}


def _fox(n: int) -> dict[str, int]:
    deck = {"werewolf": _fox_chaos_wolves(n), "seer": 1, "doctor": 1, "minion": 1, "fox": 1}
    if n >= 11:
        deck["mason"] = 2
    return deck


def _chaos(n: int) -> dict[str, int]:
    deck = {
        "werewolf": _fox_chaos_wolves(n),
        "seer": 1,
        "doctor": 1,
        "hunter": 1,
        "cupid": 1,
        "minion": 1,
        "jester": 1,
    }
    if n >= 11:
        deck["witch"] = 1
    if n >= 12:
        deck["idiot"] = 1
        deck["cursed"] = 1
    if n >= 17:
        deck["mason"] = 2
    return deck


@dataclass(frozen=True)
class Preset:
    name: str
    min_players: int
    max_players: int
    specials: Callable[[int], dict[str, int]]  # every card but the villagers
    options: dict[str, Any] = field(default_factory=dict)

    def deck(self, players: int) -> dict[str, int]:
        """Role counts for `players`, villagers filling every seat the other cards leave."""
        if not self.min_players <= players <= self.max_players:
            span = (
                f"exactly {self.min_players}"
                if self.min_players == self.max_players
                else f"{self.min_players} to {self.max_players}"
            )
            raise SetupError(
                f"the {self.name} set-up is for {span} players, not {players}",
                "preset_count" if self.min_players < self.max_players else "preset_count_exact",
                preset=self.name, min=self.min_players,
                max=self.max_players, count=players,
            )
        deck = dict(self.specials(players))
        villagers = players - sum(deck.values())
        if villagers:
            deck["villager"] = villagers
        return deck


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset("basic", 4, 20, _basic, {"sheriff": False}),
        Preset("classic", 8, 20, _classic, {"sheriff": True}),
        Preset("standard12", 12, 12, _standard12, {"sheriff": True}),
        # Zorro: «médico (que no puede protegerse a sí mismo), un esbirro que no conoce
        # a los hombres lobo»
        Preset(
            "fox",
            9,
            20,
            _fox,
            {"sheriff": False, "doctor_self_protect": False, "minion_knows_wolves": False},
        ),
        Preset("chaos", 9, 20, _chaos, {"sheriff": True}),
    )
}


def preset(name: str) -> Preset:
    try:
        return PRESETS[name]
    except (KeyError, TypeError):  # TypeError: a name that is a list or an object
        raise SetupError(
            f"unknown preset {name!r} (known: {', '.join(PRESETS)})"
        ) from None
