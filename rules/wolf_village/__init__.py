"""Wolf Village, the rules of seed 000."""

from __future__ import annotations

from typing import Any

from rules.core import Ruleset, register
from rules.wolf_village.game import WolfVillageGame
from rules.wolf_village.setup import build_setup

NAME = "wolf-village"


def start(doc: dict[str, Any]) -> WolfVillageGame:
    """Start a game from a set-up document (see `wolfvillage replay`). Raises SetupError."""
    setup, rng = build_setup(doc)
    return WolfVillageGame(setup, rng)


register(Ruleset(NAME, start))

__all__ = ["NAME", "WolfVillageGame", "start"]
