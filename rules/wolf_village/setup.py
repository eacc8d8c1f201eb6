"""Turning a set-up document into seated players with roles: presets, custom decks, deal."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Any

from rules.core import SetupError
from rules.names import validate_names as shared_validate_names
from rules.wolf_village.options import Options, build_options
from rules.wolf_village.presets import MAX_PLAYERS, MIN_PLAYERS, preset
from rules.wolf_village.roles import ROLES, WOLVES


@dataclass(frozen=True)
class Setup:
    players: tuple[str, ...]  # seat order
    roles: tuple[str, ...]  # as dealt, by seat
    options: Options
    seed: int
    preset: str | None = None


def validate_names(names: list[Any]) -> tuple[str, ...]:
    return shared_validate_names(names, MIN_PLAYERS, MAX_PLAYERS, "Wolf Village")


def validate_deck(deck: dict[str, int], players: int) -> None:
    """A custom deck must fit the table and be playable (seed 000, «Tu propio reparto»)."""
    for role, count in deck.items():
        if role not in ROLES:
            raise SetupError(f"unknown role {role!r} (known: {', '.join(ROLES)})")
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise SetupError(f"the count of {role} must be a whole number, not {count!r}")
    size = sum(deck.values())
    if size != players:
        raise SetupError(f"the deck has {size} cards for {players} players",
                         "deck_size", cards=size, players=players, needed=players)
    wolves = deck.get("werewolf", 0)
    if wolves < 1:
        raise SetupError("every game needs at least one werewolf", "need_werewolf")
    for role, count in deck.items():
        spec = ROLES[role]
        if spec.exact_copies and count not in (0, spec.exact_copies):
            raise SetupError(f"{role}s come as a pair: {spec.exact_copies} or none, not {count}",
                             "exact_copies", role=role, copies=spec.exact_copies, count=count)
        if spec.max_copies is not None and count > spec.max_copies:
            raise SetupError(f"a deck holds at most {spec.max_copies} {role}, not {count}",
                             "max_copies", role=role, most=spec.max_copies, count=count)
    if wolves >= players - wolves:
        raise SetupError(
            f"{wolves} werewolves against {players - wolves} others would win before the "
            "first night; use fewer werewolves",
            "wolves_win_at_once", wolves=wolves, others=players - wolves,
        )
    pack_side = sum(c for r, c in deck.items() if ROLES[r].side == WOLVES)
    if pack_side >= players:
        raise SetupError("the deck has nobody for the village", "no_village")


def deal(deck: dict[str, int], rng: random.Random) -> list[str]:
    cards = [role for role in ROLES for _ in range(deck.get(role, 0))]
    rng.shuffle(cards)
    return cards


def build_setup(doc: dict[str, Any]) -> tuple[Setup, random.Random]:
    """Read a set-up document (the replay format) and deal; return it and the game's RNG.

    The RNG that dealt the cards goes on to break the game's ties, so one seed fixes a game.
    """
    if not isinstance(doc, dict):
        raise SetupError("the set-up must be a JSON object")
    seed = doc.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise SetupError(f"seed must be a whole number, not {seed!r}")
    rng = random.Random(seed)
    raw_players = doc.get("players")
    if not isinstance(raw_players, list):
        raise SetupError("players must be a list")
    preset_name = doc.get("preset")
    if preset_name is not None and "deck" in doc:
        raise SetupError("give either a preset or a deck, not both")
    if "deck" in doc:
        # a custom deck over a list of names, dealt from the seed
        deck = doc["deck"]
        if not isinstance(deck, dict):
            raise SetupError('deck must map roles to counts, e.g. {"werewolf": 2, ...}')
        names = validate_names(raw_players)
        validate_deck(deck, len(names))
        roles = tuple(deal(deck, rng))
        options = build_options({"sheriff": False}, doc.get("options"))
    elif preset_name is not None:
        chosen = preset(preset_name)
        names = validate_names(raw_players)
        roles = tuple(deal(chosen.deck(len(names)), rng))
        options = build_options(chosen.options, doc.get("options"))
    else:
        pairs = []
        for entry in raw_players:
            if not (isinstance(entry, list | tuple) and len(entry) == 2):
                raise SetupError(
                    f"without a preset each player is [name, role], not {entry!r}"
                )
            pairs.append(entry)
        names = validate_names([p[0] for p in pairs])
        for name, role in pairs:
            if not isinstance(role, str):
                raise SetupError(f"{name}'s role must be a role's name, not {role!r}")
        roles = tuple(p[1] for p in pairs)
        validate_deck(dict(Counter(roles)), len(names))
        options = build_options({"sheriff": False}, doc.get("options"))
    return Setup(names, roles, options, seed, preset_name), rng
