"""From audio to an intent: VAD, the recogniser under the grammar of the moment, and the
same text matcher as the console (speech.understanding).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
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

    def __post_init__(self) -> None:
        self.vad = webrtcvad.Vad(self.aggressiveness)

    def utterances(self, pcm: bytes) -> Iterator[bytes]:
        window: list[tuple[bytes, bool]] = []
        speech: list[bytes] = []
        silent = 0
        trailing_frames = max(1, int(self.trailing * 1000 / FRAME_MS))
        limit = int(self.max_seconds * 1000 / FRAME_MS)
        for start in range(0, len(pcm) - FRAME_BYTES + 1, FRAME_BYTES):
            frame = pcm[start : start + FRAME_BYTES]
            voiced = self.vad.is_speech(frame, SAMPLE_RATE)
            if not speech:
                window = [*window[-(self.preroll - 1):], (frame, voiced)]
                if sum(v for _, v in window[-10:]) >= self.start_frames:
                    speech = [f for f, _ in window]
                    silent = 0
                continue
            speech.append(frame)
            silent = 0 if voiced else silent + 1
            if silent >= trailing_frames or len(speech) >= limit:
                yield b"".join(speech)
                speech, window = [], []
        if speech:
            yield b"".join(speech)


@dataclass
class Hearing:
    text: str
    intent: str | None
    slots: dict[str, Any]
    player: str | None
    confidence: float

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "intent": self.intent, "slots": self.slots,
                "player": self.player, "confidence": round(self.confidence, 3)}


def understand_audio(
    audio: Audio,
    recognizer: Recognizer,
    lang: str,
    names: list[str],
    intents: tuple[str, ...] | None,
    segmenter: Segmenter | None = None,
) -> Hearing:
    """The intent in a recording (the longest utterance the VAD finds in it)."""
    pcm = audio.resampled(SAMPLE_RATE).samples.tobytes()
    parts = list((segmenter or Segmenter()).utterances(pcm))
    if not parts:
        return Hearing("", None, {}, None, 0.0)
    speech = max(parts, key=len)
    grammar = build_grammar(lang, intents, names)
    heard = recognizer.recognize(speech, grammar)
    if heard is None:
        return Hearing("", None, {}, None, 0.0)
    understood = Understanding(lang).understand(heard.text, names, intents)
    if understood is None:
        return Hearing(heard.text, None, {}, None, heard.confidence)
    slots = dict(understood.slots)
    player = slots.get("player") if understood.intent not in NOBODY else None
    confidence = heard.confidence * understood.confidence
    return Hearing(heard.text, understood.intent, slots, player, confidence)
