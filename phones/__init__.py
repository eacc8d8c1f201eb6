"""The phone relay: rooms, private one-time links and the secret night-choice pages."""

from phones.relay import Relay, RelayError
from phones.web import create_app, init_app

__all__ = ["Relay", "RelayError", "create_app", "init_app"]
