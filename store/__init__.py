"""Persistence of games as an append-only log (set-up + ordered entries).

    from store import open_store
    games = open_store()              # $WOLFVILLAGE_STORE, else a SQLite file in the user data dir
    game = games.create(new_game_id(), setup)
    games.append(game.game_id, game.version, {"action": ...})

See docs/store.md for the URLs, the schema and the guarantees.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from .base import (
    Conflict,
    GameExists,
    GameFinished,
    GameNotFound,
    GameStore,
    PointerTaken,
    StoredGame,
    StoreError,
    Tally,
    new_game_id,
)

__all__ = [
    "ENV_VAR",
    "Conflict",
    "GameExists",
    "GameFinished",
    "GameNotFound",
    "GameStore",
    "PointerTaken",
    "StoreError",
    "StoredGame",
    "Tally",
    "default_sqlite_path",
    "new_game_id",
    "open_store",
]

ENV_VAR = "WOLFVILLAGE_STORE"

_URL_HELP = "expected sqlite:///path/to/games.db or dynamodb://TABLE_NAME"


def default_sqlite_path() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("wolfvillage")) / "games.db"


def open_store(url: str | None = None) -> GameStore:
    """Open the store named by `url`, else by $WOLFVILLAGE_STORE, else the default SQLite file.

    - `sqlite:///absolute/path.db` (also `sqlite:relative.db`, `sqlite:///:memory:`)
    - `dynamodb://TABLE` with optional `?region=...&endpoint=...&ttl_days=...`; otherwise the
      boto3 environment: AWS_DEFAULT_REGION (us-east-1 if unset), AWS_ENDPOINT_URL_DYNAMODB
      or AWS_ENDPOINT_URL, the usual credentials chain.
    """
    if url is None:
        url = os.environ.get(ENV_VAR) or None
    if url is None:
        from .sqlite_store import SQLiteStore

        return SQLiteStore(default_sqlite_path())

    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme == "sqlite":
        from .sqlite_store import SQLiteStore

        return SQLiteStore(_sqlite_path(url, parts.netloc, parts.path))
    if scheme == "dynamodb":
        from .dynamodb_store import DEFAULT_TTL_DAYS, DynamoDBStore

        table = unquote(parts.netloc)
        if not table or parts.path not in ("", "/"):
            raise ValueError(f"bad DynamoDB store URL {url!r}: {_URL_HELP}")
        options = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        unknown = set(options) - {"region", "endpoint", "ttl_days"}
        if unknown:
            raise ValueError(f"unknown option(s) {sorted(unknown)} in store URL {url!r}")
        return DynamoDBStore(
            table,
            region=options.get("region"),
            endpoint_url=options.get("endpoint"),
            ttl_days=float(options.get("ttl_days", DEFAULT_TTL_DAYS)),
        )
    if not scheme:
        raise ValueError(f"store URL {url!r} has no scheme: {_URL_HELP}")
    raise ValueError(f"unknown store URL scheme {parts.scheme!r} in {url!r}: {_URL_HELP}")


def _sqlite_path(url: str, netloc: str, path: str) -> str:
    if netloc:
        # sqlite://host/... would silently drop the host; say so instead.
        raise ValueError(f"bad SQLite store URL {url!r} (host part {netloc!r}): {_URL_HELP}")
    path = unquote(path)
    if path == "/:memory:":
        return ":memory:"
    # sqlite:///C:/games.db on Windows: the leading slash belongs to the URL, not the path.
    if len(path) > 3 and path[0] == "/" and path[2] == ":" and path[1].isalpha():
        path = path[1:]
    if path.startswith("//"):
        # "sqlite:///" + "/abs/path" gives "//abs/path": the same file, one slash is enough.
        path = "/" + path.lstrip("/")
    if not path or path == "/":
        raise ValueError(f"SQLite store URL {url!r} names no file: {_URL_HELP}")
    return str(Path(path).expanduser())
