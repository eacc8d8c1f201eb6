"""Helpers for the One Night tests: fixed tables played by hand.

Players are named after the card they are dealt (Wolf, Sia the seer, Rob the robber...),
so each test reads like the table it describes.
"""

from __future__ import annotations

import pickle
from typing import Any

import pytest

from rules import Refused, replay
from rules.one_night import start


def doc(seating: str, center: str, actions: list[Any] | None = None, seed: int = 0,
        **options: Any) -> dict[str, Any]:
    """A fixed deal from 'Name:card Name:card ...' (seat order) and 'card card card'."""
    out: dict[str, Any] = {
        "ruleset": "one-night",
        "seed": seed,
        "players": [entry.split(":") for entry in seating.split()],
        "center": center.split(),
    }
    if options:
        out["options"] = options
    if actions is not None:
        out["actions"] = actions
    return out


def new(seating: str, center: str, **options: Any):
    return start(doc(seating, center, **options))


def run(game: Any, *actions: tuple[str, str, Any]) -> None:
    for actor, verb, target in actions:
        game.apply(actor, verb, target)


def pending(game: Any) -> list[tuple[str, str]]:
    return [(d.player, d.action) for d in game.pending()]


def of_type(game: Any, kind: str) -> list[dict[str, Any]]:
    return [e for e in game.events if e["type"] == kind]


def vote(game: Any, **ballots: str) -> None:
    """Everybody points: `ballots` maps every voter to the player they point at."""
    assert game.phase == "day", f"still night: {pending(game)}"
    assert sorted(ballots) == sorted(game.players), "everybody votes"
    for voter in game.players:
        game.apply(voter, "vote", ballots[voter])


def facts(game: Any, name: str, fact: str | None = None) -> list[dict[str, Any]]:
    from rules.one_night.knowledge import private_knowledge

    known = private_knowledge(game, name)["facts"]
    return [f for f in known if fact is None or f["fact"] == fact]


def snapshot(game: Any, copy: bool = True) -> dict[str, Any]:
    """Everything the game holds (its generator's state included), for `==`: with `copy`,
    a pickled copy that a later change cannot reach (cheaper than copy.deepcopy); without,
    the live values, to compare with one taken before."""
    state = {k: pickle.loads(pickle.dumps(v)) if copy else v for k, v in vars(game).items()
             if k not in {"_handlers", "rng", "setup", "options"}}
    state["rng"] = game.rng.getstate()
    state["public"] = (pending(game), game.current_call(), game.cards(), game.center(),
                       game.alive_names(), game.winner, list(game.winners))
    return state


def refused(game: Any, actor: Any, verb: Any, target: Any) -> str:
    """Assert the action is refused and changes nothing; return the reason."""
    before = snapshot(game)
    with pytest.raises(Refused) as info:
        game.apply(actor, verb, target)
    assert snapshot(game, copy=False) == before
    assert info.value.reason
    return info.value.reason


def replay_refuses(base: dict[str, Any], bad: list[Any]) -> dict[str, Any]:
    """Replaying `base` + `bad` stops at `bad` with the state of `base` alone."""
    good = replay(base)
    assert good["error"] is None, good["error"]
    out = replay(dict(base, actions=[*base["actions"], bad, ["Nobody", "vote", None]]))
    assert out["error"] is not None
    assert out["error"]["index"] == len(base["actions"])
    assert out["error"]["action"] == bad
    assert {k: v for k, v in out.items() if k != "error"} == {
        k: v for k, v in good.items() if k != "error"
    }
    return out["error"]
