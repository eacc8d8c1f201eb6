"""The pages' own words (phones/text/<lang>.json): every key in all seven languages, with
the same placeholders, so no page shows a blank or a raw key in any language."""

from __future__ import annotations

import json
import string

import pytest

from phones.i18n import TEXT_DIR, counted, page_text
from speech import LANGUAGES


def placeholders(text: str) -> set[str]:
    return {f[1] for f in string.Formatter().parse(text) if f[1]}


def own(lang: str) -> dict[str, str]:
    return json.loads((TEXT_DIR / f"{lang}.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_key_in_every_language_with_the_same_placeholders(lang):
    english, other = own("en"), own(lang)
    assert set(other) == set(english), (set(english) ^ set(other))
    for key, text in english.items():
        assert other[key].strip(), (lang, key)
        assert placeholders(other[key]) == placeholders(text), (lang, key)


def test_a_count_of_one_takes_the_singular_where_there_is_one():
    text = page_text("en")
    assert counted(text, "minutes", count=1) == "1 minute"
    assert counted(text, "minutes", count=3) == "3 minutes"
    assert counted(page_text("es"), "minutes", count=1) == "1 minuto"
