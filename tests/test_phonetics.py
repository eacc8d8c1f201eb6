"""How names sound, worked out many at once (local_voice.phonetics): the same numbers as
one by one, and espeak-ng's voice kept to whoever set it."""

from __future__ import annotations

import threading

import pytest

from local_voice import phonetics
from local_voice.common_names import common_first_names
from local_voice.phonetics import (
    apart_each,
    apart_in_each,
    espeak_ipa,
    learn_ipa,
    sounds_apart,
    sounds_apart_in,
)
from local_voice.voices import ESPEAK_VOICES

# ways a table says its players (casefolded, as WhisperRecognizer._spoken_forms), with
# a respelling, an enrolled spelling of two words and nothing at all
FORMS = ["tamsin", "siobhan", "shivawn", "xochitl", "ben", "oliver", "only vera", ""]


def test_many_words_at_once_are_as_far_apart_as_one_by_one():
    """`apart_each` is `_near`'s distance (the farther way round) for a whole list: the
    same floats, not nearly the same, for every common English name, words espeak-ng
    says as several ("i'll sing") and a word with nothing to say."""
    words = (*sorted(common_first_names("en")), "i'll sing", "number two", "x", "")
    for form in FORMS:
        one_by_one = [max(sounds_apart(w, form), sounds_apart(form, w)) for w in words]
        assert apart_each(words, form).tolist() == one_by_one, form
    assert apart_each((), "ben").tolist() == [] == apart_in_each((), "ben", "de").tolist()


@pytest.mark.parametrize(("lang", "forms"), [("de", ["greta", "jürgen", "lea"]),
                                              ("es", ["lucía", "mateo"])])
def test_many_words_at_once_are_as_far_apart_in_the_tables_language(lang, forms):
    words = tuple(sorted(common_first_names(lang))[::4])
    for form in forms:
        assert apart_in_each(words, form, lang).tolist() == [
            sounds_apart_in(w, form, lang) for w in words], form


def test_espeak_says_many_words_in_one_call_as_it_says_each_alone():
    """`learn_ipa` asks espeak-ng once for a list, one clause a word: the IPA kept is the
    IPA of each word asked alone. A word with a mark that ends a clause is asked alone."""
    words = [w.lower() for w in sorted(common_first_names("de"))[:300]] + [
        "jean-pierre", "o'brien", "st. john", "ana, ben"]
    alone = {}
    for word in words:
        phonetics._IPA.pop(("de", word), None)
        alone[word] = espeak_ipa(word, "de")
        del phonetics._IPA[("de", word)]
    learn_ipa(words, "de")
    assert ("de", "st. john") not in phonetics._IPA
    assert ("de", "ana, ben") not in phonetics._IPA
    assert {w: espeak_ipa(w, "de") for w in words} == alone


def test_the_narrators_voice_and_the_names_take_turns_with_espeak():
    """espeak-ng has one voice at a time in the process. The box's synthesis thread has
    Piper set English for the narrator's lines while the game's start works out a German
    table's names: each gets its own language's sounds."""
    from local_voice.voices import default_piper

    piper = default_piper().voice
    line = "Night falls on the village."
    english = piper.phonemize(line)
    voice = ESPEAK_VOICES.get("de", "de")
    words = [w.lower() for w in sorted(common_first_names("de"))]
    german = {}
    for word in words[:200]:
        german[word] = espeak_ipa(word, voice)
    heard: list[object] = []
    stop = threading.Event()

    def narrate() -> None:
        while not stop.is_set():
            heard.append(piper.phonemize(line))

    narrator = threading.Thread(target=narrate)
    narrator.start()
    try:
        for _ in range(20):
            for word in words[:200]:
                phonetics._IPA.pop((voice, word), None)
            learn_ipa(words[:200], voice)
            assert {w: espeak_ipa(w, voice) for w in words[:200]} == german
    finally:
        stop.set()
        narrator.join()
    assert heard and all(said == english for said in heard)
