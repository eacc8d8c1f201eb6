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


def setup_error_codes() -> dict[str, set[str]]:
    """Every code the rules (and the narrator's set-up form) give a SetupError, with the
    values it names, read from the source: SetupError(reason, "code", name=value, ...)."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    codes: dict[str, set[str]] = {}
    for path in [*(root / "rules").rglob("*.py"), root / "narrator" / "setup_form.py"]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "SetupError"
                    and len(node.args) > 1):
                code = node.args[1]
                names = {k.arg for k in node.keywords if k.arg}
                if isinstance(code, ast.Constant):
                    codes.setdefault(code.value, set()).update(names)
                elif isinstance(code, ast.IfExp):  # "a" if ... else "b"
                    for branch in (code.body, code.orelse):
                        codes.setdefault(branch.value, set()).update(names)
    return codes


def test_every_reason_the_rules_give_a_host_has_words_in_every_language():
    """A set-up the host's page can reach fails with a code (rules.core.SetupError); each
    code has its sentence in the pages' words, naming only values the rules give."""
    codes = setup_error_codes()
    assert {"deck_size", "need_werewolf", "max_copies", "too_few"} <= set(codes)
    for lang in LANGUAGES:
        text = own(lang)
        for code, given in codes.items():
            words = text.get(f"problem_{code}")
            assert words, (lang, code)
            assert placeholders(words) <= given, (lang, code, placeholders(words) - given)
