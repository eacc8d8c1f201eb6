"""The table as the store holds it, for the leak tests' checks: the narrator rebuilt from
the stored set-up and accepted inputs.

A leak test asks for the truth after every step of a whole game; rebuilding it from the
first input each time made the checks quadratic (a fifth of a game's time). The log is
append-only, so the narrator kept from the last call takes only the inputs stored since; a
log that does not extend the one already taken (another set-up, or a table started over)
is rebuilt from scratch."""

from __future__ import annotations

from typing import Any

from narrator.cues import input_from_json
from narrator.narrator import Narrator
from store import open_store


class StoredTruth:
    def __init__(self, url: str, code: str):
        self.url, self.code = url, code
        self._setup: dict[str, Any] | None = None
        self._entries: list[Any] = []
        self._narrator: Narrator | None = None

    def __call__(self) -> Narrator:
        """The narrator as stored now (do not change it: it is kept for the next call)."""
        store = open_store(self.url)
        try:
            stored = store.load(store.lookup(f"room:{self.code}"))
        finally:
            store.close()
        entries = list(stored.entries)
        known = len(self._entries)
        if (self._narrator is None or stored.setup != self._setup or len(entries) < known
                or entries[:known] != self._entries):
            self._narrator = Narrator.restore(stored.setup,
                                              [input_from_json(e) for e in entries])
        else:
            for entry in entries[known:]:
                self._narrator.handle(input_from_json(entry))
        self._setup, self._entries = stored.setup, entries
        return self._narrator
