"""One Night's lines (speech/catalog/one_night/<lang>.json): every key in seven languages,
the seed's wake order line by line, the Spanish lines in the seed's words, the plurals.

The seed (001, «Reglas del Hombre Lobo de una noche») is not part of the repository: the
phrases these tests look for are kept here, word for word, and one test checks them against
the seed itself when it sits beside the repository (../shared/seeds).
"""

from __future__ import annotations

import json
import string
from pathlib import Path

import pytest

from rules.one_night.roles import CALL_ORDER, ROLES
from speech import LANGUAGES, catalog, line

CATALOG = Path(__file__).resolve().parents[1] / "speech" / "catalog" / "one_night"
SEED = next((Path(__file__).resolve().parents[2] / "shared" / "seeds").glob("001_*.txt"),
            None)

# the seed's own words that the Spanish narrator says (in the line that says it)
SEED_WORDS = {
    "on_wake_doppelganger": "copia la carta de otro jugador y conviértete en ese papel",
    "on_wake_werewolves": "Si estás solo, puedes mirar una carta del centro",
    "on_wake_seer": "Mira la carta de un jugador, o dos cartas del centro",
    "on_wake_robber": "descubre tu nueva identidad",
    "on_wake_troublemaker": "Intercambia las cartas de otros dos jugadores sin mirarlas",
    "on_wake_drunk": "Intercambia tu carta con una del centro, sin mirarla",
    "on_wake_insomniac": "Mira tu carta",
    "on_wake_paranormal_investigator": "Mira hasta dos cartas",
    "on_wake_minion": "quiénes son los lobos",
    "on_dawn": "Todos se despiertan",
    "on_debate_free": "puede decir lo que quiera, incluso mentir",
    "on_countdown": "señala a la vez a otro jugador",
    "on_nobody_out": "nadie queda eliminado",
    "on_reveal_intro": "Cuentan las cartas al final de la noche, no las del principio",
}
# the seed's phrases as they stand in it (the line may address the player as «tú»)
SEED_TEXT = {
    "on_wake_doppelganger": "copia la carta de otro jugador y se convierte en ese papel",
    "on_wake_werewolves": "Si estás solo, puedes mirar una carta del centro",
    "on_wake_seer": "Mira la carta de un jugador, o dos cartas del centro",
    "on_wake_robber": "descubre su nueva identidad",
    "on_wake_troublemaker": "Intercambia las cartas de otros dos jugadores sin mirarlas",
    "on_wake_drunk": "Intercambia su carta con una del centro, sin mirarla",
    "on_wake_insomniac": "mira su carta",
    "on_wake_paranormal_investigator": "Mira hasta dos cartas",
    "on_wake_minion": "quiénes son los lobos",
    "on_dawn": "Todos se despiertan",
    "on_debate_free": "puede decir lo que quiera, incluso mentir",
    "on_countdown": "señala a la vez a otro jugador",
    "on_nobody_out": "nadie queda eliminado",
    "on_reveal_intro": "Cuentan las cartas al final de la noche, no las del principio",
}
# the seed's names of the cards («Este es el orden en que se despiertan» and after)
SEED_NAMES = {"doppelganger": "Doppelgänger", "mystic_wolf": "Lobo Chamán",
              "minion": "Esbirro", "mason": "Masón", "seer": "Vidente",
              "paranormal_investigator": "Cazador de Fantasmas", "robber": "Ladrón",
              "troublemaker": "Alborotadora", "drunk": "Borracho", "insomniac": "Insomne",
              "villager": "Aldeano", "tanner": "Curtidor", "hunter": "Cazador",
              "little_girl": "Niña"}


def own(lang: str) -> dict[str, object]:
    with open(CATALOG / f"{lang}.json", encoding="utf-8") as handle:
        return json.load(handle)


def placeholders(text: str) -> list[str]:
    return sorted(f[1] for f in string.Formatter().parse(text) if f[1])


@pytest.mark.parametrize("lang", LANGUAGES)
def test_one_nights_lines_are_its_own(lang):
    """Every line of the game's catalogue carries the game's prefix; the other sections
    only add names (the loader refuses a key defined twice)."""
    mine = own(lang)
    assert set(mine) == {"lines", "roles", "roles_the", "presets", "units"}
    assert all(key.startswith("on_") for key in mine["lines"])
    assert set(mine["lines"]) == set(own("en")["lines"])
    for key, text in own("en")["lines"].items():
        assert placeholders(mine["lines"][key]) == placeholders(text), (lang, key)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_call_has_its_wake_and_sleep_line(lang):
    lines = catalog(lang)["lines"]
    for call in CALL_ORDER:
        assert lines[f"on_wake_{call}"].strip() and lines[f"on_sleep_{call}"].strip()
    assert lines["on_wake_werewolves_girl"].startswith(lines["on_wake_werewolves"])


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_card_has_a_name_in_every_language(lang):
    names = catalog(lang)["roles"]
    assert set(ROLES) <= set(names) and set(ROLES) <= set(catalog(lang)["roles_the"])
    for role in ROLES:
        assert line(lang, "on_reveal_dealt", {"name": "Ana", "role": role}).count(
            names[role]) == 1


def test_the_spanish_lines_follow_the_seeds_wording():
    for key, words in SEED_WORDS.items():
        assert words.casefold() in line("es", key).casefold(), key
    for role, name in SEED_NAMES.items():
        assert catalog("es")["roles"][role] == name, role


@pytest.mark.skipif(SEED is None, reason="the seeds are not beside the repository")
def test_the_kept_words_are_the_seeds():
    text = SEED.read_text(encoding="utf-8")
    for key, words in SEED_TEXT.items():
        assert words.casefold() in text.casefold(), key
    for name in SEED_NAMES.values():
        assert name in text, name


@pytest.mark.parametrize(("lang", "count", "said"), [
    ("en", 1, "Ana: 1 vote."), ("en", 3, "Ana: 3 votes."),
    ("es", 2, "Ana: 2 votos."), ("de", 1, "Ana: 1 Stimme."),
    ("pl", 2, "Ana: 2 głosy."), ("pl", 5, "Ana: 5 głosów."),
    ("fi", 2, "Ana: 2 ääntä."), ("nl", 2, "Ana: 2 stemmen."), ("fr", 2, "Ana : 2 voix."),
])
def test_the_votes_are_counted_in_the_languages_plural(lang, count, said):
    assert line(lang, "on_votes_for", {"name": "Ana", "count": count}) == said


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_countdown_counts_three_two_one(lang):
    words = {"en": ("Three", "two", "one"), "es": ("Tres", "dos", "uno"),
             "de": ("Drei", "zwei", "eins"), "fr": ("Trois", "deux", "un"),
             "nl": ("Drie", "twee", "één"), "fi": ("Kolme", "kaksi", "yksi"),
             "pl": ("Trzy", "dwa", "jeden")}[lang]
    for key in ("on_countdown", "on_countdown_phones"):
        said = line(lang, key)
        assert said.index(words[0]) < said.index(words[1]) < said.rindex(words[2])
