"""What one player may know (seed 001): the rules decide it, every screen only shows it.

A player knows the card dealt to them (call None: seen at the deal) and what they saw or
did at night, each a fact tagged with the call it was learned in, so a screen shows it only
once the narrator has made that call (`shown_after`). The facts, by call:

| fact | value | who, in which call |
|---|---|---|
| `card` | the card dealt | everybody, at the deal (call None) |
| `copied` | `{player, role}` | the doppelganger (`doppelganger`) |
| `pack` | the other werewolves (empty: alone) | each werewolf, copied ones too (`werewolves`) |
| `werewolves` | the werewolves | the little girl who peeks (`werewolves`), the minion (`minion`) |
| `masons` | the other masons | each mason (`masons`) |
| `looked` | `{player, role}` | mystic wolf, seer, investigator, a doppelganger who copied one |
| `looked_center` | `[{center, role}, ...]` | the lone werewolf, the seer |
| `became` | `werewolf`, `mystic_wolf` or `tanner` | the investigator who saw one |
| `robbed` | `{player, role}`: whom he robbed, the card he now holds | the robber |
| `swapped` | `[A, B]` | the troublemaker |
| `took_center` | the centre card's number (never what it is) | the drunk |
| `own_card` | the card she holds | the insomniac; a copied one (`doppelganger_insomniac`) |

A role seen is always the card as printed: a seer who looks at the doppelganger card sees
`doppelganger`, never what it copied. Nothing else: never a centre card they did not see,
never who swapped what, never their own card after a swap they did not see (the card
dealt stays `card`; only the robber and the insomniac see the card they hold).

Public (`public_knowledge`): the players, the deck (the roles in play, in the roles table's
order), the night's calls, the debate clock, who has voted; once the vote is resolved who
voted for whom and the counts; who is out and how; at the end every card as dealt and as
held, what each counts as, and the winners. Not the rules' progress through the night
(`phase`, `current_call()`): calls whose cards lie in the centre pass at once, so where the
rules are tells what is in the centre. The narrator says what has been called.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from rules.one_night.game import DEALT, OVER

if TYPE_CHECKING:
    from rules.one_night.game import OneNightGame


def _fact(call: str | None, fact: str, value: Any) -> dict[str, Any]:
    return {"call": call, "fact": fact, "value": value}


def private_knowledge(game: OneNightGame, name: str) -> dict[str, Any]:
    """Everything `name` may know that is not public: their facts and their own vote."""
    s = game.seat[name]
    facts = [_fact(call, fact, _copy(value)) for seat, call, fact, value in game.facts
             if seat == s]
    vote = game.votes.get(s)
    return {
        "player": name,
        "facts": facts,
        "vote": None if vote is None else game.players[vote],
    }


def _copy(value: Any) -> Any:
    """A fresh copy, so a screen that edits what it was given cannot edit the game."""
    if isinstance(value, list):
        return [_copy(v) for v in value]
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    return value


def shown_after(knowledge: dict[str, Any], narrated: Collection[str]) -> dict[str, Any]:
    """`knowledge` with only the facts of the deal and of the calls already `narrated`."""
    facts = [f for f in knowledge["facts"] if f["call"] is DEALT or f["call"] in narrated]
    return {**knowledge, "facts": facts}


def fact_values(knowledge: dict[str, Any], fact: str) -> list[Any]:
    """The values of every fact of that kind, in the order learned (a screen's shorthand)."""
    return [f["value"] for f in knowledge["facts"] if f["fact"] == fact]


def public_knowledge(game: OneNightGame) -> dict[str, Any]:
    """What the whole table knows: the shared screen and every phone may show it."""
    names = game.players
    resolved = game.counts is not None
    over = game.phase == OVER
    return {
        "players": list(names),
        "deck": list(game.deck),
        "night_calls": game.night_calls(),
        # not the rules' own progress through the night (phase, current_call()): a call
        # whose card is in the centre passes at once, so it would tell the centre
        "over": game.phase == OVER,
        "debate_minutes": game.options.debate_minutes,
        "voted": [names[v] for v in sorted(game.votes)],
        "votes": ({names[v]: names[t] for v, t in sorted(game.votes.items())}
                  if resolved else None),
        "counts": ({names[t]: c for t, c in game.counts.items()} if resolved else None),
        "out": [{"player": names[s], "cause": game.out_cause[s]} for s in game.out],
        "dealt": game.roles_as_dealt() if over else None,
        "center_dealt": game.center_as_dealt() if over else None,
        "cards": game.cards() if over else None,
        "center": game.center() if over else None,
        "counts_as": game.final_roles() if over else None,
        "winner": None if game.winner is None else list(game.winner),
        "winners": list(game.winners),
    }
