"""The host moves to another device: a one-time code shown on the old one.

The host's link works on one device only (phones/links.py), so a host whose phone dies, or
who wants the table's tablet to run the game, needs a way over that nobody else can use.
The old device asks for a hand-over code; the new device types the room code and that code;
it gets a host link of its own, and the old device's link dies at once (a host who plays
keeps their seat: the player's link moves with it).

A code is eight letters of the room-code alphabet (17^8, about 7e9), stored only as its
SHA-256, good for one use and for `VALID_SECONDS`; asking for a new one voids the last.
Wrong guesses are rate-limited by the web layer like room codes. Of two devices that type
the same code at once, exactly one gets the table (compare-and-set in the store).
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable
from typing import Any

from phones.codes import ALPHABET, normalize_code
from phones.links import Link, digest, link_key, new_token
from phones.relay import PLAYER_LINK_KEY, Relay, RelayError

LENGTH = 8
VALID_SECONDS = 10 * 60
OFFER_KEY = "handover:{digest}"
LATEST_KEY = "handover-latest:{game}"
# the room's host link, for a room whose host link is handed out where no page can show a
# code (the box's terminal): its hashed key, never the token
HOST_LINK_KEY = "host-link:{game}"
USED = "used"  # what a spent offer holds (its pointer is kept, so it can never be reused)

Clock = Callable[[], float]


def offer(relay: Relay, token: str, device: str | None, clock: Clock = time.time) -> str:
    """A new hand-over code for the host link `token` (shown on this device only)."""
    opened = relay.open(token, device, host=True)
    return _offer(relay, opened.link.game_id, link_key(token), clock)


def offer_for_room(relay: Relay, game_id: str, clock: Clock = time.time) -> str | None:
    """A hand-over code for the room's remembered host link (see `remember_host_link`), for
    whoever sees the terminal that started the room; None if no live host link is known."""
    key = relay.store.lookup(HOST_LINK_KEY.format(game=game_id))
    if key is None or relay.store.lookup(key) is None:
        return None
    return _offer(relay, game_id, key, clock)


def remember_host_link(relay: Relay, game_id: str, token: str) -> None:
    relay.store.bind(HOST_LINK_KEY.format(game=game_id), link_key(token))


def new_host_link(relay: Relay, game_id: str, code: str, lang: str) -> str:
    """A fresh host link for a room that has none known (a room the audio box opened and
    a box without audio now runs), remembered for later hand-overs."""
    token = new_token()
    relay.store.bind(link_key(token), Link(code, game_id, None, host=True, lang=lang).to_text())
    remember_host_link(relay, game_id, token)
    return token


def _offer(relay: Relay, game_id: str, host_key: str, clock: Clock) -> str:
    code = "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))
    record = json.dumps({"game": game_id, "link": host_key,
                         "until": clock() + VALID_SECONDS}, separators=(",", ":"))
    key = OFFER_KEY.format(digest=digest(code))
    latest = LATEST_KEY.format(game=game_id)
    earlier = relay.store.lookup(latest)
    if earlier is not None:
        relay.store.bind(earlier, None)
    relay.store.bind(key, record)
    relay.store.bind(latest, key)
    return f"{code[:4]}-{code[4:]}"


def take_over(relay: Relay, raw_room: Any, raw_code: Any, device: str | None,
              clock: Clock = time.time) -> str:
    """The new device's own host link for the room, if `raw_code` is its live hand-over
    code; the old device's link dies. Refusals: unknown_room, bad_handover (404)."""
    if device is None:
        raise RelayError("no_device", 403)
    game_id = relay.game_for_code(raw_room)
    room = normalize_code(raw_room) or ""
    code = _normalize(raw_code)
    if code is None:
        raise RelayError("bad_handover", 404)
    key = OFFER_KEY.format(digest=digest(code))
    with relay._lock(game_id):
        text = relay.store.lookup(key)
        if text is None or text == USED:
            raise RelayError("bad_handover", 404)
        record = json.loads(text)
        if record["game"] != game_id or clock() > record["until"]:
            raise RelayError("bad_handover", 404)
        # spend the code first: of two devices typing it at once, one gets the table
        if not relay.store.swap(key, text, USED):
            raise RelayError("bad_handover", 404)
        old_text = relay.store.lookup(record["link"])
        if old_text is None:
            raise RelayError("bad_handover", 404)
        old = Link.from_text(old_text)
        token = new_token()
        moved = Link(room or old.code, game_id, old.player, host=True, device=digest(device),
                     lang=old.lang)
        relay.store.bind(link_key(token), moved.to_text())
        relay.store.bind(record["link"], None)
        if old.player is not None:
            relay.store.bind(PLAYER_LINK_KEY.format(game=game_id, player=old.player),
                             link_key(token))
        relay.store.bind(LATEST_KEY.format(game=game_id), None)
        remembered = HOST_LINK_KEY.format(game=game_id)
        if relay.store.lookup(remembered) == record["link"]:
            relay.store.bind(remembered, link_key(token))
    return token


def _normalize(raw: Any) -> str | None:
    if not isinstance(raw, str):
        return None
    code = "".join(c for c in raw.upper() if c.isalnum())
    if len(code) != LENGTH or any(c not in ALPHABET for c in code):
        return None
    return code


__all__ = ["LENGTH", "VALID_SECONDS", "new_host_link", "offer", "offer_for_room",
           "remember_host_link", "take_over"]
