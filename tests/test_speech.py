"""speech/: every line in every language, the seed's Spanish lines word for word, rendering."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

from narrator.cues import Pause, Say
from rules.wolf_village.roles import ROLES
from speech import LANGUAGES, catalog, line, to_plain, to_ssml

SEED = next((Path(__file__).resolve().parents[2] / "shared" / "seeds").glob("000_*.txt"))
# quotes in the seed that are names of the game or of a seer's answer, not narrator lines
NOT_LINES = {"el pueblo duerme", "hombres lobo", "juego de la mafia", "no es hombre lobo",
             "todos los demás", "Nadie murió"}


def placeholders(text: str) -> list[str]:
    return sorted(f[1] for f in string.Formatter().parse(text) if f[1])


def test_the_seven_languages_of_the_seed():
    assert set(LANGUAGES) == {"en", "es", "fi", "de", "nl", "fr", "pl"}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_key_in_every_language_with_the_same_placeholders(lang):
    english = catalog("en")
    other = catalog(lang)
    assert set(other) == set(english)
    for section, entries in english.items():
        if isinstance(entries, dict):
            assert set(other[section]) == set(entries), (lang, section)
    for key, text in english["lines"].items():
        assert placeholders(other["lines"][key]) == placeholders(text), (lang, key)
        assert other["lines"][key].strip(), (lang, key)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_role_has_a_name_in_every_language(lang):
    from rules.one_night.roles import ROLES as ONE_NIGHT_ROLES

    # every game's cards (a game's catalogue names the cards the others do not have)
    assert set(ROLES) | set(ONE_NIGHT_ROLES) | {"sheriff"} == set(catalog(lang)["roles"])
    assert set(catalog(lang)["roles"]) == set(catalog(lang)["roles_the"])


def test_role_names_are_the_seeds_table():
    text = SEED.read_text(encoding="utf-8")
    table = [row for row in text.splitlines() if row.startswith("| Hombre lobo | Werewolf")]
    assert table, "the seed's seven-language table"
    expected = {
        "es": "Hombre lobo", "en": "Werewolf", "fi": "Ihmissusi", "de": "Werwolf",
        "nl": "Weerwolf", "fr": "Loup-Garou", "pl": "Wilkołak",
    }
    for lang, name in expected.items():
        assert catalog(lang)["roles"]["werewolf"] == name
    assert catalog("de")["roles"]["seer"] == "Seherin"
    assert catalog("fr")["roles"]["doctor"] == "Salvateur"
    assert catalog("nl")["roles"]["sheriff"] == "Burgemeester"
    assert catalog("pl")["roles"]["idiot"] == "Wioskowy głupek"
    assert catalog("fi")["roles"]["minion"] == "Kätyri"


def test_spanish_lines_quoted_by_the_seed_are_used_word_for_word():
    text = SEED.read_text(encoding="utf-8")
    quotes = {q for q in re.findall(r"«([^»]*)»", text) if q not in NOT_LINES}
    assert len(quotes) >= 20
    rendered = set()
    for key in catalog("es")["lines"]:
        for name in ("Sam", "Alex"):
            rendered.add(line("es", key, {"name": name, "role_the": "seer"}))
    for quote in sorted(quotes):
        assert any(quote in said for said in rendered), quote


def test_role_ids_become_role_names():
    assert line("es", "role_was", {"role_the": "witch"}) == "Era la bruja."
    assert line("en", "reveal_role", {"name": "Ana", "role_the": "seer"}) == "Ana was the Seer."


def test_names_are_joined_in_the_language():
    assert line("en", "tie", {"names": ["Ana", "Ben", "Cal"]}) == (
        "It's a tie between Ana, Ben and Cal."
    )
    assert line("es", "tie", {"names": ["Ana", "Ben"]}) == "Hay empate entre Ana y Ben."


def test_ssml_has_pauses_and_escapes_names():
    ssml = to_ssml("en", [Say("joined", {"name": "Tom & Jerry", "count": 5}), Pause(12)])
    assert ssml.startswith("<speak>") and ssml.endswith("</speak>")
    assert "Tom &amp; Jerry" in ssml
    assert '<break time="10s"/>' in ssml and '<break time="2s"/>' in ssml


def test_ssml_spells_out_room_codes():
    ssml = to_ssml("en", [Say("joined", {"name": "Ana", "count": 1, "code": "WXYZ"})])
    assert "<speak>" in ssml  # joined has no code; the renderer must not crash on extras


def test_plain_rendering_keeps_pauses_after_sentences():
    spoken = to_plain("es", [Say("night_falls"), Pause(5), Say("good_morning")])
    assert spoken[0].text == "La noche cae sobre la aldea. Todos, cierren los ojos."
    assert spoken[0].pause_after == 5
    assert spoken[1].text == "Buenos días, aldea."
