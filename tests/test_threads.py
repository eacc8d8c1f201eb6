"""The threads the box's models compute on (`local_voice.compute_threads`): two, the
box's two cores, unless WOLFVILLAGE_THREADS says otherwise (test workers and benches run
side by side: docs/voice.md, round 38)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from local_voice import compute_threads
from local_voice.whisper import WhisperScorer, tiny_en_dir


@pytest.mark.parametrize(("value", "threads"), [
    (None, 2), ("1", 1), ("3", 3), ("", 2), ("0", 2), ("-1", 2), ("two", 2)])
def test_wolfvillage_threads_sets_the_threads_and_a_bad_value_keeps_two(
        monkeypatch, value, threads):
    if value is None:
        monkeypatch.delenv("WOLFVILLAGE_THREADS", raising=False)
    else:
        monkeypatch.setenv("WOLFVILLAGE_THREADS", value)
    assert compute_threads() == threads


def test_whisper_computes_on_the_threads_it_is_given_or_else_on_wolfvillage_threads(
        monkeypatch):
    monkeypatch.setenv("WOLFVILLAGE_THREADS", "1")
    assert WhisperScorer(tiny_en_dir()).threads == 1
    assert WhisperScorer(tiny_en_dir(), threads=2).threads == 2
    monkeypatch.delenv("WOLFVILLAGE_THREADS")
    assert WhisperScorer(tiny_en_dir()).threads == 2


def test_openblas_is_given_wolfvillage_threads_only_when_the_box_takes_it():
    def openblas(value: str) -> str:
        env = {k: v for k, v in os.environ.items()
               if k not in ("OPENBLAS_NUM_THREADS", "WOLFVILLAGE_THREADS")}
        env["WOLFVILLAGE_THREADS"] = value
        return subprocess.run(
            [sys.executable, "-c", "import os, local_voice; "
             "print(os.environ.get('OPENBLAS_NUM_THREADS', '-'))"],
            env=env, capture_output=True, text=True, check=True).stdout.strip()

    assert openblas("1") == "1"
    assert openblas("two") == "-" and openblas("0") == "-"
