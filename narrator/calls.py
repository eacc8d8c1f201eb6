"""A narrated night: the calls of a ruleset made one at a time, each held open as long.

Every call gets the same time (`Narrator.call_pause`, counted down by Ticks like any timer),
whether the players it wakes answer at once, think it over, or nobody holds that card (a
dead role, a card in the centre): only then, and once its answer is in, does the next call
start. A call names nobody (a `Wait` of verb "call"), so what the table hears, what the
speaker's timing says and the moment a phone shows the next choice are the same whoever is
called. The script says which calls there are (from what is public: the deck) and whether
the call in progress has been answered (from the rules' pending decisions).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from narrator.cues import Cue, Say, Wait

if TYPE_CHECKING:
    from narrator.narrator import Narrator

CALL = "call"  # the timer's kind, and the verb of a call's Wait


@dataclass
class NightCalls:
    """The calls still to make tonight and the one in progress. `wake`/`sleep` give the
    line keys of a call (Wolf Village: "wake_seer", "sleep_seer")."""

    wake: Callable[[str], str] = lambda call: f"wake_{call}"
    sleep: Callable[[str], str] = lambda call: f"sleep_{call}"
    todo: list[str] = field(default_factory=list)
    calling: str | None = None

    def plan(self, calls: list[str]) -> None:
        """At nightfall: the calls of tonight, in order."""
        self.todo, self.calling = list(calls), None

    def reset(self) -> None:
        self.plan([])

    def is_open(self, narrator: Narrator) -> bool:
        """A call is in progress and its time is still running."""
        return self.calling is not None and narrator.timer is not None

    def done(self, narrator: Narrator) -> bool:
        """Every call has been made and the last one has lasted its time (its answer may
        still be missing: see `next`)."""
        return not self.todo and not self.is_open(narrator)

    def next(self, narrator: Narrator, answered: bool) -> list[Cue] | None:
        """Move the night on: close the call in progress if its time is over and it is
        `answered`, then open the next one (its wake line, its Wait, its timer; the
        narrator's prompt). None: the call in progress is not over yet. An empty list: the
        last call has been closed and nothing is left to call."""
        cues: list[Cue] = []
        if self.calling is not None:
            if narrator.timer is not None or not answered:
                return None
            cues.append(Say(self.sleep(self.calling)))
            self.calling = None
        if self.todo:
            self.calling = self.todo.pop(0)
            narrator.start_timer(narrator.call_pause, CALL)
            narrator.prompt = [Say(self.wake(self.calling)),
                               Wait((), CALL, narrator.call_pause)]
            cues += narrator.prompt
        return cues

    def close(self, narrator: Narrator) -> list[Cue]:
        """The night is over: the last call's sleep line, if one is still open."""
        if self.calling is None:
            return []
        call, self.calling = self.calling, None
        if narrator.timer_kind == CALL:
            narrator.stop_timer()
        return [Say(self.sleep(call))]
