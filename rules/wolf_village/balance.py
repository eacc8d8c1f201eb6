"""Balance rating of a deck: village-favoured, balanced or wolf-favoured.

Seed 000 fixes three weights: a villager is worth +1 to the village, a werewolf -6 and
the seer +7, and says a minion takes a wolf's place. The other weights (in roles.py) are
ours, chosen from how much each role helps or hurts the village in play:

    doctor +4, witch +4 (two one-shot potions), hunter +3, mason +2 each, idiot +2,
    jester -1 (a decoy vote the village wastes), cupid -2 (lovers can tie a villager to a
    wolf), cursed -3 (may become a wolf), fox -3 (a third side that steals wins),
    minion -6 (it takes a werewolf's place in the count, so it weighs like one).

The sum of the weights is the score. A deck is *balanced* when -5 <= score <= +5,
*village-favoured* above, *wolf-favoured* below. With these values the Basic set-up
scores between -2 (17 players) and +5 (6 and 10 players), so it rates balanced at every
count from 4 to 20, as the seed says; the test suite checks it.
"""

from __future__ import annotations

from rules.wolf_village.roles import ROLES

VILLAGE_FAVOURED = "village-favoured"
BALANCED = "balanced"
WOLF_FAVOURED = "wolf-favoured"

BALANCED_LIMIT = 5


def score(deck: dict[str, int]) -> int:
    return sum(ROLES[role].balance * count for role, count in deck.items())


def rating(deck: dict[str, int]) -> str:
    s = score(deck)
    if s > BALANCED_LIMIT:
        return VILLAGE_FAVOURED
    if s < -BALANCED_LIMIT:
        return WOLF_FAVOURED
    return BALANCED
