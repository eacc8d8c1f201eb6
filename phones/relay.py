"""The phone relay without HTTP: rooms, joining, links, private views and choices.

Every operation goes through the table's `TableSession`, so each accepted choice is in the
store before it is acknowledged and a restarted server rebuilds every room from the store.
The web layer (`phones/web.py`) is a thin shell over this class, and the offline box and the
Alexa skill use it directly.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import re
import secrets
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from narrator import Heard, Host, Narrator, Tap, Tick
from narrator.cues import SharedTap, input_from_json
from narrator.names import name_problem, normal_name
from narrator.narrator import Reply
from narrator.session import Binder, TableSession, current_log
from narrator.table import LANGUAGES
from phones.codes import draw_code, normalize_code
from phones.links import Link, link_key, new_token
from phones.narration import line_text, told_count, told_game, told_items
from phones.setup_form import FormError, SetupForm
from phones.setup_form import describe as describe_setup
from phones.setup_form import inputs_for as setup_inputs_for
from store import GameNotFound, PointerTaken, StoreError, new_game_id

log = logging.getLogger("wolfvillage.relay")

ROOM_KEY = "room:{code}"
CLAIM_ATTEMPTS = 50  # draws of a room code that another worker took in the same instant
CODE_DRAWS = 200  # codes looked at for one room before every code counts as taken
# a room gives its code back (to the next room that draws it) once its current game has had
# no input stored for this long, or has been over this long with no new game started
# (docs/store.md); its links keep working, but nobody can join it by code any more
CODE_IDLE_S = 6 * 3600.0
CODE_FINISHED_S = 30 * 60.0
# views are cached per table version; a code given back leaves its version alone, so a
# cached view is also rebuilt this often, and shows a code given back for at most this long
CODE_RECHECK_S = 60.0
# writes from other processes that may overtake one input before it is given up (each
# attempt reloads the table; two server workers on one table conflict rarely and briefly)
MAX_RETRIES = 20
PLAYER_LINK_KEY = "plink:{game}:{player}"
# refuses an input (raises RelayError) on the table's state just before it is fed
Check = Callable[[TableSession], None]
# inputs stored by one transaction at most (DynamoDB takes 100 items in one)
MAX_COMBINED = 32


class RelayError(Exception):
    """A refusal with a stable reason key (translated by the pages) and an HTTP status."""

    def __init__(self, reason: str, status: int = 400, **params: Any):
        super().__init__(reason)
        self.reason = reason
        self.status = status
        self.params = params


@dataclass(eq=False)
class _Pending:
    """An input waiting for its table (see `Relay._fed`), and once fed, its outcome."""

    inp: Any
    bind: Binder | None = None
    check: Check | None = None
    done: bool = False
    # decided on a table state that was stored: a retry after a conflict leaves it alone
    settled: bool = False
    pointers: Mapping[str, str | None] = field(default_factory=dict)
    session: TableSession | None = None
    reply: Reply | None = None
    error: BaseException | None = None


@dataclass
class Opened:
    link: Link
    session: TableSession


class _BadInput(Exception):
    """The narrator failed on an input (a shape it does not check): the table that took
    it is dropped and the inputs queued beside it are decided again without it."""


class Relay:
    def __init__(self, store: Any, call_pause: float = 12.0,
                 clock: Callable[[], float] = time.time):
        self.store = store
        self.call_pause = call_pause
        self.clock = clock  # judges when a room has left its code (the store's times)
        self._sessions: dict[str, TableSession] = {}
        self._locks: dict[str, threading.RLock] = {}
        self._guard = threading.Lock()
        self._views: dict[tuple[Any, ...], dict[str, Any]] = {}
        self._codes: dict[tuple[Any, ...], str | None] = {}
        # inputs waiting for their table's lock (see `_fed`)
        self._queued: dict[str, list[_Pending]] = {}
        # room version: bumps on every accepted input, so phones can poll cheaply
        self._listeners: list[Any] = []

    # ------------------------------------------------------------------ rooms

    def create_room(self, lang: str = "en", host_name: str | None = None) -> tuple[str, str]:
        """A new room: its code and the host's private link token."""
        if lang not in LANGUAGES:
            raise RelayError("unknown_language")
        if host_name is not None and (not isinstance(host_name, str)
                                      or name_problem(normal_name(host_name))):
            raise RelayError("bad_name")
        narrator = Narrator(lang, seed=secrets.randbelow(2**31), call_pause=self.call_pause)
        game_id = new_game_id()
        token = new_token()
        # TableSession.create, with the room's three pointers in the same transaction: one
        # commit, and no room code pointing at a game that was never stored. The code is
        # claimed by that write (not only looked up first): of two workers that draw the
        # same free code at once, exactly one stores its room, the other draws again (a
        # look-up then a bind let the second silently take the first one's room over).
        for _ in range(CLAIM_ATTEMPTS):
            code = self._free_code()
            if code is None:
                break
            link = Link(code, game_id, None, host=True, lang=lang)
            room = ROOM_KEY.format(code=code)
            try:
                self.store.create(game_id, narrator.setup_doc(), claim={room}, bind={
                    room: game_id,
                    f"code:{game_id}": code,
                    link_key(token): link.to_text(),
                })
                break
            except PointerTaken:
                continue
        else:
            code = None
        if code is None:
            raise RelayError("no_free_room", 503)
        session = TableSession(self.store, game_id, narrator, 0)
        with self._guard:
            self._sessions[game_id] = session
        if host_name is not None:
            host_name = normal_name(host_name)

            def host_link(fed: TableSession) -> dict[str, str | None]:
                link.player = fed.narrator.config.host
                return {link_key(token): link.to_text(),
                        PLAYER_LINK_KEY.format(game=game_id, player=link.player): link_key(token)}

            with self._fed(game_id, Host("host_plays", host_name), 409, bind=host_link):
                pass
        return code, token

    def _free_code(self) -> str | None:
        """A code for a new room: one that no room holds, or one taken back from a room
        that left it (see CODE_IDLE_S); None when every code drawn is in use."""
        for _ in range(CODE_DRAWS):
            code = draw_code()
            room = ROOM_KEY.format(code=code)
            holder = self.store.lookup(room)
            if holder is None:
                return code
            if self._left_its_code(holder):
                # compare-and-delete: never the code of a room that took it meanwhile; of
                # two workers taking it back, both then claim it and one gets it
                self.store.swap(room, holder, None)
                return code
        return None

    def _left_its_code(self, game_id: str) -> bool:
        try:
            stored = self.store.load(current_log(self.store, game_id))
        except GameNotFound:
            return True  # expired (DynamoDB's TTL) or deleted
        idle = self.clock() - stored.updated_at
        return idle >= CODE_IDLE_S or (stored.finished and idle >= CODE_FINISHED_S)

    def room_code(self, link: Link, version: int | None = None) -> str | None:
        """The room code a link's table can still be joined by (None once given back).

        With the table's `version`, asked once per version (a table version's views, one
        per phone, all ask): a code is only given back by a table that has been idle."""
        key = (link.code, link.game_id, version, self._recheck())
        if version is not None and key in self._codes:
            return self._codes[key]
        code = link.code if self.store.lookup(ROOM_KEY.format(code=link.code)) == \
            link.game_id else None
        if version is not None:
            if len(self._codes) > 20_000:
                self._codes.clear()
            self._codes[key] = code
        return code

    def game_for_code(self, raw_code: Any) -> str:
        code = normalize_code(raw_code)
        game_id = self.store.lookup(ROOM_KEY.format(code=code)) if code else None
        if game_id is None:
            raise RelayError("unknown_room", 404)
        return game_id

    def join(self, raw_code: Any, name: Any, lang: str = "en") -> str:
        """A player joins a room by its code; returns their private link token."""
        game_id = self.game_for_code(raw_code)
        if lang not in LANGUAGES:
            lang = "en"
        if not isinstance(name, str) or not name.strip():
            raise RelayError("bad_name")
        name = normal_name(name)
        if name_problem(name) is not None:
            raise RelayError("bad_name")  # not a name at all: a 400 like an empty one
        token = new_token()
        code = normalize_code(raw_code) or ""

        def player_link(fed: TableSession) -> dict[str, str | None]:
            joined = fed.narrator.config.players[-1]
            return {link_key(token): Link(code, game_id, joined, lang=lang).to_text(),
                    PLAYER_LINK_KEY.format(game=game_id, player=joined): link_key(token)}

        def in_lobby(session: TableSession) -> None:
            if session.narrator.phase != "lobby":
                raise RelayError("game_started", 409)

        with self._fed(game_id, Host("join", name), 409, bind=player_link,
                       check=in_lobby):
            return token

    def reissue(self, host_token: str, device: str | None, player: str) -> str:
        """The host gives a player a new link; the old one dies at once."""
        opened = self.open(host_token, device, host=True)
        game_id = opened.link.game_id
        with self._lock(game_id):
            narrator = self._current(opened).session.narrator
            names = narrator.game.players if narrator.game else narrator.config.players
            if player not in names:
                raise RelayError("unknown_player", 404)
            old = self.store.lookup(PLAYER_LINK_KEY.format(game=game_id, player=player))
            lang, was_host = "en", False
            if old is not None:
                text = self.store.lookup(old)
                if text:
                    lang = Link.from_text(text).lang
                    # a host who plays has one link for both: re-issuing it must not leave
                    # the table without a host
                    was_host = Link.from_text(text).host
                self.store.bind(old, None)
            token = new_token()
            link = Link(opened.link.code, game_id, player, host=was_host, lang=lang)
            self.store.bind(link_key(token), link.to_text())
            self.store.bind(PLAYER_LINK_KEY.format(game=game_id, player=player), link_key(token))
        return token

    # ------------------------------------------------------------------ links

    def open(self, token: Any, device: str | None, host: bool = False,
             shared: bool = False) -> Opened:
        """Check a link: it exists, and this device owns it (the first to open it does).
        `host`: only the host's link will do (or, with `shared`, a shared phone's too)."""
        if not isinstance(token, str) or not token:
            raise RelayError("bad_link", 404)
        text = self.store.lookup(link_key(token))
        if text is None:
            raise RelayError("bad_link", 404)
        link = Link.from_text(text)
        if host and not link.host and not (shared and link.shared):
            raise RelayError("bad_link", 404)
        if not device:
            # an empty id would claim a fresh link for a device nobody holds
            raise RelayError("no_device", 403)
        if link.device is None:
            from phones.links import digest

            claimed = Link(**{**link.__dict__, "device": digest(device)})
            # compare-and-set in the store: of two devices (or two server processes)
            # opening a fresh link at once, exactly one wins
            if not self.store.swap(link_key(token), text, claimed.to_text()):
                text = self.store.lookup(link_key(token))
                if text is None:
                    raise RelayError("bad_link", 404)
                claimed = Link.from_text(text)
            link = claimed
        if not link.owned_by(device):
            raise RelayError("other_device", 403)
        return Opened(link, self.session(link.game_id))

    # ------------------------------------------------------------------ sessions

    def session(self, game_id: str) -> TableSession:
        """The table, current with the store: another process (a second server worker, the
        skill's Lambda, the box) may have moved it on since this one last looked."""
        with self._guard:
            cached = self._sessions.get(game_id)
        if cached is not None:
            try:
                stored = self.store.version(cached.game_id)
                current = stored == cached.version or (
                    stored > cached.version and self._catch_up(game_id, cached))
                # a table's next game is a new log, started only once this one is over:
                # until then there is no successor to look for
                if current and (cached.narrator.phase != "over"
                                or current_log(self.store, game_id) == cached.game_id):
                    return cached
            except StoreError:
                pass
        session = TableSession.resume(self.store, game_id)
        with self._guard:
            self._sessions[game_id] = session
        return session

    def answers_ahead(self, game_id: str) -> list[Any]:
        """`Narrator.answers_ahead` of the table, under its lock (a phone's input cannot
        change the narrator while it is copied)."""
        session = self.session(game_id)
        with self._lock(game_id):
            return session.narrator.answers_ahead()

    def _catch_up(self, game_id: str, cached: TableSession) -> bool:
        """Bring a cached table up to the stored log by feeding it only the inputs stored
        since it was last current (what another process accepted), instead of replaying the
        whole log: with several server workers, most polls find the table moved on by the
        other worker. Replaying the tail is the same as `Narrator.restore` (the narrator is
        deterministic: no clock, no I/O, the game's own seeded randomness)."""
        with self._lock(game_id):
            with self._guard:
                dropped = self._sessions.get(game_id) is not cached
            if dropped:
                # dropped while this thread waited for the lock: its narrator may hold an
                # input that was never stored (a write that conflicted)
                return False
            # only what it has not seen (the whole log was read here before: a game's
            # hundreds of entries, for the one or two another worker just stored)
            version, entries = self.store.tail(cached.game_id, cached.version)
            if version < cached.version:
                return False
            for entry in entries:
                if not cached.narrator.handle(input_from_json(entry)).accepted:
                    # cannot happen with a log of accepted inputs; never keep a table that
                    # differs from its log
                    with self._guard:
                        if self._sessions.get(game_id) is cached:
                            self._sessions.pop(game_id, None)
                    return False
                cached.version += 1
            return True

    def _lock(self, game_id: str) -> threading.RLock:
        with self._guard:
            return self._locks.setdefault(game_id, threading.RLock())

    @contextmanager
    def _fed(self, game_id: str, inp: Any, reason_status: int, bind: Binder | None = None,
             check: Check | None = None) -> Iterator[tuple[TableSession, Reply]]:
        """Feed an input to a table and, under the table's lock, give the table that
        accepted it and the narrator's reply (refusals raise `RelayError`).

        Flat combining: the input waits in the table's queue, and whoever holds the table's
        lock feeds every input waiting there and stores them with one `extend` (one
        transaction, one fsync), so twelve phones joining at once, or a night's choices
        arriving together, cost one commit, not twelve in a row. Each input is answered
        only once that commit has returned: nothing unstored is acknowledged.

        `check` refuses an input on the table's state before it is fed (it runs on the
        table as it is when the input's turn comes); `bind` gives the pointers an accepted
        input makes (a joined player's link), stored in the same transaction.
        """
        pending = _Pending(inp, bind, check)
        with self._guard:
            self._queued.setdefault(game_id, []).append(pending)
        with self._lock(game_id):
            while not pending.done:  # (a long queue is fed in several transactions)
                self._combine(game_id)
            if pending.error is not None:
                raise pending.error
            assert pending.session is not None and pending.reply is not None
            if not pending.reply.accepted:
                raise RelayError(_reason(pending.reply), reason_status)
            session = pending.session
            with self._guard:
                dropped = self._sessions.get(game_id) is not session
            if dropped:
                # a later input failed on this table object and it was dropped: answer from
                # the stored table (which holds this input), never from a narrator that
                # may have taken an input that was not stored
                session = self.session(game_id)
            yield session, pending.reply

    def _combine(self, game_id: str) -> None:
        """Feed and store every input waiting for this table (the caller holds its lock)."""
        with self._guard:
            batch = self._queued.pop(game_id, [])
        if len(batch) > MAX_COMBINED:
            # the rest wait for the next holder of the lock (a transaction's size is bounded)
            with self._guard:
                self._queued.setdefault(game_id, [])[:0] = batch[MAX_COMBINED:]
            batch = batch[:MAX_COMBINED]
        from store import Conflict, GameFinished

        try:
            # (an input the narrator fails on is refused and settled: it costs no retry)
            for _ in range(MAX_RETRIES + len(batch)):
                session = self.session(game_id)
                try:
                    self._feed_all(session, batch)
                    return
                except (Conflict, GameFinished, _BadInput):
                    # another process moved the table on (or the narrator failed on one
                    # input, now refused): these inputs were taken on a state that is not
                    # the stored one, so drop it, reload the table and decide again
                    self._drop(session)
            for pending in batch:
                if not pending.settled:
                    pending.error = RelayError("busy", 503)
        except BaseException as exc:
            # what was stored before the failure stays answered as stored
            for pending in batch:
                if not pending.settled:
                    pending.error = exc
            raise
        finally:
            for pending in batch:
                pending.done = True

    def _feed_all(self, session: TableSession, batch: list[_Pending]) -> None:
        """One attempt: the narrator takes the inputs not yet settled, in order, then one
        `extend` stores the accepted ones. Raises Conflict/GameFinished (the caller reloads
        and retries the inputs still unsettled)."""
        todo = [p for p in batch if not p.settled]
        start = session.version
        try:
            for n, pending in enumerate(todo):
                if session.narrator.phase == "over":
                    # the end of a game (sealed) and a new game (a new log) are
                    # TableSession's: store what was taken so far, then let it handle this
                    # input and the rest, one at a time
                    self._store_taken(session, start, todo[:n])
                    self._feed_one_by_one(session, todo[n:])
                    return
                if self._checked(session, pending):
                    pending.reply = self._handled(session, pending)
                    if pending.reply.accepted and pending.bind is not None:
                        # from the table just after this input (the player it seated)
                        pending.pointers = pending.bind(session)
            self._store_taken(session, start, todo)
        except BaseException:
            # the narrator may hold inputs that were not stored: never keep it
            self._drop(session)
            raise

    @staticmethod
    def _handled(session: TableSession, pending: _Pending,
                 handle: Callable[..., Reply] | None = None) -> Reply:
        """The narrator's reply to one input; an input it fails on is refused alone (its
        table, which may hold half of it, is dropped by the caller: `_BadInput`)."""
        try:
            if handle is not None:
                return handle(pending.inp, pending.bind)
            return session.narrator.handle(pending.inp)
        except StoreError:
            raise
        except Exception as problem:
            log.warning("the narrator failed on an input and refused it: %r", problem,
                        exc_info=True)
            pending.error = RelayError("bad_request", 400)
            pending.settled, pending.session = True, session
            raise _BadInput() from problem

    @staticmethod
    def _checked(session: TableSession, pending: _Pending) -> bool:
        """Reset what an earlier attempt decided, and run the input's own check."""
        pending.error, pending.reply, pending.pointers = None, None, {}
        if pending.check is not None:
            try:
                pending.check(session)
            except RelayError as refused:
                pending.error = refused
                return False
        return True

    @staticmethod
    def _store_taken(session: TableSession, start: int, taken: list[_Pending]) -> None:
        """Store the accepted inputs of `taken` (the narrator took them after `start`) in
        one write with their pointers; then all of `taken` is settled."""
        accepted = [p for p in taken if p.reply is not None and p.reply.accepted]
        pointers: dict[str, str | None] = {}
        for pending in accepted:
            pointers.update(pending.pointers)
        session.record(start, [p.inp for p in accepted], pointers)
        for pending in taken:
            pending.settled, pending.session = True, session

    def _feed_one_by_one(self, session: TableSession, todo: list[_Pending]) -> None:
        for pending in todo:
            if self._checked(session, pending):
                pending.reply = self._handled(session, pending, session.handle)
            pending.settled, pending.session = True, session

    def _drop(self, session: TableSession) -> None:
        with self._guard:
            for key in [k for k, v in self._sessions.items() if v is session]:
                self._sessions.pop(key, None)

    def version(self, game_id: str) -> int:
        return self.session(game_id).version

    # ------------------------------------------------------------------ players

    def player_view(self, token: str, device: str | None) -> dict[str, Any]:
        opened = self.open(token, device)
        cached = self._cached_view("player", opened)
        if cached is not None:
            return cached
        with self._lock(opened.link.game_id):
            return self._player_view(self._current(opened))

    def _view_key(self, kind: str, opened: Opened) -> tuple[Any, ...]:
        session = opened.session
        link = opened.link
        return (kind, session.game_id, session.version, link.player, link.host, link.lang,
                link.code, self._recheck())

    def _recheck(self) -> int:
        return int(self.clock() // CODE_RECHECK_S)

    def _cached_view(self, kind: str, opened: Opened) -> dict[str, Any] | None:
        """A view already built for this table version, without taking the table's lock.

        A table's log and version determine what every viewer sees, and a view is only
        ever built (under the lock) from a table whose narrator holds exactly its stored
        inputs; `version` grows only once an input is stored. So a cached view for the
        version just read is right even while another thread feeds the table an input
        that is not yet stored: that input is not acknowledged yet, and the poll need not
        wait behind its commit (most polls would otherwise queue on a busy table's lock).
        """
        cached = self._views.get(self._view_key(kind, opened))
        return None if cached is None else dict(cached)

    def _remember_view(self, kind: str, opened: Opened, view: dict[str, Any]) -> None:
        if len(self._views) > 20_000:
            self._views.clear()
        self._views[self._view_key(kind, opened)] = view

    def _current(self, opened: Opened) -> Opened:
        """`opened`, with the table reloaded if it was dropped since it was opened (the
        caller holds the table's lock): a dropped table's narrator may hold an input that
        was never stored, and no view is ever built from one."""
        game_id = opened.link.game_id
        with self._guard:
            current = self._sessions.get(game_id) is opened.session
        return opened if current else Opened(opened.link, self.session(game_id))

    def _player_view(self, opened: Opened) -> dict[str, Any]:
        """The player's view, tagged with a hash of itself (see `tagged`), cached per
        table version so that polls with nothing new cost a dictionary look-up."""
        cached = self._cached_view("player", opened)
        if cached is None:
            cached = tagged(self._build_player_view(opened))
            self._remember_view("player", opened, cached)
        return dict(cached)

    def _build_player_view(self, opened: Opened) -> dict[str, Any]:
        session = opened.session
        narrator = session.narrator
        link = opened.link
        view: dict[str, Any] = {
            "room": self.room_code(link, session.version),
            "lang": link.lang,
            "game": narrator.config.ruleset,  # which game's page parts to show
            "phase": narrator.phase,
            "paused": narrator.paused,
            "players": _players(narrator),
            "me": link.player,
            "host": link.host,
        }
        public = narrator.public_view()
        if "timer" in public:
            view["timer"] = public["timer"]  # the debate clock, or a night call held open
        if link.player is not None:
            # the player's number: "number three" names them wherever a name is misheard
            view["seat"] = narrator.player_view(link.player).get("seat")
        if narrator.game is not None:
            view["game"] = narrator.config.ruleset  # which game's page parts to show
            view["public"] = public.get("game")
            view["story"] = public.get("story", [])  # the lines every screen may show
            if link.player is not None:
                mine = narrator.player_view(link.player)
                view["private"] = mine.get("me")
                for key in ("turn", "awake"):  # a choice; a player's own call is on
                    if key in mine:
                        view[key] = mine[key]
        return view

    def choose(self, token: str, device: str | None, verb: Any, target: Any) -> dict[str, Any]:
        """A player's secret choice; refused (and nothing changes) unless it is legal now."""
        opened = self.open(token, device)
        if opened.link.player is None or not isinstance(verb, str):
            raise RelayError("not_your_turn", 409)
        with self._fed(opened.link.game_id, Tap(opened.link.player, verb, target),
                       409) as (session, _):
            return self._player_view(Opened(opened.link, session))

    # ------------------------------------------------------------------ host

    def host_view(self, token: str, device: str | None) -> dict[str, Any]:
        opened = self.open(token, device, host=True)
        cached = self._cached_view("host", opened)
        if cached is not None:
            return cached
        with self._lock(opened.link.game_id):
            opened = self._current(opened)
            view = self._player_view(opened)
            narrator = opened.session.narrator
            view["table"] = narrator.config.to_json()
            view["rating"] = narrator.config.rating()
            view["waiting"] = _waiting(narrator)
            view["next_to_pass"] = _next_to_pass(narrator)
            # a narrated night: the host's phone is a shared phone too (the same for every
            # night, called role or not, so it says nothing of who is called)
            view["shared_night"] = (narrator.phase == "night" and narrator.game is not None
                                    and getattr(narrator.game.options, "night_mode",
                                                None) == "narrated")
            if narrator.phase == "lobby":
                view["setup"] = describe_setup(narrator)
            view = tagged(view)
            self._remember_view("host", opened, view)
            return dict(view)

    def host_input(self, token: str, device: str | None, kind: str, data: dict[str, Any]
                   ) -> dict[str, Any]:
        """Host commands, what the speaker heard, and time passing."""
        opened = self.open(token, device, host=True)
        if kind == "command":
            inp: Any = Host(str(data.get("command")), data.get("arg"))
        elif kind == "heard":
            slots = data.get("slots") if isinstance(data.get("slots"), dict) else {}
            inp = Heard(str(data.get("intent")), slots)
        elif kind == "tick":
            seconds = data.get("seconds")
            if not isinstance(seconds, int | float) or isinstance(seconds, bool):
                raise RelayError("bad_request")
            try:
                seconds = float(seconds)  # a 400-digit integer does not fit: OverflowError
            except OverflowError:
                raise RelayError("bad_request") from None
            if not math.isfinite(seconds):
                raise RelayError("bad_request")  # NaN would end any clock
            inp = Tick(seconds)
        else:
            raise RelayError("bad_request")
        with self._fed(opened.link.game_id, inp, 400) as (_, reply):
            said = [{"key": c.key, "params": c.params} for c in reply.cues
                    if type(c).__name__ == "Say"]
            return {"said": said}

    def host_setup(self, token: str, device: str | None, form: SetupForm) -> dict[str, Any]:
        """One submitted set-up form: every input it makes, or (a bad form) none."""
        opened = self.open(token, device, host=True)
        game_id = opened.link.game_id
        said: list[dict[str, Any]] = []
        with self._lock(game_id):
            narrator = self._current(opened).session.narrator
            if narrator.phase != "lobby":
                raise RelayError("game_started", 409)
            try:
                inputs = setup_inputs_for(narrator, form)
            except FormError as problem:
                raise RelayError(problem.reason, field=problem.field) from None
            for inp in inputs:
                with self._fed(game_id, inp, 400) as (_, reply):
                    said += [{"key": c.key, "params": c.params} for c in reply.cues
                             if type(c).__name__ == "Say"]
        return {"said": said}

    def remove_player(self, token: str, device: str | None, player: Any) -> dict[str, Any]:
        """The host takes a player off the table before the game; their link dies with it
        (a host who plays keeps hosting)."""
        opened = self.open(token, device, host=True)
        game_id = opened.link.game_id
        seated: list[str] = []  # the name as the table spells it, found just before

        def in_lobby(session: TableSession) -> None:
            if session.narrator.phase != "lobby":
                raise RelayError("game_started", 409)
            found = session.narrator.config.find(player) if isinstance(player, str) else None
            seated[:] = [found] if found else []

        def unlinked(fed: TableSession) -> dict[str, str | None]:
            pointer = PLAYER_LINK_KEY.format(game=game_id, player=seated[0])
            old = self.store.lookup(pointer)
            text = self.store.lookup(old) if old else None
            if old is None or text is None:
                return {pointer: None}
            link = Link.from_text(text)
            kept = Link(**{**link.__dict__, "player": None}).to_text() if link.host else None
            return {pointer: None, old: kept}

        with self._fed(game_id, Host("leave", player), 404, bind=unlinked, check=in_lobby):
            return {"removed": seated[0]}

    def told(self, token: str, device: str | None, since: int,
             game: str | None = None) -> dict[str, Any]:
        """What the table has heard since item `since` of the told list `game` (another
        list, or none: from its start), for the host's page to say and caption."""
        opened = self.open(token, device, host=True)
        with self._lock(opened.link.game_id):
            session = self._current(opened).session
            narrator = session.narrator
            current = told_game(session)
            start = since if game == current else 0
            public = narrator.public_view()
            return {"game": current, "items": told_items(narrator, start),
                    "next": told_count(narrator), "lang": narrator.lang,
                    "phase": narrator.phase, "paused": narrator.paused,
                    "timer": public.get("timer")}

    def told_line(self, token: str, device: str | None, game: str, index: int
                  ) -> tuple[str, str]:
        """The text and language of one told line (for its audio): only a host link, and
        only a line the table has heard."""
        opened = self.open(token, device, host=True)
        with self._lock(opened.link.game_id):
            session = self._current(opened).session
            text = line_text(session.narrator, index) if game == told_game(session) else None
            if text is None:
                raise RelayError("no_line", 404)
            return text, session.narrator.lang

    def pass_view(self, token: str, device: str | None, player: str | None) -> dict[str, Any]:
        """Shared phones: who gets the device next, and (once they tap) only their turn."""
        opened = self.open(token, device, host=True, shared=True)
        serves = opened.link.serves
        with self._lock(opened.link.game_id):
            narrator = self._current(opened).session.narrator
            call = narrator.shared_view()
            if call is not None:
                # a narrated night: the called role's choice, for whoever it wakes (the
                # same whether that role's player is alive or dead: see the script)
                return tagged({"next": None, "phase": narrator.phase, **call})
            nxt = _next_to_pass(narrator, serves)
            if player is None or player != nxt:
                return tagged({"next": nxt, "phase": narrator.phase})
            mine = narrator.player_view(player)
            return tagged({"next": nxt, "player": player, "private": mine.get("me"),
                           "turn": mine.get("turn")})

    def pass_choose(self, token: str, device: str | None, player: Any, verb: Any,
                    target: Any, call: Any = None) -> dict[str, Any]:
        """A secret turn played on a shared phone. The answer holds what the player now
        knows (the seer's answer, the pack), for the phone to show before it is passed
        on: the player who just played is the one holding it. At a narrated night it is
        the called role's choice (`call`), and the answer what that role learns."""
        opened = self.open(token, device, host=True, shared=True)
        serves = opened.link.serves
        game = opened.session.narrator.game
        if game is not None and getattr(game.options, "night_mode", None) == "narrated":
            # (a game's night mode is fixed at its start: read without the lock)
            return self._shared_call(opened, call, verb, target)

        def passed_to(session: TableSession) -> None:
            if player != _next_to_pass(session.narrator, serves) or not isinstance(verb, str):
                raise RelayError("not_your_turn", 409)

        with self._fed(opened.link.game_id, Tap(player, verb, target), 409,
                       check=passed_to) as (session, _):
            narrator = session.narrator
            return tagged({"next": _next_to_pass(narrator, serves), "player": player,
                           "private": narrator.player_view(player).get("me")})

    def _shared_call(self, opened: Opened, call: Any, verb: Any, target: Any
                     ) -> dict[str, Any]:
        with self._fed(opened.link.game_id, SharedTap(call, verb, target), 409) as (
                session, reply):
            learnt = next((c.view for c in reply.cues if type(c).__name__ == "Show"
                           and c.view.get("screen") == "learnt"), {})
            narrator = session.narrator
            now = narrator.shared_view()
            # `view`: what every shared phone shows now (its version tells the phone when
            # the next call replaces what was learnt)
            view = tagged({"next": None, "phase": narrator.phase, **(now or {})})
            return tagged({"next": None, "phase": narrator.phase, "call": learnt.get("call"),
                           "learnt": {k: v for k, v in learnt.items()
                                      if k not in ("screen", "call")}, "view": view})

    def add_shared_phone(self, token: str, device: str | None,
                         serves: list[str] | None = None) -> str:
        """A link for another device to take secret turns on (pass the phones), for the
        players `serves` names (None: everyone); at a narrated night, the device shows
        every call's choice (`serves` does not matter there: whoever is called taps the
        nearest)."""
        opened = self.open(token, device, host=True)
        narrator = opened.session.narrator
        names = _players(narrator)
        if serves is not None:
            if not isinstance(serves, list) or not serves or any(
                    name not in names for name in serves):
                raise RelayError("unknown_player", 400)
            serves = [name for name in names if name in serves]  # in seat order
        shared = Link(opened.link.code, opened.link.game_id, None, lang=opened.link.lang,
                      shared=True, serves=serves)
        new = new_token()
        self.store.bind(link_key(new), shared.to_text())
        return new


_STABLE_REASON = re.compile(r"[a-z][a-z_]{0,39}")


# how often (seconds) a running clock alone brings a phone's page the server's own time
CLOCK_RESYNC = 15


def tagged(view: dict[str, Any]) -> dict[str, Any]:
    """The view with `version`: a hash of its content, not a count of the table's inputs.

    A count would let a phone that polls during a narrated night count the secret turns
    taken, and so learn that a role has died when dead roles are secret; it would also
    start again at a new game. A hash changes exactly when what this viewer sees changes,
    except a running clock's seconds, which the page counts down itself (CLOCK_RESYNC).
    """
    body = {k: v for k, v in view.items() if k != "version"}
    hashed = body
    timer = body.get("timer")
    if isinstance(timer, dict) and isinstance(timer.get("left"), int):
        # a page counts a running clock down by itself (app.js): the clock's seconds alone
        # move the version only every CLOCK_RESYNC seconds, not every second, or every phone
        # would fetch and redraw its page each second of a debate (20 renders a second
        # for a table of 20 on a Pi)
        hashed = {**body, "timer": {**timer, "left": timer["left"] // CLOCK_RESYNC}}
    text = json.dumps(hashed, sort_keys=True, ensure_ascii=False, default=str)
    return {**body, "version": hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]}


def _reason(reply: Reply) -> str:
    """A refusal's stable key. The rules' own reasons are sentences for the log that may
    name other players' pending turns ("waiting for Ana to inspect"): never sent out."""
    for cue in reply.cues:
        if type(cue).__name__ == "Show":
            reason = str(cue.view.get("reason", "refused"))
            return reason if _STABLE_REASON.fullmatch(reason) else "refused"
        if type(cue).__name__ == "Say":
            return str(cue.key)
    return "refused"


def _players(narrator: Narrator) -> list[str]:
    return list(narrator.game.players if narrator.game else narrator.config.players)


def _waiting(narrator: Narrator) -> dict[str, Any]:
    """What the host may see of whom the table waits for: the game's script says (it
    knows what would betray a role)."""
    return {} if narrator.game is None else narrator.script.waiting()


def _next_to_pass(narrator: Narrator, serves: list[str] | None = None) -> str | None:
    """Who gets a shared phone next: the first player in seat order (of those the phone
    serves) with a secret turn still to play."""
    game = narrator.game
    if (game is None or narrator.phase != "night"
            or getattr(game.options, "night_mode", None) != "pass_phones"):
        return None
    pending = [d.player for d in game.pending() if serves is None or d.player in serves]
    return pending[0] if pending else None


def handle(relay: Relay, game_id: str, inp: Any) -> Reply:
    """Feed one input to a room's table under its lock, refused or not (for the offline
    box, whose voice must answer refusals aloud instead of raising)."""
    from store import Conflict, GameFinished

    with relay._lock(game_id):
        session = relay.session(game_id)
        try:
            return session.handle(inp)
        except (Conflict, GameFinished):
            with relay._guard:
                relay._sessions.pop(game_id, None)
            return relay.session(game_id).handle(inp)
