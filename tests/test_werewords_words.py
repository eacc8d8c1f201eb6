"""The Werewords word lists (issue 14, «Word lists»): one data file per language and level under
rules/werewords/words/<lang>/<level>.txt, one entry a line.

The mayor is offered words drawn from these files and the table must be able to guess them with
yes/no questions, so every entry is a short, common, family-friendly noun written the way that
language writes it. The files are read with plain pathlib here on purpose: the check must not
depend on the loader it is meant to keep honest.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

WORDS = Path(__file__).resolve().parent.parent / "rules" / "werewords" / "words"
LANGUAGES = ("en", "es", "fi", "de", "nl", "fr", "pl")
LEVELS = ("easy", "medium", "hard")
MIN_ENTRIES = 250
MAX_WORDS = 3
MAX_CHARS = 30

# The letters each language writes with (lower case; upper case is allowed where the language
# capitalises). Spaces, hyphens and apostrophes join words; nothing else may appear.
LETTERS = {
    "en": "a-z",
    "es": "a-zñáéíóúü",
    "fi": "a-zäöå",
    "de": "a-zäöüß",
    "nl": "a-zéèëïöüáó",
    "fr": "a-zéèêëàâçîïôûùüÿœæ",
    "pl": "a-ząćęłńóśźż",
}

# Articles a native speaker would drop from a bare word list ("the cat", "el gato", "der Hund").
ARTICLES = {
    "en": ("the", "a", "an"),
    "es": ("el", "la", "los", "las", "un", "una", "unos", "unas"),
    "fi": (),
    "de": ("der", "die", "das", "den", "dem", "des", "ein", "eine", "einen"),
    "nl": ("de", "het", "een", "'t"),
    "fr": ("le", "la", "les", "l'", "un", "une", "des", "du"),
    "pl": (),
}

# Words a family game must never offer as the magic word: weapons, violence, drink and drugs,
# sex and body matters the table would not say aloud. Small on purpose; it catches slips, the
# review of each list does the rest.
BLOCKLIST = {
    "en": {
        "gun", "pistol", "rifle", "bomb", "grenade", "bullet", "corpse", "blood", "beer",
        "wine", "vodka", "whisky", "cigarette", "cigar", "drug", "casino", "prison", "coffin",
        "skull", "condom", "bra", "devil", "hell",
    },
    "es": {
        "pistola", "rifle", "bomba", "granada de mano", "bala", "cadáver", "sangre", "cerveza",
        "vino", "vodka", "whisky", "cigarrillo", "puro", "droga", "casino", "cárcel", "ataúd",
        "calavera", "condón", "sujetador", "diablo", "infierno",
    },
    "fi": {
        "ase", "pistooli", "kivääri", "pommi", "käsikranaatti", "luoti", "ruumis", "veri",
        "olut", "viini", "vodka", "viski", "tupakka", "savuke", "huume", "kasino", "vankila",
        "ruumisarkku", "pääkallo", "kondomi", "rintaliivit", "paholainen", "helvetti",
    },
    "de": {
        "Pistole", "Gewehr", "Bombe", "Handgranate", "Patrone", "Leiche", "Blut", "Bier", "Wein",
        "Wodka", "Whisky", "Zigarette", "Zigarre", "Droge", "Kasino", "Gefängnis", "Sarg",
        "Totenkopf", "Kondom", "BH", "Teufel", "Hölle",
    },
    "nl": {
        "pistool", "geweer", "bom", "handgranaat", "kogel", "lijk", "bloed", "bier", "wijn",
        "wodka", "whisky", "sigaret", "sigaar", "drugs", "casino", "gevangenis", "doodskist",
        "doodshoofd", "condoom", "beha", "duivel", "hel",
    },
    "fr": {
        "pistolet", "fusil", "bombe", "grenade", "balle de fusil", "cadavre", "sang", "bière",
        "vin", "vodka", "whisky", "cigarette", "cigare", "drogue", "casino", "prison",
        "cercueil", "crâne", "préservatif", "soutien-gorge", "diable", "enfer",
    },
    "pl": {
        "pistolet", "karabin", "bomba", "granat", "nabój", "trup", "krew", "piwo", "wino",
        "wódka", "whisky", "papieros", "cygaro", "narkotyk", "kasyno", "więzienie", "trumna",
        "czaszka", "prezerwatywa", "biustonosz", "diabeł", "piekło",
    },
}

FILES = [(lang, level) for lang in LANGUAGES for level in LEVELS]


def path_of(lang: str, level: str) -> Path:
    return WORDS / lang / f"{level}.txt"


def entries(lang: str, level: str) -> list[str]:
    """The file's lines exactly as written (a trailing newline on the last line is allowed)."""
    text = path_of(lang, level).read_bytes().decode("utf-8")
    return text.removesuffix("\n").split("\n")


def entry_pattern(lang: str) -> re.Pattern[str]:
    """Words of the language's letters, joined by single spaces, hyphens or apostrophes."""
    word = f"[{LETTERS[lang]}]+(?:['-][{LETTERS[lang]}]+)*"
    return re.compile(f"{word}(?: {word})*", re.IGNORECASE)


def fold(entry: str) -> str:
    return entry.casefold()


@pytest.mark.parametrize(("lang", "level"), FILES)
def test_every_language_has_an_easy_medium_and_hard_list(lang: str, level: str) -> None:
    assert path_of(lang, level).is_file(), f"missing {path_of(lang, level)}"


@pytest.mark.parametrize(("lang", "level"), FILES)
def test_each_list_has_at_least_250_entries(lang: str, level: str) -> None:
    assert len(entries(lang, level)) >= MIN_ENTRIES


@pytest.mark.parametrize(("lang", "level"), FILES)
def test_entries_are_nfc_one_per_line_without_blank_or_padded_lines(lang: str, level: str) -> None:
    raw = path_of(lang, level).read_bytes()
    assert not raw.startswith(b"\xef\xbb\xbf"), "no byte-order mark"
    assert b"\r" not in raw, "Unix line ends"
    text = raw.decode("utf-8")
    assert unicodedata.is_normalized("NFC", text), f"{lang}/{level}.txt is not Unicode NFC"
    for number, entry in enumerate(entries(lang, level), start=1):
        assert entry, f"{lang}/{level}.txt line {number} is blank"
        assert entry == entry.strip(), f"{lang}/{level}.txt line {number} is padded: {entry!r}"
        assert "  " not in entry, f"{lang}/{level}.txt line {number} has a double space"


@pytest.mark.parametrize(("lang", "level"), FILES)
def test_entries_use_only_the_languages_letters_spaces_hyphens_and_apostrophes(
    lang: str, level: str
) -> None:
    pattern = entry_pattern(lang)
    bad = [entry for entry in entries(lang, level) if not pattern.fullmatch(entry)]
    assert not bad, f"{lang}/{level}.txt: characters outside {lang}'s letters: {bad}"


@pytest.mark.parametrize(("lang", "level"), FILES)
def test_entries_are_at_most_three_words_and_thirty_characters(lang: str, level: str) -> None:
    long = [
        entry
        for entry in entries(lang, level)
        if len(entry.split(" ")) > MAX_WORDS or len(entry) > MAX_CHARS
    ]
    assert not long, f"{lang}/{level}.txt: too long: {long}"


@pytest.mark.parametrize(("lang", "level"), FILES)
def test_entries_have_no_article_in_front(lang: str, level: str) -> None:
    articles = ARTICLES[lang]
    bad = [
        entry
        for entry in entries(lang, level)
        for article in articles
        if fold(entry).startswith(article + ("" if article.endswith("'") else " "))
    ]
    assert not bad, f"{lang}/{level}.txt: drop the article: {bad}"


@pytest.mark.parametrize(("lang", "level"), FILES)
def test_entries_are_cased_as_the_language_writes_common_nouns(lang: str, level: str) -> None:
    if lang == "de":
        # German capitalises every noun, so every entry starts with a capital.
        bad = [entry for entry in entries(lang, level) if not entry[:1].isupper()]
    else:
        bad = [entry for entry in entries(lang, level) if entry != entry.lower()]
    assert not bad, f"{lang}/{level}.txt: wrong case: {bad}"


@pytest.mark.parametrize(("lang", "level"), FILES)
def test_no_duplicates_within_a_list(lang: str, level: str) -> None:
    seen: dict[str, str] = {}
    repeated = []
    for entry in entries(lang, level):
        if fold(entry) in seen:
            repeated.append(entry)
        seen[fold(entry)] = entry
    assert not repeated, f"{lang}/{level}.txt: repeated: {repeated}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_entry_is_in_two_levels_of_a_language(lang: str) -> None:
    level_of: dict[str, str] = {}
    clashes = []
    for level in LEVELS:
        for entry in set(map(fold, entries(lang, level))):
            if entry in level_of:
                clashes.append(f"{entry} ({level_of[entry]} and {level})")
            level_of[entry] = level
    assert not clashes, f"{lang}: in two levels: {sorted(clashes)}"


@pytest.mark.parametrize(("lang", "level"), FILES)
def test_no_entry_is_on_the_family_blocklist(lang: str, level: str) -> None:
    blocked = {fold(word) for word in BLOCKLIST[lang]}
    bad = [entry for entry in entries(lang, level) if fold(entry) in blocked]
    assert not bad, f"{lang}/{level}.txt: not for a family game: {bad}"


def test_the_checks_reject_what_they_are_meant_to_reject() -> None:
    # The character check is the one most easily written too loosely: pin what it refuses.
    assert entry_pattern("fi").fullmatch("jäätelö")
    assert entry_pattern("fr").fullmatch("arc-en-ciel")
    assert entry_pattern("fr").fullmatch("chef-d'œuvre")
    assert entry_pattern("de").fullmatch("Fußball")
    for lang, entry in [
        ("en", "café"),  # not an English letter
        ("en", "ice  cream"),  # double space
        ("en", "dog."),  # punctuation
        ("en", "r2d2"),  # digits
        ("en", "-dog"),  # a hyphen must join two words
        ("de", "Straße!"),
        ("pl", "żółw?"),
        ("fi", "jaatelö;"),
    ]:
        assert not entry_pattern(lang).fullmatch(entry), (lang, entry)
