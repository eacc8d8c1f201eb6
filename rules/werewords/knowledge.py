"""What one player may know (seed 004, «Fase nocturna», «Otros roles»): the rules decide it,
every screen only shows it.

Each thing a player learns at night is a fact tagged with the call it is learned in, so a
screen shows it only once the narrator has made that call (`shown_after`): the mayor's
secret role, the offered words and the word (the mayor's call), the word (the seer's), the
word and the pack (the werewolves'), the werewolves (the minion's, never the word), the seer
(the beholder's, never the word). A player's own card is seen at the deal (call None).
Villagers learn nothing. The word is in no public knowledge before the game is over.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from rules.werewords.roles import MAYOR_CALL, side_of

if TYPE_CHECKING:
    from rules.werewords.game import WerewordsGame

DEALT = None  # the call of a fact known from the deal, before any call


def _fact(call: str | None, fact: str, value: Any) -> dict[str, Any]:
    return {"call": call, "fact": fact, "value": value}


def private_knowledge(game: WerewordsGame, name: str) -> dict[str, Any]:
    """Everything `name` may know that is not public (their facts and their own pointing)."""
    s = game.seat[name]
    role = game.roles[s]
    names = game.players
    werewolves = [names[w] for w in game.werewolves()]
    facts: list[dict[str, Any]] = []
    if s == game.mayor:
        # «toca su papel secreto»: the mayor takes the centre card but sees it in their call
        facts += [_fact(MAYOR_CALL, "role", role), _fact(MAYOR_CALL, "side", side_of(role)),
                  _fact(MAYOR_CALL, "offered_words", list(game.words))]
        if game.word is not None:
            facts.append(_fact(MAYOR_CALL, "word", game.word))
    else:
        facts += [_fact(DEALT, "role", role), _fact(DEALT, "side", side_of(role))]
    if role == "seer" and game.word is not None:
        facts.append(_fact("seer", "word", game.word))
    if role == "werewolf":
        if game.word is not None:
            facts.append(_fact("werewolves", "word", game.word))
        facts.append(_fact("werewolves", "pack", [w for w in werewolves if w != name]))
    if role == "minion":
        facts.append(_fact("minion", "werewolves", werewolves))
    if role == "beholder":
        seer = next(names[i] for i, r in enumerate(game.roles) if r == "seer")
        facts.append(_fact("beholder", "seer", seer))
    guess = game.guesses.get(s)
    vote = game.votes.get(s)
    return {
        "player": name,
        "mayor": s == game.mayor,
        "facts": facts,
        "seer_guess": None if guess is None else names[guess],
        "vote": None if vote is None else names[vote],
    }


def shown_after(knowledge: dict[str, Any], narrated: Collection[str]) -> dict[str, Any]:
    """`knowledge` with only the facts of the deal and of the calls already `narrated`."""
    facts = [f for f in knowledge["facts"] if f["call"] is DEALT or f["call"] in narrated]
    return {**knowledge, "facts": facts}


def fact_value(knowledge: dict[str, Any], fact: str) -> Any:
    """The value of the first fact of that kind, or None (a screen's shorthand)."""
    return next((f["value"] for f in knowledge["facts"] if f["fact"] == fact), None)


def public_knowledge(game: WerewordsGame) -> dict[str, Any]:
    """What the whole table knows: the shared screen and every phone may show it."""
    names = game.players
    over = game.winner is not None
    revealed: dict[str, str] = {}
    for s in [*game.shown, *game.revealed]:
        revealed[names[s]] = game.roles[s]
    return {
        "players": list(names),
        "mayor": game.mayor_name,
        "phase": game.phase,
        "deck": dict(game.setup.deck),
        "night_calls": game.night_calls(),
        "current_call": game.current_call(),
        "language": game.options.language,
        "difficulty": game.options.difficulty,
        "day_seconds": game.options.day_seconds,
        "tokens_given": game.tokens_given(),
        "tokens_left": game.tokens_left(),
        "day_end": game.day_end,
        "ending": game.ending,
        "guessed_by": None if game.guessed_by is None else names[game.guessed_by],
        "werewolves_shown": [names[w] for w in game.shown],
        # the pointing is done in the open: who pointed at whom as the seer, and who has
        # pointed in the final vote (whom, only once everybody has: the counts)
        "seer_guesses": {names[w]: names[t] for w, t in game.guesses.items()},
        "voted": [names[v] for v in sorted(game.votes)],
        "votes": None if game.counts is None else {names[t]: n for t, n in game.counts.items()},
        "revealed": revealed,
        "word": game.word if over else None,
        "roles": game.roles_as_dealt() if over else {},
        "winner": game.winner,
        "winners": list(game.winners),
    }
