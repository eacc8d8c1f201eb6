"""The spectral gate that takes the steady chatter out of a vote in babble (local_voice.denoise),
on real speech: a Piper vote with two espeak-ng talkers 10 dB under it."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from local_voice.denoise import spectral_gate
from tests.voice_fixtures import speech

RATE = 16000


def _rms(x: np.ndarray) -> float:
    return float(np.sqrt(np.mean(x.astype(np.float64) ** 2)))


def _vote_in_babble(folder: Path) -> tuple[np.ndarray, np.ndarray, slice]:
    """(the mix, the vote alone, where the vote is) with 0.6 s of chatter either side."""
    vote = speech(folder, "I vote for Tamsin", "piper").resampled(RATE).samples
    lead = int(0.6 * RATE)
    target = np.concatenate([np.zeros(lead), vote.astype(np.float64), np.zeros(lead)])
    chatter = np.zeros_like(target)
    for line, voice in [("why would the wolf accuse the baker", "en-us+f2"),
                        ("can we go around the table one more time", "en-gb")]:
        talker = speech(folder, line, voice).resampled(RATE).samples.astype(np.float64)
        chatter += np.resize(talker / max(_rms(talker), 1.0), len(target))
    gain = _rms(vote[np.abs(vote) > 300]) / _rms(chatter) / 10 ** 0.5
    mix = np.clip(target + gain * chatter, -32768, 32767).astype(np.int16)
    return mix, target, slice(lead, lead + len(vote))


def test_the_gate_keeps_the_loudest_talker_and_quiets_the_chatter_around_them(tmp_path):
    mix, target, where = _vote_in_babble(tmp_path)
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
