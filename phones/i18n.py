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
    text["roles"] = catalog(lang)["roles"]
    text["presets"] = catalog(lang)["presets"]
    text["ratings"] = catalog(lang)["ratings"]
    text["protocols"] = catalog(lang)["protocols"]
    text["options"] = catalog(lang)["options"]
    text["values"] = catalog(lang)["values"]
    text["games"] = catalog(lang)["games"]
    text["lang_names"] = LANGUAGE_NAMES
    text["_lang"] = lang
    # each game's own words (phones/text/<game>/<lang>.json, keys with the game's prefix)
    for path in sorted(TEXT_DIR.glob(f"*/{lang}.json")):
        _merge(text, path)
    return text


def _merge(text: dict[str, Any], path: Path) -> None:
    """A game's own page words (phones/text/<game>/<lang>.json): new keys, and new entries
    in a section (a role's or an option's name); never a word the pages already have."""
    with open(path, encoding="utf-8") as handle:
        extra = json.load(handle)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(text.get(key), dict):
            clash = set(value) & set(text[key])
            if clash:
                raise ValueError(f"{path}: {key}.{sorted(clash)[0]} is already in the pages")
            text[key] = {**text[key], **value}
        elif key in text:
            raise ValueError(f"{path}: {key} is already in the pages' words")
        else:
            text[key] = value


def counted(text: dict[str, Any], key: str, **params: Any) -> str:
    """A page's words with a count in them: `{count:minutes}` takes the plural form the
    language needs for that count, from the narrator's own units (speech.units)."""
    return _CountFormatter(text["_lang"]).vformat(str(text[key]), (), params)


class _CountFormatter(string.Formatter):
    def __init__(self, lang: str):
        self.lang = lang

    def format_field(self, value: Any, format_spec: str) -> str:
        return units(self.lang, format_spec, value) if format_spec else str(value)


def setup_problem(text: dict[str, Any], code: str | None, params: dict[str, Any],
                  fallback: str) -> str:
    """Why the table cannot start, in the page's language: the rules' problem code
    (`problem_<code>` in the pages' words) with its values, a role or a preset by its
    name in that language. The rules' English sentence when the code has no words."""
    words = text.get(f"problem_{code}") if code else None
    if not words:
        return fallback
    shown = dict(params)
    if "role" in shown:
        shown["role"] = text["roles"].get(shown["role"], shown["role"])
    if "preset" in shown:
        shown["preset"] = text["presets"].get(shown["preset"], shown["preset"])
    try:  # `{count:players}`: the count with its noun in the plural form the language needs
        return _CountFormatter(text["_lang"]).vformat(str(words), (), shown)
    except (KeyError, IndexError, ValueError):  # words naming a value the rules did not give
        return fallback


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
