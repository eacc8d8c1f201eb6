"""Players' names, one set of checks for every ruleset and for the lobby.

A name is what the table calls a player: the phones show it, the speaker says it and the
recogniser listens for it, so two names that read or sound alike would make a table
ambiguous. Every ruleset's set-up and the narrator's lobby use these checks.
"""

from __future__ import annotations

from typing import Any

from rules.core import RESERVED_ACTORS, TABLE, SetupError

MAX_NAME_LENGTH = 24


def name_problem(name: Any, taken: list[str] | tuple[str, ...] = ()) -> str | None:
    """Why `name` cannot join a table where `taken` sit (a stable key), or None if it can.

    `bad_name`: not a non-empty text of at most MAX_NAME_LENGTH characters without spaces
    around it, or a reserved word; `name_taken`: the same as a name already at the table.
    """
    if not isinstance(name, str) or not name.strip() or name.strip() != name:
        return "bad_name"
    if len(name) > MAX_NAME_LENGTH or name.casefold() in RESERVED_ACTORS:
        return "bad_name"
    if same_name(name, taken) is not None:
        return "name_taken"
    return None


def same_name(name: str, taken: list[str] | tuple[str, ...]) -> str | None:
    """The name of `taken` that `name` would be confused with, if any."""
    folded = name.casefold()
    return next((t for t in taken if t.casefold() == folded), None)


def validate_names(names: list[Any], min_players: int, max_players: int,
                   game: str) -> tuple[str, ...]:
    """A set-up's list of names, in seat order; raises SetupError with the reason."""
    if not min_players <= len(names) <= max_players:
        raise SetupError(f"{game} is for {min_players} to {max_players} players, not {len(names)}")
    seen: list[str] = []
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise SetupError(f"a player's name must be a non-empty text, not {name!r}")
        if name.strip() != name:
            raise SetupError(f"the name {name!r} has spaces around it")
        if name.casefold() in RESERVED_ACTORS:
            what = "the whole table" if name.casefold() == TABLE else "the timer"
            raise SetupError(f"{name!r} is reserved for {what}; choose another name")
        if same_name(name, seen) is not None:
            raise SetupError(f"two players are called {name!r}")
        seen.append(name)
    return tuple(names)
