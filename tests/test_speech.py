"""speech/: every line in every language, the seed's Spanish lines word for word, rendering."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

from narrator.cues import Pause, Say
from rules.wolf_village.roles import ROLES
from speech import LANGUAGES, catalog, line, to_plain, to_ssml

# The rule book (seed 000) is not part of the repository: what these tests check of it is
# kept here, copied word for word, so a fresh clone tests the same thing. When the rule
# book sits beside the repository (../shared/seeds), one test checks the copy against it.
SEED_DIR = Path(__file__).resolve().parents[2] / "shared" / "seeds"
# every «quote» of the seed that is a narrator line (the seed's other quotes are names of
# the game or of a seer's answer: «el pueblo duerme», «no es hombre lobo», ...)
SEED_QUOTES = (
    "Al amanecer, Sam ha desaparecido sin dejar rastro.",
    "Antes de debatir, elijan a su alguacil. Su voto vale doble. A la cuenta de tres, "
    "todos señalan.",
    "Buenos días, aldea.",
    "Con el corazón roto, Sam sigue a su amor hasta la muerte.",
    "Era el vidente.",
    "La aldea ha decidido.",
    "La aldea no llegó a un acuerdo. Hoy nadie queda fuera.",
    "La noche cae sobre la aldea. Todos, cierren los ojos.",
    "Los hombres lobo atacaron de noche, pero la poción curativa de la bruja salvó a su "
    "víctima. Nadie murió.",
    "Los hombres lobo atacaron de noche, pero su víctima no murió.",
    "Los hombres lobo atacaron por la noche, pero el médico salvó a su víctima. Nadie murió.",
    "Nadie murió esta noche. Pero los hombres lobo mordieron al maldito, y ahora es uno de "
    "ellos.",
    "Sam cayó bajo la flecha del cazador.",
    "Se acabó el tiempo. Es hora de votar.",
    "Todos, abran los ojos.",
    "¡Alex era el cazador! Con su último aliento, apunta.",
    "¡El bufón gana! La aldea hizo justo lo que él quería.",
    "¡Gana el zorro! Sobrevivió a los planes de todos.",
    "¡La aldea gana! Todos los hombres lobo han sido descubiertos.",
    "¡Los hombres lobo ganan!",
    "¡Pero es el tonto del pueblo! La aldea le perdona la vida, pero nunca más podrá votar.",
)
# the seed's quotes that are not narrator lines
NOT_LINES = {"el pueblo duerme", "hombres lobo", "juego de la mafia", "no es hombre lobo",
             "todos los demás", "Nadie murió"}
# «Cómo se llama cada rol en los siete idiomas del juego», row by row
SEED_ROLE_TABLE = {
    "werewolf": ("Hombre lobo", "Werewolf", "Ihmissusi", "Werwolf", "Weerwolf", "Loup-Garou",
                 "Wilkołak"),
    "villager": ("Aldeano", "Villager", "Kyläläinen", "Dorfbewohner", "Burger",
                 "Simple Villageois", "Mieszkaniec wsi"),
    "seer": ("Vidente", "Seer", "Näkijä", "Seherin", "Ziener", "Voyante", "Wróżbitka"),
    "doctor": ("Médico", "Doctor", "Lääkäri", "Heiler", "Dokter", "Salvateur", "Lekarz"),
    "witch": ("Bruja", "Witch", "Noita", "Hexe", "Heks", "Sorcière", "Czarownica"),
    "hunter": ("Cazador", "Hunter", "Metsästäjä", "Jäger", "Jager", "Chasseur", "Łowca"),
    "cupid": ("Cupido", "Cupid", "Amor", "Amor", "Cupido", "Cupidon", "Kupidyn"),
    "mason": ("Masón", "Mason", "Vapaamuurari", "Freimaurer", "Vrijmetselaar", "Franc-maçon",
              "Mason"),
    "idiot": ("Tonto del pueblo", "Village Idiot", "Kylähullu", "Dorfdepp", "Dorpsgek",
              "Idiot du Village", "Wioskowy głupek"),
    "cursed": ("Maldito", "Cursed", "Kirottu", "Verfluchter", "Vervloekte", "Maudit",
               "Przeklęty"),
    "minion": ("Esbirro", "Minion", "Kätyri", "Günstling", "Handlanger", "Sbire", "Sługus"),
    "jester": ("Bufón", "Jester", "Narri", "Narr", "Nar", "Bouffon", "Błazen"),
    "fox": ("Zorro", "Fox", "Kettu", "Fuchs", "Vos", "Renard", "Lis"),
    "sheriff": ("Alguacil", "Sheriff", "Sheriffi", "Hauptmann", "Burgemeester", "Capitaine",
                "Kapitan"),
}
SEED_TABLE_LANGUAGES = ("es", "en", "fi", "de", "nl", "fr", "pl")


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
    """Seed 000, «Cómo se llama cada rol en los siete idiomas del juego»."""
    for role, names in SEED_ROLE_TABLE.items():
        for lang, name in zip(SEED_TABLE_LANGUAGES, names, strict=True):
            assert catalog(lang)["roles"][role] == name, (lang, role)


def test_spanish_lines_quoted_by_the_seed_are_used_word_for_word():
    rendered = set()
    for key in catalog("es")["lines"]:
        for name in ("Sam", "Alex"):
            rendered.add(line("es", key, {"name": name, "role_the": "seer"}))
    for quote in SEED_QUOTES:
        assert any(quote in said for said in rendered), quote


@pytest.mark.skipif(not SEED_DIR.is_dir(), reason="the rule book is not beside this clone")
def test_the_kept_copy_is_the_rule_books_own_words():
    """The quotes and the role table above are the seed's, to the letter."""
    text = next(SEED_DIR.glob("000_*.txt")).read_text(encoding="utf-8")
    quotes = {q for q in re.findall(r"«([^»]*)»", text) if q not in NOT_LINES}
    assert quotes == set(SEED_QUOTES)
    rows = {tuple(cell.strip() for cell in row.strip("|").split("|"))
            for row in text.splitlines() if row.startswith("| ")}
    for names in SEED_ROLE_TABLE.values():
        assert names in rows, names


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
