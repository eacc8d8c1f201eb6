"""`wolfvillage replay` for Werewords, through the real console script: the issue's format in,
the usual object plus "mayor" and "word" out; exit 0, or 2 with the refused action's index
and the state before it."""

from __future__ import annotations

import json
import random
import subprocess

import pytest

from rules import replay
from rules.simulate import play_random
from tests.test_replay_cli import ENV, SCRIPT
from tests.test_werewords_rules import WORDS

FIELDS = {"roles", "events", "alive", "pending", "winner", "winners", "error", "mayor", "word"}

# The issue's example, its "..." played out: Ana asks twice, Ben once, Dee guesses; Ben
# points at Ana, who is the seer.
ISSUE = {
    "ruleset": "werewords", "seed": 5,
    "players": [["Ana", "seer"], ["Ben", "werewolf"], ["Cal", "villager"], ["Dee", "villager"]],
    "mayor": "Cal", "words": ["frog", "castle", "rain", "piano"],
    "actions": [["Cal", "choose_word", "castle"], ["Cal", "answer", {"to": "Ana", "token": "yes"}],
                ["Cal", "answer", {"to": "Ben", "token": "no"}],
                ["Cal", "answer", {"to": "Ana", "token": "so_close"}],
                ["Cal", "answer", {"to": "Dee", "token": "correct"}],
                ["Ben", "guess_seer", "Ana"]],
}


def run(doc, *args: str) -> tuple[int, dict]:
    done = subprocess.run([SCRIPT, "replay", *args, "-"], input=json.dumps(doc),
                          capture_output=True, text=True, timeout=60, env=ENV)
    assert done.stdout.count("\n") == 1, done.stderr
    return done.returncode, json.loads(done.stdout)


def test_the_issues_example_replays():
    code, out = run(ISSUE)
    assert code == 0
    assert set(out) == FIELDS
    assert out["error"] is None
    assert out["roles"] == {"Ana": "seer", "Ben": "werewolf", "Cal": "villager",
                            "Dee": "villager"}
    assert out["mayor"] == "Cal" and out["word"] == "castle"
    assert out["alive"] == ["Ana", "Ben", "Cal", "Dee"]
    assert out["pending"] == []
    assert out["winner"] == "werewolves" and out["winners"] == ["Ben"]
    assert [e["type"] for e in out["events"]] == [
        "mayor", "night", "words_offered", "word_chosen", "day", "answer", "answer", "answer",
        "answer", "guessed", "werewolves_shown", "seer_guess", "revealed", "game_over"]
    assert out["events"][3] == {"type": "word_chosen", "word": "castle"}
    assert out["events"][5] == {"type": "answer", "to": "Ana", "token": "yes", "left": 35}
    assert out["events"][7] == {"type": "answer", "to": "Ana", "token": "so_close", "left": 0}
    assert out["events"][9] == {"type": "guessed", "by": "Dee"}
    assert out["events"][11] == {"type": "seer_guess", "werewolf": "Ben", "target": "Ana"}
    assert out["events"][-1] == {"type": "game_over", "winner": "werewolves",
                                 "winners": ["Ben"]}
    assert out == json.loads(json.dumps(replay(ISSUE)))


def test_a_game_in_progress_shows_what_is_pending():
    code, out = run({**ISSUE, "actions": ISSUE["actions"][:2]})
    assert code == 0
    assert out["pending"] == [{"player": "Cal", "action": "answer"},
                              {"player": "clock", "action": "time_up"}]
    assert out["winner"] is None and out["winners"] == []
    assert out["word"] == "castle"
    code, out = run({**ISSUE, "actions": []})
    assert out["pending"] == [{"player": "Cal", "action": "choose_word"}]
    assert out["word"] is None and out["mayor"] == "Cal"


def test_the_clock_and_the_final_vote():
    actions = [["Cal", "choose_word", "rain"], ["clock", "time_up", None],
               ["Ana", "vote", "Ben"], ["Ben", "vote", "Ana"], ["Cal", "vote", "Ben"],
               ["Dee", "vote", "Ben"]]
    code, out = run({**ISSUE, "actions": actions})
    assert code == 0, out["error"]
    kinds = [e["type"] for e in out["events"]]
    assert kinds[-4:] == ["time_up", "votes", "revealed", "game_over"]
    assert out["events"][-3] == {"type": "votes", "counts": {"Ana": 1, "Ben": 3}}
    assert out["events"][-2] == {"type": "revealed", "players": ["Ben"]}
    assert out["winner"] == "village" and out["winners"] == ["Ana", "Cal", "Dee"]


def test_whoops_by_the_host_in_a_log():
    actions = [["Cal", "choose_word", "rain"], ["clock", "time_up"], ["table", "whoops"],
               ["Ben", "guess_seer", "Dee"]]
    code, out = run({**ISSUE, "actions": actions})
    assert code == 0, out["error"]
    assert {"type": "whoops", "ending": "guessed"} in out["events"]
    assert out["winner"] == "village"


@pytest.mark.parametrize(("k", "bad", "why"), [
    (0, ["Cal", "answer", {"to": "Ana", "token": "yes"}], "before answering"),
    (0, ["Cal", "choose_word", "dragon"], "not one of the offered words"),
    (0, ["Ana", "choose_word", "frog"], "only the mayor"),
    (1, ["Cal", "choose_word", "frog"], "already chosen"),
    (4, ["Cal", "answer", {"to": "Ben", "token": "so_close"}], "no so close token left"),
    (5, ["Cal", "answer", {"to": "Ben", "token": "yes"}], "the day is over"),
    (5, ["Dee", "guess_seer", "Ana"], "only the werewolves"),
    (5, ["Ana", "vote", "Ben"], "only when the word was not guessed"),
    (1, ["table", "whoops", None], "has not ended"),
    (6, ["table", "whoops", None], "over"),
])
def test_a_refused_action_exit_2_with_its_index_and_the_state_before(k, bad, why):
    doc = {**ISSUE, "actions": [*ISSUE["actions"][:k], bad, *ISSUE["actions"][k:]]}
    code, out = run(doc)
    assert code == 2
    assert out["error"]["index"] == k
    assert out["error"]["action"] == bad
    assert why in out["error"]["reason"]
    before = replay({**ISSUE, "actions": ISSUE["actions"][:k]})
    for key in FIELDS - {"error"}:
        assert out[key] == before[key], key


def test_a_vote_for_oneself_refused_in_a_log():
    actions = [["Cal", "choose_word", "rain"], ["clock", "time_up", None], ["Ana", "vote", "Ana"]]
    code, out = run({**ISSUE, "actions": actions})
    assert code == 2 and out["error"]["index"] == 2
    assert "themselves" in out["error"]["reason"]
    assert {"player": "Ana", "action": "vote"} in out["pending"]


@pytest.mark.parametrize("doc", [
    {**ISSUE, "mayor": "Zed"},
    {**ISSUE, "players": ISSUE["players"][:3]},
    {**ISSUE, "words": ["frog", "frog"]},
    {**ISSUE, "options": {"difficulty": "impossible"}},
    {**ISSUE, "players": [["Ana", "seer"], ["Ben", "seer"], ["Cal", "werewolf"],
                          ["Dee", "villager"]]},
])
def test_a_set_up_that_breaks_the_rules_exit_2_index_null(doc):
    code, out = run(doc)
    assert code == 2
    assert out["error"]["index"] is None and out["error"]["reason"]
    assert out["roles"] == {} and out["events"] == [] and out["pending"] == []


def test_names_with_a_deck_are_dealt_from_the_seed():
    doc = {"ruleset": "werewords", "seed": 12, "players": ["Ana", "Ben", "Cal", "Dee", "Eve"],
           "deck": {"mayor": 1, "seer": 1, "werewolf": 1, "beholder": 1, "villager": 2},
           "words": WORDS}
    code, out = run(doc)
    assert code == 0, out["error"]
    assert out["mayor"] in doc["players"]
    assert sorted(out["roles"].values()) == ["beholder", "seer", "villager", "villager",
                                             "werewolf"]
    assert out["events"][0] == {"type": "mayor", "player": out["mayor"], "how": "dealt"}
    assert out["pending"] == [{"player": out["mayor"], "action": "choose_word"}]
    _, again = run(doc)
    assert again == out


def test_a_random_complete_game_through_the_command_line():
    doc = {"ruleset": "werewords", "seed": 3, "players": ["Ana", "Ben", "Cal", "Dee", "Eve",
                                                          "Fay", "Gus", "Hal"],
           "options": {"minion": True, "beholder": True}, "words": WORDS}
    played = play_random(doc, random.Random(8))
    assert played.game.winner is not None
    full = {**doc, "actions": played.actions}
    code, out = run(full)
    assert code == 0
    assert out["winner"] == played.game.winner
    assert out["events"] == played.game.events
    assert out["word"] == played.game.word


def test_without_words_the_offer_is_drawn_by_language_and_difficulty():
    from rules.werewords.wordlists import word_list

    doc = {"ruleset": "werewords", "seed": 21, "players": ["Ana", "Ben", "Cal", "Dee"],
           "options": {"language": "es", "difficulty": "medium"}}
    code, out = run(doc)
    assert code == 0, out["error"]
    offered = out["events"][2]
    assert offered["type"] == "words_offered" and len(offered["words"]) == 4
    assert set(offered["words"]) <= set(word_list("es", "medium"))
    word = offered["words"][0]
    code, out = run({**doc, "actions": [[out["mayor"], "choose_word", word]]})
    assert code == 0 and out["word"] == word
