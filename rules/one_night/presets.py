"""The suggested balanced deck for each count, 3 to 12 players (seed 001: «o deja que el
juego proponga una combinación equilibrada»).

Each count adds one card to the one before (a deck holds the players + 3 cards), so a
table that grows keeps what it knows:

| players | cards | the deck |
|---|---|---|
| 3 | 6 | werewolf ×2, seer, robber, troublemaker, villager |
| 4 | 7 | + insomniac |
| 5 | 8 | + drunk |
| 6 | 9 | + minion |
| 7 | 10 | + hunter |
| 8 | 11 | + tanner |
| 9 | 12 | + doppelganger |
| 10 | 13 | the villager out, mason ×2 in |
| 11 | 14 | + paranormal investigator |
| 12 | 15 | + werewolf (the third) |

Three players start from the game's classic first deck (two werewolves, the seer, the
robber, the troublemaker and a villager). The roles that only confuse come in once there
are players enough to talk them through; the masons come as a pair (one mason alone
learns only that she is alone); the third wolf waits for the largest table. Every deck
passes `validate_deck` and rates balanced (balance.py); the tests check both at every count.
"""

from __future__ import annotations

from rules.core import SetupError
from rules.one_night.roles import sort_cards

MIN_PLAYERS = 3
MAX_PLAYERS = 12

_BASE = ["werewolf", "werewolf", "seer", "robber", "troublemaker", "villager"]

# what each count changes from the count before: (cards in, cards out)
_STEPS: dict[int, tuple[tuple[str, ...], tuple[str, ...]]] = {
    4: (("insomniac",), ()),
    5: (("drunk",), ()),
    6: (("minion",), ()),
    7: (("hunter",), ()),
    8: (("tanner",), ()),
    9: (("doppelganger",), ()),
    10: (("mason", "mason"), ("villager",)),
    11: (("paranormal_investigator",), ()),
    12: (("werewolf",), ()),
}


def suggested_deck(players: int) -> list[str]:
    """The suggested deck for `players` (players + 3 cards), in the roles table's order."""
    if isinstance(players, bool) or not isinstance(players, int) or not (
        MIN_PLAYERS <= players <= MAX_PLAYERS
    ):
        raise SetupError(
            f"One Night is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players!r}",
            "player_count", min=MIN_PLAYERS, max=MAX_PLAYERS, count=players,
        )
    deck = list(_BASE)
    for n in range(MIN_PLAYERS + 1, players + 1):
        cards_in, cards_out = _STEPS[n]
        for card in cards_out:
            deck.remove(card)
        deck += cards_in
    return sort_cards(deck)
