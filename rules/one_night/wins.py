"""The vote's result and the winners (seed 001, «La votación» and «¿Quién gana?»).

Everything here is decided on the cards at the end of the night («Cuentan las cartas al
final de la noche, no las del principio»), each counted as what it has turned into (the
doppelganger card as its copy, the investigator's card as the werewolf or tanner he saw).
"""

from __future__ import annotations

from rules.one_night.roles import TANNER, VILLAGE, WEREWOLVES, is_werewolf, side_of


def voted_out(counts: dict[int, int]) -> list[int]:
    """The players with the most votes, in seat order; nobody if nobody has more than one
    («si nadie tiene más de un voto, nadie queda eliminado»). A tie at the top puts every
    tied player out («El jugador o los jugadores con más votos»)."""
    top = max(counts.values(), default=0)
    if top <= 1:
        return []
    return sorted(t for t, c in counts.items() if c == top)


def hunted(outs: list[int], votes: dict[int, int], final: list[str]) -> list[int]:
    """Who the hunters take with them («Si el Cazador es eliminado, el jugador al que votó
    también lo es»), in order. A hunter is whoever holds a card that counts as the hunter at
    the end; a hunter taken out by another hunter takes his own vote with him in turn."""
    gone = set(outs)
    queue = list(outs)
    taken: list[int] = []
    while queue:
        s = queue.pop(0)
        if final[s] != "hunter":
            continue
        t = votes[s]
        if t not in gone:
            gone.add(t)
            taken.append(t)
            queue.append(t)
    return taken


def check(final: list[str], out: set[int]) -> tuple[list[str], list[int]]:
    """The winning sides (village, werewolves, tanner, in that order; possibly none) and
    every winning seat."""
    seats = range(len(final))
    wolves = [s for s in seats if is_werewolf(final[s])]
    tanners_out = [s for s in sorted(out) if final[s] == "tanner"]
    sides: list[str] = []
    if wolves:
        # «El pueblo gana si se elimina al menos a un lobo.» «Los lobos (y el Esbirro) ganan
        # si no se elimina a ningún lobo… y tampoco al Curtidor.»
        wolf_out = any(s in out for s in wolves)
        if wolf_out:
            sides.append(VILLAGE)
        elif not tanners_out:
            sides.append(WEREWOLVES)
    else:
        # «Si no hay ningún lobo entre los jugadores, el pueblo solo gana si no se elimina a
        # nadie.» With no werewolf to protect, a minion wins if somebody else is out (and
        # no tanner): he played the werewolf's part and the village took the bait.
        if not out:
            sides.append(VILLAGE)
        minions = [s for s in seats if final[s] == "minion"]
        if minions and not tanners_out and any(final[s] != "minion" for s in out):
            sides.append(WEREWOLVES)
    if tanners_out:
        sides.append(TANNER)  # «El Curtidor gana si es eliminado.»
    winners: list[int] = []
    for s in seats:
        # a doppelganger card that copied nothing (it lay in the centre until the drunk
        # took it) is the doppelganger's own: the village's side, like a villager
        side = side_of(final[s])
        if side in sides and (side != TANNER or s in out):
            winners.append(s)
    return sides, winners
