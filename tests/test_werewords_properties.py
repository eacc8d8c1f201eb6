"""Properties over random legal Werewords games (every table size, the optional roles, seated
or dealt, every way a day ends, whoops thrown in):

- tokens never go negative, and what is left is the box less what was given;
- every game ends, with one game_over, nothing pending and every decision answerable on
  the way;
- the winners agree with the roles (recomputed here from the seed's text, not the rules);
- a refused action changes nothing;
- a game is its log: replaying the actions (or a prefix of them) gives the same game.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import TABLE, Refused, replay
from rules.core import CLOCK
from rules.simulate import play_random
from rules.werewords import start
from rules.werewords.wordlists import LANGUAGES, LEVELS
from tests.test_werewords_rules import snapshot

SETTINGS = settings(max_examples=800, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])

VOCABULARY = ["frog", "castle", "rain", "piano", "moon", "bread", "river", "clock tower",
              "snow", "kite", "lamp", "ship"]
NAMES = ["Ana", "Ben", "Cal", "Dee", "Eve", "Fay", "Gus", "Hal", "Ida", "Jo"]
VERBS = ["choose_word", "answer", "time_up", "whoops", "guess_seer", "vote"]
BOX = {"yes_no": 36, "maybe": 10, "so_close": 1, "correct": 1}
SIDE = {"villager": "village", "seer": "village", "beholder": "village",
        "werewolf": "werewolves", "minion": "werewolves"}

# How a random table plays its day: answering anything, asking on until the tokens run out
# (no correct, a patient clock), or a quick clock.
STYLES = ["any", "ask_on", "hurry"]


@st.composite
def game_docs(draw) -> dict[str, Any]:
    n = draw(st.integers(4, 10))
    options = {role: draw(st.booleans()) for role in ("minion", "beholder")}
    doc: dict[str, Any] = {"ruleset": "werewords", "seed": draw(st.integers(0, 2**32 - 1))}
    if draw(st.booleans()):
        doc["words"] = draw(st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=6,
                                     unique=True))
    else:  # drawn from a shipped list
        doc["options"] = {"language": draw(st.sampled_from(LANGUAGES)),
                          "difficulty": draw(st.sampled_from(LEVELS)),
                          "words_offered": draw(st.integers(1, 10))}
    if draw(st.booleans()):
        doc["players"] = NAMES[:n]
        doc["options"] = {**doc.get("options", {}), **options}
        if draw(st.booleans()):
            doc["last_mayor"] = draw(st.sampled_from(NAMES[:n]))
    else:
        roles = ["seer", "werewolf"] + ["werewolf"] * (n >= 7)
        roles += [r for r in ("minion", "beholder") if options[r]]
        roles += ["villager"] * (n - len(roles))
        roles = draw(st.permutations(roles))
        doc["players"] = [[name, role] for name, role in zip(NAMES, roles, strict=False)]
        doc["mayor"] = draw(st.sampled_from(NAMES[:n]))
    return doc


# ---------------------------------------------------------------- playing


def choose(game, rng: random.Random, style: str, whoops_left: list[int]) -> list[Any]:
    """One random legal action, biased by the table's style."""
    if game.optional_actions() and whoops_left[0] and rng.random() < 0.15:
        whoops_left[0] -= 1
        d = rng.choice(game.optional_actions())
        return [d.player, d.action, None]
    decisions = game.pending()
    if game.phase == "day":
        clock_odds = {"any": 0.1, "ask_on": 0.002, "hurry": 0.5}[style]
        if rng.random() < clock_odds:
            return [CLOCK, "time_up", None]
        targets = game.legal_targets(game.mayor_name, "answer")
        if style == "ask_on":
            targets = [t for t in targets if t["token"] != "correct"] or targets
        return [game.mayor_name, "answer", rng.choice(targets)]
    d = rng.choice(decisions)
    return [d.player, d.action, rng.choice(game.legal_targets(d.player, d.action))]


def illegal_actions(game, rng: random.Random) -> list[list[Any]]:
    out: list[list[Any]] = []
    mayor = game.mayor_name
    waiting = {d.player for d in game.pending()}
    idle = [p for p in game.players if p not in waiting]
    other = rng.choice(game.players)
    for d in game.pending():
        targets = game.legal_targets(d.player, d.action)
        target = rng.choice(targets) if targets else None
        if d.player != CLOCK:
            wrong = [p for p in idle if p != mayor or d.action != "answer"]
            if wrong:
                out.append([rng.choice(wrong), d.action, target])
            out.append([d.player, rng.choice([v for v in VERBS if v != d.action]), target])
            out.append([d.player, d.action, rng.choice(["Nobody", 42, ["x"], {"to": 1}])])
        if d.action == "vote":
            out.append([d.player, "vote", d.player])
        if d.action == "guess_seer":
            wolves = [p for p in game.players if game.roles_as_dealt()[p] == "werewolf"]
            out.append([d.player, "guess_seer", rng.choice(wolves)])
        if d.action == "answer":
            out.append([mayor, "answer", {"to": mayor, "token": "yes"}])
            spent = [t for t, s in (("maybe", "maybe"), ("so_close", "so_close"))
                     if game.tokens_left()[s] == 0]
            if spent:
                asker = next(p for p in game.players if p != mayor)
                out.append([mayor, "answer", {"to": asker, "token": rng.choice(spent)}])
            out.append([TABLE, "whoops", None])
            out.append([mayor, "guess_seer", other])
    if game.phase == "seer_hunt":
        non_wolves = [p for p in game.players if game.roles_as_dealt()[p] != "werewolf"]
        out.append([rng.choice(non_wolves), "guess_seer", other])
    if game.phase != "day":
        out.append([CLOCK, "time_up", None])
    out.append([CLOCK, "vote", other])
    out.append([TABLE, "answer", {"to": other, "token": "yes"}])
    out.append(["Nobody", "vote", other])
    out.append([None, "vote", other])
    out.append([other, "dance", None])
    return out


def check_step(game) -> None:
    left = game.tokens_left()
    assert all(v >= 0 for v in left.values()), left
    given_ = Counter(t["token"] for t in game.tokens_given())
    spent = {"yes_no": given_["yes"] + given_["no"], "maybe": given_["maybe"],
             "so_close": given_["so_close"], "correct": given_["correct"]}
    assert {k: BOX[k] - spent[k] for k in BOX} == left
    if game.winner is None:
        assert game.pending(), "a game that is not over always waits for someone"
        for d in game.pending():
            assert game.legal_targets(d.player, d.action), d


def play(doc: dict[str, Any], seed: int, style: str, refusals: bool
         ) -> tuple[Any, list[list[Any]], int]:
    rng = random.Random(seed)
    game = start(doc)
    actions: list[list[Any]] = []
    whoops_left = [rng.randrange(4)]
    tried = 0
    for _ in range(400):
        check_step(game)
        if refusals and (rng.random() < 0.3 or game.winner is not None):
            before = snapshot(game)  # each refusal must leave it as it is
            for bad in illegal_actions(game, rng):
                with pytest.raises(Refused) as refusal:
                    game.apply(*bad)
                assert refusal.value.reason, bad
                assert snapshot(game, copy=False) == before, (bad, doc)
                tried += 1
        if game.winner is not None:
            break
        action = choose(game, rng, style, whoops_left)
        game.apply(*action)
        actions.append(action)
    return game, actions, tried


# ---------------------------------------------------------------- the checks


def expected_winner(game) -> str:
    """The seed's endings, recomputed from the last ending's events and the secret roles."""
    roles = game.roles_as_dealt()
    last = max(i for i, e in enumerate(game.events)
               if e["type"] in ("guessed", "time_up", "no_more_tokens", "whoops"))
    tail = game.events[last:]
    revealed = next(e["players"] for e in tail if e["type"] == "revealed")
    votes = [e["counts"] for e in tail if e["type"] == "votes"]
    if not votes:  # the seer hunt
        return "werewolves" if any(roles[p] == "seer" for p in revealed) else "village"
    counts = votes[0]
    assert sum(counts.values()) == len(game.players)
    top = max(counts.values())
    assert revealed == [p for p in game.players if counts.get(p) == top]
    if len(counts) == len(game.players) and set(counts.values()) == {1}:
        return "werewolves"
    found = any(roles[p] in ("werewolf", "minion") for p in revealed)
    return "village" if found else "werewolves"


def check_finished(game) -> None:
    assert game.winner in ("village", "werewolves")
    assert game.pending() == [] and game.optional_actions() == []
    assert game.events[-1] == {"type": "game_over", "winner": game.winner,
                               "winners": list(game.winners)}
    assert sum(e["type"] == "game_over" for e in game.events) == 1
    roles = game.roles_as_dealt()
    assert game.winners == [p for p in game.players if SIDE[roles[p]] == game.winner]
    assert game.winner == expected_winner(game)
    assert game.word in game.words


def check_log_replays(doc, game, actions) -> None:
    result = replay({**doc, "actions": actions})
    assert result["error"] is None
    assert result["events"] == game.events
    assert result["winner"] == game.winner and result["winners"] == game.winners
    assert result["roles"] == game.roles_as_dealt()
    assert result["mayor"] == game.mayor_name and result["word"] == game.word


# ---------------------------------------------------------------- the properties


@SETTINGS
@given(doc=game_docs(), seed=st.integers(0, 2**32 - 1), style=st.sampled_from(STYLES))
def test_random_legal_games_end_tokens_stay_counted_and_winners_agree(doc, seed, style):
    game, actions, _ = play(doc, seed, style, refusals=False)
    check_finished(game)
    check_log_replays(doc, game, actions)


@settings(SETTINGS, max_examples=250)
@given(doc=game_docs(), seed=st.integers(0, 2**32 - 1), style=st.sampled_from(STYLES))
def test_a_refused_action_changes_nothing(doc, seed, style):
    game, actions, tried = play(doc, seed, style, refusals=True)
    assert tried > 0
    check_finished(game)
    # the refusals left no trace: the accepted actions alone replay to the same game
    check_log_replays(doc, game, actions)


@settings(SETTINGS, max_examples=250)
@given(doc=game_docs(), seed=st.integers(0, 2**32 - 1))
def test_the_shared_random_player_plays_werewords_to_the_end(doc, seed):
    """rules.simulate (the benchmarks' and the balance simulator's player) only uses pending
    and legal_targets: its games end too."""
    played = play_random(doc, random.Random(seed))
    check_step(played.game)
    check_finished(played.game)
    check_log_replays(doc, played.game, played.actions)


def test_every_way_a_day_ends_is_reached():
    """The properties above are not vacuous: the styles reach every ending."""
    seen: Counter = Counter()
    for seed in range(60):
        doc = {"ruleset": "werewords", "seed": seed, "players": NAMES[:7], "words": VOCABULARY[:4],
               "options": {"minion": True}}
        game, _, _ = play(doc, seed, STYLES[seed % 3], refusals=False)
        seen.update(e["type"] for e in game.events
                    if e["type"] in ("guessed", "time_up", "no_more_tokens", "whoops"))
        seen[game.winner] += 1
    for kind in ("guessed", "time_up", "no_more_tokens", "whoops", "village", "werewolves"):
        assert seen[kind] > 0, seen


@settings(SETTINGS, max_examples=250)
@given(doc=game_docs(), seed=st.integers(0, 2**32 - 1), style=st.sampled_from(STYLES),
       cut=st.floats(0, 1))
def test_a_prefix_of_the_log_is_the_game_in_progress(doc, seed, style, cut):
    _, actions, _ = play(doc, seed, style, refusals=False)
    k = int(cut * len(actions))
    partial = start(doc)
    for action in actions[:k]:
        partial.apply(*action)
    result = replay({**doc, "actions": actions[:k]})
    assert result["error"] is None
    assert result["events"] == partial.events
    assert result["pending"] == [d.to_json() for d in partial.pending()]
    assert result["word"] == partial.word
    if k < len(actions):
        assert result["winner"] is None and result["pending"]
