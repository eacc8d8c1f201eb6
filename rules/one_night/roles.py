"""The 15 One Night cards as data (seed 001 and issue 13's list of roles).

Here is only what a card *is*: its side, the call it wakes in (None: it sleeps all night),
the verb it answers there, whether a doppelganger who copies it does that at once in her
own turn, how many a deck may hold, and its weight in the balance rating (balance.py says
why). What each card does lives in game.py.

The night's calls, in the seed's order («Este es el orden en que se despiertan»), are
stable ids the narrator turns into its lines (`wake_<id>`, `sleep_<id>`):

    doppelganger, werewolves, mystic_wolf, minion, masons, seer, paranormal_investigator,
    robber, troublemaker, drunk, insomniac, doppelganger_insomniac

`doppelganger_insomniac` is the doppelganger's extra call (after the insomniac: a
doppelganger who copied the insomniac looks at her own card then). Her other copies need
no call of their own: a copied werewolf or mystic wolf wakes in `werewolves`, a copied
minion in `minion`, a copied mason in `masons`, a copied little girl peeks in `werewolves`,
and a copied role with a night action does it at once, in `doppelganger`.
"""

from __future__ import annotations

from dataclasses import dataclass

VILLAGE = "village"
WEREWOLVES = "werewolves"
TANNER = "tanner"

SIDES: tuple[str, ...] = (VILLAGE, WEREWOLVES, TANNER)


@dataclass(frozen=True, slots=True)
class Role:
    name: str
    side: str
    call: str | None  # the night call that wakes its holder; None: sleeps all night
    verb: str | None  # the decision it answers in that call; None: it only looks or sleeps
    acts_at_copy: bool  # a doppelganger who copies it does its action at once
    max_copies: int | None  # None: any number
    balance: int
    werewolf: bool = False  # a werewolf for the lone wolf, the minion and the win


ROLES: dict[str, Role] = {
    r.name: r
    for r in (
        Role("doppelganger", VILLAGE, "doppelganger", "copy", False, 1, 0),
        Role("werewolf", WEREWOLVES, "werewolves", None, False, 3, -3, werewolf=True),
        Role("mystic_wolf", WEREWOLVES, "mystic_wolf", "look", True, 1, -4, werewolf=True),
        Role("minion", WEREWOLVES, "minion", None, False, 1, -2),
        Role("mason", VILLAGE, "masons", None, False, None, 1),
        Role("seer", VILLAGE, "seer", "look", True, 1, 2),
        Role("paranormal_investigator", VILLAGE, "paranormal_investigator", "investigate",
             True, 1, 1),
        Role("robber", VILLAGE, "robber", "rob", True, 1, 1),
        Role("troublemaker", VILLAGE, "troublemaker", "swap", True, 1, 1),
        Role("drunk", VILLAGE, "drunk", "drunk", True, 1, 0),
        Role("insomniac", VILLAGE, "insomniac", None, False, 1, 1),
        Role("villager", VILLAGE, None, None, False, None, 0),
        Role("tanner", TANNER, None, None, False, 1, -1),
        Role("hunter", VILLAGE, None, None, False, 1, 1),
        # no call of her own: she may peek during the werewolves' call («puede entreabrir
        # los ojos durante el de los lobos»)
        Role("little_girl", VILLAGE, None, None, False, 1, 1),
    )
}

DOPPELGANGER_INSOMNIAC = "doppelganger_insomniac"

CALL_ORDER: tuple[str, ...] = (
    "doppelganger",
    "werewolves",
    "mystic_wolf",
    "minion",
    "masons",
    "seer",
    "paranormal_investigator",
    "robber",
    "troublemaker",
    "drunk",
    "insomniac",
    DOPPELGANGER_INSOMNIAC,
)

# The cards a player who sees them becomes as the paranormal investigator («¿Encuentra un
# lobo o al Curtidor? Se une a ese bando.»)
TURNS_INVESTIGATOR: frozenset[str] = frozenset({"werewolf", "mystic_wolf", "tanner"})

# The verbs the doppelganger answers after copying (a role with a night action, done at once)
COPIED_VERBS: dict[str, str] = {
    r.name: r.verb for r in ROLES.values() if r.acts_at_copy and r.verb is not None
}

# The verbs of the game and the cards that can answer them (for "there is no robber in
# this game"): a doppelganger can only copy a card that is in the deck, so the deck alone
# says whether a verb can be asked tonight.
VERB_ROLES: dict[str, tuple[str, ...]] = {
    "copy": ("doppelganger",),
    "peek_center": ("werewolf", "mystic_wolf"),
    "look": ("seer", "mystic_wolf"),
    "peek": ("little_girl",),
    "investigate": ("paranormal_investigator",),
    "rob": ("robber",),
    "swap": ("troublemaker",),
    "drunk": ("drunk",),
    "vote": (),
}

VERBS: tuple[str, ...] = tuple(VERB_ROLES)

CENTER_CARDS = 3


def side_of(role: str) -> str:
    return ROLES[role].side


def is_werewolf(role: str) -> bool:
    return ROLES[role].werewolf


def call_of(role: str) -> str | None:
    """The call a card wakes its holder in (the little girl's peek: `werewolves`)."""
    if role == "little_girl":
        return "werewolves"
    return ROLES[role].call


def sort_cards(cards: list[str]) -> list[str]:
    """Cards in the order of the roles table: a deck shown to the table gives away nothing
    about which card went where."""
    order = {name: i for i, name in enumerate(ROLES)}
    return sorted(cards, key=order.__getitem__)


def night_calls(deck: list[str]) -> list[str]:
    """The calls of a night with this deck, in the seed's order («Se llama a todos los
    papeles del mazo, aunque su carta esté en el centro»): public, from the deck alone."""
    present = set(deck)
    woken = {ROLES[card].call for card in present if ROLES[card].call is not None}
    if any(ROLES[card].werewolf for card in present):
        woken.add("werewolves")  # the mystic wolf wakes with the pack too
    if "doppelganger" in present and "insomniac" in present:
        woken.add(DOPPELGANGER_INSOMNIAC)
    return [call for call in CALL_ORDER if call in woken]
