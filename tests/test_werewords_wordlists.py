"""The word-list loader and the seeded draw of the offered words (the lists themselves are
checked by test_werewords_words.py)."""

from __future__ import annotations

import random
import unicodedata
from pathlib import Path

import pytest

from rules import SetupError
from rules.werewords import start
from rules.werewords.setup import build_setup
from rules.werewords.wordlists import LANGUAGES, LEVELS, draw_words, read_list, word_list

ROOT = Path(__file__).resolve().parent.parent / "rules" / "werewords" / "words"
NAMES = ["Ana", "Ben", "Cal", "Dee", "Eve"]


def write(root: Path, language: str, level: str, text: str) -> None:
    (root / language).mkdir(parents=True, exist_ok=True)
    (root / language / f"{level}.txt").write_text(text, encoding="utf-8")


def test_a_list_is_read_trimmed_in_nfc_without_blanks_or_repeats(tmp_path):
    decomposed = unicodedata.normalize("NFD", "café")
    write(tmp_path, "fr", "easy", f"chat\n  {decomposed} \n\nchien\nchat\r\nlune\n")
    assert read_list(tmp_path, "fr", "easy") == ("chat", "café", "chien", "lune")


def test_a_missing_list_is_a_set_up_error_naming_it(tmp_path):
    with pytest.raises(SetupError, match="fi/hard is not installed"):
        read_list(tmp_path, "fi", "hard")


def test_an_empty_list_is_a_set_up_error(tmp_path):
    write(tmp_path, "nl", "medium", "\n  \n")
    with pytest.raises(SetupError, match="nl/medium is empty"):
        read_list(tmp_path, "nl", "medium")


@pytest.mark.parametrize(("language", "level"), [("it", "easy"), ("en", "ridiculous"),
                                                 ("../en", "easy")])
def test_only_the_seven_languages_and_three_levels(tmp_path, language, level):
    with pytest.raises(SetupError, match="there is no word list"):
        read_list(tmp_path, language, level)
    assert LANGUAGES == ("en", "es", "fi", "de", "nl", "fr", "pl")
    assert LEVELS == ("easy", "medium", "hard")


# --------------------------------------------------------------------------- the shipped lists


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("level", LEVELS)
def test_every_shipped_list_loads_whole(language, level):
    words = word_list(language, level)
    lines = [line for line in (ROOT / language / f"{level}.txt").read_text("utf-8").splitlines()
             if line.strip()]
    assert len(words) == len(lines) >= 250
    assert all(unicodedata.is_normalized("NFC", w) and w == w.strip() for w in words)
    assert word_list(language, level) is words, "read once, then cached"


def test_the_offer_is_drawn_from_the_tables_list_with_the_games_seed():
    """«el alcalde elige una palabra mágica de las que se muestran»: four by default."""
    for seed in range(20):
        game = start({"ruleset": "werewords", "seed": seed, "players": NAMES})
        assert len(game.words) == 4 == game.options.words_offered
        assert len(set(game.words)) == 4
        assert set(game.words) <= set(word_list("en", "easy"))
        assert start({"ruleset": "werewords", "seed": seed, "players": NAMES}).words == game.words
    offers = {start({"ruleset": "werewords", "seed": s, "players": NAMES}).words
              for s in range(20)}
    assert len(offers) == 20


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("level", LEVELS)
def test_the_difficulty_and_language_options_pick_the_list(language, level):
    game = start({"ruleset": "werewords", "seed": 1, "players": NAMES,
                  "options": {"language": language, "difficulty": level, "words_offered": 10}})
    assert len(game.words) == 10
    assert set(game.words) <= set(word_list(language, level))


def test_the_draw_matches_the_games_generator():
    """The deal first, then rng.sample of the list: one seed fixes both."""
    game = start({"ruleset": "werewords", "seed": 77, "players": NAMES,
                  "options": {"difficulty": "hard"}})
    # fixed words draw nothing: the generator as the deal alone leaves it
    _, after_the_deal = build_setup({"ruleset": "werewords", "seed": 77, "players": NAMES,
                                     "words": ["x"]})
    assert after_the_deal.getstate() != random.Random(77).getstate(), "the deal used it"
    assert draw_words(after_the_deal, "en", "hard", 4) == game.words


def test_a_draw_larger_than_the_list_is_a_set_up_error():
    with pytest.raises(SetupError, match="has only"):
        draw_words(random.Random(0), "en", "easy", 100_000)


def test_the_mayor_chooses_among_drawn_words():
    game = start({"ruleset": "werewords", "seed": 3, "players": NAMES,
                  "options": {"language": "pl", "difficulty": "medium"}})
    word = game.words[2]
    game.apply(game.mayor_name, "choose_word", word)
    assert game.word == word
