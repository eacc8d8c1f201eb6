"""Games in one SQLite file: the default store for the offline box and for `wolfvillage serve`.

Durability: WAL journal with `synchronous=FULL`, so a commit is fsynced to the WAL before
`append` returns. With WAL, NORMAL would already be crash-safe for the process but may lose
the last commits on a power cut, and a narrator box is exactly the kind of machine that gets
unplugged mid-game.

Concurrency: every write is a `BEGIN IMMEDIATE` transaction (it takes the file's write lock
up front), reads the game's version inside it and refuses a stale one, so two writers - two
store objects, threads or processes on the same file - can never both extend the same
version. The (game_id, seq) primary key is the last guard. One connection per store object,
serialised by a lock: werkzeug's threaded server starts a thread per request, and a
connection per thread would leak one per request.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .base import (
    Clock,
    Conflict,
    GameExists,
    GameFinished,
    GameNotFound,
    StoredGame,
    StoreError,
    check_game_id,
    check_version,
    dump_document,
    load_document,
)

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    game_id    TEXT PRIMARY KEY,
    setup      TEXT NOT NULL,
    version    INTEGER NOT NULL,
    finished   INTEGER NOT NULL DEFAULT 0,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS entries (
    game_id TEXT NOT NULL,
    seq     INTEGER NOT NULL,
    entry   TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS pointers (
    key     TEXT PRIMARY KEY,
    game_id TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS games_by_update ON games (finished, updated_at);
"""

# How long a writer waits for another process's write lock before giving up. Transactions
# here last microseconds, so hitting this means something is wrong, not that it is busy.
BUSY_TIMEOUT_S = 30.0


class SQLiteStore:
    def __init__(self, path: str | Path, *, clock: Clock = time.time) -> None:
        self.path = str(path)
        self._clock = clock
        self._lock = threading.RLock()
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: we issue BEGIN IMMEDIATE/COMMIT ourselves; the module's
        # implicit transactions would start with a plain (deferred) BEGIN.
        self._conn: sqlite3.Connection | None = sqlite3.connect(
            self.path,
            timeout=BUSY_TIMEOUT_S,
            isolation_level=None,
            check_same_thread=False,
        )
        try:
            self._prepare()
        except BaseException:
            self.close()
            raise

    def _prepare(self) -> None:
        with self._lock, self._errors():
            conn = self._connection()
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
        with self._write() as c:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    c.execute(statement)
            current = c.execute("PRAGMA user_version").fetchone()[0]
            if current > SCHEMA_VERSION:
                raise StoreError(
                    f"{self.path} was written by a newer Wolf Village (schema {current})"
                )
            c.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    # -- plumbing ---------------------------------------------------------------------------

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreError("the store is closed")
        return self._conn

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Cursor]:
        """One write transaction holding the database's write lock from its first statement."""
        with self._lock, self._errors():
            conn = self._connection()
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn.cursor()
                conn.execute("COMMIT")
            except BaseException:
                # Also after a failed COMMIT: never leave the write lock held.
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Cursor]:
        """A read transaction, so the game row and its entries come from one snapshot."""
        with self._lock, self._errors():
            conn = self._connection()
            conn.execute("BEGIN")
            try:
                yield conn.cursor()
            finally:
                conn.execute("COMMIT")

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """SQLite's own failures (locked past the timeout, disk full, not a database) become
        StoreError; IntegrityError passes through for the callers that expect it."""
        try:
            yield
        except sqlite3.IntegrityError:
            raise
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: {exc}") from exc

    @staticmethod
    def _check_writable(c: sqlite3.Cursor, game_id: str, version: int) -> None:
        row = c.execute(
            "SELECT version, finished FROM games WHERE game_id = ?", (game_id,)
        ).fetchone()
        if row is None:
            raise GameNotFound(game_id)
        current, finished = row
        if finished:
            raise GameFinished(game_id)
        if current != version:
            raise Conflict(f"{game_id}: version is {current}, not {version}")

    # -- games ------------------------------------------------------------------------------

    def create(self, game_id: str, setup: dict[str, Any]) -> StoredGame:
        check_game_id(game_id)
        text = dump_document(setup, "setup")
        now = self._clock()
        try:
            with self._write() as c:
                c.execute(
                    "INSERT INTO games (game_id, setup, version, finished, created_at, updated_at)"
                    " VALUES (?, ?, 0, 0, ?, ?)",
                    (game_id, text, now, now),
                )
        except sqlite3.IntegrityError:
            raise GameExists(game_id) from None
        return StoredGame(game_id, load_document(text), [], 0, False, now, now)

    def append(self, game_id: str, version: int, entry: dict[str, Any]) -> int:
        check_game_id(game_id)
        check_version(version)
        text = dump_document(entry, "entry")
        try:
            with self._write() as c:
                self._check_writable(c, game_id, version)
                c.execute(
                    "INSERT INTO entries (game_id, seq, entry) VALUES (?, ?, ?)",
                    (game_id, version, text),
                )
                c.execute(
                    "UPDATE games SET version = ?, updated_at = ? WHERE game_id = ?",
                    (version + 1, self._clock(), game_id),
                )
        except sqlite3.IntegrityError:
            # Unreachable while the version check holds; kept as the schema's own guarantee.
            raise Conflict(f"{game_id}: entry {version} already exists") from None
        return version + 1

    def load(self, game_id: str) -> StoredGame:
        check_game_id(game_id)
        with self._read() as c:
            row = c.execute(
                "SELECT setup, version, finished, created_at, updated_at FROM games"
                " WHERE game_id = ?",
                (game_id,),
            ).fetchone()
            if row is None:
                raise GameNotFound(game_id)
            entries = [
                load_document(text)
                for (text,) in c.execute(
                    "SELECT entry FROM entries WHERE game_id = ? ORDER BY seq", (game_id,)
                )
            ]
        setup, version, finished, created_at, updated_at = row
        if len(entries) != version:
            raise StoreError(f"{game_id}: {len(entries)} entries but version {version}")
        return StoredGame(
            game_id, load_document(setup), entries, version, bool(finished), created_at, updated_at
        )

    def replace_setup(self, game_id: str, version: int, setup: dict[str, Any]) -> int:
        check_game_id(game_id)
        check_version(version)
        text = dump_document(setup, "setup")
        with self._write() as c:
            self._check_writable(c, game_id, version)
            c.execute(
                "UPDATE games SET setup = ?, updated_at = ? WHERE game_id = ?",
                (text, self._clock(), game_id),
            )
        return version

    def finish(self, game_id: str) -> None:
        check_game_id(game_id)
        with self._write() as c:
            changed = c.execute(
                "UPDATE games SET finished = 1, updated_at = ? WHERE game_id = ?",
                (self._clock(), game_id),
            ).rowcount
            if not changed:
                raise GameNotFound(game_id)

    def list_games(self, include_finished: bool = False) -> list[str]:
        query = "SELECT game_id FROM games"
        if not include_finished:
            query += " WHERE finished = 0"
        query += " ORDER BY updated_at DESC, game_id"
        with self._read() as c:
            return [game_id for (game_id,) in c.execute(query)]

    def delete(self, game_id: str) -> None:
        check_game_id(game_id)
        with self._write() as c:
            c.execute("DELETE FROM entries WHERE game_id = ?", (game_id,))
            c.execute("DELETE FROM games WHERE game_id = ?", (game_id,))

    # -- pointers ---------------------------------------------------------------------------

    def bind(self, key: str, game_id: str | None) -> None:
        check_game_id(key)
        with self._write() as c:
            if game_id is None:
                c.execute("DELETE FROM pointers WHERE key = ?", (key,))
            else:
                check_game_id(game_id)
                c.execute(
                    "INSERT INTO pointers (key, game_id) VALUES (?, ?)"
                    " ON CONFLICT (key) DO UPDATE SET game_id = excluded.game_id",
                    (key, game_id),
                )

    def version(self, game_id: str) -> int:
        """The game's version alone: a cheap check that a cached table is still current."""
        check_game_id(game_id)
        with self._read() as c:
            row = c.execute("SELECT version FROM games WHERE game_id = ?", (game_id,)).fetchone()
        if row is None:
            raise GameNotFound(game_id)
        return int(row[0])

    def swap(self, key: str, expected: str | None, new: str) -> bool:
        """Set a pointer only if it still holds `expected` (None: only if unset).

        Of two writers (threads or processes) that read the same value, exactly one wins:
        how a link is claimed by the first device that opens it.
        """
        check_game_id(key)
        check_game_id(new)
        with self._write() as c:
            if expected is None:
                c.execute("INSERT OR IGNORE INTO pointers (key, game_id) VALUES (?, ?)",
                          (key, new))
            else:
                c.execute("UPDATE pointers SET game_id = ? WHERE key = ? AND game_id = ?",
                          (new, key, expected))
            return c.rowcount == 1

    def lookup(self, key: str) -> str | None:
        check_game_id(key)
        with self._read() as c:
            row = c.execute("SELECT game_id FROM pointers WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    # -- lifetime ---------------------------------------------------------------------------

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __enter__(self) -> SQLiteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"SQLiteStore({self.path!r})"
