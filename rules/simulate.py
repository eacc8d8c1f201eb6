"""Random legal play: drives property tests, the benchmark and the balance simulator.

It only uses the game's public questions (`pending`, `legal_targets`) and `apply`, so a
game it plays is exactly a game a table could play.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from rules.replay import start

MAX_ACTIONS = 5000


@dataclass
class PlayedGame:
    doc: dict[str, Any]
    game: Any
    actions: list[list[Any]] = field(default_factory=list)


def random_action(game: Any, rng: random.Random) -> list[Any] | None:
    decisions = game.pending()
    if not decisions:
        return None
    decision = decisions[rng.randrange(len(decisions))]
    targets = game.legal_targets(decision.player, decision.action)
    if not targets:
        return None
    return [decision.player, decision.action, targets[rng.randrange(len(targets))]]


def play_random(doc: dict[str, Any], rng: random.Random) -> PlayedGame:
    """Play one game to its end with random legal choices, logging every action."""
    game = start(doc)
    played = PlayedGame(doc, game)
    for _ in range(MAX_ACTIONS):
        action = random_action(game, rng)
        if action is None:
            break
        game.apply(*action)
        played.actions.append(action)
    return played
