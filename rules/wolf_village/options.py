"""House rules (seed 000) and their defaults."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from rules.core import SetupError

NIGHT_MODES = ("narrated", "all_at_once", "pass_phones")


@dataclass(frozen=True, slots=True)
class Options:
    reveal_dead_roles: bool = True
    doctor_self_protect: bool = True
    doctor_repeat: bool = False
    minion_knows_wolves: bool = True
    sheriff: bool = False
    night_mode: str = "narrated"
    # Show of hands: the table points and reports one verdict (who had most votes, a tie,
    # or nobody) instead of one vote per player; the sheriff's double vote is counted at
    # the table (seed 000: «En la mesa se cuenta así, porque la votación es a mano alzada»).
    show_of_hands: bool = False

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


_BOOLEAN = {f.name for f in fields(Options) if f.type in ("bool", bool)}


def build_options(base: dict[str, Any], given: dict[str, Any] | None) -> Options:
    """Merge the set-up's own defaults (`base`) with the host's choices (`given`)."""
    merged = dict(base)
    if given is None:
        given = {}
    if not isinstance(given, dict):
        raise SetupError(f"options must be an object of house rules, not {given!r}")
    for key, value in given.items():
        if key not in Options.__dataclass_fields__:
            known = ", ".join(Options.__dataclass_fields__)
            raise SetupError(f"unknown option {key!r} (known: {known})")
        if key in _BOOLEAN and not isinstance(value, bool):
            raise SetupError(f"option {key!r} must be true or false, not {value!r}")
        if key == "night_mode" and value not in NIGHT_MODES:
            raise SetupError(
                f"night_mode must be one of {', '.join(NIGHT_MODES)}, not {value!r}"
            )
        merged[key] = value
    return Options(**merged)
