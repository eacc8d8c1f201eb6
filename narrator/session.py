"""A table that survives: the narrator plus its stored log.

Every accepted input is written to the store *before* its cues are returned, so whatever a
player heard has been kept. A table is rebuilt by replaying its stored inputs. The store is
passed in (anything with the `store.GameStore` methods) so that the narrator itself never
imports a database; the adapters choose the store.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from narrator.cues import Heard, Host, Input, input_from_json, input_to_json
from narrator.narrator import Narrator, Reply


class LogStore(Protocol):
    def create(self, game_id: str, setup: dict[str, Any]) -> Any: ...

    def extend(self, game_id: str, version: int, entries: list[dict[str, Any]], *,
               bind: Mapping[str, str | None] | None = None) -> int: ...

    def load(self, game_id: str) -> Any: ...

    def finish(self, game_id: str) -> None: ...

    def bind(self, key: str, game_id: str | None) -> None: ...

    def lookup(self, key: str) -> str | None: ...


# the pointers an accepted input makes (a joined player's private link), from the table
# just after it: stored in the same write as the input
Binder = Callable[["TableSession"], Mapping[str, str | None]]


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
        game_id = current_log(store, game_id)
        stored = store.load(game_id)
        inputs = [input_from_json(entry) for entry in stored.entries]
        return cls(store, game_id, Narrator.restore(stored.setup, inputs), stored.version)

    def handle(self, inp: Input, bind: Binder | None = None) -> Reply:
        if self.narrator.phase == "over" and _is_new_game(inp):
            return self._next_game()
        reply = self.narrator.handle(inp)
        if reply.accepted:
            self.record(self.version, [inp], bind(self) if bind else None)
        return reply

    def record(self, start: int, inputs: list[Input],
               bind: Mapping[str, str | None] | None = None) -> None:
        """Store `inputs`, which the narrator took (all accepted) after `version` `start`,
        with the pointers they make, in one write.

        Committed before anyone hears the answer; a conflict means another writer moved
        the table on, and the caller must reload (the store raises Conflict)."""
        if not inputs:
            return
        self.version = self.store.extend(self.game_id, start,
                                         [input_to_json(inp) for inp in inputs], bind=bind)
        if self.narrator.phase == "over":
            # a finished game's log is sealed (and expires on DynamoDB)
            self.store.finish(self.game_id)

    def cues_since(self, version: int) -> list[Any]:
        """What the table would have heard from the inputs stored after `version`.

        The phones move the table on between two Alexa requests; the voice catches up by
        replaying the stored log up to what it last said and collecting the cues after it.
        """
        stored = self.store.load(self.game_id)
        inputs = [input_from_json(entry) for entry in stored.entries]
        version = max(0, min(version, len(inputs)))
        narrator = Narrator.restore(stored.setup, inputs[:version])
        cues: list[Any] = []
        for inp in inputs[version:]:
            cues += narrator.handle(inp).cues
        return cues

    def _next_game(self) -> Reply:
        """A new game at the same table is a new log that starts with the same lobby."""
        old = self.narrator
        fresh = Narrator(old.lang, seed=old.seed + 1, call_pause=old.call_pause)
        lobby = old.lobby_inputs()
        for inp in lobby:
            fresh.handle(inp)
        old_id = self.game_id
        self.game_id = new_log_id()
        self.store.create(self.game_id, fresh.setup_doc())
        # links and room codes name the first log: let them find the table's current one
        self.store.bind(successor_key(old_id), self.game_id)
        self.version = 0
        self.narrator = fresh
        # the new game's own "a new game" is in its log too, so a restored table says it
        reply = fresh.handle(Host("new_game"))
        self.record(0, [*lobby, Host("new_game")])
        return Reply(True, reply.cues)


def successor_key(game_id: str) -> str:
    return f"next:{game_id}"


def current_log(store: LogStore, game_id: str) -> str:
    """Follow a table's new games from the log a link or a device points at."""
    for _ in range(10_000):
        nxt = store.lookup(successor_key(game_id))
        if nxt is None:
            return game_id
        game_id = nxt
    raise RuntimeError("a loop of successor logs")


def _is_new_game(inp: Input) -> bool:
    return (isinstance(inp, Heard) and inp.intent == "NewGameIntent") or (
        isinstance(inp, Host) and inp.command == "new_game"
    )


def new_log_id() -> str:
    # the same shape as store.new_game_id (never a leading "-": it goes on command lines);
    # the narrator does not import the store
    while (log_id := secrets.token_urlsafe(12)).startswith("-"):
        pass
    return log_id
