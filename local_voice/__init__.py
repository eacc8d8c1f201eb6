"""The offline narrator box (DESIGN.md)."""

import os

# OpenBLAS's threads spin for about 2^28 cycles (0.1 s) after each product, waiting for
# more work; the box's NumPy products (log-mel, whisper_decoder) are followed at once by
# CTranslate2 and PocketSphinx on the same two cores, which the spinning then slows:
# Whisper's encoder took 150 ms instead of 106-127 (round 10). 2^4 cycles: they sleep.
# Read when OpenBLAS starts, so only if NumPy is not imported yet (the box's command).
os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")
# Where several boxes (or test workers, or a bench's two halves) share the cores, each
# computes on WOLFVILLAGE_THREADS threads: two processes of two threads each on two
# cores spin against each other (OpenBLAS's and CTranslate2's waits), and took 180 s
# for what they do in 72 s with one thread each (2026-12-07, 14 Whisper tests twice).


def compute_threads(default: int = 2) -> int:
    """The threads one model may compute on: WOLFVILLAGE_THREADS, else `default` (the
    box's two cores)."""
    value = os.environ.get("WOLFVILLAGE_THREADS", "")
    return int(value) if value.isdigit() and int(value) > 0 else default


if compute_threads(0):  # only a value the box itself takes reaches OpenBLAS
    os.environ.setdefault("OPENBLAS_NUM_THREADS", str(compute_threads()))
