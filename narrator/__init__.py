"""The shared narrator state machine (I/O-free): cues out, inputs in."""

from narrator.cues import Clock, Heard, Host, Listen, Pause, Reply, Say, Show, Tap, Tick, Wait
from narrator.narrator import Narrator

__all__ = [
    "Clock", "Heard", "Host", "Listen", "Narrator", "Pause", "Reply", "Say", "Show", "Tap",
    "Tick", "Wait",
]
