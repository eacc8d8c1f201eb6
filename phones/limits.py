"""What the relay takes from the network, in one place.

- **Bodies**: at most `MAX_BODY_BYTES` on every route (Flask's MAX_CONTENT_LENGTH, and the
  same limit in the HTTP servers in front, so a big body is refused before it is read).
- **JSON**: strict (no NaN or Infinity, which are not JSON and which the store refuses), at
  most `MAX_JSON_DEPTH` levels deep, numbers of at most `MAX_NUMBER_DIGITS` digits. Every
  JSON body the app reads goes through `strict_loads` (the app's JSON provider).
- **Budgets per client address**, counted in the store (`store.count`), so every server
  process (granian's workers, Lambda instances) shares one count and the documented rate is
  the real one: wrong room-code guesses on every route that takes a code, and rooms created.
- **The client's address**: the peer's, or, from a trusted proxy only, the nearest address
  in `X-Forwarded-For` that is not itself a trusted proxy.

docs/phones-performance.md ("Limits") says what an operator can set.
"""

from __future__ import annotations

import ipaddress
import json
import math
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

# A form or API call is well under 1 KB; an Alexa request a few KB.
MAX_BODY_BYTES = 16 * 1024
# A deck or a set of options is three levels deep; a target four.
MAX_JSON_DEPTH = 16
# Enough for any count, any seed a person types and any Unix time in milliseconds.
MAX_NUMBER_DIGITS = 20

DEFAULT_GUESS_LIMIT = "20 per minute"  # wrong room codes, per address, on all routes at once
DEFAULT_CREATE_LIMIT = "10 per hour"  # rooms created, per address

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


# ---------------------------------------------------------------------- JSON


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _float(text: str) -> float:
    if len(text) > MAX_NUMBER_DIGITS + 10:
        raise ValueError("a number with too many digits")
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is out of range")
    return value


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_NUMBER_DIGITS:
        raise ValueError(f"a number of more than {MAX_NUMBER_DIGITS} digits")
    return int(text)


def depth(value: Any) -> int:
    """How many levels of lists and objects `value` nests (without recursion)."""
    deepest, todo = 0, [(value, 1)]
    while todo:
        item, level = todo.pop()
        if isinstance(item, dict):
            deepest = max(deepest, level)
            todo += [(v, level + 1) for v in item.values()]
        elif isinstance(item, list):
            deepest = max(deepest, level)
            todo += [(v, level + 1) for v in item]
    return deepest


def strict_loads(text: str | bytes, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """JSON as the relay takes it; ValueError (with the reason) for anything else."""
    try:
        value = json.loads(text, parse_constant=_constant, parse_float=_float,
                           parse_int=_int)
    except RecursionError:
        raise ValueError(f"JSON nested more than {max_depth} levels deep") from None
    if depth(value) > max_depth:
        raise ValueError(f"JSON nested more than {max_depth} levels deep")
    return value


# ---------------------------------------------------------------------- addresses


def trusted_networks(spec: str | Iterable[str] | None) -> tuple[Network, ...]:
    """`"127.0.0.1, 10.0.0.0/8"` (or a list of them) as networks; ValueError names a bad one."""
    if not spec:
        return ()
    parts = spec.split(",") if isinstance(spec, str) else list(spec)
    networks = []
    for part in (p.strip() for p in parts):
        if part:
            try:
                networks.append(ipaddress.ip_network(part, strict=False))
            except ValueError:
                raise ValueError(f"not an address or a network: {part!r}") from None
    return tuple(networks)


def _trusted(address: str, networks: tuple[Network, ...]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in networks)


def client_address(environ: dict[str, Any], trusted: tuple[Network, ...]) -> str:
    """The address a budget is counted against.

    `X-Forwarded-For` is anyone's to write, so it is read only when the peer is a trusted
    proxy, and then from the right: each proxy appends the address it got the request from,
    so the first address (from the right) that is not a trusted proxy is the one the last
    trusted proxy saw; whatever a client put further left is its own invention.
    """
    peer = str(environ.get("REMOTE_ADDR") or "")
    if not trusted or not _trusted(peer, trusted):
        return peer
    hops = [h.strip() for h in str(environ.get("HTTP_X_FORWARDED_FOR") or "").split(",")]
    for hop in reversed([h for h in hops if h]):
        if not _trusted(hop, trusted):
            try:
                return str(ipaddress.ip_address(hop))
            except ValueError:
                return peer  # not an address: count it against the proxy itself
    return peer


# ---------------------------------------------------------------------- budgets


@dataclass(frozen=True)
class Budget:
    """So many hits per window and client address, counted in the store."""

    name: str  # the counter's prefix
    limit: int
    window: float  # seconds

    @classmethod
    def parse(cls, name: str, text: str) -> Budget:
        """From a rate such as "20 per minute" or "10/hour" (the `limits` library's form)."""
        from limits import parse

        item = parse(text)
        return cls(name, item.amount, float(item.get_expiry()))

    def key(self, address: str) -> str:
        return f"{self.name}:{address or 'unknown'}"

    def spent(self, store: Any, address: str) -> bool:
        """Whether this address has used the whole budget of the current window."""
        return bool(store.count(self.key(address), self.window, add=0).count >= self.limit)

    def spend(self, store: Any, address: str) -> bool:
        """Take one hit; whether it was still within the budget."""
        return bool(store.count(self.key(address), self.window).count <= self.limit)

    def retry_after(self, store: Any, address: str) -> int:
        """Whole seconds until the window ends (for `Retry-After`), at least 1."""
        tally = store.count(self.key(address), self.window, add=0)
        return max(1, min(math.ceil(self.window), math.ceil(tally.resets_at - time.time())))
