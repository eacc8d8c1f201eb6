"""Werewords, the rules of seed 004: the mayor, the magic word, the tokens, the seer hunt."""

from __future__ import annotations

from typing import Any

from rules.core import Ruleset, register
from rules.werewords.game import WerewordsGame
from rules.werewords.setup import build_setup
from rules.werewords.setup import next_game_doc as _next_game_doc

NAME = "werewords"


def start(doc: dict[str, Any]) -> WerewordsGame:
    """Start a game from a set-up document (see `wolfvillage replay`). Raises SetupError."""
    setup, rng = build_setup(doc)
    return WerewordsGame(setup, rng)


def next_game_doc(game: WerewordsGame, seed: int,
                  options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Play again: the next game's set-up document for the same table (see setup.py)."""
    return _next_game_doc(game.setup, seed, options)


register(Ruleset(NAME, start))

__all__ = ["NAME", "WerewordsGame", "next_game_doc", "start"]
