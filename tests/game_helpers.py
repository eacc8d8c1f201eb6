"""Small helpers for rules tests that play fixed-deck games by hand."""

from __future__ import annotations

from typing import Any

from rules.wolf_village import start


def new_game(players: list[tuple[str, str]], seed: int = 7, **options: Any) -> Any:
    """A live game over a fixed deck, players in seat order."""
    return start({"seed": seed, "options": options, "players": [list(p) for p in players]})


def run(game: Any, *actions: tuple[str, str, Any]) -> None:
    for actor, verb, target in actions:
        game.apply(actor, verb, target)


def everyone_votes(game: Any, target: str | None, **ballots: str | None) -> None:
    """Every pending voter votes `target`, except those given their own ballot."""
    decisions = game.pending()
    assert decisions and all(d.action == "vote" for d in decisions), decisions
    for d in decisions:
        game.apply(d.player, "vote", ballots.get(d.player, target))


def everyone_elects(game: Any, target: str | None) -> None:
    decisions = game.pending()
    assert decisions and all(d.action == "elect" for d in decisions), decisions
    for d in decisions:
        game.apply(d.player, "elect", target)


def pending(game: Any) -> set[tuple[str, str]]:
    return {(d.player, d.action) for d in game.pending()}


def of_type(game: Any, kind: str, since: int = 0) -> list[dict[str, Any]]:
    return [e for e in game.events[since:] if e["type"] == kind]


def deaths(game: Any, since: int = 0) -> dict[str, str]:
    return {e["player"]: e["cause"] for e in of_type(game, "death", since)}
