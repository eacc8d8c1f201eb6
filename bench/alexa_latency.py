"""How long the Alexa skill takes to answer, through its Lambda entry point.

1. Warm: the handler is built once, then whole games are played through `lambda_handler`
   (lobby by voice, night choices on the phones, "continue", votes by voice) over a SQLite
   store in a temporary directory; every request is timed (the phones' taps are not).
   Target: p99 <= 20 ms.
2. Cold start: in a fresh interpreter, importing `skill.lambda_function` and answering a
   LaunchRequest; the median of several runs. Target: <= 0.5 s.

    .venv/bin/python bench/alexa_latency.py [--games 20] [--cold-runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from narrator import Tap  # noqa: E402
from narrator.session import TableSession  # noqa: E402
from phones.relay import Relay, handle  # noqa: E402
from store import open_store  # noqa: E402
from tests.alexa_envelopes import Echo, player_slot, static_slot  # noqa: E402

PLAYERS = ["Ana", "Ben", "Cleo", "Dan", "Eve", "Finn", "Gus", "Hana"]
WARM_P99_MS = 20.0
COLD_S = 0.5


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[k]


def warm(games: int) -> list[float]:
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/games.db"
        os.environ["WOLFVILLAGE_STORE"] = url
        import skill.lambda_function as lf

        lf._handler = None
        store = open_store(url)
        phones = Relay(open_store(url))
        times: list[float] = []

        def send(echo: Echo, env: dict[str, Any]) -> dict[str, Any]:
            start = time.perf_counter()
            response = lf.lambda_handler(env, None)
            times.append(time.perf_counter() - start)
            echo.sent(response)
            return response

        lf.lambda_handler(Echo().launch(), None)  # build the handler: not a warm request
        for game in range(games):
            echo = Echo()
            send(echo, echo.launch())
            for name in PLAYERS:
                send(echo, echo.intent("JoinIntent", {"player": player_slot("player", name)}))
            send(echo, echo.intent("PresetIntent", {
                "preset": static_slot("preset", "PRESET", "classic", "classic")}))
            send(echo, echo.intent("VotingIntent", {
                "protocol": static_slot("protocol", "PROTOCOL", "roll call", "roll_call")}))
            send(echo, echo.intent("StartGameIntent"))
            game_id = store.lookup(f"alexa:{echo.device_id}")
            assert game_id is not None
            for step in range(400):
                narrator = TableSession.resume(store, game_id).narrator
                g = narrator.game
                if narrator.phase == "over":
                    break
                if step % 7 == 3:
                    send(echo, echo.intent("AMAZON.RepeatIntent"))
                if narrator.phase in ("reveal", "debate"):
                    send(echo, echo.intent("ReadyIntent"))
                elif narrator.phase == "night":
                    pending = g.pending()
                    called = [d for d in pending if narrator.calling is None
                              or g.current_role(d.player) == narrator.calling] or pending
                    d = called[0]
                    targets = g.legal_targets(d.player, d.action)
                    phones._sessions.clear()  # the relay is another process: no shared cache
                    handle(phones, game_id, Tap(d.player, d.action,
                                                targets[(game + step) % len(targets)]))
                    send(echo, echo.intent("ReadyIntent"))
                elif narrator.phase == "tie" and g.sheriff is None:
                    send(echo, echo.intent("AMAZON.NoIntent"))
                else:
                    d = g.pending()[0]
                    targets = [t for t in g.legal_targets(d.player, d.action)
                               if isinstance(t, str)]
                    if not targets:
                        send(echo, echo.intent("NobodyIntent"))
                        continue
                    target = targets[(game + step) % len(targets)]
                    intent = "ElectIntent" if d.action == "elect" else "VoteIntent"
                    send(echo, echo.intent(intent, {"player": player_slot(
                        "player", target.lower() + "h", target)}))
            else:
                raise RuntimeError("a game did not end")
        store.close()
        lf._handler = None
        return times


COLD = """
import json, sys, time
start = time.perf_counter()
import skill.lambda_function as lf
response = lf.lambda_handler(json.loads(sys.argv[1]), None)
took = time.perf_counter() - start
assert "Wolf Village" in response["response"]["outputSpeech"]["ssml"]
print(took)
"""


def cold(runs: int) -> tuple[list[float], list[float]]:
    """(import + first LaunchRequest inside the process, whole process wall time)."""
    inside, wall = [], []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            env = dict(os.environ, WOLFVILLAGE_STORE=f"sqlite:///{tmp}/games.db",
                       PYTHONPATH=str(REPO))
            start = time.perf_counter()
            out = subprocess.run([sys.executable, "-c", COLD, json.dumps(Echo().launch())],
                                 env=env, cwd=REPO, capture_output=True, text=True,
                                 check=True)
            wall.append(time.perf_counter() - start)
            inside.append(float(out.stdout.strip().splitlines()[-1]))
    return inside, wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--cold-runs", type=int, default=5)
    args = parser.parse_args()

    times = [t * 1000 for t in warm(args.games)]
    p50, p95, p99 = (percentile(times, q) for q in (50, 95, 99))
    print(f"warm: {len(times)} requests over {args.games} games (SQLite)")
    print(f"  p50 {p50:.2f} ms   p95 {p95:.2f} ms   p99 {p99:.2f} ms   max {max(times):.2f} ms")
    warm_ok = p99 <= WARM_P99_MS
    print(f"  target p99 <= {WARM_P99_MS:.0f} ms: {'met' if warm_ok else 'MISSED'}")

    inside, wall = cold(args.cold_runs)
    median = statistics.median(inside)
    print(f"cold start: import skill.lambda_function + LaunchRequest, {args.cold_runs} runs")
    print(f"  median {median:.3f} s (runs: {', '.join(f'{t:.3f}' for t in inside)});"
          f" whole process incl. interpreter {statistics.median(wall):.3f} s")
    cold_ok = median <= COLD_S
    print(f"  target <= {COLD_S} s: {'met' if cold_ok else 'MISSED'}")
    return 0 if warm_ok and cold_ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
