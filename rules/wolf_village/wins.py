"""Win checks (seed 000, «Cómo se gana»), run once every death, shot and badge is settled.

Priority when two wins happen at once: the jester, then the lovers, then the village or
the werewolves; a living fox (not in love) takes that last one for himself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rules.wolf_village.roles import FOX, JESTER, SOLO_SIDES, VILLAGE, WOLVES, side_of

if TYPE_CHECKING:
    from rules.wolf_village.game import WolfVillageGame


def lovers_mixed(roles: list[str], lovers: tuple[int, int] | None) -> bool:
    """Lovers of different sides, counted from their roles *now* (a bitten cursed counts
    as a werewolf). A jester or a fox in love is always of a different side."""
    if lovers is None:
        return False
    a, b = (side_of(roles[s]) for s in lovers)
    return a != b or a in SOLO_SIDES


def check(game: WolfVillageGame) -> tuple[str, list[int]] | None:
    seats = range(len(game.players))
    mixed = lovers_mixed(game.role, game.lovers)
    mixed_lovers = set(game.lovers) if mixed and game.lovers else set()

    if game.jester_voted_out is not None:
        return JESTER, [game.jester_voted_out]

    living = [s for s in seats if game.alive[s]]
    if mixed and len(living) == 2 and set(living) == mixed_lovers:
        return "lovers", sorted(mixed_lovers)

    living_wolves = [s for s in living if game.role[s] == "werewolf"]
    # A wolf in love across sides is not counted by the pack, but while he lives the
    # village cannot win either.
    pack = [s for s in living_wolves if s not in mixed_lovers]
    others = len(living) - len(pack)
    if not living_wolves:
        side = VILLAGE
    elif pack and len(pack) >= others:
        side = WOLVES
    else:
        return None

    fox = [s for s in living if game.role[s] == "fox" and s not in mixed_lovers]
    if fox:
        return FOX, fox
    winners = [s for s in seats if side_of(game.role[s]) == side and s not in mixed_lovers]
    return side, winners


__all__ = ["FOX", "JESTER", "check", "lovers_mixed"]
