"""What the narrator emits (cues) and what it consumes (inputs).

Cues are executed by a mouth: the Alexa skill turns them into SSML, the offline box into
Piper audio and phone-relay updates, the console into printed lines. Inputs are plain data
so a table's whole history can be stored and replayed.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class Say:
    """Say the line `key` of the speech catalogue with these parameters."""

    key: str
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Pause:
    seconds: float


@dataclass(frozen=True)
class Listen:
    """Listen for one of `intents` from `player` (None: the table or the host)."""

    intents: tuple[str, ...]
    player: str | None = None
    timeout: float = 8.0
    names: tuple[str, ...] = ()  # the players who may be named in the answer


@dataclass(frozen=True)
class Show:
    """Show this private view on that player's phone (None: the host's shared screen)."""

    player: str | None
    view: dict[str, Any]


@dataclass(frozen=True)
class Wait:
    """Wait for these players' secret choices on their phones.

    `min_seconds`: the mouth keeps the call at least this long, so a quick choice and a
    dead role's pause take the same time and timing gives nothing away.
    """

    players: tuple[str, ...]
    verb: str
    min_seconds: float = 0.0


@dataclass(frozen=True)
class Clock:
    """Start (with the seconds) or stop the narrator's timer (the debate clock, a day).

    `then`: the line a mouth that cannot keep time itself (Alexa: one answer per request)
    says once it has waited the clock's length, to be asked to go on ("" : the debate's)."""

    action: str
    seconds: int = 0
    then: str = ""


@dataclass(frozen=True)
class Record:
    """A box with a microphone: record `player` saying their own name, so that it hears
    that name the way the table says it (the other mouths have no microphone to do it)."""

    player: str
    seconds: float = 3.0


@dataclass(frozen=True)
class Chapter:
    """A new part of the story starts here (nightfall, the morning, the debate, the end).

    A marker for the narrator's own record of what the table heard (`Narrator.story`): the
    narrator takes it out of a reply's cues, so no mouth ever sees one."""


Cue = Say | Pause | Listen | Show | Wait | Clock | Record | Chapter


def cue_to_json(cue: Cue) -> dict[str, Any]:
    return {"cue": type(cue).__name__.lower(), **asdict(cue)}


# ---------------------------------------------------------------- inputs


@dataclass(frozen=True)
class Heard:
    """An intent with slots, heard by a microphone or typed at the console."""

    intent: str
    slots: dict[str, Any] = field(default_factory=dict)
    speaker: str | None = None
    # False: the recogniser was not sure of it, and the narrator asks before it counts
    sure: bool = True


@dataclass(frozen=True)
class Tap:
    """A secret choice made on a player's own phone."""

    player: str
    verb: str
    target: Any = None


@dataclass(frozen=True)
class SharedTap:
    """A choice tapped on a shared phone during a narrated night, for the role being
    called (`call`, e.g. "seer"): the phone knows the call, never who holds it."""

    call: str
    verb: str
    target: Any = None


@dataclass(frozen=True)
class Tick:
    """Time passed (seconds). Timers are inputs: nothing here reads a clock."""

    seconds: float


@dataclass(frozen=True)
class Host:
    """A host command from a screen or a console flag: set-up, start, pause, undo...

    command: join, leave, seats, preset, deck, option, protocol, clock, language,
    host_plays, start, pause, resume, repeat, skip_clock, undo_vote, new_game.
    """

    command: str
    arg: Any = None


Input = Heard | Tap | SharedTap | Tick | Host


@dataclass
class Reply:
    """The narrator's answer to one input: whether it was accepted (and so must be stored)
    and the cues to execute."""

    accepted: bool
    cues: list[Cue] = field(default_factory=list)

_INPUTS = {"heard": Heard, "tap": Tap, "sharedtap": SharedTap, "tick": Tick, "host": Host}


def input_to_json(inp: Input) -> dict[str, Any]:
    data = {"type": type(inp).__name__.lower(), **asdict(inp)}
    if isinstance(inp, Heard) and inp.sure:
        del data["sure"]  # the usual case, and every log from before `sure` existed
    return data


def input_from_json(data: dict[str, Any]) -> Input:
    data = dict(data)
    kind = _INPUTS.get(data.pop("type", ""))
    if kind is None:
        raise ValueError(f"unknown input {data!r}")
    return kind(**data)
