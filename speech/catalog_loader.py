"""Loading the catalogues and filling one line.

`speech/catalog/<lang>.json` holds the narrator's core lines and Wolf Village's; each other
game keeps its own lines in `speech/catalog/<game>/<lang>.json` (its keys start with the
game's prefix, e.g. `on_` for One Night). They are merged into one catalogue per language:
a line key defined twice, or a section entry (a role's name) given two different texts, is
an error, so one game cannot silently change another's words."""

from __future__ import annotations

import json
import string
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
    merged = _read(CATALOG_DIR / f"{lang}.json")
    for path in sorted(CATALOG_DIR.glob(f"*/{lang}.json")):
        _merge(merged, _read(path), path)
    return merged


def _read(path: Path) -> dict[str, Any]:
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def _merge(into: dict[str, Any], extra: dict[str, Any], path: Path) -> None:
    for section, entries in extra.items():
        if not isinstance(entries, dict):
            continue
        target = into.setdefault(section, {})
        for key, text in entries.items():
            if key in target and (section == "lines" or target[key] != text):
                raise ValueError(f"{path}: {section}.{key} is already in the catalogue")
            target[key] = text


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
    """The line `key` in `lang`, its placeholders filled (role ids become role names, and a
    count written `{count:players}` takes the language's plural form: "1 player")."""
    template = catalog(lang)["lines"][key]
    values = {k: _param(lang, k, v) for k, v in (params or {}).items()}
    return _LineFormatter(lang).vformat(template, (), values)


def units(lang: str, unit: str, count: Any) -> str:
    """`count` with its unit in the plural form `lang` needs ("1 minute", "5 minut")."""
    forms = catalog(lang)["units"][unit]
    try:
        number = int(count)
    except (TypeError, ValueError):
        return str(count)
    form = _plural_rule(lang)(abs(number))
    return forms.get(form, forms["other"]).format(n=number)


@cache
def _plural_rule(lang: str) -> Any:
    # CLDR's plural rules (babel): Polish has one/few/many, French counts 0 as one...
    from babel import Locale

    return Locale.parse(lang).plural_form


class _LineFormatter(string.Formatter):
    """str.format where a missing parameter is empty (it must not crash a table) and a
    format spec naming a unit of the catalogue renders the count in its plural form."""

    def __init__(self, lang: str):
        self.lang = lang

    def get_value(self, key: Any, args: Any, kwargs: Any) -> Any:
        return kwargs.get(key, "") if isinstance(key, str) else ""

    def format_field(self, value: Any, format_spec: str) -> str:
        if format_spec:
            return units(self.lang, format_spec, value)
        return str(value)
