"""How long a narrated Werewords table takes to rebuild from its stored inputs (a benchmark,
not a test).

Every request of the skill's Lambda and of a relay that lost its cache rebuilds the table by
replaying its log (`Narrator.restore`). A Werewords day is a long log: the host's page lets
time pass every second while the day's timer runs, and the mayor taps tokens. The table
here is a long one: 10 players, a 10-minute day ticked every second, a "no" every 15
seconds (each held back, then given) until the 36 yes/no tokens run out, then the minute of
discussion ticked every second and ten pointings. Prints the number of stored inputs, the
median time to restore the table, and the time to build the mayor's phone view in the day
(it checks the pad on a copy of the game).

Run: .venv/bin/python bench/werewords_table_replay.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from narrator import Heard, Host, Narrator, Tap, Tick
from narrator.cues import Input

NAMES = [f"Player{i}" for i in range(10)]


def long_table() -> tuple[dict, list[Input], Narrator]:
    setup = {"lang": "en", "seed": 11, "call_pause": 12.0}
    n = Narrator("en", seed=11, call_pause=12.0)
    inputs: list[Input] = [Host("join", name) for name in NAMES]
    inputs += [Host("game", "werewords"), Host("protocol", "phones"),
               Host("option", ["day_seconds", 600]), Host("start"), Heard("ReadyIntent")]
    for inp in inputs:
        assert n.handle(inp).accepted, inp

    def feed(inp: Input) -> None:
        if n.handle(inp).accepted:
            inputs.append(inp)

    feed(Tap(n.game.mayor_name, "choose_word", n.game.words[0]))
    while n.phase == "night":
        feed(Tick(1.0))
    others = [p for p in n.game.players if p != n.game.mayor_name]
    given = 0
    while n.phase == "ww_day":
        if n.script.held is None and given < 36 and round(n.timer or 0) % 15 == 0:
            feed(Tap(n.game.mayor_name, "answer", {"to": others[given % 9], "token": "no"}))
            given += 1
        feed(Tick(1.0))
    while n.phase == "ww_discuss":
        feed(Tick(1.0))
    for i, name in enumerate(n.game.players):
        feed(Tap(name, "vote", n.game.players[(i + 2) % len(n.game.players)]))
    assert n.phase == "over", n.phase
    return setup, inputs, n


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    setup, inputs, _ = long_table()
    times = []
    for _ in range(args.runs):
        start = time.perf_counter()
        Narrator.restore(setup, inputs)
        times.append(time.perf_counter() - start)
    print(f"inputs stored: {len(inputs)}")
    print(f"restore a whole 10-player Werewords table: {statistics.median(times) * 1000:.1f} ms"
          f" (median of {args.runs})")
    # the mayor's phone in the day, just after a token was tapped (held back)
    first_token = next(i for i, inp in enumerate(inputs)
                       if isinstance(inp, Tap) and inp.verb == "answer")
    n = Narrator.restore(setup, inputs[:first_token + 1])
    assert n.script.held is not None
    views = []
    for _ in range(args.runs * 10):
        start = time.perf_counter()
        n.player_view(n.game.mayor_name)
        views.append(time.perf_counter() - start)
    print(f"the mayor's phone view by day: {statistics.median(views) * 1000:.2f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
