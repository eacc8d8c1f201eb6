"""The voice benches measure the same audio on every machine: their figures are compared
from round to round, and a fresh cache used to be another bench (Piper's random noise and
sox's dither were drawn anew in every run; docs/voice.md, round 30)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# a line said by the bench's shifted Piper voice, and a babble clip (seed 7: two of its three
# talkers are Piper's), after something else was said first in one process and not in the
# other
_PROBE = """
import hashlib, json, sys
sys.path.insert(0, {bench!r})
import voice_accuracy as va
if sys.argv[1] == "warm":
    va.piper_line("something said before")
va.use_draw(int(sys.argv[2]))
line = va.speech("piper", "pitch 300 tempo 1.1", "I vote for Tadhg")
mixed = va.babble(va.speech("espeak", "en-us+m7", "vote for Anna"), 7)
print(json.dumps([hashlib.sha1(a.samples.tobytes()).hexdigest() for a in (line, mixed)]))
"""


def _bench_audio(tmp: Path, order: str, draw: int) -> list[str]:
    tmp.mkdir()
    done = subprocess.run(
        [sys.executable, "-c", _PROBE.format(bench=str(ROOT / "bench")), order, str(draw)],
        capture_output=True, text=True, check=True, env={**os.environ, "TMPDIR": str(tmp)},
        cwd=ROOT)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_voice_bench_says_each_line_the_same_on_every_run_whatever_came_before(tmp_path):
    first = _bench_audio(tmp_path / "a", "cold", 0)
    assert _bench_audio(tmp_path / "b", "warm", 0) == first
    # another draw of Piper's noise is other audio (what --draw measures)
    other = _bench_audio(tmp_path / "c", "cold", 1)
    assert other[0] != first[0] and other[1] != first[1]
