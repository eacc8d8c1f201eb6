"""From audio to an intent: VAD, the recogniser under the grammar of the moment, and the
same text matcher as the console (speech.understanding).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import webrtcvad

from local_voice.grammar import build_grammar
from local_voice.recognizers import SAMPLE_RATE, Recognizer
from local_voice.voices import Audio
from speech.understanding import Understanding

FRAME_MS = 30
FRAME_BYTES = SAMPLE_RATE * FRAME_MS // 1000 * 2

# what `wolfvillage hear --expect` names, as the intents the narrator would listen for
EXPECT = {
    "vote": ("VoteIntent", "NobodyIntent", "SkipIntent"),
    "elect": ("ElectIntent", "VoteIntent", "NobodyIntent", "SkipIntent"),
    "yesno": ("AMAZON.YesIntent", "AMAZON.NoIntent"),
    "ready": ("ReadyIntent",),
    "hands": ("HandsResultIntent", "HandsTieIntent", "NobodyIntent", "VoteIntent"),
    "any": None,
}
NOBODY = ("NobodyIntent", "SkipIntent")


@dataclass
class Segmenter:
    """Voice activity detection: frames in, whole utterances out.

    An utterance starts after `start_frames` voiced frames in a window of ten, keeps
    `preroll` frames from before, and ends after `trailing` seconds of silence.
    """

    aggressiveness: int = 2
    trailing: float = 0.5
    start_frames: int = 3
    preroll: int = 10
    max_seconds: float = 10.0
    # told every piece of audio that joins the current utterance, as it joins (the
    # pre-roll at the start, then each frame), so a recogniser can decode while it lasts
    listener: Callable[[bytes], None] | None = field(default=None, repr=False)
    # told True once the speaker has been quiet for `settle` seconds (before `trailing`
    # ends the utterance: the recogniser can conclude in the meantime), False if they
    # then speak again
    pause: Callable[[bool], None] | None = field(default=None, repr=False)
    settle: float = 0.3

    def __post_init__(self) -> None:
        self.vad = webrtcvad.Vad(self.aggressiveness)
        self._window: list[tuple[bytes, bool]] = []
        self._speech: list[bytes] = []
        self._silent = 0
        self._paused = False

    def feed(self, frame: bytes) -> bytes | None:
        """One 30 ms frame; returns an utterance when one has just ended."""
        voiced = self.vad.is_speech(frame, SAMPLE_RATE)
        if not self._speech:
            self._window = [*self._window[-(self.preroll - 1) :], (frame, voiced)]
            if sum(v for _, v in self._window[-10:]) >= self.start_frames:
                self._speech = [f for f, _ in self._window]
                self._silent = 0
                if self.listener:
                    self.listener(b"".join(self._speech))
            return None
        self._speech.append(frame)
        if self.listener:
            self.listener(frame)
        self._silent = 0 if voiced else self._silent + 1
        if self.pause is not None:
            if voiced and self._paused:
                self._paused = False
                self.pause(False)
            elif self._silent == self._hint_frames():
                self._paused = True
                self.pause(True)
        if (
            self._silent >= self._trailing_frames()
            or len(self._speech) >= self.max_seconds * 1000 / FRAME_MS
        ):
            return self.flush()
        return None

    def _trailing_frames(self) -> int:
        return max(1, int(self.trailing * 1000 / FRAME_MS))

    def _hint_frames(self) -> int:
        return min(self._trailing_frames() - 1, max(1, int(self.settle * 1000 / FRAME_MS)))

    @property
    def after_hint(self) -> float:
        """Seconds of silence the VAD still waits for after its pause hint, before it
        ends the utterance: what a recogniser that concludes at the hint has not heard."""
        return (self._trailing_frames() - self._hint_frames()) * FRAME_MS / 1000

    def flush(self) -> bytes | None:
        speech = b"".join(self._speech) if self._speech else None
        self._speech, self._window, self._silent, self._paused = [], [], 0, False
        return speech

    def utterances(self, pcm: bytes) -> Iterator[bytes]:
        for start in range(0, len(pcm) - FRAME_BYTES + 1, FRAME_BYTES):
            done = self.feed(pcm[start : start + FRAME_BYTES])
            if done:
                yield done
        rest = self.flush()
        if rest:
            yield rest


@dataclass
class Hearing:
    text: str
    intent: str | None
    slots: dict[str, Any]
    player: str | None
    confidence: float

    def to_json(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "intent": self.intent,
            "slots": self.slots,
            "player": self.player,
            "confidence": round(self.confidence, 3),
        }


class Listening:
    """One utterance being understood while it is spoken: audio in as it arrives (`feed`),
    the Hearing out at the end of speech (`finish`). With a recogniser that can stream
    (PocketSphinx), the decoding happens during the speech; only the end of the search,
    the confidence and the matching are left for after it."""

    def __init__(self, recognizer: Recognizer, lang: str, names: list[str],
                 intents: tuple[str, ...] | None, pairs: bool = False):
        self.recognizer, self.lang, self.names, self.intents = recognizer, lang, names, intents
        self.grammar = build_grammar(lang, intents, names, pairs=pairs)
        stream = getattr(recognizer, "stream", None)
        self._stream = stream(self.grammar) if stream else None
        # how soon after the speech stops the recogniser wants the VAD's pause hint (None:
        # the VAD's own `settle`): Whisper alone needs longer than the trailing silence
        self.settle_after: float | None = getattr(self._stream, "settle_after", None)
        self._pcm: list[bytes] = []
        self.size = 0

    def feed(self, pcm: bytes) -> None:
        self.size += len(pcm)
        if self._stream is not None:
            self._stream.feed(pcm)
        else:
            self._pcm.append(pcm)

    def pause(self, quiet: bool, after: float = 0.0) -> None:
        """The VAD's hint (Segmenter.pause): quiet for a while (True), or speaking again;
        `after`: the seconds of silence the VAD still waits for (Segmenter.after_hint)."""
        if self._stream is not None and self.size:
            if quiet:
                self._stream.settle(after)
            else:
                self._stream.unsettle()

    def done(self) -> bool:
        """The recogniser has its answer and the speech is over, though the VAD still
        hears speech: in babble, a sure vote the talker has stopped saying while the chatter
        goes on (fusion.TwoPassUtterance.done)."""
        done = getattr(self._stream, "done", None)
        return bool(done and done())

    def finish(self) -> Hearing:
        if self._stream is not None:
            heard = self._stream.finish() if self.size else None
        else:
            pcm = b"".join(self._pcm)
            heard = self.recognizer.recognize(pcm, self.grammar) if pcm else None
        return _meaning(heard, self.lang, self.names, self.intents)


def _meaning(heard: Any, lang: str, names: list[str],
             intents: tuple[str, ...] | None) -> Hearing:
    if heard is None:
        return Hearing("", None, {}, None, 0.0)
    unknown = getattr(heard, "unknown", None)
    if unknown:
        # a vote for a name the table does not have: its intent and the name, for the
        # narrator to say it knows no one by that name; no player, nothing to count
        understood = Understanding(lang).understand(heard.text, [*names, unknown.title()],
                                                    intents)
        if understood is None or understood.slots.get("player") != unknown.title():
            return Hearing(heard.text, None, {}, None, 0.0)
        return Hearing(heard.text, understood.intent, dict(understood.slots), None, 0.0)
    understood = Understanding(lang).understand(heard.text, names, intents)
    if understood is None:
        return Hearing(heard.text, None, {}, None, heard.confidence)
    slots = dict(understood.slots)
    player = slots.get("player") if understood.intent not in NOBODY else None
    confidence = heard.confidence * understood.confidence
    return Hearing(heard.text, understood.intent, slots, player, confidence)


def understand_frames(
    frames: Iterable[bytes],
    recognizer: Recognizer,
    lang: str,
    names: list[str],
    intents: tuple[str, ...] | None,
    segmenter: Segmenter | None = None,
    pairs: bool = False,
) -> Iterator[Hearing]:
    """Streaming: 30 ms frames of 16 kHz audio in, one Hearing per utterance out, each
    decoded while it was spoken (the first is ready as soon as the VAD ends it)."""
    return hearings(frames, lambda: Listening(recognizer, lang, names, intents, pairs),
                    segmenter or Segmenter(), flush=True)


def hearings(frames: Iterable[bytes], listening: Callable[[], Listening],
             segmenter: Segmenter, flush: bool = False) -> Iterator[Hearing]:
    """Each utterance the segmenter finds in `frames`, understood while it is spoken: every
    frame the VAD lets in goes to a `Listening` (a new one from `listening` per utterance),
    and the VAD's pause hint lets it conclude during the trailing silence. An utterance
    also ends where its recogniser says it is done (`Listening.done`: in babble, a sure
    vote the talker has stopped saying while the chatter goes on). With `flush`, speech
    still going on when the frames end counts as an utterance too."""
    current: list[Listening] = []
    settle = segmenter.settle

    def listener(pcm: bytes) -> None:
        if not current:
            current.append(listening())
            # the hint comes when this utterance's recogniser wants it
            wanted = current[0].settle_after
            segmenter.settle = settle if wanted is None else wanted
        current[0].feed(pcm)

    def pause(quiet: bool) -> None:
        if current:
            current[0].pause(quiet, segmenter.after_hint)

    segmenter.listener = listener
    segmenter.pause = pause
    for frame in frames:
        if segmenter.feed(frame) and current:
            yield current.pop().finish()
        elif current and current[0].done():
            segmenter.flush()  # the chatter after the vote is not part of it
            yield current.pop().finish()
    if flush and segmenter.flush() and current:
        yield current.pop().finish()


def understand_audio(
    audio: Audio,
    recognizer: Recognizer,
    lang: str,
    names: list[str],
    intents: tuple[str, ...] | None,
    segmenter: Segmenter | None = None,
    pairs: bool = False,
) -> Hearing:
    """The intent in a recording (the longest utterance the VAD finds in it); `pairs`:
    the narrator asked for the seat and the name together (Grammar.pairs)."""
    pcm = audio.resampled(SAMPLE_RATE).samples.tobytes()
    parts = list((segmenter or Segmenter()).utterances(pcm))
    if not parts:
        return Hearing("", None, {}, None, 0.0)
    speech = max(parts, key=len)
    heard = recognizer.recognize(speech, build_grammar(lang, intents, names, pairs=pairs))
    return _meaning(heard, lang, names, intents)
