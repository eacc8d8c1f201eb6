"""Turning a set-up document into seated players and three centre cards.

Three forms (the `wolfvillage replay` input):

- `"players": [["Ana", "seer"], ...]` with `"center": [a, b, c]`: the cards as dealt;
- `"players": ["Ana", ...]` with `"deck": [...]` (players + 3 cards): dealt from the seed;
- `"players": ["Ana", ...]` alone: the suggested deck for the count, dealt from the seed.

A deal shuffles the deck (put in the roles table's order first, so the same cards in any
order deal the same way from the same seed); the first cards go to the players in seat
order, the last three lie in the centre («las tres últimas quedan boca abajo en el centro»).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Any

from rules.core import SetupError
from rules.names import validate_names as shared_validate_names
from rules.one_night.options import Options, build_options
from rules.one_night.presets import MAX_PLAYERS, MIN_PLAYERS, suggested_deck
from rules.one_night.roles import CENTER_CARDS, ROLES, sort_cards

MAX_WEREWOLF_SHARE = 3  # at most one card in three is a werewolf
MAX_WEREWOLVES = 4


@dataclass(frozen=True)
class Setup:
    players: tuple[str, ...]  # seat order
    roles: tuple[str, ...]  # the players' cards as dealt, by seat
    center: tuple[str, ...]  # the three centre cards as dealt, numbered 0, 1, 2
    options: Options
    seed: int

    @property
    def deck(self) -> list[str]:
        """Every card in play, in the roles table's order (public: it tells no one's card)."""
        return sort_cards([*self.roles, *self.center])


def validate_names(names: list[Any]) -> tuple[str, ...]:
    return shared_validate_names(names, MIN_PLAYERS, MAX_PLAYERS, "One Night")


def validate_deck(deck: Any, players: int) -> list[str]:
    """A host's own cards must fit the table and make a game (seed 001, «La preparación»).

    Returns the deck in the roles table's order; raises SetupError with the reason.
    """
    if not isinstance(deck, list | tuple):
        raise SetupError('deck must be a list of cards, e.g. ["werewolf", "seer", ...]')
    for card in deck:
        if not isinstance(card, str) or card not in ROLES:
            raise SetupError(f"unknown card {card!r} (known: {', '.join(ROLES)})")
    if len(deck) != players + CENTER_CARDS:
        raise SetupError(
            f"the deck has {len(deck)} cards for {players} players: it needs "
            f"{players + CENTER_CARDS}, one for each player and three for the centre",
            "deck_size_centre", cards=len(deck), players=players,
            needed=players + CENTER_CARDS,
        )
    counts = Counter(deck)
    for card, count in counts.items():
        most = ROLES[card].max_copies
        if most is not None and count > most:
            if most == 1:
                raise SetupError(f"a deck holds one {card} at most, not {count}",
                                 "max_copies", role=card, most=most, count=count)
            raise SetupError(f"a deck holds {most} {card} cards at most, not {count}",
                             "max_copies", role=card, most=most, count=count)
    wolves = sum(count for card, count in counts.items() if ROLES[card].werewolf)
    if wolves < 1:
        raise SetupError("the deck needs at least one werewolf («al menos un lobo»)",
                         "need_werewolf")
    most_wolves = min(MAX_WEREWOLVES, len(deck) // MAX_WEREWOLF_SHARE)
    if wolves > most_wolves:
        raise SetupError(
            f"{wolves} werewolf cards in a deck of {len(deck)} is too many: at most "
            f"{most_wolves} (one card in three, and never more than {MAX_WEREWOLVES})",
            "too_many_wolf_cards", wolves=wolves, cards=len(deck), most=most_wolves,
        )
    return sort_cards(list(deck))


def deal(deck: list[str], players: int, rng: random.Random) -> tuple[list[str], list[str]]:
    cards = sort_cards(list(deck))
    rng.shuffle(cards)
    return cards[:players], cards[players:]


def build_setup(doc: dict[str, Any]) -> tuple[Setup, random.Random]:
    """Read a set-up document and deal; return it and the game's generator."""
    if not isinstance(doc, dict):
        raise SetupError("the set-up must be a JSON object")
    seed = doc.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise SetupError(f"seed must be a whole number, not {seed!r}")
    rng = random.Random(seed)
    raw_players = doc.get("players")
    if not isinstance(raw_players, list):
        raise SetupError("players must be a list")
    if "preset" in doc:
        raise SetupError(
            "One Night has no presets: give a deck, or no deck for the suggested one"
        )
    seated = [isinstance(p, list | tuple) for p in raw_players]
    if any(seated):
        if not all(seated):
            raise SetupError(
                "give every player as [name, card] (with a center), or every player as a name"
            )
        if "deck" in doc:
            raise SetupError("players given with their cards take a center, not a deck")
        for entry in raw_players:
            if len(entry) != 2:
                raise SetupError(f"a seated player is [name, card], not {entry!r}")
        names = validate_names([p[0] for p in raw_players])
        center = doc.get("center")
        if not isinstance(center, list) or len(center) != CENTER_CARDS:
            raise SetupError(
                f"center must be a list of the {CENTER_CARDS} centre cards, not {center!r}"
            )
        roles = [p[1] for p in raw_players]
        validate_deck([*roles, *center], len(names))
    else:
        if "center" in doc:
            raise SetupError(
                "a center goes with players given as [name, card]; with names alone, "
                "give a deck to deal (or none for the suggested one)"
            )
        names = validate_names(raw_players)
        if "deck" in doc:
            deck = validate_deck(doc["deck"], len(names))
        else:
            deck = suggested_deck(len(names))
        roles, center = deal(deck, len(names), rng)
    options = build_options(doc.get("options"))
    return Setup(names, tuple(roles), tuple(center), options, seed), rng


def next_game_doc(setup: Setup, seed: int, options: dict[str, Any] | None = None
                  ) -> dict[str, Any]:
    """Play again: the same table and cards, dealt anew from `seed`."""
    return {
        "ruleset": "one-night",
        "seed": seed,
        "players": list(setup.players),
        "deck": setup.deck,
        "options": setup.options.to_json() if options is None else options,
    }
