"""Serving the relay: its app over a store, waitress set for many phones, the LAN address.

`wolfvillage serve` (wolfvillage/serve.py) composes this with the Alexa endpoint and runs it
in one or several processes.
"""

from __future__ import annotations

import socket
from typing import Any


def lan_address() -> str:
    """This machine's address on the local network (what the phones must reach)."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        # no packet is sent: connecting a UDP socket only picks the outgoing interface
        probe.connect(("10.255.255.255", 1))
        return probe.getsockname()[0]
    except OSError:
        return "127.0.0.1"
    finally:
        probe.close()


def build_relay_app(store_url: str | None, **config: Any) -> Any:
    """The relay's app alone over the store `store_url` names (the Alexa endpoint is added
    beside it by `wolfvillage.serve`, which composes the two)."""
    from phones.web import create_app
    from store import open_store

    return create_app(open_store(store_url), **config)


def serve(app: Any, host: str, port: int, threads: int, connections: int) -> None:
    """waitress, set for a room full of phones that each keep a connection open.

    Every phone keeps its connection alive between polls, so a busy relay holds a thousand
    mostly idle connections: waitress's default limit (100) would make the 101st phone wait,
    and select() cannot watch more than 1024 sockets (docs/phones-performance.md).
    """
    from waitress import serve as waitress_serve

    from phones.limits import MAX_BODY_BYTES

    # a body over the app's limit is refused by waitress before it is read (413); the
    # X-Forwarded-For header is left for the app, which believes it only from the proxies
    # it is told to trust (waitress would drop it, so nobody behind a proxy had their own
    # budget)
    waitress_serve(app, host=host, port=port, threads=threads, ident="wolfvillage",
                   connection_limit=connections, asyncore_use_poll=True,
                   max_request_body_size=MAX_BODY_BYTES, clear_untrusted_proxy_headers=False)
