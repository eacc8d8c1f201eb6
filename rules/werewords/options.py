"""The table's options for a Werewords game and their checks."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from rules.core import SetupError
from rules.werewords.wordlists import LANGUAGES, LEVELS

WORDS_OFFERED = (1, 10)
DAY_SECONDS = (120, 600)  # the issue: 4 minutes by default, 2 to 10


@dataclass(frozen=True, slots=True)
class Options:
    language: str = "en"  # the word list's language (the narrator speaks the table's own)
    # The app starts on its easiest level; a new table should guess its first word.
    difficulty: str = "easy"
    words_offered: int = 4
    day_seconds: int = 240  # the narrator's timer; the rules only hear "time_up"
    minion: bool = False
    beholder: bool = False

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _whole(key: str, value: Any, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise SetupError(f"option {key!r} must be a whole number, not {value!r}")
    if not low <= value <= high:
        raise SetupError(f"option {key!r} must be from {low} to {high}, not {value}")
    return value


def _one_of(key: str, value: Any, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise SetupError(f"option {key!r} must be one of {', '.join(allowed)}, not {value!r}")
    return value


def build_options(given: Any) -> Options:
    """The host's choices over the defaults; raises SetupError naming the bad one."""
    if given is None:
        given = {}
    if not isinstance(given, dict):
        raise SetupError(f"options must be an object, not {given!r}")
    known = Options.__dataclass_fields__
    merged: dict[str, Any] = {}
    for key, value in given.items():
        if key not in known:
            raise SetupError(f"unknown option {key!r} (known: {', '.join(known)})")
        if key == "language":
            merged[key] = _one_of(key, value, LANGUAGES)
        elif key == "difficulty":
            merged[key] = _one_of(key, value, LEVELS)
        elif key == "words_offered":
            merged[key] = _whole(key, value, *WORDS_OFFERED)
        elif key == "day_seconds":
            merged[key] = _whole(key, value, *DAY_SECONDS)
        else:  # the optional roles
            if not isinstance(value, bool):
                raise SetupError(f"option {key!r} must be true or false, not {value!r}")
            merged[key] = value
    return Options(**merged)
