"""The offline narrator box (DESIGN.md)."""

import os

# OpenBLAS's threads spin for about 2^28 cycles (0.1 s) after each product, waiting for
# more work; the box's NumPy products (log-mel, whisper_decoder) are followed at once by
# CTranslate2 and PocketSphinx on the same two cores, which the spinning then slows:
# Whisper's encoder took 150 ms instead of 106-127 (round 10). 2^4 cycles: they sleep.
# Read when OpenBLAS starts, so only if NumPy is not imported yet (the box's command).
os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")
