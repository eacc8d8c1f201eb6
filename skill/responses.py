"""Narrator cues shaped into an Alexa response, within Alexa's limits.

Alexa answers once per request: at most 8,000 characters of speech and 240 s of audio, and
the microphone opens for about 8 s plus one reprompt. So the night's and the debate's waits
become pauses (SSML breaks) and a reprompt, and "Alexa, ask Wolf Village to continue"
picks the table up at any time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from narrator.cues import Clock, Listen, Pause, Say, Wait
from speech import line, to_ssml

MAX_SPEECH_CHARS = 8000
MAX_AUDIO_SECONDS = 240.0
SPOKEN_CHARS_PER_SECOND = 14.0  # a conservative speaking rate for the audio budget
WAIT_PAUSE = 20.0  # seconds of silence while the phones are busy, before the reprompt


@dataclass
class Spoken:
    ssml: str
    reprompt: str | None
    end_session: bool = False
    listen: Listen | None = None
    clock_seconds: int = 0
    extra: list[Any] = field(default_factory=list)


def _budget(cues: list[Any], lang: str) -> list[Any]:
    """Keep the lines, shorten the pauses so the audio fits in Alexa's 240 s."""
    talk = sum(len(line(lang, c.key, c.params)) for c in cues if isinstance(c, Say))
    silence = sum(c.seconds for c in cues if isinstance(c, Pause))
    room = MAX_AUDIO_SECONDS - talk / SPOKEN_CHARS_PER_SECOND - 5
    if silence <= room or silence == 0:
        return cues
    scale = max(room, 0) / silence
    return [Pause(round(c.seconds * scale, 1)) if isinstance(c, Pause) else c for c in cues]


def _within_chars(ssml: str) -> str:
    if len(ssml) <= MAX_SPEECH_CHARS:
        return ssml
    cut = ssml[: MAX_SPEECH_CHARS - 20]
    cut = cut[: cut.rfind(". ") + 1] or cut
    return cut.removeprefix("<speak>") + "</speak>"


def shape(cues: list[Any], prompt: list[Any], lang: str, phase: str) -> Spoken:
    """The speech for `cues`, then what to wait with, and the reprompt."""
    spoken = [c for c in cues if isinstance(c, Say | Pause)]
    waits = [c for c in cues + prompt if isinstance(c, Wait)]
    clock = next((c for c in cues if isinstance(c, Clock) and c.action == "start"), None)
    if clock is not None:
        # the debate: silence for the clock's length (Alexa's audio limit permitting)
        spoken.append(Pause(float(clock.seconds)))
        spoken.append(Say(clock.then or "time_up_continue"))
    elif waits and phase == "night":
        spoken += [Pause(WAIT_PAUSE), Say("night_continue")]
    ssml = _within_chars(to_ssml(lang, _budget(spoken, lang)))
    question = [c for c in prompt if isinstance(c, Say)]
    if phase == "night" and waits:
        question = [Say("night_continue")]
    elif not question:
        # Alexa keeps the microphone open only with a reprompt: always give one
        question = [Say(f"help_{phase}")]
    reprompt = to_ssml(lang, question) if question else None
    if not any(isinstance(c, Say) for c in spoken) and reprompt:
        # nothing to say (e.g. "repeat" in the lobby, which has no question): silence
        # would sound broken, so say the reprompt
        ssml = reprompt
    listen = next((c for c in reversed(prompt) if isinstance(c, Listen)), None)
    seconds = clock.seconds if clock is not None else 0
    return Spoken(ssml, reprompt, phase == "over" and not question, listen, seconds)
