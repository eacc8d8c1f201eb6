"""The box's settings: a TOML file with sensible defaults for everything.

    language = "en"            # en, es, fi, de, nl, fr, pl
    port = 8080                # the phone relay on the local network
    store = ""                 # sqlite:///path.db (default: the data folder)

    [voice]
    piper = { es = "/home/pi/voices/es_ES-davefx-medium.onnx" }   # .onnx per language

    [recognizer]
    engine = "pocketsphinx"    # the first pass: PocketSphinx (English) or "vosk"
    model = ""                 # a Vosk model folder (needed for vosk)
    whisper_model = "auto"     # the back-up: "tiny.en", "base", a CTranslate2 Whisper
                               # folder, or "none"; auto: tiny.en for English, base
                               # for the other languages
    whisper_compute = "float32"  # or "int8": faster and about 90-200 MB smaller, but
                               # the confidence is fitted on float32's numbers, and int8
                               # gives other numbers on every kind of CPU
    confidence = 0.5           # below this, the narrator asks "Did you say ...?"

    [audio]
    input = ""                 # a device name or number (default: the system's)
    output = ""
    trailing_silence = 0.5     # seconds of silence that end an utterance

    [game]
    call_pause = 12            # seconds a called role is given at night
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# CTranslate2's arithmetic for Whisper: float32, what the fused confidence is fitted on,
# or int8 (faster, smaller, other numbers on every CPU)
from local_voice.whisper import COMPUTE_TYPES as WHISPER_COMPUTE
from narrator.table import LANGUAGES


@dataclass
class BoxConfig:
    language: str = "en"
    port: int = 8080
    store: str = ""
    piper: dict[str, str] = field(default_factory=dict)
    engine: str = "pocketsphinx"
    model: str = ""
    whisper_model: str = "auto"
    whisper_compute: str = WHISPER_COMPUTE[0]
    confidence: float = 0.5
    input_device: str = ""
    output_device: str = ""
    trailing_silence: float = 0.5
    call_pause: float = 12.0

    @classmethod
    def load(cls, path: str | Path | None) -> BoxConfig:
        if path is None:
            from platformdirs import user_config_dir

            path = Path(user_config_dir("wolfvillage")) / "box.toml"
            if not path.exists():
                return cls()
        with open(path, "rb") as handle:
            doc = tomllib.load(handle)
        return cls.from_dict(doc)

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> BoxConfig:
        voice = doc.get("voice", {})
        rec = doc.get("recognizer", {})
        audio = doc.get("audio", {})
        game = doc.get("game", {})
        config = cls(
            language=doc.get("language", "en"),
            port=int(doc.get("port", 8080)),
            store=doc.get("store", ""),
            piper=dict(voice.get("piper", {})),
            engine=rec.get("engine", "pocketsphinx"),
            model=rec.get("model", ""),
            whisper_model=str(rec.get("whisper_model", "auto")),
            whisper_compute=str(rec.get("whisper_compute", WHISPER_COMPUTE[0])),
            confidence=float(rec.get("confidence", 0.5)),
            input_device=str(audio.get("input", "")),
            output_device=str(audio.get("output", "")),
            trailing_silence=float(audio.get("trailing_silence", 0.5)),
            call_pause=float(game.get("call_pause", 12)),
        )
        config.validate()
        return config

    def validate(self) -> None:
        if self.language not in LANGUAGES:
            raise ValueError(f"language must be one of {', '.join(LANGUAGES)}")
        if self.engine not in ("pocketsphinx", "vosk"):
            raise ValueError("recognizer.engine must be pocketsphinx or vosk")
        if self.engine == "vosk" and not self.model:
            raise ValueError("recognizer.model must name a Vosk model folder for vosk")
        whisper = self.whisper()
        if whisper == "tiny.en" and self.language != "en":
            raise ValueError(f"recognizer.whisper_model tiny.en is English-only: for "
                             f"language {self.language!r} use \"base\" (or \"auto\")")
        if (self.engine == "pocketsphinx" and self.language != "en" and not self.model
                and whisper is None):
            raise ValueError(
                "PocketSphinx ships an English model only: for other languages keep "
                "recognizer.whisper_model = \"auto\" (the multilingual base model), or set "
                "recognizer.engine = \"vosk\" and recognizer.model to a Vosk model folder"
            )
        if self.whisper_compute not in WHISPER_COMPUTE:
            raise ValueError(f"recognizer.whisper_compute must be one of "
                             f"{', '.join(WHISPER_COMPUTE)}")
        if not 0 <= self.confidence <= 1:
            raise ValueError("recognizer.confidence is between 0 and 1")

    def whisper(self) -> str | None:
        """The Whisper back-up to load: "tiny.en", "base", a folder, or None."""
        value = self.whisper_model.strip()
        if value in ("", "none", "off"):
            return None
        if value == "auto":
            return "tiny.en" if self.language == "en" else "base"
        return value
