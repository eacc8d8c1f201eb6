"""One Night, the rules of seed 001 (issue 13): three centre cards, one night, one vote.

What other code calls (docs/rules-one-night.md has it all):

- `start(doc)` -> `OneNightGame` (also through `rules.replay.start`, ruleset `one-night`);
- `suggested_deck(n)`, `validate_deck(cards, n)`, `night_calls(deck)`, `rating(deck)`;
- the game: `players`, `pending()`, `apply(actor, verb, target)`, `legal_targets(actor,
  verb)`, `events`, `winner` (a list of sides), `winners`, `night_calls()`,
  `current_call()`, `woken(call)`, `acting_as(name)`, `roles_as_dealt()`,
  `alive_names()`, `cards()`, `center()`, `final_roles()`, `replay_fields()`,
  `options.debate_minutes`;
- `knowledge.private_knowledge(game, name)`, `knowledge.public_knowledge(game)`,
  `knowledge.shown_after(knowledge, narrated_calls)`;
- `next_game_doc(game, seed)`: play again with the same table and cards.
"""

from __future__ import annotations

from typing import Any

from rules.core import Ruleset, register
from rules.one_night.balance import rating
from rules.one_night.game import OneNightGame
from rules.one_night.presets import MAX_PLAYERS, MIN_PLAYERS, suggested_deck
from rules.one_night.roles import night_calls
from rules.one_night.setup import build_setup, validate_deck
from rules.one_night.setup import next_game_doc as _next_game_doc

NAME = "one-night"


def start(doc: dict[str, Any]) -> OneNightGame:
    """Start a game from a set-up document (see `wolfvillage replay`). Raises SetupError."""
    setup, rng = build_setup(doc)
    return OneNightGame(setup, rng)


def next_game_doc(game: OneNightGame, seed: int,
                  options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Play again: the next game's set-up document for the same table and cards."""
    return _next_game_doc(game.setup, seed, options)


register(Ruleset(NAME, start))

__all__ = [
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "NAME",
    "OneNightGame",
    "next_game_doc",
    "night_calls",
    "rating",
    "start",
    "suggested_deck",
    "validate_deck",
]
