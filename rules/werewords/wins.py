"""Who wins (seed 004, «Si la palabra mágica se adivina correctamente», «Si no se adivina»,
«Segundo hombre lobo», «Otros roles»). Pure functions over the secret roles."""

from __future__ import annotations

from rules.core import plurality
from rules.werewords.roles import VILLAGE, WEREWOLVES


def seer_hunt_winner(roles: list[str], targets: list[int]) -> str:
    """Each werewolf pointed at one player; finding the seer with any of them wins.

    The beholder pointed at instead is just another miss («la aldea aún gana»).
    """
    return WEREWOLVES if any(roles[t] == "seer" for t in targets) else VILLAGE


def final_vote(roles: list[str], votes: dict[int, int]) -> tuple[str, list[int], dict[int, int]]:
    """(the winning side, the seats revealed, the votes each seat got).

    The most voted reveal, every one of them on a tie for the most. A werewolf among them,
    or the minion («como si hubiera encontrado un hombre lobo»): the village wins. But if
    every player got exactly one vote the werewolves win («Si cada jugador recibe un voto»),
    even though that tie reveals a werewolf.
    """
    top, _ = plurality((t, 1) for _, t in sorted(votes.items()))
    counts = {t: sum(1 for v in votes.values() if v == t) for t in sorted(set(votes.values()))}
    if len(counts) == len(roles) and all(c == 1 for c in counts.values()):
        return WEREWOLVES, sorted(top), counts
    found = any(roles[t] in ("werewolf", "minion") for t in top)
    return (VILLAGE if found else WEREWOLVES), sorted(top), counts
