"""Room codes: four letters that are easy to read aloud and type, and never a word.

No vowels (so no word, rude or otherwise, can come out) and none of the letters that are
confused with digits or each other when read from a screen or heard (I, L, O, Q, U, V, Y).
17 letters give 83,521 codes. Wrong guesses are counted per address (`phones.limits`), and
a room that is finished or idle gives its code back (`phones.relay`, docs/store.md).
"""

from __future__ import annotations

import re
import secrets

ALPHABET = "BCDFGHJKMNPRSTWXZ"
LENGTH = 4
_SHAPE = re.compile(f"^[{ALPHABET}]{{{LENGTH}}}$")


def draw_code() -> str:
    """A code drawn at random (it may be taken: the caller claims it in the store)."""
    return "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))


def normalize_code(text: object) -> str | None:
    """What a person typed or said, as a code if it can be one ("b c d f" -> "BCDF")."""
    if not isinstance(text, str):
        return None
    code = re.sub(r"[\s.\-]", "", text).upper()
    return code if _SHAPE.match(code) else None
