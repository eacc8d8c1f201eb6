"""The store contract, run against both backends: SQLite files and DynamoDB (moto's server).

DynamoDB runs for real over HTTP: moto's server on a loopback port, boto3 talking to it
through AWS_ENDPOINT_URL_DYNAMODB, with fake credentials set only for the tests that use it.
No test sleeps: times come from a counting clock, races from barriers.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import textwrap
import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from store import (
    Conflict,
    GameExists,
    GameFinished,
    GameNotFound,
    GameStore,
    PointerTaken,
    StoredGame,
    StoreError,
    new_game_id,
    open_store,
)
from store.dynamodb_store import DynamoDBStore, create_table
from store.sqlite_store import SQLiteStore

REPO = Path(__file__).resolve().parent.parent
START = 1_700_000_000.0
DAY = 86_400
SERIALISE_MOTO = os.environ.get("WOLFVILLAGE_TEST_RAW_MOTO") != "1"


class CountingClock:
    """Each reading is one second after the last: distinct, ordered times without sleeping."""

    def __init__(self, start: float = START) -> None:
        self._ticks = itertools.count()
        self._start = start

    def __call__(self) -> float:
        return self._start + next(self._ticks)


# -- fixtures ---------------------------------------------------------------------------------


@pytest.fixture
def dynamo_table(aws_env: str) -> str:
    """A fresh table per test, so listings see only this test's games."""
    name = f"wolfvillage-{uuid.uuid4().hex[:12]}"
    client = boto3.session.Session().client("dynamodb")
    create_table(client, name)
    client.close()
    return name


@pytest.fixture(params=["sqlite", "dynamodb"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, str]:
    """(kind, url) of an empty store."""
    if request.param == "sqlite":
        return "sqlite", f"sqlite:///{tmp_path / 'games.db'}"
    table = request.getfixturevalue("dynamo_table")
    return "dynamodb", f"dynamodb://{table}"


@pytest.fixture
def make_store(backend: tuple[str, str]) -> Iterator[Callable[..., GameStore]]:
    """Open more store objects on the same database (each its own connection/client)."""
    kind, url = backend
    opened: list[GameStore] = []

    def make(clock: Callable[[], float] | None = None) -> GameStore:
        if clock is None:
            store = open_store(url)
        elif kind == "sqlite":
            store = SQLiteStore(url.removeprefix("sqlite://"), clock=clock)
        else:
            store = DynamoDBStore(url.removeprefix("dynamodb://"), clock=clock)
        opened.append(store)
        return store

    yield make
    for store in opened:
        store.close()


@pytest.fixture
def store(make_store: Callable[..., GameStore]) -> GameStore:
    return make_store(CountingClock())


SETUP = {
    "game": "wolf_village",
    "preset": "8p-classic",
    "seed": 1234567,
    "players": ["Ana", "Ben", "Zoë", "Łukasz", "美咲", "Ólafur", "Nnamdi", "Sam"],
    "options": {"sheriff": True, "night_mode": "phones", "debate_s": 180.5},
}


def play(store: GameStore, game_id: str, entries: list[dict[str, Any]]) -> int:
    version = store.load(game_id).version
    for entry in entries:
        version = store.append(game_id, version, entry)
    return version


# -- create / load ----------------------------------------------------------------------------


def test_create_then_load_round_trips_the_setup(store: GameStore) -> None:
    created = store.create("g1", SETUP)
    assert created == StoredGame("g1", SETUP, [], 0, False, START, START)
    loaded = store.load("g1")
    assert loaded == created
    assert loaded.setup == SETUP and isinstance(loaded.setup["options"]["debate_s"], float)


def test_the_store_keeps_its_own_copy_of_the_setup(store: GameStore) -> None:
    setup = {"players": ["Ana"]}
    created = store.create("g1", setup)
    setup["players"].append("Ben")
    created.setup["players"].append("Cy")
    assert store.load("g1").setup == {"players": ["Ana"]}


def test_entries_come_back_in_order_with_unicode(store: GameStore) -> None:
    store.create("g1", SETUP)
    entries = [
        {"actor": "Zoë", "action": "kill", "target": "美咲"},
        {"actor": "Łukasz", "action": "inspect", "target": "Ólafur", "note": "🐺 «loup»"},
        {"timer": "dawn"},
        *({"actor": "Sam", "action": "vote", "target": f"p{i}", "i": i} for i in range(12)),
    ]
    versions = [store.append("g1", n, entry) for n, entry in enumerate(entries)]
    assert versions == list(range(1, len(entries) + 1))
    game = store.load("g1")
    assert game.entries == entries
    assert game.version == len(entries)
    assert game.created_at == START and game.updated_at > game.created_at


def test_append_with_a_stale_version_is_a_conflict_and_changes_nothing(store: GameStore) -> None:
    store.create("g1", SETUP)
    play(store, "g1", [{"n": 0}, {"n": 1}])
    before = store.load("g1")
    for stale in (0, 1, 3, 99):
        with pytest.raises(Conflict):
            store.append("g1", stale, {"n": "late"})
    assert store.load("g1") == before


def test_append_refuses_what_is_not_json_and_changes_nothing(store: GameStore) -> None:
    store.create("g1", SETUP)
    for bad in ({"s": {1, 2}}, {"x": float("nan")}, ["not", "a", "dict"], {"o": object()}):
        with pytest.raises(TypeError):
            store.append("g1", 0, bad)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        store.create("g2", {"bad": float("inf")})
    assert store.load("g1").version == 0
    with pytest.raises(GameNotFound):
        store.load("g2")


def test_create_an_existing_game_raises_game_exists(store: GameStore) -> None:
    store.create("g1", SETUP)
    store.append("g1", 0, {"n": 0})
    with pytest.raises(GameExists):
        store.create("g1", {"other": True})
    game = store.load("g1")
    assert game.setup == SETUP and game.entries == [{"n": 0}]


def test_every_operation_on_a_missing_game_raises_game_not_found(store: GameStore) -> None:
    with pytest.raises(GameNotFound):
        store.load("nope")
    with pytest.raises(GameNotFound):
        store.append("nope", 0, {"n": 0})
    with pytest.raises(GameNotFound):
        store.replace_setup("nope", 0, SETUP)
    with pytest.raises(GameNotFound):
        store.finish("nope")
    assert store.list_games(include_finished=True) == []


def test_bad_ids_and_versions_are_refused(store: GameStore) -> None:
    with pytest.raises(ValueError):
        store.create("", SETUP)
    store.create("g1", SETUP)
    for version in (-1, True, "0"):
        with pytest.raises(ValueError):
            store.append("g1", version, {})  # type: ignore[arg-type]
    assert store.load("g1").version == 0


# -- the lobby's set-up -----------------------------------------------------------------------


def test_replace_setup_is_conditional_and_keeps_the_version(store: GameStore) -> None:
    store.create("g1", SETUP)
    assert store.replace_setup("g1", 0, {**SETUP, "preset": "10p"}) == 0
    assert store.load("g1").setup["preset"] == "10p"
    store.append("g1", 0, {"action": "start"})
    with pytest.raises(Conflict):
        store.replace_setup("g1", 0, {**SETUP, "preset": "12p"})
    game = store.load("g1")
    assert game.setup["preset"] == "10p" and game.version == 1 and len(game.entries) == 1
    assert store.replace_setup("g1", 1, {**SETUP, "preset": "9p"}) == 1
    assert store.load("g1").version == 1


# -- races ------------------------------------------------------------------------------------


def test_two_stores_racing_on_one_version_exactly_one_wins(
    make_store: Callable[..., GameStore],
) -> None:
    stores = [make_store(), make_store()]
    stores[0].create("g1", SETUP)
    rounds = 12
    barrier = threading.Barrier(2)
    outcomes: dict[int, list[str]] = {v: [] for v in range(rounds)}
    lock = threading.Lock()

    def writer(me: int) -> None:
        for version in range(rounds):
            barrier.wait()
            try:
                stores[me].append("g1", version, {"writer": me, "version": version})
                result = f"won:{me}"
            except Conflict:
                result = "conflict"
            with lock:
                outcomes[version].append(result)
            # Both have finished this round before either starts the next; otherwise the
            # loser's next round could run against a version that is not yet there.
            barrier.wait()

    threads = [threading.Thread(target=writer, args=(me,)) for me in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    game = stores[1].load("g1")
    assert game.version == rounds
    for version, results in outcomes.items():
        assert sorted(results)[0] == "conflict" and sorted(results)[1].startswith("won:"), results
        winner = int(next(r for r in results if r.startswith("won:"))[4:])
        assert game.entries[version] == {"writer": winner, "version": version}


def test_a_burst_of_retrying_writers_lands_every_entry_exactly_once(
    make_store: Callable[..., GameStore],
) -> None:
    # Two store objects, each shared by two threads: covers both a store used from several
    # threads (a Flask server) and several stores on one database (processes, Lambdas).
    shared = [make_store(), make_store()]
    shared[0].create("g1", SETUP)
    threads_n, per_thread = 4, 8
    start = threading.Barrier(threads_n)
    conflicts = [0] * threads_n

    def writer(me: int) -> None:
        store = shared[me % 2]
        start.wait()
        for n in range(per_thread):
            while True:
                version = store.load("g1").version
                try:
                    store.append("g1", version, {"thread": me, "n": n})
                    break
                except Conflict:
                    conflicts[me] += 1

    threads = [threading.Thread(target=writer, args=(me,)) for me in range(threads_n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    entries = shared[1].load("g1").entries
    assert len(entries) == threads_n * per_thread
    assert sorted((e["thread"], e["n"]) for e in entries) == [
        (t, n) for t in range(threads_n) for n in range(per_thread)
    ]
    for t in range(threads_n):  # each writer's own entries stay in its order
        assert [e["n"] for e in entries if e["thread"] == t] == list(range(per_thread))


# -- finishing, listing, deleting -------------------------------------------------------------


def test_finish_marks_the_game_and_seals_its_log(store: GameStore) -> None:
    store.create("g1", SETUP)
    play(store, "g1", [{"n": 0}, {"winner": "village"}])
    store.finish("g1")
    game = store.load("g1")
    assert game.finished and game.version == 2
    with pytest.raises(GameFinished):
        store.append("g1", 2, {"n": "after the end"})
    with pytest.raises(GameFinished):
        store.replace_setup("g1", 2, SETUP)
    assert not isinstance(GameFinished("g1"), Conflict)  # a retry loop must not spin on it
    store.finish("g1")  # finishing twice is harmless
    assert store.load("g1").entries == game.entries


def test_dynamodb_finish_sets_expires_at_on_every_item(aws_env: str, dynamo_table: str) -> None:
    store = DynamoDBStore(dynamo_table, clock=lambda: START, ttl_days=30)
    store.create("g1", SETUP)
    play(store, "g1", [{"n": n} for n in range(30)])  # more than one BatchWriteItem
    client = boto3.session.Session().client("dynamodb")
    meta_key = {"pk": {"S": "GAME#g1"}, "sk": {"S": "META"}}
    assert "expires_at" not in client.get_item(TableName=dynamo_table, Key=meta_key)["Item"]
    store.finish("g1")
    items = client.query(
        TableName=dynamo_table,
        KeyConditionExpression="pk = :pk",
        ExpressionAttributeValues={":pk": {"S": "GAME#g1"}},
    )["Items"]
    assert len(items) == 31
    assert {item["expires_at"]["N"] for item in items} == {str(int(START) + 30 * DAY)}
    ttl = client.describe_time_to_live(TableName=dynamo_table)["TimeToLiveDescription"]
    assert ttl["AttributeName"] == "expires_at" and ttl["TimeToLiveStatus"] == "ENABLED"
    assert store.load("g1").entries == [{"n": n} for n in range(30)]
    client.close()
    store.close()


def test_list_games_most_recently_updated_first(store: GameStore) -> None:
    for game_id in ("a", "b", "c", "d"):
        store.create(game_id, SETUP)
    assert store.list_games() == ["d", "c", "b", "a"]
    store.append("b", 0, {"n": 0})
    store.replace_setup("a", 0, SETUP)
    assert store.list_games() == ["a", "b", "d", "c"]
    store.finish("d")
    assert store.list_games() == ["a", "b", "c"]
    assert store.list_games(include_finished=True) == ["d", "a", "b", "c"]


def test_delete_removes_the_game_and_frees_its_id(store: GameStore) -> None:
    store.create("g1", SETUP)
    store.create("g2", SETUP)
    play(store, "g1", [{"n": n} for n in range(5)])
    store.delete("g1")
    with pytest.raises(GameNotFound):
        store.load("g1")
    assert store.list_games() == ["g2"]
    store.delete("g1")  # deleting what is gone is a no-op, so retries are safe
    store.create("g1", {"fresh": True})
    assert store.load("g1").entries == []
    assert store.append("g1", 0, {"n": "new"}) == 1
    assert store.load("g1").entries == [{"n": "new"}]


# -- pointers ---------------------------------------------------------------------------------


def test_bind_and_lookup(store: GameStore) -> None:
    device = "amzn1.ask.device.AEXAMPLE" + "X" * 200
    assert store.lookup(device) is None
    store.bind(device, "g1")
    store.bind("console", "g2")
    assert store.lookup(device) == "g1"
    assert store.lookup("console") == "g2"
    store.bind(device, "g3")
    assert store.lookup(device) == "g3"
    store.bind(device, None)
    assert store.lookup(device) is None
    store.bind(device, None)  # unbinding twice is fine
    assert store.lookup("console") == "g2"
    assert store.list_games(include_finished=True) == []  # pointers are not games


# -- restarts, other processes ----------------------------------------------------------------


def test_a_new_store_object_sees_everything(
    backend: tuple[str, str], make_store: Callable[..., GameStore]
) -> None:
    first = make_store()
    first.create("g1", SETUP)
    play(first, "g1", [{"n": n, "who": "Zoë"} for n in range(7)])
    first.create("g2", SETUP)
    first.finish("g2")
    first.bind("console", "g1")
    expected = first.load("g1")
    first.close()

    again = open_store(backend[1])  # as a restarted process would
    try:
        assert again.load("g1") == expected
        assert again.load("g2").finished
        assert again.lookup("console") == "g1"
        assert again.list_games(include_finished=True) == ["g2", "g1"]
        assert again.append("g1", 7, {"n": 7}) == 8
    finally:
        again.close()


def test_a_closed_sqlite_store_refuses_politely(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "games.db")
    store.close()
    store.close()
    with pytest.raises(Exception, match="closed"):
        store.load("g1")


def test_sqlite_file_is_in_wal_mode_with_full_sync(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "games.db")
    conn = store._connection()
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    store.close()


def test_sqlite_two_processes_appending_to_one_file(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    with open_store(url) as store:
        store.create("g1", SETUP)
    child_code = textwrap.dedent(
        """
        import sys
        from store import Conflict, open_store
        store = open_store(sys.argv[1])
        sys.stdout.write("ready\\n"); sys.stdout.flush()
        sys.stdin.readline()
        for n in range(25):
            while True:
                try:
                    store.append("g1", store.load("g1").version, {"who": "child", "n": n})
                    break
                except Conflict:
                    pass
        store.close()
        """
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    child = subprocess.Popen(
        [sys.executable, "-c", child_code, url],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        cwd=REPO,
    )
    assert child.stdout is not None and child.stdin is not None
    assert child.stdout.readline() == "ready\n"
    child.stdin.write("go\n")
    child.stdin.flush()
    with open_store(url) as store:
        for n in range(25):
            while True:
                try:
                    store.append("g1", store.load("g1").version, {"who": "parent", "n": n})
                    break
                except Conflict:
                    pass
        assert child.wait(timeout=60) == 0
        entries = store.load("g1").entries
    assert len(entries) == 50
    for who in ("parent", "child"):
        assert [e["n"] for e in entries if e["who"] == who] == list(range(25))


def test_sqlite_refuses_a_file_that_is_not_a_database(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_bytes(b"this is not a database, it is a shopping list" * 100)
    with pytest.raises(StoreError, match=r"notes\.db"):
        SQLiteStore(path)


# -- DynamoDB specifics -----------------------------------------------------------------------


def test_dynamodb_missing_table_is_a_clear_store_error(aws_env: str) -> None:
    with DynamoDBStore("no-such-table") as store, pytest.raises(StoreError, match="create_table"):
        store.load("g1")


def test_create_table_accepts_a_resource(aws_env: str) -> None:
    resource = boto3.session.Session().resource("dynamodb")
    name = create_table(resource, f"wolfvillage-{uuid.uuid4().hex[:12]}")
    with DynamoDBStore(name) as store:
        store.create("g1", SETUP)
        assert store.list_games() == ["g1"]


class _CancellingClient:
    """Stands in for boto3 to replay cancellation answers moto never gives (it has no
    concurrent transactions), so their mapping to store errors is still tested."""

    def __init__(self, reasons: list[str], meta: dict[str, Any] | None) -> None:
        self.reasons, self.meta = reasons, meta

    def transact_write_items(self, **_: Any) -> None:
        raise ClientError(
            {
                "Error": {"Code": "TransactionCanceledException", "Message": "cancelled"},
                "CancellationReasons": [{"Code": code} for code in self.reasons],
            },
            "TransactWriteItems",
        )

    def get_item(self, **_: Any) -> dict[str, Any]:
        return {} if self.meta is None else {"Item": self.meta}


_META_V3 = {"version": {"N": "3"}, "finished": {"BOOL": False}}
_META_DONE = {**_META_V3, "finished": {"BOOL": True}}


@pytest.mark.parametrize(
    ("reasons", "meta", "error"),
    [
        (["ConditionalCheckFailed", "None"], _META_V3, Conflict),
        (["ConditionalCheckFailed", "None"], None, GameNotFound),
        (["ConditionalCheckFailed", "None"], _META_DONE, GameFinished),
        (["None", "TransactionConflict"], _META_V3, Conflict),
        (["TransactionConflict", "None"], _META_V3, Conflict),
        (["None", "ConditionalCheckFailed"], _META_V3, StoreError),
    ],
)
def test_dynamodb_cancellation_reasons_map_to_store_errors(
    reasons: list[str], meta: dict[str, Any] | None, error: type[Exception]
) -> None:
    store = DynamoDBStore("t", client=_CancellingClient(reasons, meta))
    with pytest.raises(error) as caught:
        store.append("g1", 2, {"n": 2})
    if error is StoreError:  # a stray LOG item must not look retryable
        assert not isinstance(caught.value, Conflict)


# -- open_store -------------------------------------------------------------------------------


def test_open_store_sqlite_url(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "dir" / "games.db"
    with open_store(f"sqlite:///{path}") as store:
        assert isinstance(store, SQLiteStore)
        store.create("g1", SETUP)
    assert path.exists()
    assert isinstance(open_store("sqlite:///:memory:"), SQLiteStore)


def test_open_store_reads_the_environment_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "from-env.db"
    monkeypatch.setenv("WOLFVILLAGE_STORE", f"sqlite:///{path}")
    with open_store() as store:
        assert isinstance(store, SQLiteStore) and Path(store.path) == path


def test_open_store_defaults_to_a_file_in_the_user_data_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("WOLFVILLAGE_STORE", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setattr(
        "platformdirs.user_data_dir", lambda appname: str(tmp_path / "data" / appname)
    )
    with open_store() as store:
        assert isinstance(store, SQLiteStore)
        assert Path(store.path) == tmp_path / "data" / "wolfvillage" / "games.db"
    assert (tmp_path / "data" / "wolfvillage" / "games.db").exists()


def test_open_store_dynamodb_url_uses_the_endpoint_env(
    aws_env: str, dynamo_table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WOLFVILLAGE_STORE", f"dynamodb://{dynamo_table}")
    with open_store() as store:
        assert isinstance(store, DynamoDBStore) and store.table == dynamo_table
        assert store._client.meta.endpoint_url == aws_env
        assert store._client.meta.region_name == "us-east-1"
        store.create("g1", SETUP)
        assert store.load("g1").setup == SETUP


def test_open_store_dynamodb_region_defaults_to_us_east_1(
    aws_env: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AWS_DEFAULT_REGION")
    store = open_store("dynamodb://t?ttl_days=7&endpoint=http://127.0.0.1:9")
    assert isinstance(store, DynamoDBStore)
    assert store._client.meta.region_name == "us-east-1"
    assert store._client.meta.endpoint_url == "http://127.0.0.1:9"
    assert store.ttl_days == 7
    store.close()


@pytest.mark.parametrize(
    "url",
    [
        "postgres://localhost/games",
        "redis://x",
        "/var/lib/wolfvillage/games.db",
        "games.db",
        "dynamodb://",
        "dynamodb://table/extra",
        "dynamodb://table?colour=blue",
        "sqlite://host/games.db",
        "sqlite:///",
    ],
)
def test_open_store_refuses_bad_urls(url: str) -> None:
    with pytest.raises(ValueError, match="store URL"):
        open_store(url)


def test_new_game_ids_are_random_and_url_safe() -> None:
    ids = {new_game_id() for _ in range(2000)}
    assert len(ids) == 2000
    allowed = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    assert all(len(i) == 16 and set(i) <= allowed for i in ids)
    # never a leading "-": `wolfvillage console --game ID` would read it as an option
    assert not any(i.startswith("-") for i in ids)


def test_both_stores_satisfy_the_protocol(store: GameStore) -> None:
    assert isinstance(store, GameStore)


def test_version_alone_follows_appends(store: GameStore) -> None:
    store.create("v", {"lang": "en"})
    assert store.version("v") == 0
    play(store, "v", [{"n": 1}, {"n": 2}])
    assert store.version("v") == 2
    with pytest.raises(GameNotFound):
        store.version("missing")


def test_swap_sets_a_pointer_only_from_the_expected_value(store: GameStore) -> None:
    assert store.swap("link:x", None, "first")
    assert not store.swap("link:x", None, "second")  # already set: the first claim stands
    assert store.lookup("link:x") == "first"
    assert not store.swap("link:x", "stale", "third")
    assert store.swap("link:x", "first", "fourth")
    assert store.lookup("link:x") == "fourth"


def test_swap_racing_claims_exactly_one_wins(make_store: Callable[..., GameStore]) -> None:
    """Two devices opening a fresh link at once, through two store objects."""
    stores = [make_store(), make_store()]
    stores[0].bind("link:race", "fresh")
    results: list[bool] = []
    barrier = threading.Barrier(8)

    def claim(k: int) -> None:
        barrier.wait()
        results.append(stores[k % 2].swap("link:race", "fresh", f"device-{k}"))

    threads = [threading.Thread(target=claim, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results.count(True) == 1


# -- writes with pointers, several entries at once (both backends) -----------------------------


def test_extend_appends_several_entries_in_one_write(store: GameStore) -> None:
    store.create("g1", SETUP)
    assert store.extend("g1", 0, [{"n": 0}, {"n": 1}, {"n": 2}]) == 3
    assert store.append("g1", 3, {"n": 3}) == 4
    assert [e["n"] for e in store.load("g1").entries] == [0, 1, 2, 3]
    with pytest.raises(Conflict):
        store.extend("g1", 2, [{"n": "late"}, {"n": "later"}])
    with pytest.raises(ValueError):
        store.extend("g1", 4, [])
    assert store.load("g1").version == 4


def test_pointers_are_written_with_the_entry_or_not_at_all(store: GameStore) -> None:
    store.create("g1", SETUP)
    assert store.append("g1", 0, {"join": "Ana"},
                        bind={"link:ana": "g1:Ana", "plink:g1:Ana": "link:ana"}) == 1
    assert store.lookup("link:ana") == "g1:Ana"
    assert store.lookup("plink:g1:Ana") == "link:ana"
    with pytest.raises(Conflict):  # a stale join: neither the entry nor its link
        store.append("g1", 0, {"join": "Ben"}, bind={"link:ben": "g1:Ben"})
    assert store.lookup("link:ben") is None
    store.extend("g1", 1, [{"join": "Ben"}], bind={"link:ana": None, "link:ben": "g1:Ben"})
    assert store.lookup("link:ana") is None and store.lookup("link:ben") == "g1:Ben"
    store.finish("g1")
    with pytest.raises(GameFinished):
        store.append("g1", 2, {"late": True}, bind={"link:late": "x"})
    assert store.lookup("link:late") is None


def test_create_binds_its_pointers_in_the_same_write(store: GameStore) -> None:
    store.create("g1", SETUP, bind={"room:ABCD": "g1", "code:g1": "ABCD"})
    assert store.lookup("room:ABCD") == "g1" and store.lookup("code:g1") == "ABCD"
    with pytest.raises(GameExists):
        store.create("g1", SETUP, bind={"room:WXYZ": "g1"})
    assert store.lookup("room:WXYZ") is None
    with pytest.raises(ValueError):
        store.create("g2", SETUP, bind={"": "g2"})
    with pytest.raises(GameNotFound):
        store.load("g2")


# -- SQLite: group commit, the cross-process lock, reads beside writes --------------------------


def test_sqlite_writes_waiting_for_a_commit_share_the_next_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """While one commit is in progress, the writes that arrive wait and then go in one
    transaction together; a refused one (Conflict) is rolled back alone."""
    store = SQLiteStore(tmp_path / "games.db")
    for n in range(6):
        store.create(f"g{n}", SETUP)
    batches: list[int] = []
    release = threading.Event()
    commit = store._commit

    def slow_first_commit(batch: list[Any]) -> None:
        batches.append(len(batch))
        if len(batches) == 1:
            release.wait(10)  # the first commit "fsyncs" until every other writer waits
        commit(batch)

    monkeypatch.setattr(store, "_commit", slow_first_commit)
    results: dict[str, Any] = {}

    def write(name: str, game: str, version: int) -> None:
        try:
            results[name] = store.append(game, version, {"by": name})
        except Conflict as exc:
            results[name] = exc

    first = threading.Thread(target=write, args=("first", "g0", 0))
    first.start()
    while not batches:
        threading.Event().wait(0.001)
    others = [threading.Thread(target=write, args=(f"w{n}", f"g{n}", 0)) for n in range(1, 6)]
    others.append(threading.Thread(target=write, args=("stale", "g0", 0)))
    for t in others:
        t.start()
    while len(store._queue) < len(others):
        threading.Event().wait(0.001)
    release.set()
    for t in [first, *others]:
        t.join(10)
    assert batches == [1, len(others)]  # one commit for all the writes that waited
    assert results["first"] == 1 and all(results[f"w{n}"] == 1 for n in range(1, 6))
    assert isinstance(results["stale"], Conflict)
    assert [e["by"] for e in store.load("g0").entries] == ["first"]
    assert all(store.load(f"g{n}").entries == [{"by": f"w{n}"}] for n in range(1, 6))
    store.close()


def test_sqlite_a_failed_commit_answers_none_of_its_writes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = SQLiteStore(tmp_path / "games.db")
    store.create("g1", SETUP)
    real = store._connection()

    class FailingCommit:
        """The write connection, with COMMIT failing as a full disk would."""

        def __getattr__(self, name: str) -> Any:
            return getattr(real, name)

        def execute(self, sql: str, *args: Any) -> Any:
            if sql == "COMMIT":
                import sqlite3

                raise sqlite3.OperationalError("database or disk is full")
            return real.execute(sql, *args)

    monkeypatch.setattr(store, "_connection", lambda: FailingCommit())
    with pytest.raises(StoreError, match="disk is full"):
        store.append("g1", 0, {"n": 0})
    monkeypatch.undo()
    assert store.load("g1").version == 0
    assert store.append("g1", 0, {"n": 0}) == 1  # and the write lock was let go
    store.close()


def test_sqlite_reads_do_not_wait_for_a_write_in_progress(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "games.db")
    store.create("g1", SETUP)
    store.bind("room:ABCD", "g1")
    inside, finish = threading.Event(), threading.Event()

    def slow_write(c: Any) -> None:
        c.execute("UPDATE games SET version = version WHERE game_id = 'g1'")
        inside.set()
        finish.wait(10)  # holds the write lock (of every process) until told

    writer = threading.Thread(target=store._write, args=(slow_write,))
    writer.start()
    assert inside.wait(10)
    try:
        # all answered from the last commit while the write is still open
        assert store.lookup("room:ABCD") == "g1"
        assert store.version("g1") == 0
        assert store.load("g1").entries == []
        assert store.list_games() == ["g1"]
    finally:
        finish.set()
        writer.join(10)
    store.close()


def test_sqlite_writers_of_two_processes_are_serialised_by_the_lock_file(
        tmp_path: Path) -> None:
    """Another process holding the writers' lock file keeps this one's write waiting, and the
    write goes through as soon as it lets go (woken by the kernel, not a sleeping retry)."""
    import time

    path = tmp_path / "games.db"
    with SQLiteStore(path) as store:
        store.create("g1", SETUP)
        holder = subprocess.Popen(
            [sys.executable, "-c", textwrap.dedent(
                """
                import fcntl, os, sys
                fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)
                fcntl.flock(fd, fcntl.LOCK_EX)
                sys.stdout.write("locked\\n"); sys.stdout.flush()
                sys.stdin.readline()
                """), f"{path}-lock"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert holder.stdout is not None and holder.stdin is not None
        assert holder.stdout.readline() == "locked\n"
        done: list[float] = []
        writer = threading.Thread(
            target=lambda: (store.append("g1", 0, {"n": 0}), done.append(time.monotonic())))
        writer.start()
        writer.join(0.3)
        assert writer.is_alive() and store.version("g1") == 0  # waiting for the other process
        released = time.monotonic()
        holder.stdin.write("go\n")
        holder.stdin.flush()
        writer.join(10)
        assert holder.wait(10) == 0
        assert store.version("g1") == 1
        assert done[0] - released < 0.5


def test_sqlite_the_wal_starts_over_while_writes_never_pause(tmp_path: Path) -> None:
    """Grouped commits from several threads still let SQLite's checkpoints reach the end of
    the WAL, so the WAL file is reused instead of growing without bound (a checkpointer
    thread running beside the writers was tried, and let it grow: docs/store.md)."""
    path = tmp_path / "games.db"
    store = SQLiteStore(path)
    games = [f"g{n}" for n in range(3)]
    for game in games:
        store.create(game, SETUP)
    padding = "x" * 3000  # about a page per entry

    def write(game: str) -> None:
        for n in range(400):
            store.append(game, n, {"n": n, "padding": padding})

    threads = [threading.Thread(target=write, args=(game,)) for game in games]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    wal = Path(f"{path}-wal").stat().st_size
    assert all(store.version(game) == 400 for game in games)
    store.close()
    # measured: 25.6 MB with no checkpoint at all, 4.2 MB with SQLite's (every 1,000 pages)
    assert wal < 8_000_000, wal


def test_create_claims_a_pointer_only_if_it_is_unset(store: GameStore) -> None:
    """A room code is claimed by the write that creates its game: a second game claiming
    the same code is refused whole (no game, none of its pointers), the first keeps it."""
    store.create("g1", SETUP, bind={"room:BCDF": "g1", "code:g1": "BCDF"},
                 claim={"room:BCDF"})
    with pytest.raises(PointerTaken):
        store.create("g2", SETUP, bind={"code:g2": "BCDF", "room:BCDF": "g2"},
                     claim={"room:BCDF"})
    assert store.lookup("room:BCDF") == "g1"
    assert store.lookup("code:g2") is None
    with pytest.raises(GameNotFound):
        store.load("g2")
    store.create("g2", SETUP, bind={"room:CDFG": "g2"}, claim=["room:CDFG"])  # a free one
    assert store.lookup("room:CDFG") == "g2"
    # pointers not claimed are still set whatever they held
    store.create("g3", SETUP, bind={"room:CDFG": "g3"})
    assert store.lookup("room:CDFG") == "g3"


def test_a_claim_must_be_set_by_the_same_write(store: GameStore) -> None:
    with pytest.raises(ValueError, match="claimed"):
        store.create("g1", SETUP, bind={"code:g1": "BCDF"}, claim={"room:BCDF"})
    with pytest.raises(GameNotFound):
        store.load("g1")


# -- counters with expiry: the rate limits every server process shares (both backends) ---------


class SetClock:
    """A clock the test moves by hand (the counters' windows are read from it)."""

    def __init__(self, now: float = START) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_a_counter_adds_hits_in_its_window_and_starts_again_after_it(
        make_store: Callable[..., GameStore]) -> None:
    clock = SetClock()
    store = make_store(clock)
    assert store.count("guess:10.0.0.1", 60, add=0).count == 0  # reading creates nothing
    assert store.count("guess:10.0.0.1", 60).count == 1
    clock.now += 30
    tally = store.count("guess:10.0.0.1", 60, add=2)
    assert tally.count == 3 and tally.resets_at == START + 60  # the first hit's window
    assert store.count("guess:10.0.0.1", 60, add=0).count == 3
    assert store.count("guess:10.0.0.2", 60, add=0).count == 0  # one counter per key
    clock.now = START + 60  # the window is over
    assert store.count("guess:10.0.0.1", 60, add=0).count == 0
    tally = store.count("guess:10.0.0.1", 60)
    assert tally.count == 1 and tally.resets_at == START + 120


def test_a_counter_is_shared_by_every_store_object_and_loses_no_hit(
        make_store: Callable[..., GameStore]) -> None:
    """Two server processes are two store objects on one database: hits from both, at
    once, all land in one counter."""
    clock = SetClock()
    stores = [make_store(clock), make_store(clock)]
    barrier = threading.Barrier(8)

    def hit(k: int) -> None:
        barrier.wait()
        for _ in range(5):
            stores[k % 2].count("create:10.0.0.9", 3600)

    threads = [threading.Thread(target=hit, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert stores[0].count("create:10.0.0.9", 3600, add=0).count == 40
    assert stores[1].count("create:10.0.0.9", 3600, add=0).count == 40


def test_a_counter_refuses_bad_arguments(store: GameStore) -> None:
    for window, add in ((0, 1), (-5, 1), (float("nan"), 1), (True, 1), (60, -1), (60, 1.5),
                        (60, True)):
        with pytest.raises(ValueError):
            store.count("guess:x", window, add=add)
    with pytest.raises(ValueError):
        store.count("", 60)
    assert store.count("guess:x", 60, add=0).count == 0


def test_swap_to_none_removes_a_pointer_only_from_the_expected_value(store: GameStore) -> None:
    """How a room's code is taken back: of two workers releasing the same idle room's
    code, the pointer goes once, and never from a room that took it meanwhile."""
    store.bind("room:BCDF", "old-game")
    assert not store.swap("room:BCDF", "another-game", None)
    assert store.lookup("room:BCDF") == "old-game"
    assert store.swap("room:BCDF", "old-game", None)
    assert store.lookup("room:BCDF") is None
    assert not store.swap("room:BCDF", "old-game", None)
    with pytest.raises(ValueError):
        store.swap("room:BCDF", None, None)


def test_tail_gives_the_version_and_the_entries_after_a_point(store: GameStore) -> None:
    """What a cached table reads to catch up with another worker: only the new entries."""
    store.create("t", SETUP)
    assert store.tail("t", 0) == (0, [])
    play(store, "t", [{"n": n} for n in range(5)])
    assert store.tail("t", 0) == (5, [{"n": n} for n in range(5)])
    assert store.tail("t", 3) == (5, [{"n": 3}, {"n": 4}])
    assert store.tail("t", 5) == (5, [])
    assert store.tail("t", 9) == (5, [])  # a copy ahead of the store: the caller reloads
    with pytest.raises(GameNotFound):
        store.tail("missing", 0)
    with pytest.raises(ValueError):
        store.tail("t", -1)
