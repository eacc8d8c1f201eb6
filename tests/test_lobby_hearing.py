"""What the box hears before there are players to name: the lobby's talk and commands.

Until round 39 the Whisper back-up had no candidates in a grammar without players (the
lobby's, and `wolfvillage hear` without --names): every utterance the first pass was unsure
of ("is everyone here?") ended in a ValueError that stopped `wolfvillage box`, and a box in
another language, where Whisper decides every utterance, could hear nothing in its lobby.
Real speech (espeak-ng test voices), the real recognisers, the real program.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from local_voice.box import LOBBY_LISTEN
from local_voice.grammar import PLAYER, build_grammar
from local_voice.hearing import understand_audio
from local_voice.recognizers import factored_jsgf, make_recognizer
from tests.voice_fixtures import ROOT, WOLFVILLAGE, cli_env, padded, speech, speech_wav


@pytest.fixture(scope="module")
def wavs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("lobby-wavs")


def test_a_grammar_without_players_keeps_its_sentences_naming_no_one():
    """The lobby's grammar lists its commands for Whisper (the sentences without a
    player), while PocketSphinx still gets every phrase, as before."""
    lobby = build_grammar("en", LOBBY_LISTEN.intents, [])
    assert "start the game" in lobby.templates
    assert not any(PLAYER in t for t in lobby.templates)
    jsgf = factored_jsgf(lobby)[0]
    assert "<player>" not in jsgf and "start the game" in jsgf


@pytest.mark.parametrize("expect", [None, "ready"])
def test_wolfvillage_hear_without_names_answers_table_talk_with_nothing(wavs, tmp_path,
                                                                        expect):
    """`wolfvillage hear FILE.wav` (no --names) on table talk the first pass is unsure of:
    exit 0 and the JSON contract, nothing understood (it was a traceback)."""
    wav = speech_wav(wavs, "is everyone here", "en-us+m3")
    done = subprocess.run([*WOLFVILLAGE, "hear", str(wav),
                           *(["--expect", expect] if expect else [])],
                          cwd=ROOT, env=cli_env(tmp_path), capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    heard = json.loads(done.stdout)
    assert set(heard) == {"text", "intent", "slots", "player", "confidence"}
    assert heard["player"] is None
    assert heard["intent"] is None or heard["confidence"] < 0.5, heard


def test_the_lobby_of_a_box_in_another_language_hears_its_commands(wavs):
    """A Spanish box (Whisper base alone) in its lobby: "empezar la partida" starts the
    game and "cómo se juega" asks for help; table talk is not taken for a command."""
    recognizer = make_recognizer("pocketsphinx", whisper_model="base", lang="es")
    for text, intent in [("empezar la partida", "StartGameIntent"),
                         ("cómo se juega", "AMAZON.HelpIntent")]:
        audio = padded(speech(wavs, text, "es+m3"), 0.3, 0.3)
        heard = understand_audio(audio, recognizer, "es", [], LOBBY_LISTEN.intents)
        assert heard.intent == intent and heard.confidence >= 0.5, (text, heard)
    talk = padded(speech(wavs, "me gusta mucho este vino tinto", "es+m3"), 0.3, 0.3)
    heard = understand_audio(talk, recognizer, "es", [], LOBBY_LISTEN.intents)
    assert heard.intent is None or heard.confidence < 0.5, heard


def test_the_lobby_is_prepared_by_its_candidates_not_scored_on_silence():
    """What the box prepares while nobody speaks in the lobby (`TwoPass.prepare`, called
    before every listen): the back-up's candidates (4,545 commands understood once, 1.2 s
    off a Spanish box's first answer there), and nothing scored on silence (the vote's
    warm-up would score every command: 18 s holding the model)."""
    import threading

    recognizer = make_recognizer("pocketsphinx", whisper_model="tiny.en", lang="en")
    lobby = build_grammar("en", LOBBY_LISTEN.intents, [])
    scorer = recognizer.backup.scorer
    before = len(scorer._silence)
    recognizer.prepare(lobby)
    for thread in threading.enumerate():
        if thread.name == "whisper-warm":
            thread.join()
    assert len(recognizer.backup._candidates) == 1
    templates, plain, _forms = recognizer.backup.candidates(lobby)
    assert not templates and "start the game" in {c.text for c in plain}
    assert len(scorer._silence) == before
