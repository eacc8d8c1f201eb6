"""Private one-time links.

A link's token carries 192 random bits and is only ever stored as its SHA-256, so neither
the store nor a log holds a usable link. The first device that opens a link owns it (a
random device cookie, also stored hashed); any other device is refused, so a link shown
across the table or forwarded is useless. Re-issuing a link deletes the old one.

Looking a token up by its hash means no comparison is made on the secret itself; where a
secret is compared (the device), it is compared in constant time.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import secrets
from dataclasses import asdict, dataclass
from typing import Any

TOKEN_BYTES = 24  # 192 bits
DEVICE_BYTES = 24


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def new_device_id() -> str:
    return secrets.token_urlsafe(DEVICE_BYTES)


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def link_key(token: str) -> str:
    return f"link:{digest(token)}"


@dataclass
class Link:
    code: str
    game_id: str
    player: str | None  # None: the host's control link (unless the host plays too)
    host: bool = False
    device: str | None = None  # digest of the owning device's cookie
    lang: str = "en"
    # a shared phone's link (pass the phones): the players whose secret turns it takes, in
    # seat order (None: everyone's)
    shared: bool = False
    serves: list[str] | None = None

    def owned_by(self, device_id: str | None) -> bool:
        if self.device is None or device_id is None:
            return False
        return hmac.compare_digest(self.device, digest(device_id))

    def to_text(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def from_text(cls, text: str) -> Link:
        # a fresh Link each time (callers may change theirs), from a cached parse: every
        # poll reads its link, and the stored text holds digests only, never a secret
        return cls(**dict(_fields(text)))


@functools.lru_cache(maxsize=8192)
def _fields(text: str) -> tuple[tuple[str, Any], ...]:
    return tuple(json.loads(text).items())
