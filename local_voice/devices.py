"""Microphone and speaker (sounddevice/PortAudio), half-duplex.

While the box speaks, the microphone's frames are dropped (plus a short tail for the
room's echo), so the box never hears itself.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import closing
from typing import Any

import numpy as np

from local_voice.hearing import FRAME_BYTES, Hearing, Listening, Segmenter, hearings
from local_voice.recognizers import SAMPLE_RATE
from local_voice.voices import Audio

ECHO_TAIL = 0.25  # seconds ignored after the speaker stops


class NoAudioDevice(RuntimeError):
    pass


def _device(value: str) -> Any:
    if not value:
        return None
    return int(value) if value.isdigit() else value


def check_devices(input_device: str = "", output_device: str = "") -> tuple[str, str]:
    """The names of the devices that would be used, or NoAudioDevice in plain words."""
    try:
        import sounddevice as sd

        devices = sd.query_devices()
    except (OSError, ImportError) as problem:
        raise NoAudioDevice(f"the sound system is not available ({problem})") from problem
    if not len(devices):
        raise NoAudioDevice("no microphone or speaker is connected")
    try:
        mic = sd.query_devices(_device(input_device), "input")
        out = sd.query_devices(_device(output_device), "output")
    except (ValueError, sd.PortAudioError) as problem:
        raise NoAudioDevice(f"no usable microphone or speaker ({problem})") from problem
    return str(mic["name"]), str(out["name"])


class Speaker:
    """Plays audio; tells the microphone when it is talking."""

    def __init__(self, device: str = ""):
        self.device = _device(device)
        self.talking = threading.Event()
        self.quiet_since = 0.0

    def play(self, audio: Audio) -> None:
        import sounddevice as sd

        self.talking.set()
        try:
            sd.play(audio.samples, audio.rate, device=self.device, blocking=True)
        finally:
            self.quiet_since = time.monotonic()
            self.talking.clear()

    def busy(self) -> bool:
        return self.talking.is_set() or time.monotonic() - self.quiet_since < ECHO_TAIL


class Microphone:
    """16 kHz mono frames into the VAD; whole utterances out."""

    def __init__(self, speaker: Speaker, device: str = "", trailing: float = 0.5):
        self.speaker = speaker
        self.device = _device(device)
        self.trailing = trailing
        self.frames: queue.Queue[bytes] = queue.Queue()

    def _callback(self, data: Any, frames: int, when: Any, status: Any) -> None:
        if not self.speaker.busy():
            self.frames.put(bytes(data))

    def _frames(self, timeout: float) -> Iterator[bytes]:
        """30 ms frames from the microphone for `timeout` seconds (or until the caller
        stops asking)."""
        import sounddevice as sd

        pending = b""
        deadline = time.monotonic() + timeout
        with sd.RawInputStream(samplerate=SAMPLE_RATE, channels=1, dtype="int16",
                               blocksize=FRAME_BYTES // 2, device=self.device,
                               callback=self._callback):
            while time.monotonic() < deadline:
                try:
                    pending += self.frames.get(timeout=0.1)
                except queue.Empty:
                    continue
                while len(pending) >= FRAME_BYTES:
                    frame, pending = pending[:FRAME_BYTES], pending[FRAME_BYTES:]
                    yield frame

    def utterance(self, timeout: float) -> Audio | None:
        """The next thing said within `timeout` seconds, or None."""
        segmenter = Segmenter(trailing=self.trailing)
        for frame in self._frames(timeout):
            speech = segmenter.feed(frame)
            if speech:
                return Audio(np.frombuffer(speech, dtype=np.int16), SAMPLE_RATE)
        return None

    def hear(self, timeout: float, listening: Callable[[], Listening]) -> Hearing | None:
        """The next thing said, understood while it is said: the recogniser is fed each
        frame the VAD lets through, so at the end of speech only its last step is left."""
        heard = hearings(self._frames(timeout), listening, Segmenter(trailing=self.trailing))
        with closing(heard):  # stops the microphone's stream as soon as one is heard
            return next(heard, None)
