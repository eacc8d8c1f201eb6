"""Which table an Echo device is running, and how far its voice has spoken.

All of it is kept in the store's pointer table, so a new Lambda instance (or a restarted
web service) finds every device's game where it was:
  alexa:<device>         -> the game id of the device's table
  alexa-spoken:<game>    -> the log version the voice has told the table about
  alexa-clock:<game>     -> when the voice last let time pass (for the debate clock)
  alexa-host:<game>      -> the room code, for the card and the screen
The host's private link is never kept here: links are only ever stored hashed (phones/).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from narrator.session import TableSession
from phones.relay import ROOM_KEY, Relay


@dataclass
class Table:
    game_id: str
    session: TableSession
    code: str
    spoken_version: int
    sent_roster: list[str] = field(default_factory=list)
    # what the store holds already (game log, version, roster): unchanged, not rewritten
    saved: tuple[Any, ...] = ()

    def news(self) -> list[Any]:
        """What the phones did since the voice last spoke."""
        if self.session.version <= self.spoken_version:
            return []
        return self.session.cues_since(self.spoken_version)

    def roster(self) -> list[str]:
        narrator = self.session.narrator
        return list(narrator.game.players if narrator.game else narrator.config.players)


def now() -> float:
    """The wall clock the voice lets time pass by (the tests set their own)."""
    return time.time()


class Tables:
    def __init__(self, relay: Relay, public_url: str,
                 clock: Callable[[], float] | None = None):
        self.relay = relay
        self.store = relay.store
        self.public_url = public_url.rstrip("/")
        self._clock = clock

    def clock(self) -> float:
        return self._clock() if self._clock is not None else now()

    def find(self, device: str) -> Table | None:
        game_id = self.store.lookup(f"alexa:{device}")
        if game_id is None:
            return None
        return self._table(game_id)

    def _table(self, game_id: str) -> Table:
        # the relay checks its cached table against the store (the phones, in another
        # process or Lambda instance, may have moved it on) and rebuilds it if needed
        session = self.relay.session(game_id)
        host = json.loads(self.store.lookup(f"alexa-host:{game_id}") or "{}")
        # versions count within the current log (a new game starts a new one)
        spoken = int(self.store.lookup(f"alexa-spoken:{session.game_id}") or 0)
        roster = json.loads(self.store.lookup(f"alexa-roster:{game_id}") or "[]")
        # the relay gives a finished or long idle table's code back (another room may get
        # it): the screen then shows no code rather than a stranger's room
        code = host.get("code", "")
        if code and self.store.lookup(ROOM_KEY.format(code=code)) != game_id:
            code = ""
        return Table(game_id, session, code, spoken, roster,
                     (session.game_id, spoken, roster))

    def open_room(self, device: str, lang: str) -> Table:
        code, _host_link = self.relay.create_room(lang)  # the device itself is the host
        game_id = self.store.lookup(ROOM_KEY.format(code=code))
        assert game_id is not None
        self.store.bind(f"alexa-host:{game_id}", json.dumps({"code": code}))
        self.store.bind(f"alexa:{device}", game_id)
        table = self._table(game_id)
        table.spoken_version = table.session.version
        return table

    def spoken(self, table: Table) -> None:
        table.spoken_version = table.session.version
        log_id, version, roster = table.saved or (None, None, None)
        # every write is a commit (an fsync on SQLite, a billed write on DynamoDB): most
        # requests change neither
        if (log_id, version) != (table.session.game_id, table.session.version):
            self.store.bind(f"alexa-spoken:{table.session.game_id}", str(table.session.version))
        if roster != table.sent_roster:
            self.store.bind(f"alexa-roster:{table.game_id}", json.dumps(table.sent_roster))
        table.saved = (table.session.game_id, table.session.version, list(table.sent_roster))

    def elapsed(self, table: Table) -> float:
        last = self.store.lookup(f"alexa-clock:{table.game_id}")
        now = self.clock()
        return 0.0 if last is None else max(0.0, now - float(last))

    def clock_mark(self, table: Table) -> None:
        self.store.bind(f"alexa-clock:{table.game_id}", repr(self.clock()))

    def join_url(self, table: Table) -> str:
        return f"{self.public_url}/j/{table.code}"

    def qr_url(self, table: Table) -> str:
        return f"{self.public_url}/qr/{table.code}.png"
