"""Games in one SQLite file: the default store for the offline box and for `wolfvillage serve`.

Durability: WAL journal with `synchronous=FULL`, so a commit is fsynced to the WAL before
`append` returns. With WAL, NORMAL would already be crash-safe for the process but may lose
the last commits on a power cut, and a narrator box is exactly the kind of machine that gets
unplugged mid-game.

Concurrency:

- Every write is a `BEGIN IMMEDIATE` transaction (it takes the file's write lock up front),
  reads the game's version inside it and refuses a stale one, so two writers - two store
  objects, threads or processes on the same file - can never both extend the same version.
  The (game_id, seq) primary key is the last guard.
- **Group commit.** The writes that threads of one store object ask for while a commit is
  being fsynced wait in a queue; the next commit takes them all: one transaction, each write
  in its own savepoint (a refused write - a Conflict - is rolled back alone and refused to
  its caller only), one fsync, and only then is any of them answered. So every answered
  write is durable, as with one commit per write, but N waiting writes cost one fsync
  instead of N. There is no writer thread: the first caller to find no commit running
  leads it, and hands the lead to the next waiter when it is done.
- **A cross-process write lock that wakes promptly.** Writers (of every store object, in
  every process) take an `flock` on a lock file beside the database (`games.db-lock`) before
  `BEGIN IMMEDIATE`. The kernel wakes a waiter the moment the lock is released, where
  SQLite's own busy handler sleeps (1, 2, 5 ... 100 ms) and polls. A writer that does not
  take it (an older Wolf Village) is still safe: SQLite's lock and busy timeout remain.
- **Reads beside writes.** Reads use their own connections from a small pool (WAL lets a
  reader see the last commit while a write is in progress), so a poll never waits for a
  commit's fsync. A pool, not a connection per thread: werkzeug's threaded server starts a
  thread per request, and a connection per thread would leak one per request.
  (`:memory:` is one database per connection, so there reads share the write connection.)
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Collection, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from .base import (
    Clock,
    Conflict,
    GameExists,
    GameFinished,
    GameNotFound,
    Pointers,
    PointerTaken,
    StoredGame,
    StoreError,
    Tally,
    check_claims,
    check_count,
    check_game_id,
    check_pointers,
    check_swap,
    check_version,
    dump_document,
    load_document,
)

T = TypeVar("T")

# an added table that older code never reads (counters) needs no new version: an older Wolf
# Village still opens the file
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
CREATE TABLE IF NOT EXISTS counters (
    key       TEXT PRIMARY KEY,
    count     INTEGER NOT NULL,
    resets_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS counters_by_reset ON counters (resets_at);
"""

# How long a writer waits for another process's write lock before giving up. Transactions
# here last microseconds, so hitting this means something is wrong, not that it is busy.
BUSY_TIMEOUT_S = 30.0
# idle read connections kept for reuse; more are opened when more threads read at once
# (and closed again when they come back to a full pool)
READ_POOL = 16

WriteOp = Callable[[sqlite3.Cursor], Any]


@dataclass(eq=False)
class _Write:
    """One write waiting for a commit: its work, and (once committed) its answer."""

    op: WriteOp
    done: threading.Event = field(default_factory=threading.Event)
    lead: bool = False  # woken to lead the next commit, not with an answer
    value: Any = None
    error: BaseException | None = None


def _own_copy(exc: BaseException) -> BaseException:
    """An exception of its own for each waiting write of a failed commit: each is raised in
    its own thread, and raising one object in several threads tangles their tracebacks."""
    try:
        copy = type(exc)(*exc.args)
    except Exception:
        return exc
    copy.__cause__ = exc
    return copy


class SQLiteStore:
    def __init__(self, path: str | Path, *, clock: Clock = time.time) -> None:
        self.path = str(path)
        self._clock = clock
        self._closed = False
        self._memory = self.path == ":memory:"
        # the write connection's lock: held by the thread leading a commit (and, for
        # :memory:, by readers, who share that connection)
        self._lock = threading.RLock()
        # guards the queue of waiting writes and who leads
        self._queue_lock = threading.Lock()
        self._queue: list[_Write] = []
        self._leading = False
        self._pool_lock = threading.Lock()
        self._pool: list[sqlite3.Connection] = []
        self._lock_fd: int | None = None
        if not self._memory:
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: we issue BEGIN IMMEDIATE/COMMIT ourselves; the module's
        # implicit transactions would start with a plain (deferred) BEGIN.
        self._conn: sqlite3.Connection | None = self._connect()
        try:
            if not self._memory:
                with contextlib.suppress(OSError):
                    # a read-only folder: no lock file, SQLite's busy handler alone
                    self._lock_fd = os.open(f"{self.path}-lock", os.O_RDWR | os.O_CREAT, 0o644)
            self._prepare()
        except BaseException:
            self.close()
            raise

    def _connect(self) -> sqlite3.Connection:
        with self._errors():
            return sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None,
                                   check_same_thread=False)

    def _prepare(self) -> None:
        with self._lock, self._errors():
            conn = self._connection()
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")

        def schema(c: sqlite3.Cursor) -> None:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    c.execute(statement)
            current = c.execute("PRAGMA user_version").fetchone()[0]
            if current > SCHEMA_VERSION:
                raise StoreError(
                    f"{self.path} was written by a newer Wolf Village (schema {current})"
                )
            c.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

        self._write(schema)

    # -- plumbing ---------------------------------------------------------------------------

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreError("the store is closed")
        return self._conn

    def _write(self, op: WriteOp) -> Any:
        """Run `op` in a write transaction and return what it returns, once committed.

        The write joins the commit being gathered (group commit, see the module's doc): it
        is answered only after that commit's fsync, and an exception it raises rolls back
        its own savepoint and is raised here, the other writes of the commit unharmed.
        """
        write = _Write(op)
        with self._queue_lock:
            self._queue.append(write)
            lead = not self._leading
            self._leading = True
        if not lead:
            write.done.wait()
        if not lead and not write.lead:
            return self._answer(write)
        try:
            while True:
                with self._queue_lock:
                    batch, self._queue = self._queue, []
                self._commit(batch)
                if write.done.is_set() and not write.lead:
                    break
        finally:
            with self._queue_lock:
                if self._queue:
                    # the writes that came during this commit: the first one leads the next
                    # (so this caller is answered now, not after everyone else's commits)
                    nxt = self._queue[0]
                    nxt.lead = True
                    nxt.done.set()
                else:
                    self._leading = False
        return self._answer(write)

    @staticmethod
    def _answer(write: _Write) -> Any:
        if write.error is not None:
            raise write.error
        return write.value

    def _commit(self, batch: list[_Write]) -> None:
        """One transaction for `batch`, each write in its own savepoint; every write's
        answer is set (and its caller woken) only after COMMIT has returned."""
        for write in batch:
            write.lead = False
        try:
            with self._lock, self._errors(), self._file_lock():
                conn = self._connection()
                conn.execute("BEGIN IMMEDIATE")
                try:
                    # closed before the write lock is let go: a cursor freed later (in
                    # this thread, once the next leader has the connection) resets its
                    # statement, which the statement cache may have handed to the next
                    # leader's cursor meanwhile: "bad parameter or other API misuse" in the
                    # middle of the next commit (seen once in 100,000 requests)
                    with closing(conn.cursor()) as cursor:
                        self._run(conn, cursor, batch)
                    conn.execute("COMMIT")
                except BaseException:
                    # Also after a failed COMMIT: never leave the write lock held.
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
        except BaseException as exc:
            # nothing of this batch was committed: a write that had succeeded inside it
            # must not be answered as if it had
            for write in batch:
                if write.error is None:
                    write.value = None
                    write.error = _own_copy(exc)
        finally:
            for write in batch:
                write.done.set()

    def _run(self, conn: sqlite3.Connection, cursor: sqlite3.Cursor,
             batch: list[_Write]) -> None:
        """The writes of one transaction, each in its own savepoint when there are several."""
        if len(batch) == 1:
            # alone in its transaction: a refusal rolls the transaction back, no savepoint
            # needed (each statement is a round trip for the GIL while the writers' lock of
            # both processes is held)
            with self._errors():
                batch[0].value = batch[0].op(cursor)
            return
        for write in batch:
            conn.execute("SAVEPOINT op")
            try:
                with self._errors():
                    write.value = write.op(cursor)
            except Exception as exc:
                conn.execute("ROLLBACK TO op")
                write.error = exc
            conn.execute("RELEASE op")

    @contextmanager
    def _file_lock(self) -> Iterator[None]:
        """The writers' lock across processes (and store objects): flock on the lock file,
        which the kernel hands to the next waiter the moment it is released."""
        if self._lock_fd is None:
            yield
            return
        fcntl.flock(self._lock_fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)

    @contextmanager
    def _read(self, snapshot: bool = False) -> Iterator[sqlite3.Cursor]:
        """A read on a pooled connection, outside the write lock (WAL: it sees the last
        commit, never waits for a write's fsync). With `snapshot`, in one read transaction,
        so several statements see one state (a game row and its entries)."""
        if self._memory:
            with self._lock, self._errors():
                yield from self._in_read(self._connection(), snapshot)
            return
        if self._closed:
            raise StoreError("the store is closed")
        with self._pool_lock:
            conn = self._pool.pop() if self._pool else None
        if conn is None:
            conn = self._connect()
            with self._errors():
                conn.execute("PRAGMA query_only=1")
        try:
            with self._errors():
                yield from self._in_read(conn, snapshot)
        finally:
            with self._pool_lock:
                keep = not self._closed and len(self._pool) < READ_POOL
                if keep:
                    self._pool.append(conn)
            if not keep:
                conn.close()

    @staticmethod
    def _in_read(conn: sqlite3.Connection, snapshot: bool) -> Iterator[sqlite3.Cursor]:
        # the cursor is closed before the connection goes back to the pool (see _commit)
        with closing(conn.cursor()) as cursor:
            if not snapshot:
                # one statement is atomic on its own: no BEGIN/COMMIT round trips
                yield cursor
                return
            conn.execute("BEGIN")
            try:
                yield cursor
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

    def create(self, game_id: str, setup: dict[str, Any], *,
               bind: Pointers | None = None,
               claim: Collection[str] = ()) -> StoredGame:
        check_game_id(game_id)
        text = dump_document(setup, "setup")
        pointers = check_pointers(bind)
        claimed = check_claims(pointers, claim)
        now = self._clock()

        def insert(c: sqlite3.Cursor) -> None:
            try:
                c.execute(
                    "INSERT INTO games (game_id, setup, version, finished, created_at,"
                    " updated_at) VALUES (?, ?, 0, 0, ?, ?)",
                    (game_id, text, now, now),
                )
            except sqlite3.IntegrityError:
                raise GameExists(game_id) from None
            for key in claimed:  # a plain insert: a taken key fails, the savepoint undoes all
                try:
                    c.execute("INSERT INTO pointers (key, game_id) VALUES (?, ?)",
                              (key, pointers[key]))
                except sqlite3.IntegrityError:
                    raise PointerTaken(key) from None
            self._point(c, {k: v for k, v in pointers.items() if k not in claimed})

        self._write(insert)
        return StoredGame(game_id, load_document(text), [], 0, False, now, now)

    def append(self, game_id: str, version: int, entry: dict[str, Any], *,
               bind: Pointers | None = None) -> int:
        return self.extend(game_id, version, [entry], bind=bind)

    def extend(self, game_id: str, version: int, entries: list[dict[str, Any]], *,
               bind: Pointers | None = None) -> int:
        """`append` of several entries at once: one transaction, all or none."""
        check_game_id(game_id)
        check_version(version)
        texts = [dump_document(entry, "entry") for entry in entries]
        pointers = check_pointers(bind)
        if not texts:
            raise ValueError("extend needs at least one entry")

        def insert(c: sqlite3.Cursor) -> None:
            # the version moves first, conditionally: one statement on the usual path
            moved = c.execute(
                "UPDATE games SET version = ?, updated_at = ? WHERE game_id = ? AND version = ?"
                " AND finished = 0",
                (version + len(texts), self._clock(), game_id, version),
            ).rowcount
            if not moved:
                self._check_writable(c, game_id, version)  # says why (raises)
                raise Conflict(f"{game_id}: version moved on from {version}")
            try:
                c.executemany(
                    "INSERT INTO entries (game_id, seq, entry) VALUES (?, ?, ?)",
                    [(game_id, version + n, text) for n, text in enumerate(texts)],
                )
            except sqlite3.IntegrityError:
                # Unreachable while the version check holds; kept as the schema's own
                # guarantee.
                raise Conflict(f"{game_id}: entry {version} already exists") from None
            self._point(c, pointers)

        self._write(insert)
        return version + len(texts)

    def load(self, game_id: str) -> StoredGame:
        check_game_id(game_id)
        with self._read(snapshot=True) as c:
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

    def tail(self, game_id: str, since: int) -> tuple[int, list[dict[str, Any]]]:
        """The version and the entries from `since` to it, in one snapshot (a cached
        table catching up reads only what it has not seen)."""
        check_game_id(game_id)
        check_version(since)
        with self._read(snapshot=True) as c:
            row = c.execute("SELECT version FROM games WHERE game_id = ?",
                            (game_id,)).fetchone()
            if row is None:
                raise GameNotFound(game_id)
            texts = [text for (text,) in c.execute(
                "SELECT entry FROM entries WHERE game_id = ? AND seq >= ? ORDER BY seq",
                (game_id, since))]
        version = int(row[0])
        if len(texts) != max(0, version - since):
            raise StoreError(f"{game_id}: {len(texts)} entries after {since} but version "
                             f"{version}")
        return version, [load_document(text) for text in texts]

    def replace_setup(self, game_id: str, version: int, setup: dict[str, Any]) -> int:
        check_game_id(game_id)
        check_version(version)
        text = dump_document(setup, "setup")

        def update(c: sqlite3.Cursor) -> None:
            self._check_writable(c, game_id, version)
            c.execute(
                "UPDATE games SET setup = ?, updated_at = ? WHERE game_id = ?",
                (text, self._clock(), game_id),
            )

        self._write(update)
        return version

    def finish(self, game_id: str) -> None:
        check_game_id(game_id)

        def seal(c: sqlite3.Cursor) -> None:
            changed = c.execute(
                "UPDATE games SET finished = 1, updated_at = ? WHERE game_id = ?",
                (self._clock(), game_id),
            ).rowcount
            if not changed:
                raise GameNotFound(game_id)

        self._write(seal)

    def list_games(self, include_finished: bool = False) -> list[str]:
        query = "SELECT game_id FROM games"
        if not include_finished:
            query += " WHERE finished = 0"
        query += " ORDER BY updated_at DESC, game_id"
        with self._read() as c:
            return [game_id for (game_id,) in c.execute(query)]

    def delete(self, game_id: str) -> None:
        check_game_id(game_id)

        def remove(c: sqlite3.Cursor) -> None:
            c.execute("DELETE FROM entries WHERE game_id = ?", (game_id,))
            c.execute("DELETE FROM games WHERE game_id = ?", (game_id,))

        self._write(remove)

    # -- pointers ---------------------------------------------------------------------------

    def bind(self, key: str, game_id: str | None) -> None:
        pointers = check_pointers({key: game_id})
        self._write(lambda c: self._point(c, pointers))

    @staticmethod
    def _point(c: sqlite3.Cursor, pointers: dict[str, str | None]) -> None:
        for key, game_id in pointers.items():
            if game_id is None:
                c.execute("DELETE FROM pointers WHERE key = ?", (key,))
            else:
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

    def swap(self, key: str, expected: str | None, new: str | None) -> bool:
        """Set a pointer only if it still holds `expected` (None: only if unset); with `new`
        None, remove it only if it still holds `expected`.

        Of two writers (threads or processes) that read the same value, exactly one wins:
        how a link is claimed by the first device that opens it, and how a room's code is
        taken back from a room that left it idle.
        """
        check_game_id(key)
        check_swap(expected, new)

        def compare_and_set(c: sqlite3.Cursor) -> bool:
            if new is None:
                c.execute("DELETE FROM pointers WHERE key = ? AND game_id = ?", (key, expected))
            elif expected is None:
                c.execute("INSERT OR IGNORE INTO pointers (key, game_id) VALUES (?, ?)",
                          (key, new))
            else:
                c.execute("UPDATE pointers SET game_id = ? WHERE key = ? AND game_id = ?",
                          (new, key, expected))
            return c.rowcount == 1

        return bool(self._write(compare_and_set))

    def lookup(self, key: str) -> str | None:
        check_game_id(key)
        with self._read() as c:
            row = c.execute("SELECT game_id FROM pointers WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    # -- counters ---------------------------------------------------------------------------

    def count(self, key: str, window: float, add: int = 1) -> Tally:
        """A counter with expiry (see `GameStore.count`): rate limits that every server
        process on this file shares. A hit is a write (one commit); expired counters are
        swept by the writes that come after them."""
        check_game_id(key)
        check_count(window, add)
        now = self._clock()
        if add == 0:
            with self._read() as c:
                row = c.execute("SELECT count, resets_at FROM counters WHERE key = ?",
                                (key,)).fetchone()
            if row is None or row[1] <= now:
                return Tally(0, now + window)
            return Tally(int(row[0]), float(row[1]))

        def hit(c: sqlite3.Cursor) -> Tally:
            c.execute("DELETE FROM counters WHERE resets_at <= ?", (now,))
            c.execute(
                "INSERT INTO counters (key, count, resets_at) VALUES (?, ?, ?)"
                " ON CONFLICT (key) DO UPDATE SET count = count + excluded.count",
                (key, add, now + window),
            )
            count, resets_at = c.execute("SELECT count, resets_at FROM counters WHERE key = ?",
                                         (key,)).fetchone()
            return Tally(int(count), float(resets_at))

        return self._write(hit)  # type: ignore[no-any-return]

    # -- lifetime ---------------------------------------------------------------------------

    def close(self) -> None:
        with self._lock:
            self._closed = True
            with self._pool_lock:
                idle, self._pool = self._pool, []
            for conn in idle:
                conn.close()
            if self._conn is not None:
                self._conn.close()
                self._conn = None
            if self._lock_fd is not None:
                os.close(self._lock_fd)
                self._lock_fd = None

    def __enter__(self) -> SQLiteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"SQLiteStore({self.path!r})"
