"""A game is its log: replay (set-up, seed, actions) into the resolved game.

This is the contract of `wolfvillage replay` and what the store uses to rebuild a table.
"""

from __future__ import annotations

from typing import Any

from rules.core import Refused, SetupError, ruleset

DEFAULT_RULESET = "wolf-village"


def start(doc: dict[str, Any]) -> Any:
    """Start the game a set-up document describes (no actions applied)."""
    if not isinstance(doc, dict):
        raise SetupError("a game log must be a JSON object")
    name = doc.get("ruleset", DEFAULT_RULESET)
    if not isinstance(name, str):
        raise SetupError(f"ruleset must be a name, not {name!r}")
    return ruleset(name).start(doc)


def parse_action(raw: Any) -> tuple[Any, Any, Any]:
    """[actor, verb, target]; the target may be left out where it is null (revote, spare)."""
    if isinstance(raw, list | tuple) and len(raw) in (2, 3):
        return raw[0], raw[1], raw[2] if len(raw) == 3 else None
    raise Refused(f"an action is [actor, verb, target], not {raw!r}")


def apply_all(game: Any, actions: list[Any]) -> dict[str, Any] | None:
    """Apply actions in order; stop at the first refusal and describe it."""
    for index, raw in enumerate(actions):
        try:
            game.apply(*parse_action(raw))
        except Refused as refusal:
            return {"index": index, "action": raw, "reason": refusal.reason}
    return None


def refused_setup(reason: str) -> dict[str, Any]:
    """The `wolfvillage replay` object of a set-up that breaks the rules (no game at all)."""
    return {
        "roles": {},
        "events": [],
        "alive": [],
        "pending": [],
        "winner": None,
        "winners": [],
        "error": {"index": None, "action": None, "reason": reason},
    }


def replay(doc: Any) -> dict[str, Any]:
    """The resolved game as the `wolfvillage replay` JSON object."""
    try:
        game = start(doc)
    except SetupError as problem:
        return refused_setup(problem.reason)
    actions = doc.get("actions", [])
    if not isinstance(actions, list):
        error: dict[str, Any] | None = {
            "index": None,
            "action": None,
            "reason": "actions must be a list",
        }
    else:
        error = apply_all(game, actions)
    out = {
        "roles": game.roles_as_dealt(),
        "events": game.events,
        "alive": game.alive_names(),
        "pending": [d.to_json() for d in game.pending()],
        "winner": game.winner,
        "winners": list(game.winners),
        "error": error,
    }
    # a ruleset may add fields of its own (One Night: each player's card and the centre)
    extra = getattr(game, "replay_fields", None)
    if extra is not None:
        out.update(extra())
    return out
