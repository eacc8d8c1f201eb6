"""The night: who is called (and in what order), who plays which secret turn, and the
dawn resolution (seed 000, «El orden de la noche» and «Qué pasa al amanecer»).

The dawn is computed as a list of steps from the night's scratch choices, without
touching the game; the game then commits the steps in order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rules.wolf_village.roles import NIGHT_ORDER, ROLES

if TYPE_CHECKING:
    from rules.wolf_village.game import WolfVillageGame

# (kind, seat): kind is a death cause or one of these outcomes
DawnStep = tuple[str, int]


def has_power(game: WolfVillageGame, s: int) -> bool:
    """Whether the player in seat `s` has a usable night power tonight."""
    role = game.role[s]
    if role == "cupid":
        return game.night == 1
    if role == "witch":
        return game.heal_left or game.poison_left
    if role == "doctor":
        return bool(protectable(game, s))
    return ROLES[role].night_verb is not None


def narrated_stages(game: WolfVillageGame, living: list[int]) -> list[list[int]]:
    """The roles the narrator calls for a decision, in the seed's order.

    Only living players with a usable power get a decision. (The narrator still *calls* a
    dead role with the same pause when dead roles are secret; that is theatre, not a
    decision, and lives in the narrator.)
    """
    stages: list[list[int]] = []
    for role in NIGHT_ORDER:
        seats = [s for s in living if game.role[s] == role and has_power(game, s)]
        if seats:
            stages.append(seats)
    return stages


def narrated_verb(game: WolfVillageGame, s: int) -> str:
    verb = ROLES[game.role[s]].night_verb
    assert verb is not None
    return verb


def secret_turn(game: WolfVillageGame, s: int) -> str:
    """all_at_once and pass_phones: everyone plays; those with no power suspect someone."""
    if has_power(game, s):
        return narrated_verb(game, s)
    return "suspect"


def protectable(game: WolfVillageGame, s: int) -> list[int]:
    repeat_banned = None
    if not game.options.doctor_repeat and game.last_protected is not None:
        night, seat = game.last_protected
        if night == game.night - 1:  # «dos noches seguidas»
            repeat_banned = seat
    return [
        t
        for t in range(len(game.players))
        if game.alive[t]
        and t != repeat_banned
        and (t != s or game.options.doctor_self_protect)
    ]


def resolve_dawn(game: WolfVillageGame) -> list[DawnStep]:
    """Everything chosen tonight, in the seed's fixed dawn order.

    1. the pack's victim (already fixed when the pack finished choosing);
    2. protection and healing (the doctor takes the credit when both saved);
    3. the bite: an unprotected victim dies, the cursed turns, the fox shrugs it off;
    4. the poison;
    5. the seer's look at the fox.
    Choices made by players who die tonight still count: it all happens at dawn.
    """
    steps: list[DawnStep] = []
    v = game.victim
    if v is not None:
        if game.protected == v:
            steps.append(("saved_doctor", v))
        elif game.healed:
            steps.append(("saved_witch", v))
        elif game.role[v] == "cursed":
            steps.append(("transformed", v))
        elif game.role[v] == "fox":
            steps.append(("unharmed", v))
        else:
            steps.append(("werewolves", v))
    if game.poisoned is not None:
        steps.append(("poison", game.poisoned))
    if game.inspected is not None and game.role[game.inspected] == "fox":
        steps.append(("vanished", game.inspected))
    return steps
