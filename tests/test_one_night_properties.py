"""Properties over random legal One Night games: random decks the host could pick (every
count from 3 to 12, any cards the deck check allows) played with random legal choices.

- random legal games always end, with winners;
- every swap conserves the cards (the same multiset, every card somewhere once);
- the winners agree with the final cards (worked out here again from the events alone);
- a refused action never changes the game;
- `legal_targets` is exactly what `apply` accepts;
- a game is its log (replaying the actions gives the same game);
- a player's knowledge is exactly what they saw, learned in the calls that woke them.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import Refused, SetupError, replay
from rules.one_night import start, validate_deck
from rules.one_night.knowledge import private_knowledge
from rules.one_night.roles import ROLES, VERBS
from rules.simulate import play_random, random_action
from tests.one_night_helpers import snapshot

SETTINGS = settings(max_examples=600, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])
FEW = settings(SETTINGS, max_examples=120)

WOLF_CARDS = {"werewolf", "mystic_wolf"}


def names(n: int) -> list[str]:
    return [f"P{i:02d}" for i in range(n)]


def random_deck(rng: random.Random, n: int) -> list[str]:
    """Any deck the deck check accepts: one werewolf card, then any cards within limits."""
    size = n + 3
    pool = [role for role, spec in ROLES.items()
            for _ in range(min(spec.max_copies or size, size))]
    while True:
        rest = list(pool)
        first = rng.choice(sorted(WOLF_CARDS))
        rest.remove(first)
        rng.shuffle(rest)
        deck = [first, *rest[:size - 1]]
        try:
            return validate_deck(deck, n)
        except SetupError:
            continue


@st.composite
def game_docs(draw) -> dict[str, Any]:
    n = draw(st.integers(3, 12))
    doc: dict[str, Any] = {"ruleset": "one-night", "seed": draw(st.integers(0, 2**32 - 1)),
                           "players": names(n)}
    kind = draw(st.sampled_from(["suggested", "deck", "deck"]))
    if kind == "deck":
        doc["deck"] = random_deck(random.Random(draw(st.integers(0, 2**32 - 1))), n)
    return doc


plays = st.integers(0, 2**32 - 1)


# ----------------------------------------------------------------------------- the checks


def final_roles_from_events(game, events: list[dict]) -> dict[str, str]:
    """Each player's final card and what it counts as, tracked through the events alone."""
    n = len(game.players)
    printed = [*game.roles_as_dealt().values(), *game.center_as_dealt()]
    at = list(range(n + 3))
    seat = {p: i for i, p in enumerate(game.players)}
    counts_as: dict[int, str] = {}
    for e in events:
        if e["type"] in ("copied", "became"):  # on the card the player holds then
            counts_as[at[seat[e["player"]]]] = e["role"]
        elif e["type"] == "swapped":
            a = seat[e["players"][0]]
            b = n + e["center"] if "center" in e else seat[e["players"][1]]
            at[a], at[b] = at[b], at[a]
    assert game.cards() == {p: printed[at[s]] for p, s in seat.items()}
    assert game.center() == [printed[at[n + i]] for i in range(3)]
    return {p: counts_as.get(at[s], printed[at[s]]) for p, s in seat.items()}


def expected_outcome(players: list[str], final: dict[str, str], ballots: dict[str, str]
                     ) -> tuple[list[str], list[str], list[str]]:
    """Seed 001's «La votación» and «¿Quién gana?», written out again: (out, sides, winners)."""
    got = Counter(ballots.values())
    most = max(got.values())
    out = [p for p in players if got[p] == most] if most > 1 else []
    queue = list(out)
    while queue:
        p = queue.pop(0)
        if final[p] == "hunter" and ballots[p] not in out:
            out.append(ballots[p])
            queue.append(ballots[p])
    wolves = [p for p in players if final[p] in WOLF_CARDS]
    tanners_out = [p for p in out if final[p] == "tanner"]
    if wolves:
        village = any(p in out for p in wolves)
        pack = not village and not tanners_out
    else:
        village = not out
        pack = (any(final[p] == "minion" for p in players) and not tanners_out
                and any(final[p] != "minion" for p in out))
    sides = [s for s, won in (("village", village), ("werewolves", pack),
                              ("tanner", bool(tanners_out))) if won]
    team = {"werewolf": "werewolves", "mystic_wolf": "werewolves", "minion": "werewolves",
            "tanner": "tanner"}
    winners = [p for p in players if team.get(final[p], "village") in sides
               and (final[p] != "tanner" or p in out)]
    return out, sides, winners


def woken_as_wolves(game, events: list[dict]) -> list[str]:
    copied = next((e["role"] for e in events if e["type"] == "copied"), None)
    dealt = game.roles_as_dealt()
    return [p for p in game.players if dealt[p] in WOLF_CARDS
            or (dealt[p] == "doppelganger" and copied in WOLF_CARDS)]


def expected_facts(game, name: str) -> Counter:
    """What `name` saw, from the events and the deal alone, as (fact, value) pairs."""
    events = game.events
    dealt = game.roles_as_dealt()
    copied = next((e["role"] for e in events if e["type"] == "copied"), None)
    acting = copied if dealt[name] == "doppelganger" else dealt[name]
    out = [("card", dealt[name])]
    wolves = woken_as_wolves(game, events)
    if name in wolves:
        out.append(("pack", [w for w in wolves if w != name]))
    if acting == "minion":
        out.append(("werewolves", wolves))
    if acting == "mason":
        masons = [p for p in game.players if dealt[p] == "mason"
                  or (dealt[p] == "doppelganger" and copied == "mason")]
        out.append(("masons", [m for m in masons if m != name]))
    previous: dict = {}
    for e in events:
        if e.get("player") == name or e.get("by") == name:
            kind = e["type"]
            if kind == "copied":
                out.append(("copied", {"player": e["target"], "role": e["role"]}))
            elif kind == "looked" and "center" in e:
                out.append(("looked_center", [{"center": i, "role": r}
                                              for i, r in zip(e["center"], e["roles"],
                                                              strict=True)]))
            elif kind == "looked" and e["target"] == name:
                if previous.get("type") == "swapped" and previous.get("by") == name:
                    out.append(("robbed", {"player": previous["players"][1],
                                           "role": e["role"]}))
                else:
                    out.append(("own_card", e["role"]))
            elif kind == "looked":
                out.append(("looked", {"player": e["target"], "role": e["role"]}))
            elif kind == "swapped" and "center" in e:
                out.append(("took_center", e["center"]))
            elif kind == "swapped" and name not in e["players"]:
                out.append(("swapped", e["players"]))
            elif kind == "became":
                out.append(("became", e["role"]))
            elif kind == "peeked":
                out.append(("werewolves", wolves))
        previous = e
    return Counter(json.dumps(pair) for pair in out)


# ----------------------------------------------------------------------------- properties


@SETTINGS
@given(game_docs(), plays)
def test_random_legal_games_always_end(doc, play):
    played = play_random(doc, random.Random(play))
    game = played.game
    assert game.winner is not None and game.pending() == []
    assert game.events[-1] == {"type": "game_over", "winner": game.winner,
                               "winners": game.winners}
    # a night of at most one doppelganger turn (copy + action), a pack's peek, a little
    # girl, a mystic wolf, a seer, two looks, robber, troublemaker, drunk; then one vote each
    night = len(played.actions) - len(game.players)
    assert 0 <= night <= 12
    assert [a[1] for a in played.actions[night:]] == ["vote"] * len(game.players)


@SETTINGS
@given(game_docs(), plays)
def test_every_swap_conserves_the_cards(doc, play):
    game = start(doc)
    rng = random.Random(play)
    deck = Counter(game.deck)
    while (action := random_action(game, rng)) is not None:
        game.apply(*action)
        assert Counter([*game.cards().values(), *game.center()]) == deck
        assert sorted(game.at) == list(range(len(game.players) + 3))


@SETTINGS
@given(game_docs(), plays)
def test_winners_agree_with_the_final_cards(doc, play):
    game = play_random(doc, random.Random(play)).game
    final = final_roles_from_events(game, game.events)
    assert final == game.final_roles()
    ballots = next(e for e in game.events if e["type"] == "votes")["ballots"]
    out, sides, winners = expected_outcome(game.players, final, ballots)
    assert [e["player"] for e in game.events if e["type"] == "out"] == out
    assert game.alive_names() == [p for p in game.players if p not in out]
    assert game.winner == sides
    assert game.winners == winners


def junk_actions(game, rng: random.Random) -> list[list[Any]]:
    people = [*game.players, "Nobody", "", None, 3]
    targets = [*game.players, "Nobody", None, -1, 0, 1, 2, 3, True, False, "0", [0, 0],
               [0, 1], [2, 5], [game.players[0], game.players[0]],
               [game.players[0], game.players[-1]], {"x": 1}, [None, None]]
    verbs = [*VERBS, "kill", "", None]
    return [[rng.choice(people), rng.choice(verbs), rng.choice(targets)] for _ in range(5)]


@settings(SETTINGS, max_examples=300)
@given(game_docs(), plays)
def test_a_refused_action_never_changes_the_game(doc, play):
    game = start(doc)
    rng = random.Random(play)
    while True:
        before = snapshot(game)  # each refusal must leave it as it is
        for actor, verb, target in junk_actions(game, rng):
            if target in game.legal_targets(actor, verb):
                continue
            try:
                game.apply(actor, verb, target)
            except Refused as refusal:
                assert refusal.reason
            else:
                raise AssertionError(f"accepted {[actor, verb, target]}, not a legal target")
            assert snapshot(game, copy=False) == before
        action = random_action(game, rng)
        if action is None:
            break
        game.apply(*action)
    # and after the end, everything is refused
    before = snapshot(game)
    for actor, verb, target in junk_actions(game, rng):
        try:
            game.apply(actor, verb, target)
        except Refused:
            pass
        else:
            raise AssertionError("an action was accepted after the end")
    assert snapshot(game, copy=False) == before


def candidates(game) -> list[Any]:
    people = [*game.players, "Nobody"]
    return [None, True, False, -1, 0, 1, 2, 3, "1", *people,
            *([a, b] for a in people for b in people),
            *([i, j] for i in range(-1, 4) for j in range(-1, 4)), [0], [0, 1, 2]]


@FEW
@given(game_docs(), plays)
def test_legal_targets_are_exactly_what_apply_accepts(doc, play):
    game = start(doc)
    rng = random.Random(play)
    log: list[list[Any]] = []
    while game.pending():
        for decision in game.pending():
            legal = game.legal_targets(decision.player, decision.action)
            accepted = []
            for target in candidates(game):
                try:
                    game.apply(decision.player, decision.action, target)
                except Refused:
                    continue
                accepted.append(target)
                game = start(doc)  # undo: a game is its log
                for action in log:
                    game.apply(*action)
            assert sorted(map(json.dumps, accepted)) == sorted(map(json.dumps, legal)), decision
        # nobody else may answer anything
        asked = {(d.player, d.action) for d in game.pending()}
        for other in [*game.players, "Nobody"]:
            for verb in VERBS:
                if (other, verb) not in asked:
                    assert game.legal_targets(other, verb) == []
        action = random_action(game, rng)
        game.apply(*action)
        log.append(action)


@SETTINGS
@given(game_docs(), plays)
def test_a_game_is_its_log(doc, play):
    played = play_random(doc, random.Random(play))
    out = replay({**doc, "actions": played.actions})
    assert out["error"] is None
    assert out["events"] == played.game.events
    assert out["winner"] == played.game.winner and out["winners"] == played.game.winners
    assert out["cards"] == played.game.cards() and out["center"] == played.game.center()
    assert out["roles"] == played.game.roles_as_dealt()


@SETTINGS
@given(game_docs(), plays)
def test_a_players_knowledge_is_exactly_what_they_saw(doc, play):
    game = start(doc)
    rng = random.Random(play)
    known = {p: private_knowledge(game, p)["facts"] for p in game.players}
    while (action := random_action(game, rng)) is not None:
        call = game.current_call()
        later = game.night_calls()[game.night_calls().index(call):] if call else []
        game.apply(*action)
        for p in game.players:
            now = private_knowledge(game, p)["facts"]
            assert now[:len(known[p])] == known[p], "nothing learned is ever taken back"
            for fact in now[len(known[p]):]:
                # learned in this call or one the rules passed since, and one that woke them
                assert fact["call"] in later, (p, fact, call)
                assert p in game.woken(fact["call"]), (p, fact)
            known[p] = now
    for p in game.players:
        got = Counter(json.dumps([f["fact"], f["value"]]) for f in known[p])
        assert got == expected_facts(game, p), p
