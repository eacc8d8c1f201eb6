"""Helpers for making speech WAVs in tests: Piper (loaded once per process) and espeak-ng
speakers, cached on disk by voice and text, plus noise and silence to mix in."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import threading
from functools import cache
from pathlib import Path

import numpy as np

from local_voice.voices import Audio, EspeakVoice, PiperVoiceEngine

ROOT = Path(__file__).resolve().parents[1]
WOLFVILLAGE = [sys.executable, "-m", "wolfvillage.cli"]
# different speakers: Piper's joe and a few espeak-ng voices
ESPEAK_SPEAKERS = ("en-us+m3", "en-us+f2", "en-gb")
SPEAKERS = ("piper", *ESPEAK_SPEAKERS)


@cache
def piper() -> PiperVoiceEngine:
    return PiperVoiceEngine()


def piper_exactly(text: str) -> Audio:
    """Piper's voice without its random noise: the same text is the same audio in every
    run and whatever was synthesised before (its ONNX noise generator is seeded per
    process and advances with every call, so a test's clip otherwise changed from run
    to run and with the order the tests ran in)."""
    from piper import SynthesisConfig

    engine = piper()
    quiet = SynthesisConfig(noise_scale=0.0, noise_w_scale=0.0)
    chunks = [c.audio_int16_array for c in engine.voice.synthesize(text, quiet)]
    samples = np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.int16)
    return Audio(samples.astype(np.int16), engine.voice.config.sample_rate)


def cli_env(tmp: Path | None = None) -> dict[str, str]:
    """The environment for `wolfvillage` subprocesses: no user config, a private cache."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT)
    if tmp is not None:
        env["XDG_CACHE_HOME"] = str(tmp / "cache")
        env["XDG_CONFIG_HOME"] = str(tmp / "config")
        env["XDG_DATA_HOME"] = str(tmp / "data")
    return env


def synthesize(text: str, speaker: str) -> Audio:
    if speaker == "piper":
        return piper_exactly(text)
    lang, _, variant = speaker.partition("+")
    return EspeakVoice(lang, variant).synthesize(text)


def speech(folder: Path, text: str, speaker: str) -> Audio:
    """`text` said by `speaker`, from the folder's cache if it was made before."""
    path = speech_wav(folder, text, speaker)
    return Audio.from_wav(path.read_bytes())


def speech_wav(folder: Path, text: str, speaker: str, via_cli: bool = False) -> Path:
    """A WAV of `text` said by `speaker`; `via_cli` makes Piper's with `wolfvillage say`."""
    folder.mkdir(parents=True, exist_ok=True)
    key = hashlib.sha256(f"{speaker}\n{via_cli}\n{text}".encode()).hexdigest()[:20]
    path = folder / f"{speaker.replace('+', '_')}-{key}.wav"
    if path.exists():
        return path
    # written whole under another name, then renamed: test files on other workers read the
    # same folder (conftest.shared_speech)
    part = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.part")
    if via_cli:
        assert speaker == "piper"
        done = subprocess.run([*WOLFVILLAGE, "say", text, "-o", str(part)], cwd=ROOT,
                              env=cli_env(folder), capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
    else:
        part.write_bytes(synthesize(text, speaker).to_wav())
    part.replace(path)
    return path


def padded(audio: Audio, lead: float = 0.0, trail: float = 0.0) -> Audio:
    """Leading and trailing silence around the speech."""
    before = np.zeros(int(lead * audio.rate), dtype=np.int16)
    after = np.zeros(int(trail * audio.rate), dtype=np.int16)
    return Audio(np.concatenate([before, audio.samples, after]), audio.rate)


def with_noise(audio: Audio, snr_db: float, seed: int = 0) -> Audio:
    """White noise over the whole recording at `snr_db` below the speech's power."""
    rng = np.random.default_rng(seed)
    signal = audio.samples.astype(np.float64)
    voiced = signal[np.abs(signal) > 100]
    power = float(np.mean(voiced**2)) if len(voiced) else 1.0
    noise = rng.normal(0.0, np.sqrt(power / 10 ** (snr_db / 10)), len(signal))
    mixed = np.clip(signal + noise, -32768, 32767).astype(np.int16)
    return Audio(mixed, audio.rate)


CHATTER = [("why would the wolf accuse the baker", "en-us+f2"),
           ("can we go around the table one more time", "en-gb")]


def vote_in_babble(folder: Path, text: str, lead: float = 0.6, rate: int = 16000,
                   after: float | None = None, spoken: bool = True
                   ) -> tuple[np.ndarray, np.ndarray, slice]:
    """`text` by Piper with two espeak-ng talkers 10 dB under it over the whole clip,
    `lead` seconds of chatter before it and `after` after it (`lead` unless given); not
    `spoken`: the chatter alone, at that level. (The mix, the vote alone, where it is.)"""
    def rms(x: np.ndarray) -> float:
        return float(np.sqrt(np.mean(x.astype(np.float64) ** 2)))

    vote = speech(folder, text, "piper").resampled(rate).samples
    pad = int(lead * rate)
    behind = pad if after is None else int(after * rate)
    target = np.concatenate([np.zeros(pad), vote.astype(np.float64), np.zeros(behind)])
    chatter = np.zeros_like(target)
    for line, voice in CHATTER:
        talker = speech(folder, line, voice).resampled(rate).samples.astype(np.float64)
        chatter += np.resize(talker / max(rms(talker), 1.0), len(target))
    gain = rms(vote[np.abs(vote) > 300]) / rms(chatter) / 10 ** 0.5
    mix = np.clip((target if spoken else 0.0) + gain * chatter, -32768, 32767
                  ).astype(np.int16)
    return mix, target, slice(pad, pad + len(vote))


def white_noise(seconds: float, level: float = 3000.0, rate: int = 16000, seed: int = 1
                ) -> Audio:
    rng = np.random.default_rng(seed)
    samples = np.clip(rng.normal(0.0, level, int(seconds * rate)), -32768, 32767)
    return Audio(samples.astype(np.int16), rate)


def is_valid_wav(path: Path, min_seconds: float = 0.0) -> bool:
    """A readable mono 16-bit WAV with at least `min_seconds` of audio."""
    import wave

    with wave.open(str(path), "rb") as handle:
        ok = handle.getsampwidth() == 2 and handle.getnchannels() == 1
        return ok and handle.getnframes() / handle.getframerate() >= min_seconds
