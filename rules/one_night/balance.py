"""Balance rating of a One Night deck: village-favoured, balanced or wolf-favoured.

The seed gives no weights; these are ours, from what each card does for the village's one
chance (the vote must find a werewolf) or against it:

    werewolf -3 (the wolves need only survive one vote), mystic wolf -4 (a werewolf who
    also looks at a card), minion -2 (a wolf's voice with no wolf's card), tanner -1 (he
    begs for the vote the village needs for a wolf); seer +2 (the surest look), robber,
    troublemaker, insomniac, paranormal investigator, hunter, little girl +1 each (a
    look, a swap that exposes a wolf's guessing, a second vote), mason +1 each (each pair
    clears two players); villager, drunk and doppelganger 0 (no information, or a copy of
    anything).

The score is the sum over the deck's cards, the centre cards included: the deck is public
and nobody knows which three lie in the centre. A deck is *balanced* when
-4 <= score <= +4, *village-favoured* above, *wolf-favoured* below. The suggested decks
score between -3 and 0 at every count (tested).
"""

from __future__ import annotations

from rules.one_night.roles import ROLES

VILLAGE_FAVOURED = "village-favoured"
BALANCED = "balanced"
WOLF_FAVOURED = "wolf-favoured"

BALANCED_LIMIT = 4


def score(deck: list[str]) -> int:
    return sum(ROLES[card].balance for card in deck)


def rating(deck: list[str]) -> str:
    s = score(deck)
    if s > BALANCED_LIMIT:
        return VILLAGE_FAVOURED
    if s < -BALANCED_LIMIT:
        return WOLF_FAVOURED
    return BALANCED
