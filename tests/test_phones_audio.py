"""The host page's narrator voice: lines rendered by the server with the box's voices and
kept on disk (the real Piper voice for English, espeak-ng for a language without one)."""

from __future__ import annotations

import io
import wave

from local_voice.voices import Audio, line_voice
from phones.audio import LineVoices
from speech import line


def seconds_of(wav: bytes) -> float:
    with wave.open(io.BytesIO(wav), "rb") as handle:
        assert handle.getnchannels() == 1 and handle.getsampwidth() == 2
        return handle.getnframes() / handle.getframerate()


def test_english_is_piper_and_a_line_is_rendered_once(tmp_path):
    voices = LineVoices(tmp_path, make_voice=line_voice)
    text = line("en", "night_falls")
    first = voices.render("en", text)
    assert first.voice.startswith("piper:") and not first.cached
    assert seconds_of(first.wav) > 1.0
    assert len(list(tmp_path.glob("*.wav"))) == 1
    again = voices.render("en", text)
    assert again.cached and again.wav == first.wav
    # another server process (a new LineVoices on the same folder) finds it too
    assert LineVoices(tmp_path, make_voice=line_voice).render("en", text).cached


def test_a_language_without_a_piper_voice_is_spoken_by_espeak(tmp_path):
    rendered = LineVoices(tmp_path, make_voice=line_voice).render("es", line("es", "night_falls"))
    assert rendered.voice.startswith("espeak:es")
    audio = Audio.from_wav(rendered.wav)
    assert audio.seconds() > 1.0 and abs(audio.samples).max() > 1000
