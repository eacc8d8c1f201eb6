"""A Werewords set-up: the deck, the deal and the Mayor card, the offered words, play again.

Seed 004, «Preparar» and «El alcalde»: the deck has one card more than players (the Mayor
card, the Seer, a Werewolf, a second one from 7 players, villagers; optionally the Minion
and the Beholder in a villager's place). One card each and one in the centre; whoever holds
the Mayor card shows it and takes the centre card as a secret role. When the Mayor card is
the centre card, the player to the left of the last mayor takes it (keeping their own card
as their secret role); in a table's first game the cards are dealt again until a player
gets the Mayor card.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, replace
from typing import Any

from rules.core import SetupError
from rules.names import validate_names as shared_validate_names
from rules.werewords.options import Options, build_options
from rules.werewords.roles import CARD_ORDER, MAYOR_CARD, OPTIONAL_ROLES, ROLES
from rules.werewords.wordlists import draw_words, normalise

# The box's 12 role cards would seat 11 (one card more than players); the issue and the
# box's own range say 4 to 10, and 4 is the fewest that leaves the village two players
# besides the seer once the mayor, the seer and a werewolf are dealt.
MIN_PLAYERS = 4
MAX_PLAYERS = 10
SECOND_WEREWOLF_FROM = 7  # «Si juegas con 7 o más jugadores, usa una segunda carta»

# How the mayor came to hold the Mayor card (the `mayor` event says it).
DEALT = "dealt"
LEFT_OF_LAST_MAYOR = "left_of_last_mayor"
SEATED = "seated"

DOC_KEYS = ("ruleset", "seed", "players", "deck", "mayor", "last_mayor", "words", "options",
            "actions")


@dataclass(frozen=True)
class Setup:
    players: tuple[str, ...]  # seat order; the player to the left of seat i is seat i + 1
    roles: tuple[str, ...]  # the secret roles, by seat (the mayor's is the centre card)
    mayor: int  # the seat of the mayor
    mayor_from: str  # DEALT, LEFT_OF_LAST_MAYOR or SEATED
    words: tuple[str, ...]  # the words offered to the mayor
    deck: tuple[tuple[str, int], ...]  # the cards in play, Mayor card included (public)
    options: Options
    seed: int
    custom_deck: bool  # a deck the document gave (or seated roles), not the seed's own


def validate_names(names: Any) -> tuple[str, ...]:
    if not isinstance(names, list):
        raise SetupError("players must be a list")
    return shared_validate_names(names, MIN_PLAYERS, MAX_PLAYERS, "Werewords")


def standard_deck(players: int, options: Options) -> dict[str, int]:
    """The seed's deck for a table of `players`, with the optional roles the options add."""
    deck = {MAYOR_CARD: 1, "seer": 1, "werewolf": 2 if players >= SECOND_WEREWOLF_FROM else 1}
    for role in OPTIONAL_ROLES:
        if getattr(options, role):
            deck[role] = 1
    # never negative: 4 players hold 5 cards, the most the other cards can be before 7
    deck["villager"] = players + 1 - sum(deck.values())
    return deck


def validate_deck(deck: dict[str, Any], players: int) -> None:
    """A deck of `players` + 1 cards with one Mayor card, one seer and one or two werewolves."""
    for card, count in deck.items():
        if card not in CARD_ORDER:
            raise SetupError(f"unknown card {card!r} (known: {', '.join(CARD_ORDER)})")
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise SetupError(f"the count of {card} must be a whole number, not {count!r}")
    size = sum(deck.values())
    if size != players + 1:
        raise SetupError(
            f"the deck has {size} cards for {players} players; it needs one more than players "
            f"({players + 1}), the Mayor card included",
            "deck_size_mayor", cards=size, players=players, needed=players + 1,
        )
    if deck.get(MAYOR_CARD, 0) != 1:
        raise SetupError("the deck needs exactly one Mayor card", "need_mayor")
    if deck.get("seer", 0) != 1:
        raise SetupError("the deck needs exactly one seer", "need_one", role="seer")
    if not 1 <= deck.get("werewolf", 0) <= 2:
        raise SetupError("the deck needs one werewolf, or two", "one_or_two_werewolves")
    for role in OPTIONAL_ROLES:
        if deck.get(role, 0) > 1:
            raise SetupError(f"a deck holds at most one {role}", "max_copies", role=role,
                             most=1, count=deck.get(role, 0))


def _cards(deck: dict[str, int]) -> list[str]:
    return [card for card in CARD_ORDER for _ in range(deck.get(card, 0))]


def deal(deck: dict[str, int], players: int, rng: random.Random,
         last_mayor: int | None) -> tuple[list[str], int, str]:
    """(secret roles by seat, the mayor's seat, how they became mayor)."""
    cards = _cards(deck)
    while True:
        rng.shuffle(cards)
        hands, centre = cards[:players], cards[players]
        if centre != MAYOR_CARD:
            mayor = hands.index(MAYOR_CARD)
            hands[mayor] = centre  # the mayor's secret role is the centre card
            return hands, mayor, DEALT
        if last_mayor is not None:
            # «el jugador a la izquierda del último jugador que fue Alcalde toma la carta
            # del centro»: they show the Mayor card and keep their own as their secret role
            return hands, (last_mayor + 1) % players, LEFT_OF_LAST_MAYOR
        # the table's first game: «baraja las cartas y vuelve a repartirlas»


def _seat_of(names: tuple[str, ...], name: Any, what: str) -> int:
    if not isinstance(name, str) or name not in names:
        raise SetupError(f"{what} must be one of the players, not {name!r}")
    return names.index(name)


def _offered_words(doc: dict[str, Any], options: Options, given_options: Any,
                   rng: random.Random) -> tuple[Options, tuple[str, ...]]:
    if "words" not in doc:
        return options, draw_words(rng, options.language, options.difficulty,
                                   options.words_offered)
    raw = doc["words"]
    if not isinstance(raw, list) or not raw:
        raise SetupError("words must be a non-empty list of the words to offer")
    words: list[str] = []
    for word in raw:
        if not isinstance(word, str) or not normalise(word):
            raise SetupError(f"an offered word must be a non-empty text, not {word!r}")
        word = normalise(word)
        if any(w.casefold() == word.casefold() for w in words):
            raise SetupError(f"the word {word!r} is offered twice")
        words.append(word)
    if isinstance(given_options, dict) and "words_offered" in given_options:
        if options.words_offered != len(words):
            raise SetupError(
                f"words gives {len(words)} words but words_offered is {options.words_offered}"
            )
    else:
        options = replace(options, words_offered=len(words))
    return options, tuple(words)


def _agree_with_deck(options: Options, given: Any, deck: dict[str, int]) -> Options:
    """With a deck of its own the deck says which optional roles play; the options may not
    say otherwise."""
    for role in OPTIONAL_ROLES:
        held = deck.get(role, 0) > 0
        if isinstance(given, dict) and role in given and given[role] != held:
            raise SetupError(
                f"option {role!r} is {str(given[role]).lower()} but the deck "
                f"{'has' if held else 'has no'} {role}"
            )
        options = replace(options, **{role: held})
    return options


def build_setup(doc: Any) -> tuple[Setup, random.Random]:
    """Read a set-up document (the `wolfvillage replay` format) and deal.

    Three forms: `players` as [name, secret role] pairs with `mayor` naming one of them;
    names with a `deck` (Mayor card included) dealt from the seed; names alone, dealt the
    seed's own deck with the optional roles the options add. `words` fixes the offer;
    otherwise it is drawn from the list of `options.language` and `options.difficulty` with
    the same generator, after the deal. `last_mayor` (play again) names the last game's
    mayor, for when the Mayor card is the centre card.
    """
    if not isinstance(doc, dict):
        raise SetupError("the set-up must be a JSON object")
    for key in doc:
        if key not in DOC_KEYS:
            raise SetupError(f"unknown field {key!r} in a Werewords game (known: "
                             f"{', '.join(DOC_KEYS)})")
    seed = doc.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise SetupError(f"seed must be a whole number, not {seed!r}")
    rng = random.Random(seed)
    given_options = doc.get("options")
    options = build_options(given_options)
    raw_players = doc.get("players")
    if not isinstance(raw_players, list):
        raise SetupError("players must be a list")
    seated = bool(raw_players) and all(isinstance(p, list | tuple) for p in raw_players)
    if seated:
        for key in ("deck", "last_mayor"):
            if key in doc:
                raise SetupError(f"{key} is for a deal; seated players already hold their roles")
        for entry in raw_players:
            if len(entry) != 2:
                raise SetupError(f"a seated player is [name, secret role], not {entry!r}")
        names = validate_names([p[0] for p in raw_players])
        roles = [p[1] for p in raw_players]
        for name, role in zip(names, roles, strict=True):
            if role == MAYOR_CARD:
                raise SetupError(
                    f"{name}'s secret role cannot be the Mayor card: give the role and name "
                    'the mayor with "mayor"'
                )
            if role not in ROLES:
                raise SetupError(f"{name}'s role {role!r} is not a Werewords role "
                                 f"(known: {', '.join(ROLES)})")
        if "mayor" not in doc:
            raise SetupError('seated players need "mayor": the name of the player who is mayor')
        mayor = _seat_of(names, doc["mayor"], "the mayor")
        deck = {MAYOR_CARD: 1, **Counter(roles)}
        validate_deck(deck, len(names))
        mayor_from = SEATED
        options = _agree_with_deck(options, given_options, deck)
    else:
        if any(isinstance(p, list | tuple) for p in raw_players):
            raise SetupError("players are either all names or all [name, secret role] pairs")
        if "mayor" in doc:
            raise SetupError('"mayor" is for seated players; a deal decides who is mayor')
        names = validate_names(raw_players)
        if "deck" in doc:
            deck = doc["deck"]
            if not isinstance(deck, dict):
                raise SetupError('deck must map cards to counts, e.g. {"mayor": 1, "seer": 1, '
                                 '"werewolf": 1, "villager": 2}')
            validate_deck(deck, len(names))
            options = _agree_with_deck(options, given_options, deck)
        else:
            deck = standard_deck(len(names), options)
        last = doc.get("last_mayor")
        last_seat = None if last is None else _seat_of(names, last, "last_mayor")
        roles, mayor, mayor_from = deal(deck, len(names), rng, last_seat)
    options, words = _offered_words(doc, options, given_options, rng)
    custom = seated or "deck" in doc
    setup = Setup(
        players=names,
        roles=tuple(roles),
        mayor=mayor,
        mayor_from=mayor_from,
        words=words,
        deck=tuple((card, deck[card]) for card in CARD_ORDER if deck.get(card, 0)),
        options=options,
        seed=seed,
        custom_deck=custom,
    )
    return setup, rng


def next_game_doc(setup: Setup, seed: int, options: dict[str, Any] | None = None
                  ) -> dict[str, Any]:
    """Play again (seed 004, «Juega de nuevo»): the same table, a new deal from `seed`.

    The options carry over, with `options` changing some (the seed lets the table change
    the difficulty here); a deck the table chose carries over too. The last mayor is
    remembered, for when the Mayor card ends up in the centre.
    """
    carried = setup.options.to_json()
    if setup.custom_deck:
        for role in OPTIONAL_ROLES:
            del carried[role]  # the deck says
    doc: dict[str, Any] = {
        "ruleset": "werewords",
        "seed": seed,
        "players": list(setup.players),
        "last_mayor": setup.players[setup.mayor],
        "options": {**carried, **(options or {})},
    }
    if setup.custom_deck:
        doc["deck"] = dict(setup.deck)
    return doc
