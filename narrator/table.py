"""The lobby: who sits at the table, which game they play and how the host set it up."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from narrator.scripts import DEFAULT_RULESET, script_class

PROTOCOLS = ("roll_call", "show_of_hands", "phones")
CLOCKS = (0, 120, 180, 300)  # the debate clock: none, 2, 3 (default) or 5 minutes
LANGUAGES = ("en", "es", "fi", "de", "nl", "fr", "pl")


@dataclass
class TableConfig:
    players: list[str] = field(default_factory=list)
    ruleset: str = DEFAULT_RULESET
    # the game's own set-up, read by its script: a preset, or a custom deck instead of one,
    # and the house rules the host changed
    preset: str | None = "basic"
    deck: dict[str, int] | None = None
    options: dict[str, Any] = field(default_factory=dict)
    protocol: str = "roll_call"
    clock: int = 180
    host: str | None = None  # the host's name when "I play too"
    # a box with a microphone listens at this table (it asks each player to say their name)
    ears: bool = False

    def seat_of(self, name: str) -> int | None:
        """A player's number: their seat, from 1."""
        return self.players.index(name) + 1 if name in self.players else None

    def setup_doc(self, seed: int) -> dict[str, Any]:
        """The rules' set-up document for this table."""
        return script_class(self.ruleset).setup_doc(self, seed)

    def rating(self) -> str | None:
        return script_class(self.ruleset).rating(self)

    def find(self, name: str) -> str | None:
        folded = name.casefold()
        return next((p for p in self.players if p.casefold() == folded), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "players": list(self.players),
            "game": self.ruleset,
            "preset": self.preset,
            "deck": self.deck,
            "options": dict(self.options),
            "protocol": self.protocol,
            "clock": self.clock,
            "host": self.host,
            "ears": self.ears,
        }
