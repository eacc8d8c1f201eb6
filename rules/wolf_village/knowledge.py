"""What one player may know (seed 000): the rules decide it, every screen only shows it.

The pack sees the pack and its current choices; a minion sees the wolves when the house
rule says so (the wolves never see the minion); masons see each other; lovers see their
partner's name and whether they are of different sides, never the role; the cursed learns
of being bitten; the seer keeps her answers; the witch sees the pack's victim when it is her
turn (in pass_phones she may have to decide before it is known); the dead see that they are
out. Public facts (who died, how, revealed roles, the sheriff) are in `public_knowledge`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rules.wolf_village.roles import side_of

if TYPE_CHECKING:
    from rules.wolf_village.game import WolfVillageGame


def revealed_roles(game: WolfVillageGame) -> dict[str, str]:
    """Roles everyone knows: the dead's when the house rule says so, always the dead
    hunter's and the spared idiot's, and every role once the game is over."""
    out: dict[str, str] = {}
    over = game.winner is not None
    for s, name in enumerate(game.players):
        role = game.role[s]
        if over:
            out[name] = game.dealt[s]
        elif not game.alive[s] and (game.options.reveal_dead_roles or role == "hunter"):
            out[name] = role
        elif s in game.spared:
            out[name] = "idiot"
    return out


def public_knowledge(game: WolfVillageGame) -> dict[str, Any]:
    deaths = [
        {"player": e["player"], "cause": e["cause"]} for e in game.events if e["type"] == "death"
    ]
    return {
        "players": list(game.players),
        "alive": game.alive_names(),
        "deaths": deaths,
        "revealed": revealed_roles(game),
        "sheriff": game.sheriff_name(),
        "spared": [game.players[s] for s in sorted(game.spared)],
        "night": game.night,
        "day": game.day,
        "winner": game.winner,
        "winners": list(game.winners) if game.winner else [],
    }


def private_knowledge(game: WolfVillageGame, name: str) -> dict[str, Any]:
    """Everything `name` may know that is not public."""
    s = game.seat[name]
    role = game.role[s]
    info: dict[str, Any] = {"role": role, "alive": game.alive[s]}
    if game.dealt[s] == "cursed":
        info["transformed"] = role == "werewolf"
    wolves = [w for w in game.werewolf_names() if w != name]
    if role == "werewolf":
        info["pack"] = wolves
        if game.phase == "night":
            info["pack_choices"] = game.pack_choices()
    elif role == "minion" and game.options.minion_knows_wolves:
        info["wolves"] = wolves
    if role == "mason":
        info["masons"] = [
            game.players[m] for m in range(len(game.players)) if game.role[m] == "mason" and m != s
        ]
    if game.lovers and s in game.lovers:
        partner = game.lovers[1] if game.lovers[0] == s else game.lovers[0]
        info["lover"] = game.players[partner]
        info["lovers_mixed"] = game.lovers_mixed()
    if role == "cupid" and game.lovers:
        info["linked"] = game.lovers_names()
    if role == "seer":
        info["inspections"] = [
            {"night": n, "target": e["target"], "werewolf": e["werewolf"]}
            for n, e in _events_by_night(game)
            if e["type"] == "inspection" and e["seer"] == name
        ]
    if role == "witch":
        info["potions"] = {"heal": game.heal_left, "poison": game.poison_left}
        if game.pending_by.get(s) == "witch":
            info["victim"] = game.pack_victim()  # None in pass_phones before the pack chose
    if game.options.night_mode != "narrated":
        info["suspicions"] = [
            {"night": e["night"], "target": e["target"]}
            for e in game.events
            if e["type"] == "suspicion" and e["player"] == name
        ]
    if game.phase in ("vote", "election") and s in game.votes:
        # your own vote (or "nobody"), as long as the table's vote lasts
        chosen = game.votes[s]
        info["vote"] = {"verb": "elect" if game.phase == "election" else "vote",
                        "target": None if chosen is None else game.players[chosen]}
    info["side"] = side_of(role)
    return info


def _events_by_night(game: WolfVillageGame) -> list[tuple[int, dict[str, Any]]]:
    night = 0
    out = []
    for e in game.events:
        if e["type"] == "night":
            night = e["number"]
        out.append((night, e))
    return out
