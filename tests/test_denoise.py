"""The spectral gate that takes the steady chatter out of a vote in babble (local_voice.denoise),
on real speech: a Piper vote with two espeak-ng talkers 10 dB under it."""

from __future__ import annotations

import numpy as np

from local_voice.denoise import spectral_gate
from tests.voice_fixtures import vote_in_babble

RATE = 16000


def _rms(x: np.ndarray) -> float:
    return float(np.sqrt(np.mean(x.astype(np.float64) ** 2)))


def test_the_gate_keeps_the_loudest_talker_and_quiets_the_chatter_around_them(tmp_path):
    mix, target, where = vote_in_babble(tmp_path, "I vote for Tamsin")
    gated = spectral_gate(mix, RATE)
    assert len(gated) == len(mix)
    before = slice(0, where.start)
    # the chatter alone (before the vote) loses at least 6 dB more than the vote does
    chatter_drop = 20 * np.log10(_rms(mix[before]) / max(_rms(gated[before]), 1e-9))
    vote_drop = 20 * np.log10(_rms(mix[where]) / max(_rms(gated[where]), 1e-9))
    assert chatter_drop - vote_drop >= 6.0, (chatter_drop, vote_drop)
    # and what is left of the vote is still the vote: correlated with it, not with silence
    kept = np.corrcoef(gated[where], target[where])[0, 1]
    assert kept > 0.8, kept


def test_the_gate_leaves_a_short_or_silent_input_alone():
    short = np.arange(500, dtype=np.int16)
    assert np.array_equal(spectral_gate(short), short.astype(np.float64))
    silence = np.zeros(RATE, dtype=np.int16)
    assert not np.any(spectral_gate(silence))
