"""`wolfvillage replay FILE` for One Night, through the real console script (issue 13,
«`wolfvillage replay` for One Night»).

The input: players with their cards and a `center`, or names with a `deck` dealt from the
seed, or names alone for the suggested deck; actions in wake order. The output: the usual
object plus `cards` and `center`; `winner` a list of sides. Refusals exit 2 with the state
before the refused action and its `error.index`.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from rules import replay
from rules.one_night import suggested_deck
from rules.simulate import play_random
from tests.test_replay_cli import run, run_doc

FIELDS = {"roles", "events", "alive", "pending", "winner", "winners", "error", "cards",
          "center"}

EXAMPLE = {
    "ruleset": "one-night", "seed": 3,
    "players": [["Ana", "seer"], ["Ben", "werewolf"], ["Cal", "robber"]],
    "center": ["villager", "troublemaker", "werewolf"],
    "actions": [["Ben", "peek_center", 2], ["Ana", "look", "Cal"], ["Cal", "rob", "Ben"],
                ["Ana", "vote", "Ben"], ["Ben", "vote", "Cal"], ["Cal", "vote", "Ben"]],
}


def test_the_issues_example_replays_to_its_end(tmp_path):
    """The issue's example log (its first decision is Ben's: the lone werewolf's look at
    the centre, or null, comes in the werewolves' call, before the seer's)."""
    code, out = run_doc(EXAMPLE, tmp_path)
    assert code == 0, out["error"]
    assert set(out) == FIELDS
    assert out["roles"] == {"Ana": "seer", "Ben": "werewolf", "Cal": "robber"}
    assert out["cards"] == {"Ana": "seer", "Ben": "robber", "Cal": "werewolf"}
    assert out["center"] == ["villager", "troublemaker", "werewolf"]
    assert out["events"] == [
        {"type": "night"},
        {"type": "looked", "player": "Ben", "center": [2], "roles": ["werewolf"]},
        {"type": "looked", "player": "Ana", "target": "Cal", "role": "robber"},
        {"type": "swapped", "by": "Cal", "players": ["Cal", "Ben"]},
        {"type": "looked", "player": "Cal", "target": "Cal", "role": "werewolf"},
        {"type": "day"},
        {"type": "votes", "counts": {"Ben": 2, "Cal": 1},
         "ballots": {"Ana": "Ben", "Ben": "Cal", "Cal": "Ben"}},
        {"type": "out", "player": "Ben", "cause": "vote"},
        {"type": "game_over", "winner": ["werewolves"], "winners": ["Cal"]},
    ]
    assert out["winner"] == ["werewolves"] and out["winners"] == ["Cal"]
    assert out["alive"] == ["Ana", "Cal"] and out["pending"] == [] and out["error"] is None


def test_the_issues_example_as_written_is_refused_at_its_first_action(tmp_path):
    """Without Ben's look, the seer's action comes out of the wake order."""
    doc = {**EXAMPLE, "actions": EXAMPLE["actions"][1:]}
    code, out = run_doc(doc, tmp_path)
    assert code == 2
    assert out["error"] == {"index": 0, "action": ["Ana", "look", "Cal"],
                            "reason": "Ana has nothing to do now"}
    assert out["pending"] == [{"player": "Ben", "action": "peek_center"}]
    assert out["cards"] == out["roles"]


def test_a_game_in_progress_shows_the_cards_as_they_stand(tmp_path):
    doc = {**EXAMPLE, "actions": EXAMPLE["actions"][:3]}
    code, out = run_doc(doc, tmp_path)
    assert code == 0
    assert out["pending"] == [{"player": p, "action": "vote"} for p in ("Ana", "Ben", "Cal")]
    assert out["cards"]["Cal"] == "werewolf" and out["winner"] is None


@pytest.fixture(scope="module")
def ten_player_game() -> dict:
    """A complete 10-player game on the suggested deck, dealt from the seed."""
    doc = {"ruleset": "one-night", "seed": 10, "players": [f"P{i}" for i in range(10)]}
    played = play_random(doc, random.Random(10))
    assert played.game.winner is not None
    return {**doc, "actions": played.actions}


def test_names_alone_deal_the_suggested_deck_and_replay_to_the_end(ten_player_game, tmp_path):
    code, out = run_doc(ten_player_game, tmp_path)
    assert code == 0
    assert set(out) == FIELDS and out["pending"] == []
    dealt = Counter([*out["roles"].values()])
    assert sum(dealt.values()) == 10
    assert Counter([*out["cards"].values(), *out["center"]]) == Counter(suggested_deck(10))
    assert out["events"][-1] == {"type": "game_over", "winner": out["winner"],
                                 "winners": out["winners"]}
    assert out == json.loads(json.dumps(replay(ten_player_game)))


def test_names_with_a_deck_dealt_from_the_seed(tmp_path):
    deck = ["werewolf", "mystic_wolf", "seer", "robber", "troublemaker", "drunk", "tanner"]
    doc = {"ruleset": "one-night", "seed": 5, "players": ["Ana", "Ben", "Cal", "Dee"],
           "deck": deck}
    code, out = run_doc(doc, tmp_path)
    assert code == 0
    assert Counter([*out["roles"].values(), *out["center"]]) == Counter(deck)
    assert out["pending"]  # the night waits for its first decision


@pytest.mark.parametrize(("bad", "words"), [
    (["Cal", "rob", "Ben"], "nothing to do now"),  # out of the wake order
    (["Ana", "swap", ["Ben", "Cal"]], "no troublemaker in this game"),  # not in play
    (["Ana", "look", "Ana"], "own card"),  # a look at oneself
    (["Ana", "look", [0, 3]], "0, 1 and 2"),  # a centre card out of range
])
def test_refusals_at_night_exit_2_with_the_state_before(bad, words, tmp_path):
    doc = {"ruleset": "one-night", "seed": 3,
           "players": [["Ana", "seer"], ["Ben", "werewolf"], ["Cal", "robber"]],
           "center": ["villager", "drunk", "werewolf"],
           "actions": [["Ben", "peek_center", None], bad, ["Ana", "look", "Cal"]]}
    code, out = run_doc(doc, tmp_path)
    assert code == 2
    assert out["error"]["index"] == 1 and out["error"]["action"] == bad
    assert words in out["error"]["reason"]
    before = replay({**doc, "actions": doc["actions"][:1]})
    assert {k: v for k, v in out.items() if k != "error"} == {
        k: v for k, v in before.items() if k != "error"}
    assert out["pending"] == [{"player": "Ana", "action": "look"}]


def test_a_second_swap_exit_2(tmp_path):
    doc = {"ruleset": "one-night",
           "players": [["Tia", "troublemaker"], ["Ben", "werewolf"], ["Cal", "villager"],
                       ["Dee", "villager"]],
           "center": ["villager", "seer", "werewolf"],
           "actions": [["Ben", "peek_center", None], ["Tia", "swap", ["Ben", "Cal"]],
                       ["Tia", "swap", ["Cal", "Dee"]]]}
    code, out = run_doc(doc, tmp_path)
    assert code == 2
    assert out["error"]["index"] == 2
    assert out["error"]["reason"] == "Tia has already swapped"
    assert out["cards"]["Ben"] == "villager" and out["cards"]["Cal"] == "werewolf"


def test_a_vote_for_oneself_exit_2(tmp_path):
    doc = {**EXAMPLE, "actions": [*EXAMPLE["actions"][:4], ["Ben", "vote", "Ben"]]}
    code, out = run_doc(doc, tmp_path)
    assert code == 2
    assert out["error"]["index"] == 4
    assert out["error"]["reason"] == "Ben cannot vote for themselves"
    assert out["pending"] == [{"player": "Ben", "action": "vote"},
                              {"player": "Cal", "action": "vote"}]


def test_an_action_after_the_end_exit_2(ten_player_game, tmp_path):
    doc = {**ten_player_game, "actions": [*ten_player_game["actions"], ["P0", "vote", "P1"]]}
    code, out = run_doc(doc, tmp_path)
    assert code == 2
    assert out["error"]["index"] == len(ten_player_game["actions"])
    assert out["error"]["reason"] == "the game is over"


@pytest.mark.parametrize("doc", [
    {"players": ["A", "B"]},
    {"players": ["A", "B", "C"], "deck": ["werewolf", "seer"]},
    {"players": ["A", "B", "C"], "deck": ["seer", "robber", "troublemaker", "villager",
                                          "villager", "villager"]},
    {"players": [["A", "seer"], ["B", "werewolf"], ["C", "robber"]]},
    {"players": ["A", "B", "C"], "options": {"debate_minutes": 9}},
])
def test_set_up_errors_exit_2_index_null(doc, tmp_path):
    code, out = run_doc({"ruleset": "one-night", **doc, "actions": [["A", "vote", "B"]]},
                        tmp_path)
    assert code == 2
    assert out["error"]["index"] is None and out["error"]["action"] is None
    assert out["error"]["reason"]
    assert out["roles"] == {} and out["events"] == [] and out["pending"] == []


def test_stdin_and_indent(ten_player_game):
    done = run("--indent", "2", "-", stdin=json.dumps(ten_player_game))
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("\n") > 10
    assert json.loads(done.stdout) == json.loads(json.dumps(replay(ten_player_game)))
