"""The magic words: the lists shipped as package data and the seeded draw of a night's offer.

The lists are data files, `words/<language>/<level>.txt` beside this module (UTF-8, one word
or short phrase a line). Reading them is the only file access in `rules/`: it reads the
package's own data, never the table's, and the result is cached, so the game itself stays
a pure function of its set-up. The game never calls this module; the set-up does, before
the game starts.
"""

from __future__ import annotations

import random
import unicodedata
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable

from rules.core import SetupError

LANGUAGES: tuple[str, ...] = ("en", "es", "fi", "de", "nl", "fr", "pl")
LEVELS: tuple[str, ...] = ("easy", "medium", "hard")


def normalise(word: str) -> str:
    """The form words are kept and compared in: NFC, no spaces around it."""
    return unicodedata.normalize("NFC", word).strip()


@cache
def word_list(language: str, level: str) -> tuple[str, ...]:
    """Every word of one list, in file order. Raises SetupError for a list that is not there."""
    return read_list(resources.files(__package__).joinpath("words"), language, level)


def read_list(root: Traversable, language: str, level: str) -> tuple[str, ...]:
    """The list `language`/`level` under `root` (the package's `words` folder)."""
    if language not in LANGUAGES or level not in LEVELS:
        raise SetupError(f"there is no word list {language}/{level}")
    try:
        text = root.joinpath(language, f"{level}.txt").read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SetupError(f"the word list {language}/{level} is not installed") from None
    # a word twice would be offered twice; the data's own test forbids it, the draw relies on it
    words = tuple(dict.fromkeys(w for w in (normalise(line) for line in text.splitlines()) if w))
    if not words:
        raise SetupError(f"the word list {language}/{level} is empty")
    return words


def draw_words(rng: random.Random, language: str, level: str, count: int) -> tuple[str, ...]:
    """`count` different words from one list, drawn with the game's generator."""
    words = word_list(language, level)
    if count > len(words):
        raise SetupError(f"the word list {language}/{level} has only {len(words)} words")
    return tuple(rng.sample(words, count))
