"""Loading the catalogues (speech/catalog/<lang>.json) and filling one line."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

LANGUAGES = ("en", "es", "fi", "de", "nl", "fr", "pl")
CATALOG_DIR = Path(__file__).parent / "catalog"

# parameters whose values are ids translated through a section of the catalogue
TRANSLATED = {
    "role": "roles",
    "role_the": "roles_the",
    "preset": "presets",
    "rating": "ratings",
    "protocol": "protocols",
    "option": "options",
    "value": "values",
    "game": "games",
}


@cache
def catalog(lang: str) -> dict[str, Any]:
    if lang not in LANGUAGES:
        raise KeyError(f"unknown language {lang!r} (known: {', '.join(LANGUAGES)})")
    with open(CATALOG_DIR / f"{lang}.json", encoding="utf-8") as handle:
        return json.load(handle)


def join_names(lang: str, names: list[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} {catalog(lang)['and']} {names[-1]}"


def _param(lang: str, key: str, value: Any) -> str:
    cat = catalog(lang)
    if isinstance(value, list):
        return join_names(lang, [str(v) for v in value])
    section = TRANSLATED.get(key)
    if section is not None:
        text_key = str(value).lower() if isinstance(value, bool) else str(value)
        return cat[section].get(text_key, text_key)
    return str(value)


def line(lang: str, key: str, params: dict[str, Any] | None = None) -> str:
    """The line `key` in `lang`, its placeholders filled (role ids become role names)."""
    template = catalog(lang)["lines"][key]
    values = {k: _param(lang, k, v) for k, v in (params or {}).items()}
    return template.format_map(_Missing(values))


class _Missing(dict):
    def __missing__(self, key: str) -> str:  # a missing parameter must not crash a table
        return ""
