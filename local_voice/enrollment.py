"""Players' names as the players say them: one short clip each, kept per table.

A name spelled one way is often said another ("Siobhan" is "Shivawn", "Niamh" is
"Neeve"). When a player says their own name once, the box keeps the clip
(`Voiceprints.add`) and gives it to its recognisers (`enroll(name, samples, lang)`):
PocketSphinx adds the pronunciation its phone loop heard beside the spelled one, and
Whisper scores the spellings it writes for the clip beside the real one. The clips live
in the data folder, one folder per game (`Voiceprints.for_game`), so a restarted box
knows them again; `wolfvillage hear --enroll DIR` reads `DIR/<Name>.wav` the same way
(`Voiceprints.folder_of`).
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from local_voice.voices import Audio

RATE = 16000
MIN_SECONDS, MAX_SECONDS = 0.2, 5.0
_UNSAFE = re.compile(r"[/\\\x00]|^\.|^$")


class BadClip(ValueError):
    """A clip that cannot be a player saying their name (empty, too long, not a WAV)."""


def _check_name(name: str) -> str:
    name = name.strip()
    if _UNSAFE.search(name) or len(name) > 60:
        raise BadClip(f"{name!r} cannot be a file name for a clip")
    return name


def clip_samples(audio: Audio) -> np.ndarray:
    """The clip as 16 kHz mono int16, checked: at least 0.2 s of sound, at most 5 s."""
    audio = audio.resampled(RATE)
    samples = audio.samples.astype(np.int16)
    seconds = len(samples) / RATE
    if seconds > MAX_SECONDS:
        raise BadClip(f"a name clip is at most {MAX_SECONDS:g} s (this one is "
                      f"{seconds:.1f} s)")
    loud = np.flatnonzero(np.abs(samples.astype(np.int32)) > 300)
    if not len(loud) or (loud[-1] - loud[0]) / RATE < MIN_SECONDS:
        raise BadClip("the clip has no speech in it")
    return samples


@dataclass
class Voiceprints:
    """The clips of one table: `<folder>/<Name>.wav`, 16 kHz mono."""

    folder: Path

    @classmethod
    def for_game(cls, game_id: str, data_dir: Path | None = None) -> Voiceprints:
        """The box's store for a game, in the data folder (by game id and name)."""
        if data_dir is None:
            from platformdirs import user_data_dir

            data_dir = Path(user_data_dir("wolfvillage"))
        return cls(Path(data_dir) / "voiceprints" / _check_name(game_id))

    @classmethod
    def folder_of(cls, folder: str | Path) -> Voiceprints:
        """Clips someone recorded (`hear --enroll DIR`): the folder must exist."""
        path = Path(folder)
        if not path.is_dir():
            raise FileNotFoundError(f"no folder of name clips at {path}")
        return cls(path)

    def path(self, name: str) -> Path:
        return self.folder / f"{_check_name(name)}.wav"

    def add(self, name: str, audio: Audio) -> np.ndarray:
        """Keep `name`'s clip (replacing an older one); returns its samples."""
        target = self.path(name)
        samples = clip_samples(audio)
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_bytes(Audio(samples, RATE).to_wav())
        tmp.replace(target)
        return samples

    def remove(self, name: str) -> None:
        self.path(name).unlink(missing_ok=True)

    def get(self, name: str) -> np.ndarray | None:
        """`name`'s clip, None if there is none; BadClip if the file is not one."""
        path = self.path(name)
        if not path.is_file():
            return None
        try:
            audio = Audio.from_wav(path.read_bytes())
        except (EOFError, ValueError) as problem:
            raise BadClip(f"{path} is not a 16-bit WAV file: {problem}") from problem
        except Exception as problem:  # wave.Error
            raise BadClip(f"{path} is not a WAV file: {problem}") from problem
        return clip_samples(audio)

    def names(self) -> list[str]:
        if not self.folder.is_dir():
            return []
        return sorted(p.stem for p in self.folder.glob("*.wav") if not p.name.startswith("."))

    def items(self, names: list[str] | None = None) -> Iterator[tuple[str, np.ndarray]]:
        """(name, samples) for every clip (of `names` only, if given)."""
        for name in names if names is not None else self.names():
            samples = self.get(name)
            if samples is not None:
                yield name, samples
