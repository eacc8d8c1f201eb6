"""Replay speed of the rules engine (a benchmark, not a test).

Prints three figures:

1. the time to replay one complete 20-player Chaos game with `rules.replay` (median over
   many runs; target <= 2 ms);
2. how many random complete 12-player Classic games one core plays per second with
   `rules.simulate.play_random` (target >= 1,000);
3. the time to replay one complete 10-player One Night game on the suggested deck, the
   longest of 101 random ones (median over many runs; target <= 1 ms).

Run: .venv/bin/python bench/replay_speed.py [--runs N] [--seconds S]
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rules import replay
from rules.simulate import play_random

REPLAY_TARGET_MS = 2.0
ONE_NIGHT_TARGET_MS = 1.0
GAMES_TARGET_PER_S = 1000


def names(n: int) -> list[str]:
    return [f"Player{i:02d}" for i in range(n)]


def chaos_log(samples: int = 101) -> dict:
    """A complete 20-player Chaos game of median length among `samples` random games."""
    games = []
    for seed in range(samples):
        doc = {"ruleset": "wolf-village", "seed": seed, "preset": "chaos",
               "players": names(20), "options": {"night_mode": "narrated"}}
        played = play_random(doc, random.Random(seed))
        assert played.game.winner is not None
        games.append({**doc, "actions": played.actions})
    games.sort(key=lambda g: len(g["actions"]))
    return games[len(games) // 2]


def one_night_log(samples: int = 101) -> dict:
    """The longest complete 10-player One Night game (suggested deck) of `samples` random
    ones: the most night actions the deck allows, so the figure is the worst case."""
    games = []
    for seed in range(samples):
        doc = {"ruleset": "one-night", "seed": seed, "players": names(10)}
        played = play_random(doc, random.Random(seed))
        assert played.game.winner is not None
        games.append({**doc, "actions": played.actions})
    return max(games, key=lambda g: len(g["actions"]))


def bench_replay(runs: int, doc: dict | None = None) -> tuple[float, float, int, int]:
    doc = chaos_log() if doc is None else doc
    result = replay(doc)
    assert result["error"] is None and result["winner"] is not None
    for _ in range(20):  # warm up
        replay(doc)
    timings = []
    gc_was = gc.isenabled()
    gc.disable()
    try:
        for _ in range(runs):
            t0 = time.perf_counter()
            replay(doc)
            timings.append(time.perf_counter() - t0)
    finally:
        if gc_was:
            gc.enable()
    timings.sort()
    p90 = timings[int(len(timings) * 0.9)]
    return statistics.median(timings) * 1000, p90 * 1000, len(doc["actions"]), len(
        result["events"]
    )


def bench_games(seconds: float) -> tuple[float, int, float]:
    doc = {"ruleset": "wolf-village", "preset": "classic", "players": names(12)}
    rng = random.Random(12345)
    games = actions = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        played = play_random({**doc, "seed": games}, rng)
        assert played.game.winner is not None
        games += 1
        actions += len(played.actions)
    elapsed = time.perf_counter() - start
    return games / elapsed, games, actions / games


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000, help="replays to time (default 1000)")
    parser.add_argument("--seconds", type=float, default=5.0,
                        help="how long to play random games (default 5)")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        # one core, as the target says
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})

    print(f"Python {sys.version.split()[0]} on {sys.platform}, one core")
    median_ms, p90_ms, n_actions, n_events = bench_replay(args.runs)
    ok = median_ms <= REPLAY_TARGET_MS
    print(
        f"replay of one complete 20-player chaos game ({n_actions} actions, "
        f"{n_events} events): median {median_ms:.3f} ms, p90 {p90_ms:.3f} ms "
        f"over {args.runs} runs  (target <= {REPLAY_TARGET_MS:g} ms: "
        f"{'OK' if ok else 'MISSED'})"
    )
    rate, games, mean_actions = bench_games(args.seconds)
    ok2 = rate >= GAMES_TARGET_PER_S
    print(
        f"random complete 12-player classic games: {rate:,.0f} games/s on one core "
        f"({games} games in {args.seconds:g} s, {mean_actions:.1f} actions per game)  "
        f"(target >= {GAMES_TARGET_PER_S:,}: {'OK' if ok2 else 'MISSED'})"
    )
    on_ms, on_p90, on_actions, on_events = bench_replay(args.runs, one_night_log())
    ok3 = on_ms <= ONE_NIGHT_TARGET_MS
    print(
        f"replay of one complete 10-player One Night game ({on_actions} actions, "
        f"{on_events} events): median {on_ms:.3f} ms, p90 {on_p90:.3f} ms "
        f"over {args.runs} runs  (target <= {ONE_NIGHT_TARGET_MS:g} ms: "
        f"{'OK' if ok3 else 'MISSED'})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
