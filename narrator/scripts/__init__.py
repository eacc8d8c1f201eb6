"""The scripts: one per ruleset, each saying how the narrator runs that game."""

from __future__ import annotations

from functools import cache
from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from narrator.scripts.base import Script

DEFAULT_RULESET = "wolf-village"

# ruleset name -> the module and class of its script (imported when first asked for)
SCRIPTS: dict[str, str] = {
    "wolf-village": "narrator.scripts.wolf_village:WolfVillageScript",
    "one-night": "narrator.scripts.one_night:OneNightScript",
    "werewords": "narrator.scripts.werewords:WerewordsScript",
}


@cache
def script_class(ruleset: str) -> type[Script]:
    """The script of a ruleset; KeyError for a game the narrator cannot run."""
    module, _, name = SCRIPTS[ruleset].partition(":")
    return getattr(import_module(module), name)


def lobby_intents() -> tuple[str, ...]:
    """Every game's own set-up intents (the lobby listens for all of them)."""
    seen: dict[str, None] = {}
    for ruleset in SCRIPTS:
        seen.update(dict.fromkeys(script_class(ruleset).lobby_intents))
    return tuple(seen)
