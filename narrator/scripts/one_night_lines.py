"""One Night's events, told aloud: which lines the table hears for what happened.

The night's events (who copied, looked, swapped, peeked) are secret: they reach the right
phone through that player's view, never the speaker. The table hears the night fall, the
result of the vote and, at the end, every card as dealt and as it ended the night («Cuentan
las cartas al final de la noche, no las del principio»), and who won.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from narrator.cues import Chapter, Cue, Say
from rules.one_night.knowledge import public_knowledge

if TYPE_CHECKING:
    from narrator.scripts.one_night import OneNightScript


def narrate(script: OneNightScript, events: list[dict[str, Any]]) -> list[Cue]:
    game = script.narrator.game
    cues: list[Cue] = []
    for event in events:
        kind = event["type"]
        if kind == "night":
            script.plan_night()
            cues += [Chapter(), Say("on_night_falls")]
        elif kind == "votes":
            cues.append(Say("on_votes_in"))
            counts = event["counts"]
            # most votes first, then in seat order
            for name in sorted(counts, key=lambda p: (-counts[p], game.players.index(p))):
                cues.append(Say("on_votes_for", {"name": name, "count": counts[name]}))
        elif kind == "nobody_out":
            cues.append(Say("on_nobody_out"))  # «si nadie tiene más de un voto»
        elif kind == "out":
            cues += _out(script, event)
        elif kind == "game_over":
            cues += _game_over(script, event)
    return cues


def _out(script: OneNightScript, event: dict[str, Any]) -> list[Cue]:
    name = event["player"]
    if event["cause"] == "vote":
        return [Say("on_out", {"name": name})]
    # «Si el Cazador es eliminado, el jugador al que votó también lo es»: the hunter is the
    # player out before this one, holding a hunter card at dawn, who pointed at `name`
    known = public_knowledge(script.narrator.game)  # the vote is resolved: all public
    final, ballots = known["counts_as"], known["votes"]
    gone = [out["player"] for out in known["out"]]
    hunter = next(p for p in gone[:gone.index(name)]
                  if final[p] == "hunter" and ballots.get(p) == name)
    return [Say("on_hunter_shot", {"name": hunter, "target": name})]


def _game_over(script: OneNightScript, event: dict[str, Any]) -> list[Cue]:
    game = script.narrator.game
    cues: list[Cue] = [Chapter()]
    sides = event["winner"]
    cues += [Say(f"on_win_{side}") for side in sides] or [Say("on_win_nobody")]
    winners = event["winners"]
    if winners:
        key = "on_winner" if len(winners) == 1 else "on_winners"
        cues.append(Say(key, {"names": list(winners)}))
    cues.append(Say("on_reveal_intro"))
    dealt, cards, counts_as = game.roles_as_dealt(), game.cards(), game.final_roles()
    for name in game.players:
        if cards[name] == dealt[name]:
            cues.append(Say("on_reveal_kept", {"name": name, "role": dealt[name]}))
        else:
            cues += [Say("on_reveal_dealt", {"name": name, "role": dealt[name]}),
                     Say("on_reveal_ended", {"name": name, "role": cards[name]})]
        if counts_as[name] != cards[name]:
            # the doppelganger card as its copy, the investigator's as what he became
            cues.append(Say("on_reveal_counts_as", {"role": counts_as[name]}))
    for i, (was, now) in enumerate(zip(game.center_as_dealt(), game.center(), strict=True)):
        number = i + 1  # said to people: the first, second and third centre card
        if was == now:
            cues.append(Say("on_reveal_center_kept", {"number": number, "role": was}))
        else:
            cues += [Say("on_reveal_center_dealt", {"number": number, "role": was}),
                     Say("on_reveal_center_ended", {"number": number, "role": now})]
    return cues
