"""Room codes: four letters that are easy to read aloud and type, and never a word.

No vowels (so no word, rude or otherwise, can come out) and none of the letters that are
confused with digits or each other when read from a screen or heard (I, L, O, Q, U, V, Y).
17 letters give 83,521 codes; guessing is rate-limited by the web layer.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable

ALPHABET = "BCDFGHJKMNPRSTWXZ"
LENGTH = 4
_SHAPE = re.compile(f"^[{ALPHABET}]{{{LENGTH}}}$")


def new_code(taken: Callable[[str], bool], attempts: int = 200) -> str:
    for _ in range(attempts):
        code = "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))
        if not taken(code):
            return code
    raise RuntimeError("no free room code; too many rooms are open")


def normalize_code(text: object) -> str | None:
    """What a person typed or said, as a code if it can be one ("b c d f" -> "BCDF")."""
    if not isinstance(text, str):
        return None
    code = re.sub(r"[\s.\-]", "", text).upper()
    return code if _SHAPE.match(code) else None
