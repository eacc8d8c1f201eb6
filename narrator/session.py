"""A table that survives: the narrator plus its stored log.

Every accepted input is written to the store *before* its cues are returned, so whatever a
player heard has been kept. A table is rebuilt by replaying its stored inputs. The store is
passed in (anything with the `store.GameStore` methods) so that the narrator itself never
imports a database; the adapters choose the store.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from narrator.cues import Input, input_from_json, input_to_json
from narrator.narrator import Narrator, Reply


class LogStore(Protocol):
    def create(self, game_id: str, setup: dict[str, Any]) -> Any: ...

    def append(self, game_id: str, version: int, entry: dict[str, Any]) -> int: ...

    def load(self, game_id: str) -> Any: ...

    def finish(self, game_id: str) -> None: ...


@dataclass
class TableSession:
    store: LogStore
    game_id: str
    narrator: Narrator
    version: int

    @classmethod
    def create(cls, store: LogStore, game_id: str, narrator: Narrator) -> TableSession:
        store.create(game_id, narrator.setup_doc())
        return cls(store, game_id, narrator, 0)

    @classmethod
    def resume(cls, store: LogStore, game_id: str) -> TableSession:
        stored = store.load(game_id)
        inputs = [input_from_json(entry) for entry in stored.entries]
        return cls(store, game_id, Narrator.restore(stored.setup, inputs), stored.version)

    def handle(self, inp: Input) -> Reply:
        was_over = self.narrator.phase == "over"
        reply = self.narrator.handle(inp)
        if reply.accepted:
            # committed before anyone hears the answer; a conflict means another writer
            # moved the table on, and the caller must reload (the store raises Conflict)
            self.version = self.store.append(self.game_id, self.version, input_to_json(inp))
            if self.narrator.phase == "over" and not was_over:
                self.store.finish(self.game_id)
        return reply
