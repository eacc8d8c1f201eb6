"""The word-list loader and the seeded draw of the offered words (the lists themselves are
checked by test_werewords_words.py)."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from rules import SetupError
from rules.werewords.wordlists import LANGUAGES, LEVELS, read_list


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
