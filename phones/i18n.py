"""The pages' own words (phones/text/<lang>.json, and each game's own in
phones/text/<game>/<lang>.json) and the role names (speech catalogue)."""

from __future__ import annotations

import json
import string
from functools import cache
from pathlib import Path
from typing import Any

from speech import LANGUAGES, catalog, units

TEXT_DIR = Path(__file__).parent / "text"


@cache
def page_text(lang: str) -> dict[str, Any]:
    if lang not in LANGUAGES:
        lang = "en"
    with open(TEXT_DIR / f"{lang}.json", encoding="utf-8") as handle:
        text = json.load(handle)
    # each game's own words (phones/text/<game>/<lang>.json, keys with the game's prefix)
    for path in sorted(TEXT_DIR.glob(f"*/{lang}.json")):
        with open(path, encoding="utf-8") as handle:
            extra = json.load(handle)
        twice = sorted(set(extra) & set(text))
        if twice:
            raise ValueError(f"{path}: {', '.join(twice)} already in the pages' words")
        text.update(extra)
    text["roles"] = catalog(lang)["roles"]
    text["presets"] = catalog(lang)["presets"]
    text["ratings"] = catalog(lang)["ratings"]
    text["protocols"] = catalog(lang)["protocols"]
    text["options"] = catalog(lang)["options"]
    text["values"] = catalog(lang)["values"]
    text["games"] = catalog(lang)["games"]
    text["lang_names"] = LANGUAGE_NAMES
    text["_lang"] = lang
    return text


def counted(text: dict[str, Any], key: str, **params: Any) -> str:
    """A page's words with a count in them: `{count:minutes}` takes the plural form the
    language needs for that count, from the narrator's own units (speech.units)."""
    return _CountFormatter(text["_lang"]).vformat(str(text[key]), (), params)


class _CountFormatter(string.Formatter):
    def __init__(self, lang: str):
        self.lang = lang

    def format_field(self, value: Any, format_spec: str) -> str:
        return units(self.lang, format_spec, value) if format_spec else str(value)


LANGUAGE_NAMES = {
    "en": "English", "es": "Español", "fi": "Suomi", "de": "Deutsch", "nl": "Nederlands",
    "fr": "Français", "pl": "Polski",
}


def pick_language(asked: str | None, accept: str | None) -> str:
    """The language asked for, else the browser's first one we speak, else English."""
    if asked in LANGUAGES:
        return str(asked)
    for part in (accept or "").split(","):
        code = part.split(";")[0].strip().lower()[:2]
        if code in LANGUAGES:
            return code
    return "en"
