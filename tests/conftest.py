"""Fixtures shared by the test files: moto's DynamoDB server on loopback."""

from __future__ import annotations

import os
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# Bytecode is written even where the environment says not to (PYTHONDONTWRITEBYTECODE, as
# this development machine's does, and perhaps CI's): the suite starts some 180 Python
# processes (`wolfvillage` commands mostly) and pytest's workers rewrite every test
# module's asserts, each compiling the same sources again (0.15 s a process for the box's
# modules, 3 s a worker for the tests'; the whole run 14.0 -> 12.7 CPU-minutes of user)
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

# One thread for each model in each worker when the suite runs in several (`make test`):
# the workers already fill the cores, and two workers of two threads each on two cores
# spin against each other (OpenBLAS's and CTranslate2's waits): 14 Whisper tests took
# 180 s in each of two processes side by side, 72 s with one thread each. Set before
# NumPy is first imported, which is when OpenBLAS reads it; the `wolfvillage`
# subprocesses the tests start inherit it.
if int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) > 1:
    os.environ.setdefault("WOLFVILLAGE_THREADS", "1")
    os.environ.setdefault("OPENBLAS_NUM_THREADS", os.environ["WOLFVILLAGE_THREADS"])
    if "numpy" in sys.modules:  # too late for OpenBLAS: say so rather than run slowly
        import warnings
        warnings.warn("NumPy was imported before tests/conftest.py: OpenBLAS runs on all "
                      "cores in each worker", stacklevel=1)

# WOLFVILLAGE_TEST_RAW_MOTO=1 runs moto without the serialising lock, to reproduce the loss
SERIALISE_MOTO = os.environ.get("WOLFVILLAGE_TEST_RAW_MOTO") != "1"


@pytest.fixture(scope="session")
def moto_endpoint() -> Iterator[str]:
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    if SERIALISE_MOTO:
        # moto's DynamoDB backend has no locking: under its threaded server two
        # TransactWriteItems can both pass their condition checks, and a cancelled one
        # restores a copy of the table taken before it ran, erasing a write that committed
        # meanwhile. Real DynamoDB serialises conflicting writes; one request at a time makes
        # moto a faithful stand-in for the concurrency tests.
        wsgi = server._server  # the werkzeug server; moto has no public hook for this
        inner, lock = wsgi.app, threading.Lock()

        def serial_app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
            with lock:
                return list(inner(environ, start_response))

        wsgi.app = serial_app
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


@pytest.fixture
def aws_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, moto_endpoint: str) -> str:
    """Fake credentials and the moto endpoint, for this test only; never a real account."""
    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN", "AWS_REGION"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-aws-credentials"))
    monkeypatch.setenv("AWS_ENDPOINT_URL", moto_endpoint)
    monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", moto_endpoint)
    return moto_endpoint


# ------------------------------------------------------------------ caches the files share


def _shared(tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    """A folder every test file (and every xdist worker) of this run shares: the run's own
    base folder, not a worker's, and never one a later run sees."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the run's folder, above each worker's popen-gwN
    folder = base / name
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="session")
def shared_voice_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The narrator's disk cache of Piper lines, as a box keeps it from game to game: the
    box's games by voice seat the same names, and the box renders every line naming each
    of them ahead (VoiceMouth.prepare), so each such line is synthesised once a run, not
    once a file (CachedVoice writes each file whole, by a rename)."""
    return _shared(tmp_path_factory, "narrator-voice")


@pytest.fixture(scope="session")
def shared_speech(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The players' synthesised sentences (tests.voice_fixtures.speech_wav), once a run."""
    return _shared(tmp_path_factory, "players-speech")


# ------------------------------------------------------------------ how the suite is spread

# `make test` runs `-n auto --dist loadfile`: a file's tests stay together on one worker
# (they share its servers, browser and heard clips), except in the files below, whose tests
# are long, independent games with cheap module fixtures (a loopback server, a browser):
# those are dealt out one test at a time, and first, so that a long file is not what is left
# running on one core at the end. (xdist's own `loadgroup` would say this with marks, but
# it renames node ids in a way pytest 9 no longer sees.)
SPREAD = {
    "test_phones_leaks.py", "test_one_night_phones_leaks.py", "test_werewords_phones_leaks.py",
    "test_properties.py", "test_phones_table_browser.py", "test_phones_browser.py",
    "test_one_night_phones_browser.py", "test_werewords_phones_browser.py",
}


def _file(nodeid: str) -> str:
    return Path(nodeid.split("::", 1)[0]).name


def _spread(nodeid: str) -> bool:
    return _file(nodeid) in SPREAD


# Seconds each file took in a whole run (2-core AMD EPYC, AVX2, one thread per worker,
# 2026-12-07): the scheduler deals out the longest work first, so that the run does not
# end on one long file on one core. Files not listed come after, in their order; a guess
# is enough, but a long file left off ends the run on one core (test_seat_and_name.py
# did: its 61 s came last).
SECONDS = {
    "test_whisper.py": 310, "test_phones_table_browser.py": 115, "test_phones_leaks.py": 78,
    "test_phones_browser.py": 68, "test_seat_and_name.py": 45, "test_properties.py": 54,
    "test_werewords_phones_browser.py": 46, "test_box.py": 45, "test_host_browser.py": 35,
    "test_hear.py": 33, "test_one_night_phones_browser.py": 30, "test_store.py": 26,
    "test_skill_lambda.py": 26, "test_one_night_box.py": 25, "test_hardening_serve.py": 20,
    "test_one_night_phones_leaks.py": 18, "test_werewords_box.py": 18,
    "test_werewords_phones_leaks.py": 17, "test_phones_shared_narrated_browser.py": 17,
    "test_box_names.py": 17, "test_one_night_properties.py": 13,
    "test_whisper_decoder.py": 12, "test_werewords_properties.py": 11,
    "test_hardening_api.py": 14, "test_bench_voices.py": 12, "test_enroll.py": 25,
    "test_deploy.py": 10, "test_lobby_hearing.py": 12,
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    files = Counter(_file(item.nodeid) for item in items)

    def unit_seconds(item: pytest.Item) -> float:
        name = _file(item.nodeid)
        seconds = SECONDS.get(name, 0)
        return seconds / files[name] if _spread(item.nodeid) else seconds

    items.sort(key=lambda item: -unit_seconds(item))  # stable: the files' order kept
    items[:] = _browsers_spread_out(items, unit_seconds)


def _browser(nodeid: str) -> bool:
    return "browser" in _file(nodeid)


def _browsers_spread_out(items: list[pytest.Item], seconds: Any) -> list[pytest.Item]:
    """The work in browsers dealt out through the run, not all at its start: two browser
    games at once on two cores slow each other (chromium's processes and the pages' polls
    want more than a core each, and a game that lasts longer polls more). Each kind is
    taken, longest first, whenever it is behind the other in its share of its own total.
    (Round 13: the two table games took 103 and 98 s side by side at the start of a run,
    63 and 42 s dealt apart; the whole run took 563 s both ways, as the suite is bound by
    its CPU, but the browsers' 8-second waits now seldom run under two browsers' load.)"""
    units: dict[str, list[pytest.Item]] = {}
    for item in items:
        scope = item.nodeid if _spread(item.nodeid) else item.nodeid.split("::", 1)[0]
        units.setdefault(scope, []).append(item)
    kinds: dict[bool, list[list[pytest.Item]]] = {True: [], False: []}
    for unit in units.values():
        kinds[_browser(unit[0].nodeid)].append(unit)
    total = {k: sum(seconds(u[0]) for u in us) or 1.0 for k, us in kinds.items()}
    done = {True: 0.0, False: 0.0}
    out: list[pytest.Item] = []
    while kinds[True] or kinds[False]:
        behind = {k: done[k] / total[k] for k in kinds if kinds[k]}
        kind = min(behind, key=lambda k: (behind[k], not k))  # a tie: the browser first
        unit = kinds[kind].pop(0)
        done[kind] += seconds(unit[0])  # a spread test its share, a file its whole
        out += unit
    return out


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class FileUnlessSpread(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return nodeid if _spread(nodeid) else nodeid.split("::", 1)[0]

    # the work in the collection's order (above), not by how many tests a unit has
    config.option.loadscopereorder = False
    return FileUnlessSpread(config, log)
