"""`wolfvillage replay` on malformed documents: exit 2 with a clear reason (1 for a file
that cannot be read as JSON text), never a traceback, and always strict JSON out."""

from __future__ import annotations

import io
import json
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.simulate import play_random
from rules.wolf_village.presets import PRESETS
from tests.test_replay_cli import ENV, FIELDS, SCRIPT
from wolfvillage.cli import main

NAMES = ["Ana", "Ben", "Cy", "Di", "Eve", "Fay", "Gus", "Hal"]
VERBS = ["kill", "inspect", "protect", "witch", "shoot", "link", "vote", "elect",
         "pass_badge", "verdict", "break_tie", "revote", "spare", "suspect", "fly"]


def strict(text: str) -> Any:
    """A strict JSON reader: NaN and Infinity are not JSON."""
    def refuse(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)


def run(stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([SCRIPT, "replay", "-"], input=stdin, capture_output=True,
                          timeout=60, env=ENV)


PLAYERS = '"players": ["Ana", "Ben", "Cy", "Di"]'


@pytest.mark.parametrize("text", [
    '{"preset": [], ' + PLAYERS + '}',
    '{"preset": {}, ' + PLAYERS + '}',
    '{"preset": "basic", "seed": ' + "7" * 5000 + ", " + PLAYERS + "}",
    '{"preset": "basic", ' + PLAYERS + ', "actions": ' + "[" * 5000 + "]" * 5000 + "}",
    '{"preset": "basic", ' + PLAYERS + ', "actions": [["Ana", "vote", '
    + '{"a": ' * 100 + "1" + "}" * 100 + "]]}",
    "[" * 100_000 + "]" * 100_000,
])
def test_every_malformed_document_exits_2_with_a_clear_reason_never_a_traceback(
        text: str) -> None:
    """Before: `"preset": []` or `{}` was a TypeError and exit 1, a 5,000-digit seed and
    deep nesting were tracebacks."""
    done = run(text.encode())
    assert done.returncode == 2, done.stderr.decode()[-500:]
    assert b"Traceback" not in done.stderr
    out = strict(done.stdout.decode())
    assert set(out) == FIELDS and out["error"]["index"] is None
    assert out["error"]["reason"]


@pytest.mark.parametrize("raw, says", [
    (b'{"preset": "basic", "players": ["\xff\xfe"]}', b"not UTF-8"),
    (b"\xff\xfe{\x00", b"not UTF-8"),
    (b'{"players": [["Ana", "seer"], ["Ben", "werewolf"], ["Cy", "villager"], ["Di", '
     b'"villager"]], "actions": [["Ben", "kill", NaN]]}', b"not valid JSON"),
    (b'{"seed": Infinity, "preset": "basic", "players": ["A", "B", "C", "D"]}',
     b"not valid JSON"),
])
def test_text_that_is_not_json_exits_1_and_prints_no_json(raw: bytes, says: bytes) -> None:
    """Before: bytes that are not UTF-8 were a traceback, and a NaN in an action was echoed
    as a bare NaN (not JSON)."""
    done = run(raw)
    assert done.returncode == 1
    assert done.stdout == b""
    assert says in done.stderr and b"Traceback" not in done.stderr


# ---------------------------------------------------------------------- the property test

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False,
                                                         allow_infinity=False)
    | st.text(max_size=6) | st.sampled_from(NAMES + VERBS),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.text(max_size=6) | st.sampled_from(["heal", "poison", "tie"]), inner,
        max_size=3),
    max_leaves=12)
actions = st.lists(st.sampled_from([*NAMES, "table"]) | json_values, max_size=4) | json_values
setups = st.fixed_dictionaries({
    # players always there (mostly real names), so the other fields are the ones read
    "players": st.lists(st.sampled_from(NAMES), min_size=4, max_size=8, unique=True)
    | st.lists(st.sampled_from(NAMES) | json_values, max_size=8) | st.lists(
        st.tuples(st.sampled_from(NAMES), st.sampled_from(["seer", "werewolf",
                                                           "villager"])).map(list),
        max_size=6),
}, optional={
    "ruleset": st.sampled_from(["wolf-village", "one-night", "werewords"]) | json_values,
    "seed": st.integers() | json_values,
    "preset": st.sampled_from(list(PRESETS)) | json_values,
    "deck": st.dictionaries(st.sampled_from(["werewolf", "seer", "villager", "zzz"]),
                            st.integers(-1, 9) | json_values, max_size=4) | json_values,
    "options": st.dictionaries(st.sampled_from(["sheriff", "night_mode", "x"]),
                               json_values, max_size=2) | json_values,
    "actions": st.lists(actions, max_size=5) | json_values,
})


@st.composite
def played_games(draw: st.DrawFn) -> dict[str, Any]:
    """A real game played from a seed, with arbitrary JSON put into its actions: the
    refusals that only come deep into a game (a night, a tie, the sheriff)."""
    seed = draw(st.integers(0, 10_000))
    doc = {"seed": seed, "preset": draw(st.sampled_from(["basic", "classic"])),
           "players": NAMES, "options": {"night_mode": "all_at_once"}}
    played = list(play_random(doc, random.Random(seed)).actions)
    at = draw(st.integers(0, len(played)))
    return {**doc, "actions": [*played[:at], draw(actions), *played[at:]]}


def replayed(doc: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Through the command's own code (in this process, so that many documents fit)."""
    path = tmp_path / "log.json"
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    code = main(["replay", str(path)])
    captured = capsys.readouterr()
    assert code in (0, 2), captured.err
    out = strict(captured.out)
    assert set(out) >= FIELDS
    assert (code == 2) == (out["error"] is not None)


PROPERTY = settings(max_examples=200, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])


@PROPERTY
@given(doc=setups | json_values)
def test_any_json_document_gives_exit_0_or_2_and_strict_json(
        doc: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    replayed(doc, tmp_path, capsys)


@PROPERTY
@given(doc=played_games())
def test_any_action_put_into_a_real_game_gives_exit_0_or_2_and_strict_json(
        doc: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    replayed(doc, tmp_path, capsys)


def test_the_in_process_runs_read_what_the_command_reads(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The property tests call `main`; the console script prints the same."""
    doc = {"preset": "basic", "players": NAMES[:4], "actions": [["Ana", "fly", None]]}
    replayed(doc, tmp_path, capsys)
    main(["replay", str(tmp_path / "log.json")])
    here = capsys.readouterr().out
    assert run(json.dumps(doc).encode()).stdout.decode() == here
    assert io.StringIO(here).read().count("\n") == 1
