"""`wolfvillage replay FILE`: the rules' contract, run through the real console script.

Exit 0 when the log replays, 2 when an action is refused (error.index = its position, the
state as it was before it) or the set-up breaks the rules (error.index null), 1 for a file
that cannot be read or is not JSON (with a message on stderr).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rules import replay
from rules.simulate import play_random

FIELDS = {"roles", "events", "alive", "pending", "winner", "winners", "error"}


def _script() -> str:
    beside = Path(sys.executable).parent / "wolfvillage"
    if beside.exists():
        return str(beside)
    found = shutil.which("wolfvillage")
    assert found, "the wolfvillage console script is not installed"
    return found


SCRIPT = _script()
ROOT = Path(__file__).resolve().parent.parent
# The console script runs against this working tree (an editable install only maps the
# packages that existed when it was installed).
ENV = {**os.environ,
       "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [SCRIPT, "replay", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        env=ENV,
    )


def run_doc(doc, tmp_path: Path) -> tuple[int, dict]:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    done = run(str(path))
    assert done.stdout.count("\n") == 1, "one JSON object on one line"
    return done.returncode, json.loads(done.stdout)


@pytest.fixture(scope="module")
def complete_game() -> dict:
    doc = {"ruleset": "wolf-village", "seed": 7, "preset": "classic",
           "players": ["Ana", "Ben", "Cy", "Di", "Eve", "Fay", "Gus", "Hal", "Ida", "Jo"],
           "options": {"night_mode": "narrated"}}
    played = play_random(doc, random.Random(2024))
    assert played.game.winner is not None
    return {**doc, "actions": played.actions}


def test_complete_game_exit_0(complete_game, tmp_path):
    code, out = run_doc(complete_game, tmp_path)
    assert code == 0
    assert set(out) == FIELDS
    assert out["error"] is None
    assert out["winner"] in {"village", "werewolves", "jester", "fox", "lovers"}
    assert out["winners"]
    assert out["pending"] == []
    assert sorted(out["roles"]) == sorted(complete_game["players"])
    assert set(out["alive"]) <= set(out["roles"])
    assert out["events"][0] == {"type": "night", "number": 1}
    assert out["events"][-1]["type"] == "game_over"
    assert out["events"][-1]["winner"] == out["winner"]
    assert out["events"][-1]["winners"] == out["winners"]
    # the CLI prints exactly what the library's replay returns
    assert out == json.loads(json.dumps(replay(complete_game)))


def test_seated_game_in_progress_exit_0(tmp_path):
    doc = {"players": [["Ana", "seer"], ["Ben", "werewolf"], ["Cy", "villager"],
                       ["Di", "villager"]],
           "actions": [["Ben", "kill", "Cy"]]}
    code, out = run_doc(doc, tmp_path)
    assert code == 0
    assert out["error"] is None
    assert out["roles"] == {"Ana": "seer", "Ben": "werewolf", "Cy": "villager",
                            "Di": "villager"}
    assert out["pending"] == [{"player": "Ana", "action": "inspect"}]
    assert out["winner"] is None and out["winners"] == []
    assert out["alive"] == ["Ana", "Ben", "Cy", "Di"]


@pytest.mark.parametrize("bad", [
    ["Nobody", "vote", "Ana"],
    ["Ana", "fly", None],
    ["Ana"],
    "vote",
])
def test_refused_action_exit_2_with_index_and_state_before(complete_game, tmp_path, bad):
    actions = complete_game["actions"]
    k = len(actions) // 2
    doc = {**complete_game, "actions": [*actions[:k], bad, *actions[k:]]}
    code, out = run_doc(doc, tmp_path)
    assert code == 2
    assert out["error"]["index"] == k
    assert out["error"]["action"] == bad
    assert out["error"]["reason"]
    before = replay({**complete_game, "actions": actions[:k]})
    for key in ("roles", "events", "alive", "pending", "winner", "winners"):
        assert out[key] == before[key], key


def test_refused_action_reason_names_the_problem(tmp_path):
    doc = {"players": [["Ana", "seer"], ["Ben", "werewolf"], ["Cy", "villager"],
                       ["Di", "villager"]],
           "actions": [["Ben", "kill", "Cy"], ["Ana", "inspect", "Ana"],
                       ["Ana", "inspect", "Ben"]]}
    code, out = run_doc(doc, tmp_path)
    assert code == 2
    assert out["error"]["index"] == 1
    assert out["error"]["action"] == ["Ana", "inspect", "Ana"]
    assert "seer" in out["error"]["reason"]
    assert out["pending"] == [{"player": "Ana", "action": "inspect"}]


def test_action_after_the_end_refused(complete_game, tmp_path):
    doc = {**complete_game, "actions": [*complete_game["actions"], ["Ana", "vote", "Ben"]]}
    code, out = run_doc(doc, tmp_path)
    assert code == 2
    assert out["error"]["index"] == len(complete_game["actions"])
    assert "over" in out["error"]["reason"]
    assert out["winner"] is not None


def test_actions_not_a_list_exit_2(tmp_path):
    doc = {"preset": "basic", "players": ["A", "B", "C", "D"], "actions": {"0": 1}}
    code, out = run_doc(doc, tmp_path)
    assert code == 2
    assert out["error"]["index"] is None
    assert "actions" in out["error"]["reason"]


@pytest.mark.parametrize("doc", [
    {"preset": "classic", "players": ["A", "B", "C", "D"]},
    {"deck": {"werewolf": 1, "villager": 4}, "players": ["A", "B", "C", "D"]},
    {"preset": "basic", "players": ["A", "B", "C", "table"]},
    {"preset": "basic", "players": ["A", "B", "C", "D"], "options": {"sheriff": "yes"}},
])
def test_setup_error_exit_2_index_null(doc, tmp_path):
    code, out = run_doc({**doc, "actions": [["A", "vote", "B"]]}, tmp_path)
    assert code == 2
    assert set(out) == FIELDS
    assert out["error"]["index"] is None
    assert out["error"]["action"] is None
    assert out["error"]["reason"]
    assert out["roles"] == {} and out["events"] == [] and out["pending"] == []


@pytest.mark.parametrize("text", ["{", "not json", "", "{'preset': 'basic'}", "[1, 2,]"])
def test_invalid_json_exit_1(text, tmp_path):
    path = tmp_path / "broken.json"
    path.write_text(text, encoding="utf-8")
    done = run(str(path))
    assert done.returncode == 1
    assert done.stdout == ""
    assert "not valid JSON" in done.stderr
    assert "broken.json" in done.stderr
    assert "Traceback" not in done.stderr


def test_missing_file_exit_1(tmp_path):
    missing = tmp_path / "no-such-game.json"
    done = run(str(missing))
    assert done.returncode == 1
    assert done.stdout == ""
    assert "no-such-game.json" in done.stderr
    assert "cannot read" in done.stderr
    assert "Traceback" not in done.stderr


def test_directory_is_unreadable_exit_1(tmp_path):
    done = run(str(tmp_path))
    assert done.returncode == 1
    assert done.stderr.strip()
    assert "Traceback" not in done.stderr


def test_dash_reads_stdin(complete_game):
    done = run("-", stdin=json.dumps(complete_game))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out == json.loads(json.dumps(replay(complete_game)))


def test_dash_invalid_json_on_stdin_exit_1():
    done = run("-", stdin="{oops")
    assert done.returncode == 1
    assert "not valid JSON" in done.stderr


def test_ruleset_defaults_to_wolf_village(complete_game):
    without = {k: v for k, v in complete_game.items() if k != "ruleset"}
    a = run("-", stdin=json.dumps(without))
    b = run("-", stdin=json.dumps(complete_game))
    assert a.returncode == b.returncode == 0
    assert json.loads(a.stdout) == json.loads(b.stdout)


def test_seed_defaults_to_zero():
    doc = {"preset": "chaos", "players": [f"P{i}" for i in range(15)]}
    a = run("-", stdin=json.dumps(doc))
    b = run("-", stdin=json.dumps({**doc, "seed": 0}))
    c = run("-", stdin=json.dumps({**doc, "seed": 1}))
    assert a.returncode == b.returncode == c.returncode == 0
    assert json.loads(a.stdout) == json.loads(b.stdout)
    # the seed does matter: some seed other than 0 deals differently
    others = [json.loads(run("-", stdin=json.dumps({**doc, "seed": s})).stdout)["roles"]
              for s in (1, 2)]
    assert any(o != json.loads(a.stdout)["roles"] for o in others)
    assert json.loads(c.stdout)["error"] is None


def test_unknown_ruleset_refused():
    doc = {"ruleset": "no-such-game", "preset": "basic", "players": ["A", "B", "C", "D"]}
    done = run("-", stdin=json.dumps(doc))
    assert done.returncode == 2
    out = json.loads(done.stdout)
    assert out["error"]["index"] is None
    assert "no-such-game" in out["error"]["reason"]
    assert "wolf-village" in out["error"]["reason"]


def test_ruleset_not_a_name_refused():
    doc = {"ruleset": 3, "preset": "basic", "players": ["A", "B", "C", "D"]}
    done = run("-", stdin=json.dumps(doc))
    assert done.returncode == 2
    assert json.loads(done.stdout)["error"]["index"] is None


def test_document_not_an_object_exit_2():
    done = run("-", stdin="[1, 2, 3]")
    assert done.returncode == 2
    assert json.loads(done.stdout)["error"]["index"] is None


def test_indent_pretty_prints(complete_game):
    done = subprocess.run([SCRIPT, "replay", "--indent", "2", "-"],
                          input=json.dumps(complete_game), capture_output=True, text=True,
                          timeout=60, env=ENV)
    assert done.returncode == 0
    assert done.stdout.count("\n") > 10
    assert json.loads(done.stdout)["error"] is None


def test_non_ascii_names_round_trip():
    doc = {"players": [["Íñigo", "seer"], ["Zoë", "werewolf"], ["Łucja", "villager"],
                       ["Søren", "villager"]],
           "actions": [["Zoë", "kill", "Łucja"]]}
    done = subprocess.run([SCRIPT, "replay", "-"], input=json.dumps(doc, ensure_ascii=False),
                          capture_output=True, encoding="utf-8", timeout=60, env=ENV)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["roles"]["Zoë"] == "werewolf"
    assert out["pending"] == [{"player": "Íñigo", "action": "inspect"}]


def test_options_not_an_object_exit_2():
    doc = {"preset": "basic", "players": ["A", "B", "C", "D"], "options": ["sheriff"]}
    done = run("-", stdin=json.dumps(doc))
    assert done.returncode == 2
    out = json.loads(done.stdout)
    assert out["error"]["index"] is None
    assert "options" in out["error"]["reason"]
