"""The store's contract: what a stored game is, the errors, and the interface both backends keep.

A game is its log: a set-up document plus the ordered list of accepted input entries. The
store never interprets either; it only guarantees that the log is appended in order, that two
writers who read the same version cannot both extend it, and that what `append` accepted is
durable when it returns.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

Clock = Callable[[], float]
# pointer key -> game id (or any short text) to set, or None to remove it
Pointers = Mapping[str, str | None]


@dataclass(frozen=True)
class Tally:
    """A counter as `count` left it: how many hits its current window holds, and when that
    window ends (Unix seconds; the counter starts again from 0 then)."""

    count: int
    resets_at: float


@dataclass(frozen=True)
class StoredGame:
    """One game as read from the store. `version == len(entries)` always."""

    game_id: str
    setup: dict[str, Any]
    entries: list[dict[str, Any]]
    version: int
    finished: bool
    created_at: float
    updated_at: float


class StoreError(Exception):
    """Anything the store refuses or cannot do."""


class GameExists(StoreError):
    """`create` was given an id that is already taken."""


class GameNotFound(StoreError):
    """No game with that id (never created, or deleted)."""


class Conflict(StoreError):
    """The game moved on since the caller read it: reload, decide again, retry."""


class PointerTaken(StoreError):
    """`create` was told to claim a pointer (`claim`) that already points somewhere."""


class GameFinished(StoreError):
    """The game's log is sealed by `finish`; nothing more can be appended or changed.

    Not a Conflict on purpose: retrying cannot succeed, so a retry loop must not catch it.
    """


@runtime_checkable
class GameStore(Protocol):
    # `bind`: pointers set (a str) or removed (None) in the same transaction as the write,
    # so a caller that must store a game change and the pointers that name it (a player's
    # join and their private link) pays one commit, and never leaves one without the other
    # `claim`: keys of `bind` that must be unset: if one is taken, PointerTaken and nothing
    # is written (a room code: of two workers that draw the same one, exactly one gets it)
    def create(self, game_id: str, setup: dict[str, Any], *,
               bind: Pointers | None = None,
               claim: Collection[str] = ()) -> StoredGame: ...

    def append(self, game_id: str, version: int, entry: dict[str, Any], *,
               bind: Pointers | None = None) -> int: ...

    # several entries after `version`, in order, in one transaction: all or none; returns
    # version + len(entries)
    def extend(self, game_id: str, version: int, entries: list[dict[str, Any]], *,
               bind: Pointers | None = None) -> int: ...

    def load(self, game_id: str) -> StoredGame: ...

    # the game's version and its entries from `since` on (the whole log would be `load`):
    # what a cached copy of the table needs to catch up with other writers
    def tail(self, game_id: str, since: int) -> tuple[int, list[dict[str, Any]]]: ...

    def replace_setup(self, game_id: str, version: int, setup: dict[str, Any]) -> int: ...

    def finish(self, game_id: str) -> None: ...

    def list_games(self, include_finished: bool = False) -> list[str]: ...

    def delete(self, game_id: str) -> None: ...

    def bind(self, key: str, game_id: str | None) -> None: ...

    def lookup(self, key: str) -> str | None: ...

    def version(self, game_id: str) -> int: ...

    # `new` None removes the pointer if it still holds `expected`
    def swap(self, key: str, expected: str | None, new: str | None) -> bool: ...

    # a counter with expiry, shared by every process on the store (rate limits): adds
    # `add` hits to the window that the counter's first hit opened and that lasts `window`
    # seconds, and returns the tally; a counter whose window is over starts again from 0.
    # `add=0` only reads it.
    def count(self, key: str, window: float, add: int = 1) -> Tally: ...

    def close(self) -> None: ...


def new_game_id() -> str:
    """A random, URL-safe id (96 bits): safe to put in a phone link or a DynamoDB key, and
    on a command line: it never starts with "-", which `--game ID` would read as an option
    (one id in 64 did, and `wolfvillage console --game -x...` could not resume it)."""
    while (game_id := secrets.token_urlsafe(12)).startswith("-"):
        pass
    return game_id


def dump_document(doc: dict[str, Any], what: str) -> str:
    """Serialise a set-up or an entry, refusing anything that would not replay identically.

    NaN/Infinity are refused because they are not JSON and other readers would choke on them;
    non-dict documents are refused because the log format is a list of objects.
    """
    if not isinstance(doc, dict):
        raise TypeError(f"{what} must be a dict, not {type(doc).__name__}")
    try:
        return json.dumps(doc, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{what} is not JSON-able: {exc}") from exc


def load_document(text: str) -> dict[str, Any]:
    return json.loads(text)


def check_game_id(game_id: str) -> None:
    # An empty id or a non-string would make a key that silently matches nothing useful.
    if not isinstance(game_id, str) or not game_id:
        raise ValueError(f"game_id must be a non-empty string, not {game_id!r}")


def check_pointers(bind: Pointers | None) -> dict[str, str | None]:
    """The pointers of a write's `bind`, checked before anything is written."""
    pointers = dict(bind or {})
    for key, value in pointers.items():
        check_game_id(key)
        if value is not None:
            check_game_id(value)
    return pointers


def check_claims(pointers: dict[str, str | None], claim: Collection[str]) -> set[str]:
    """The keys `create` must find unset: each one also set (not removed) by its `bind`."""
    claimed = set(claim)
    for key in claimed:
        if pointers.get(key) is None:
            raise ValueError(f"a claimed pointer must be set by the same write: {key!r}")
    return claimed


def check_count(window: float, add: int) -> None:
    if (isinstance(window, bool) or not isinstance(window, int | float)
            or not 0 < window < 10**9):
        raise ValueError(f"a counter's window must be a positive number of seconds, not {window!r}")
    if isinstance(add, bool) or not isinstance(add, int) or not 0 <= add < 2**31:
        raise ValueError(f"a counter takes a non-negative int of hits, not {add!r}")


def check_swap(expected: str | None, new: str | None) -> None:
    if new is None and expected is None:
        raise ValueError("swap(key, None, None) would remove nothing: give the value to remove")
    if new is not None:
        check_game_id(new)


def check_version(version: int) -> None:
    if isinstance(version, bool) or not isinstance(version, int) or version < 0:
        raise ValueError(f"version must be a non-negative int, not {version!r}")
