"""Werewords' events, told aloud: which lines the table hears for what happened.

The word and the offer are never spoken before the end (`words_offered`, `word_chosen` are
the log's record, not the table's); a token is said with the player who asked ("Yes,
Ana."), the moment it is given. The mayor's call, and the night's others, are the script's
timed calls (werewords.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from narrator.cues import Chapter, Cue, Say

if TYPE_CHECKING:
    from narrator.scripts.werewords import WerewordsScript


def narrate(script: WerewordsScript, events: list[dict[str, Any]]) -> list[Cue]:
    game = script.narrator.game
    cues: list[Cue] = []
    for event in events:
        kind = event["type"]
        if kind == "mayor":
            key = "ww_mayor_left" if event["how"] == "left_of_last_mayor" else "ww_mayor"
            cues.append(Say(key, {"name": event["player"]}))
        elif kind == "night":
            script.plan_night()
            cues += [Chapter(), Say("ww_night_falls")]
        elif kind == "answer":
            cues.append(Say(f"ww_token_{event['token']}", {"name": event["to"]}))
        elif kind == "guessed":
            cues += [*script.end_day(), Say("ww_guessed", {"name": event["by"]})]
        elif kind == "werewolves_shown":
            cues += script.begin_hunt(list(event["players"]))
        elif kind in ("no_more_tokens", "time_up"):
            cues += [*script.end_day(), Say(f"ww_{kind}"), *script.begin_discussion()]
        elif kind == "whoops":
            cues += [*script.stop_ending(), Say(f"ww_whoops_{event['ending']}")]
            if event["ending"] == "not_guessed":
                cues += script.begin_discussion()
        elif kind == "seer_guess":
            cues.append(Say("ww_points_at", {"name": event["werewolf"],
                                             "target": event["target"]}))
        elif kind == "votes":
            cues += _votes(event["counts"], len(game.players))
        elif kind == "revealed":
            roles = game.roles_as_dealt()
            cues += [Say("ww_reveals", {"name": name, "role_the": roles[name]})
                     for name in event["players"]]
        elif kind == "game_over":
            cues += _game_over(script, event)
    return cues


def _votes(counts: dict[str, int], players: int) -> list[Cue]:
    cues: list[Cue] = [Say("ww_votes_intro")]
    cues += [Say("ww_votes_for", {"name": name, "count": count})
             for name, count in counts.items()]
    if len(counts) == players and all(c == 1 for c in counts.values()):
        cues.append(Say("ww_one_vote_each"))  # «Si cada jugador recibe un voto»
    else:
        top = max(counts.values())
        most = [name for name, count in counts.items() if count == top]
        cues.append(Say("ww_most_votes_one", {"name": most[0]}) if len(most) == 1
                    else Say("ww_most_votes_tie", {"names": most}))
    return cues


def _game_over(script: WerewordsScript, event: dict[str, Any]) -> list[Cue]:
    n = script.narrator
    game = n.game
    # play again: the Mayor card moves from this mayor (rules.werewords.next_game_doc)
    n.config.options["last_mayor"] = game.mayor_name
    cues: list[Cue] = [Chapter(), Say(f"ww_win_{event['winner']}_{game.ending}"),
                       Say("ww_word_was", {"word": game.word}), Say("reveal_intro")]
    for name, role in game.roles_as_dealt().items():
        key = "ww_mayor_was" if name == game.mayor_name else "reveal_role"
        cues.append(Say(key, {"name": name, "role_the": role}))
    return cues
