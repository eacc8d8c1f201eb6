"""The lobby: who sits at the table and how the host set the game up."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rules.wolf_village.balance import rating
from rules.wolf_village.presets import MAX_PLAYERS, PRESETS

PROTOCOLS = ("roll_call", "show_of_hands", "phones")
CLOCKS = (0, 120, 180, 300)  # the debate clock: none, 2, 3 (default) or 5 minutes
LANGUAGES = ("en", "es", "fi", "de", "nl", "fr", "pl")


@dataclass
class TableConfig:
    players: list[str] = field(default_factory=list)
    preset: str | None = "basic"
    deck: dict[str, int] | None = None  # a custom deck instead of a preset
    options: dict[str, Any] = field(default_factory=dict)  # house rules the host changed
    protocol: str = "roll_call"
    clock: int = 180
    host: str | None = None  # the host's name when "I play too"

    def setup_doc(self, seed: int) -> dict[str, Any]:
        """The rules' set-up document for this table."""
        options = dict(self.options)
        options["show_of_hands"] = self.protocol == "show_of_hands"
        doc: dict[str, Any] = {"seed": seed, "players": list(self.players), "options": options}
        if self.deck is not None:
            doc["deck"] = dict(self.deck)
        else:
            doc["preset"] = self.preset
        return doc

    def deck_for_count(self) -> dict[str, int] | None:
        if self.deck is not None:
            return self.deck
        spec = PRESETS[self.preset or "basic"]
        if not spec.min_players <= len(self.players) <= spec.max_players:
            return None
        return spec.deck(len(self.players))

    def rating(self) -> str | None:
        deck = self.deck_for_count()
        return None if deck is None else rating(deck)

    def is_full(self) -> bool:
        return len(self.players) >= MAX_PLAYERS

    def find(self, name: str) -> str | None:
        folded = name.casefold()
        return next((p for p in self.players if p.casefold() == folded), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "players": list(self.players),
            "preset": self.preset,
            "deck": self.deck,
            "options": dict(self.options),
            "protocol": self.protocol,
            "clock": self.clock,
            "host": self.host,
        }
