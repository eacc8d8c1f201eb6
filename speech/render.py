"""Rendering cues: SSML for Alexa, plain sentences with pauses for Piper and the console."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape

from speech.catalog_loader import line

# a room code in a line is spelled out letter by letter
_CODE = "code"
_MAX_SSML_BREAK = 10.0  # Alexa's longest <break>


@dataclass(frozen=True)
class Spoken:
    text: str
    pause_after: float = 0.0


def _spoken(lang: str, cue: Any) -> Spoken | float | None:
    kind = type(cue).__name__
    if kind == "Say":
        params = dict(cue.params)
        if _CODE in params:
            params[_CODE] = " ".join(str(params[_CODE]).upper())
        return Spoken(line(lang, cue.key, params))
    if kind in ("Pause",):
        return float(cue.seconds)
    return None


def to_plain(lang: str, cues: list[Any]) -> list[Spoken]:
    """Sentences for a speech synthesiser, each with the silence that follows it."""
    out: list[Spoken] = []
    for cue in cues:
        item = _spoken(lang, cue)
        if isinstance(item, Spoken):
            out.append(item)
        elif isinstance(item, float) and out:
            out[-1] = Spoken(out[-1].text, out[-1].pause_after + item)
        elif isinstance(item, float):
            out.append(Spoken("", item))
    return out


def to_ssml(lang: str, cues: list[Any]) -> str:
    """One <speak> document: lines, pauses as <break>, room codes spelled out."""
    parts: list[str] = []
    for cue in cues:
        kind = type(cue).__name__
        if kind == "Say":
            params = dict(cue.params)
            code = params.pop(_CODE, None)
            text = escape(line(lang, cue.key, {**params, _CODE: "\x00"}))
            if code is not None:
                spelled = f'<say-as interpret-as="spell-out">{escape(str(code))}</say-as>'
                text = text.replace("\x00", spelled)
            parts.append(text)
        elif kind == "Pause":
            remaining = float(cue.seconds)
            while remaining > 0:
                step = min(remaining, _MAX_SSML_BREAK)
                parts.append(f'<break time="{step:g}s"/>')
                remaining -= step
    body = re.sub(r"\s+", " ", " ".join(p for p in parts if p)).strip()
    return f"<speak>{body}</speak>"
