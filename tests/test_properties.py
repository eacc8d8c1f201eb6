"""Properties over thousands of random legal games (every preset, count and night mode).

- every game ends with a winner;
- a game is its log: replaying the logged actions reproduces the same events and winner;
- the dead never act (except a hunter's shot or a dead sheriff's badge, right after death);
- a refused action changes nothing;
- the winners agree with the final state (seed 000, «Cómo se gana»).
"""

from __future__ import annotations

import pickle
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import TABLE, Refused, replay
from rules.simulate import play_random, random_action
from rules.wolf_village import start
from rules.wolf_village.presets import PRESETS

NIGHT_MODES = ["narrated", "all_at_once", "pass_phones"]
SETTLE_VERBS = {"shoot", "pass_badge"}
ALL_VERBS = ["link", "kill", "inspect", "protect", "witch", "suspect", "shoot", "pass_badge",
             "elect", "vote", "break_tie", "revote", "spare"]
WINNERS = {"village", "werewolves", "jester", "fox", "lovers"}

# every (preset, player count) the seed allows
TABLES = [(name, n) for name, p in PRESETS.items()
          for n in range(p.min_players, p.max_players + 1)]

SETTINGS = settings(
    max_examples=2500,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
    database=None,
)


def names(n: int) -> list[str]:
    return [f"P{i:02d}" for i in range(n)]


@st.composite
def game_docs(draw) -> dict[str, Any]:
    name, n = draw(st.sampled_from(TABLES))
    options: dict[str, Any] = {"night_mode": draw(st.sampled_from(NIGHT_MODES))}
    for key in ("sheriff", "doctor_self_protect", "doctor_repeat", "reveal_dead_roles"):
        choice = draw(st.sampled_from([None, True, False]))
        if choice is not None:
            options[key] = choice
    return {
        "ruleset": "wolf-village",
        "seed": draw(st.integers(0, 2**32 - 1)),
        "preset": name,
        "players": names(n),
        "options": options,
    }


# ---------------------------------------------------------------- the checks


def side(role: str) -> str:
    """Seed 000's roles table, written out here: who plays for whom."""
    if role in ("werewolf", "minion"):
        return "werewolves"
    if role in ("jester", "fox"):
        return role
    return "village"


def lovers_of(events: list[dict]) -> list[str]:
    for event in events:
        if event["type"] == "lovers":
            return list(event["players"])
    return []


def check_finished(played) -> None:
    game = played.game
    assert game.winner in WINNERS, (played.doc, len(played.actions))
    assert game.winners
    assert game.pending() == []
    assert game.events[-1] == {"type": "game_over", "winner": game.winner,
                               "winners": list(game.winners)}
    assert sum(e["type"] == "game_over" for e in game.events) == 1


def check_log_replays(played) -> None:
    """«A game is its log»: the same document and actions give the same game."""
    doc = {**played.doc, "actions": played.actions}
    result = replay(doc)
    game = played.game
    assert result["error"] is None
    assert result["events"] == game.events
    assert result["winner"] == game.winner
    assert result["winners"] == list(game.winners)
    assert result["alive"] == game.alive_names()
    assert result["roles"] == game.roles_as_dealt()
    assert result["pending"] == []
    # and once more, deterministically
    assert replay(doc) == result


def mixed_lovers_of(game, lovers: list[str]) -> set[str]:
    if not lovers:
        return set()
    a, b = (side(game.current_role(p)) for p in lovers)
    return set(lovers) if a != b or a in ("jester", "fox") else set()


def a_win_holds(game, lovers: list[str]) -> bool:
    """«Cómo se gana», from the state alone (the jester's win is an event, not a state)."""
    alive = set(game.alive_names())
    mixed = mixed_lovers_of(game, lovers)
    if mixed and alive == mixed:
        return True
    living_wolves = {p for p in alive if game.current_role(p) == "werewolf"}
    pack = living_wolves - mixed
    return not living_wolves or (bool(pack) and len(pack) >= len(alive) - len(pack))


def check_walk(played) -> None:
    """Step through the log and check the rules that hold at every step."""
    game = start(played.doc)
    options = game.options
    died_at: dict[str, int] = {}  # player -> index of the first action after the death
    spared: set[str] = set()
    protected: dict[int, str] = {}  # night -> the doctor's choice
    heals = poisons = 0
    night = 1
    dawned = False
    for index, (actor, verb, target) in enumerate(played.actions):
        alive = set(game.alive_names())
        for decision in game.pending():
            if decision.player != TABLE and decision.player not in alive:
                assert decision.action in SETTLE_VERBS, (played.doc, index, decision)
        if actor != TABLE and actor not in alive:
            # the dead never act, except a hunter's shot or a dead sheriff's badge
            assert verb in SETTLE_VERBS, (played.doc, index, actor, verb)
            # right after the death: nothing but shots and badges since
            since = played.actions[died_at[actor]:index]
            assert all(a[1] in SETTLE_VERBS for a in since), (played.doc, index, since)
        if verb in ("vote", "elect"):
            # «Desde entonces no puede votar»
            assert actor not in spared, (played.doc, index)
        if verb == "link":
            assert not dawned, "cupid links only on the first night"
        if verb == "protect":
            if not options.doctor_self_protect:
                assert target != actor
            if not options.doctor_repeat:
                assert protected.get(night - 1) != target, "no protecting twice in a row"
            protected[night] = target
        if verb == "witch":
            heals += bool(target.get("heal"))
            poisons += target.get("poison") is not None
            assert heals <= 1 and poisons <= 1, "each potion once per game"
            assert target.get("poison") != actor
        roles_before = {p: game.current_role(p) for p in game.players}
        mark = len(game.events)
        game.apply(actor, verb, target)
        lovers = lovers_of(game.events)
        for event in game.events[mark:]:
            kind = event["type"]
            if kind == "death":
                died_at.setdefault(event["player"], index + 1)
            elif kind == "spared":
                spared.add(event["player"])
            elif kind == "dawn":
                dawned = True
            elif kind == "night":
                night = event["number"]
            elif kind == "pack_victim":
                # the pack never bites its own (a cursed may turn at the same dawn)
                assert roles_before[event["player"]] != "werewolf"
            elif kind == "sheriff" and event["player"] is not None:
                # «pasa la placa a un jugador vivo que aún pueda votar»
                assert event["player"] in game.alive_names()
                assert event["player"] not in spared or event["how"] == "elected"
            if kind == "day" or (kind == "night" and event["number"] > 1):
                # the win check ran and found nothing: no win may hold here
                assert not a_win_holds(game, lovers), (played.doc, index, event)
    events = game.events
    deaths = [e["player"] for e in events if e["type"] == "death"]
    # every death is recorded once, and the dead are exactly those not alive
    assert len(deaths) == len(set(deaths))
    assert set(deaths) == set(game.players) - set(game.alive_names())
    # the hunter's shot is not optional
    for player in deaths:
        if game.current_role(player) == "hunter" and game.alive_names():
            shots = [a for a in played.actions if a[0] == player and a[1] == "shoot"]
            assert len(shots) == 1, (played.doc, player)
    # a lover never outlives the other: «el otro muere de pena»
    lovers = lovers_of(events)
    if lovers:
        assert (lovers[0] in deaths) == (lovers[1] in deaths)


def check_winners_agree(played) -> None:
    game = played.game
    players = list(game.players)
    alive = set(game.alive_names())
    role = {p: game.current_role(p) for p in players}
    lovers = lovers_of(game.events)
    mixed = bool(lovers) and (
        side(role[lovers[0]]) != side(role[lovers[1]])
        or side(role[lovers[0]]) in ("jester", "fox")
    )
    mixed_lovers = set(lovers) if mixed else set()
    living_wolves = {p for p in alive if role[p] == "werewolf"}
    pack = living_wolves - mixed_lovers
    others = len(alive) - len(pack)
    winners = set(game.winners)
    deaths = [e for e in game.events if e["type"] == "death"]

    if game.winner == "village":
        # «El pueblo gana cuando muere el último hombre lobo»
        assert not living_wolves
        assert winners == {p for p in players
                           if side(role[p]) == "village" and p not in mixed_lovers}
    elif game.winner == "werewolves":
        # «Los hombres lobo ganan cuando son tantos como los demás, o más»
        assert pack and len(pack) >= others
        assert winners == {p for p in players
                           if side(role[p]) == "werewolves" and p not in mixed_lovers}
    elif game.winner == "jester":
        # «El bufón gana si el pueblo lo expulsa»
        (jester,) = winners
        assert role[jester] == "jester"
        assert jester not in mixed_lovers
        death = next(e for e in deaths if e["player"] == jester)
        assert death["cause"] == "vote"
        assert jester not in alive
    elif game.winner == "lovers":
        # «ganan juntos si son los dos últimos con vida»
        assert mixed
        assert alive == set(lovers) == winners
    elif game.winner == "fox":
        # «Si el zorro está vivo cuando ganarían el pueblo o los hombres lobo, gana él»
        assert winners
        for fox in winners:
            assert role[fox] == "fox" and fox in alive and fox not in mixed_lovers
        assert not living_wolves or (pack and len(pack) >= others)
    else:  # pragma: no cover
        pytest.fail(f"unknown winner {game.winner!r}")

    if game.winner != "jester":
        # a jester voted out (not in love) would have ended the game at once
        for e in deaths:
            if e["cause"] == "vote" and role[e["player"]] == "jester":
                assert e["player"] in mixed_lovers


# ---------------------------------------------------------------- refusals


def snapshot(game, copy: bool = True) -> dict[str, Any]:
    """What the game holds, for `==`. With `copy`, the events are a pickled copy that an
    in-place change of a past event cannot reach (ten times cheaper than copy.deepcopy);
    the snapshot after a refusal compares the live list itself, element by element in C,
    instead of writing the whole log out again after every refusal (a fifth of the time)."""
    pending = game.pending()
    return {
        "events": pickle.loads(pickle.dumps(game.events)) if copy else game.events,
        "pending": pending,
        "alive": game.alive_names(),
        "winner": game.winner,
        "winners": list(game.winners),
        "roles": {p: game.current_role(p) for p in game.players},
        "targets": [game.legal_targets(d.player, d.action) for d in pending],
        "rng": game.rng.getstate(),
    }


def illegal_actions(game, rng: random.Random) -> list[tuple[str, list[Any]]]:
    """Actions the rules must refuse right now, each with what makes it wrong."""
    out: list[tuple[str, list[Any]]] = []
    pending = game.pending()
    waiting = {d.player: d.action for d in pending}
    alive = game.alive_names()
    dead = [p for p in game.players if p not in alive]
    some_living = rng.choice(alive) if alive else "P00"
    if pending:
        d = rng.choice(pending)
        targets = game.legal_targets(d.player, d.action)
        target = rng.choice(targets) if targets else None
        idle = [p for p in alive if p not in waiting]
        if idle:
            out.append(("wrong actor", [rng.choice(idle), d.action, target]))
        idle_dead = [p for p in dead if p not in waiting]
        if idle_dead:
            out.append(("dead actor", [rng.choice(idle_dead), d.action, target]))
        others = [v for v in ALL_VERBS if v != d.action and not (
            d.player == TABLE and v in ("revote", "spare"))]
        out.append(("wrong verb", [d.player, rng.choice(others), target]))
        bad = rng.choice(["Nobody", 42, ["x"], {"heal": "maybe"}, *dead[:1]])
        if d.player == TABLE:
            bad = "Nobody"
        out.append(("bad target", [d.player, d.action, bad]))
        if d.action in ("inspect", "shoot", "suspect") and d.player in alive:
            out.append(("self target", [d.player, d.action, d.player]))
        if d.action == "kill":
            wolves = [p for p in alive if game.current_role(p) == "werewolf"]
            out.append(("wolf bites wolf", [d.player, "kill", rng.choice(wolves)]))
        if d.action == "witch":
            out.append(("witch poisons herself", [d.player, "witch",
                                                  {"heal": False, "poison": d.player}]))
        if d.action == "link":
            out.append(("one lover twice", [d.player, "link", [some_living, some_living]]))
    out.append(("unknown player", ["Nobody", "vote", some_living]))
    out.append(("unknown verb", [some_living, "dance", None]))
    out.append(("actor not a name", [None, "vote", some_living]))
    if TABLE not in waiting:
        out.append(("table not asked", [TABLE, "revote", None]))
    return out


def play_with_refusals(doc: dict, seed: int) -> tuple[Any, list[list[Any]], int]:
    rng = random.Random(seed)
    game = start(doc)
    actions: list[list[Any]] = []
    tried = 0
    for _ in range(5000):
        if rng.random() < 0.3 or game.winner is not None:
            before = snapshot(game)  # each refusal must leave it as it is
            for why, bad in illegal_actions(game, rng):
                with pytest.raises(Refused) as refusal:
                    game.apply(*bad)
                assert isinstance(refusal.value.reason, str) and refusal.value.reason
                assert snapshot(game, copy=False) == before, (why, bad, doc)
                tried += 1
        if game.winner is not None:
            break
        action = random_action(game, rng)
        assert action is not None
        game.apply(*action)
        actions.append(action)
    return game, actions, tried


# ---------------------------------------------------------------- the properties


@SETTINGS
@given(doc=game_docs(), play_seed=st.integers(0, 2**32 - 1))
def test_random_games_end_replay_and_agree(doc, play_seed):
    played = play_random(doc, random.Random(play_seed))
    check_finished(played)
    check_log_replays(played)
    check_walk(played)
    check_winners_agree(played)


@settings(SETTINGS, max_examples=400)
@given(doc=game_docs(), play_seed=st.integers(0, 2**32 - 1))
def test_refused_actions_change_nothing(doc, play_seed):
    game, actions, tried = play_with_refusals(doc, play_seed)
    assert game.winner in WINNERS
    assert tried > 0
    # the refusals left no trace: the accepted actions alone replay to the same game
    result = replay({**doc, "actions": actions})
    assert result["error"] is None
    assert result["events"] == game.events
    assert result["winner"] == game.winner


@pytest.mark.parametrize("mode", NIGHT_MODES)
def test_every_preset_and_count_plays_to_the_end(mode):
    """A sweep (not sampled): every preset at every valid count, in every night mode."""
    for name, n in TABLES:
        for seed in range(4):
            doc = {"preset": name, "seed": seed, "players": names(n),
                   "options": {"night_mode": mode}}
            played = play_random(doc, random.Random(seed * 1009 + n))
            check_finished(played)
            check_log_replays(played)
            check_winners_agree(played)


@settings(SETTINGS, max_examples=300)
@given(doc=game_docs(), play_seed=st.integers(0, 2**32 - 1), cut=st.floats(0, 1))
def test_a_prefix_of_the_log_is_a_game_in_progress(doc, play_seed, cut):
    """Replaying part of a log gives the state the game had at that point."""
    played = play_random(doc, random.Random(play_seed))
    k = int(cut * len(played.actions))
    game = start(doc)
    for action in played.actions[:k]:
        game.apply(*action)
    result = replay({**doc, "actions": played.actions[:k]})
    assert result["error"] is None
    assert result["events"] == game.events
    assert result["alive"] == game.alive_names()
    assert result["pending"] == [d.to_json() for d in game.pending()]
    if k < len(played.actions):
        assert result["winner"] is None
        assert result["pending"]
