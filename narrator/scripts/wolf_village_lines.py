"""Wolf Village's events, told aloud: which lines the table hears for what happened.

Private events (the seer's answer, the pack's victim, the lovers, suspicions) are never
spoken; they reach the right phone through the player's view.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from narrator.cues import Chapter, Cue, Say

if TYPE_CHECKING:
    from narrator.scripts.wolf_village import WolfVillageScript

RESCUES = ("saved", "transformed", "unharmed")
PRIVATE = ("pack_victim", "inspection", "lovers", "suspicion", "day")


def narrate(script: WolfVillageScript, events: list[dict[str, Any]]) -> list[Cue]:
    game = script.narrator.game
    cues: list[Cue] = []
    i = 0
    while i < len(events):
        event = events[i]
        kind = event["type"]
        if kind == "night":
            script.plan_night_calls()
            secret = game.options.night_mode != "narrated"
            cues += [Chapter(), Say("night_falls_secret" if secret else "night_falls")]
        elif kind == "dawn":
            cues += script.close_call()
            cues.append(Chapter())
            group = []
            i += 1
            while i < len(events) and events[i]["type"] in (*RESCUES, "death"):
                group.append(events[i])
                i += 1
            cues += _morning(script, group)
            continue
        elif kind == "death":
            cues += _death(script, event)
        elif kind == "spared":
            cues += [Say("village_decided"), Say("idiot_spared", {"name": event["player"]})]
        elif kind == "sheriff":
            name = event["player"]
            if event["how"] == "elected":
                cues.append(Say("sheriff_elected", {"name": name}) if name else Say("no_sheriff"))
            else:
                cues.append(Say("badge_passed", {"name": name}) if name else Say("badge_thrown"))
        elif kind == "tie":
            cues.append(Say("tie", {"names": event["players"]}))
        elif kind == "revote":
            cues.append(Say("revote"))
        elif kind == "no_elimination":
            cues.append(Say("no_elimination"))
        elif kind == "game_over":
            cues += _game_over(script, event)
        i += 1
    return cues


def _morning(script: WolfVillageScript, group: list[dict[str, Any]]) -> list[Cue]:
    game = script.narrator.game
    cues: list[Cue] = [Say("good_morning")]
    if game.options.night_mode == "narrated":
        cues.append(Say("eyes_open"))
    deaths = [e for e in group if e["type"] == "death"]
    saved = [e for e in group if e["type"] == "saved"]
    bitten = [e for e in group if e["type"] == "transformed"]
    if not deaths:
        if saved:
            cues.append(Say("saved_by_doctor" if saved[0]["by"] == "doctor" else "saved_by_witch"))
        elif bitten:
            cues.append(Say("cursed_bitten"))
        else:
            cues.append(Say("nobody_died"))
        return cues
    if saved or bitten or any(e["type"] == "unharmed" for e in group):
        # «Cuando sí murió alguien más, el narrador dice solo…»
        cues.append(Say("victim_survived"))
    for death in deaths:
        cues += _death(script, death)
    return cues


def _death(script: WolfVillageScript, event: dict[str, Any]) -> list[Cue]:
    game = script.narrator.game
    name = event["player"]
    cause = event["cause"]
    cues: list[Cue] = []
    if cause == "vote":
        cues.append(Say("village_decided"))
    cues.append(Say(f"death_{cause}", {"name": name}))
    role = game.current_role(name)
    if role == "hunter":
        # the hunter's role is always told, by his last-breath line, with his death (before
        # a lover's grief, and before he is asked whom he shoots)
        cues.append(Say("hunter_aims", {"name": name}))
    elif game.options.reveal_dead_roles:
        cues.append(Say("role_was", {"role_the": role}))
    return cues


def _game_over(script: WolfVillageScript, event: dict[str, Any]) -> list[Cue]:
    game = script.narrator.game
    cues: list[Cue] = [*script.close_call(), Chapter(), Say(f"win_{event['winner']}")]
    if event["winner"] == "lovers":
        cues[-1] = Say("win_lovers", {"names": event["winners"]})
    cues.append(Say("reveal_intro"))
    for name, role in game.roles_as_dealt().items():
        cues.append(Say("reveal_role", {"name": name, "role_the": role}))
    suspicions = [e for e in game.events if e["type"] == "suspicion"]
    if suspicions:
        cues.append(Say("suspicions_intro"))
        for e in suspicions:
            cues.append(Say("suspicion", {"name": e["player"], "target": e["target"],
                                          "night": e["night"]}))
    return cues
