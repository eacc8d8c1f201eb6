"""The phone relay: rooms, private one-time links and the secret night-choice pages.

Imports are lazy: the Alexa skill's Lambda uses the relay but not the web pages, and
importing Flask and its extensions would cost it a third of a second at every cold start.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Relay", "RelayError", "create_app", "init_app"]


def __getattr__(name: str) -> Any:
    if name in ("Relay", "RelayError"):
        from phones import relay

        return getattr(relay, name)
    if name in ("create_app", "init_app"):
        from phones import web

        return getattr(web, name)
    raise AttributeError(name)
