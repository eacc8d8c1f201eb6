"""The host's choices for a One Night game and their defaults.

One choice only: how long the debate lasts before everybody points («normalmente de 3 a 5
minutos»: 2, 3, 4 or 5 minutes, or no clock at all, `null`). The rules never read a
clock; the narrator runs the debate from this value and opens the vote when it is over.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from rules.core import SetupError

DEBATE_MINUTES: tuple[int | None, ...] = (2, 3, 4, 5, None)
DEFAULT_DEBATE_MINUTES = 5


@dataclass(frozen=True, slots=True)
class Options:
    debate_minutes: int | None = DEFAULT_DEBATE_MINUTES

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def build_options(given: Any) -> Options:
    """The host's choices (`options` of a set-up document) over the defaults."""
    if given is None:
        return Options()
    if not isinstance(given, dict):
        raise SetupError(f"options must be an object, not {given!r}")
    for key in given:
        if key not in Options.__dataclass_fields__:
            known = ", ".join(Options.__dataclass_fields__)
            raise SetupError(f"unknown option {key!r} (known: {known})")
    minutes = given.get("debate_minutes", DEFAULT_DEBATE_MINUTES)
    whole = minutes is None or (isinstance(minutes, int) and not isinstance(minutes, bool))
    if not whole or minutes not in DEBATE_MINUTES:
        raise SetupError(
            f"debate_minutes must be 2, 3, 4, 5 or null (no clock), not {minutes!r}"
        )
    return Options(debate_minutes=minutes)
