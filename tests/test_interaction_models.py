"""The Alexa interaction models in interaction_models/: structure, Alexa's rules, and that the
offline box (speech.understanding, which matches text against the same samples) reads every
sample back as its own intent."""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path
from typing import Any

import pytest

from speech.understanding import LOCALE_FOR_LANG, Understanding, load_model

MODELS_DIR = Path(__file__).resolve().parent.parent / "interaction_models"

LOCALES = [
    "en-US",
    "en-GB",
    "es-ES",
    "es-MX",
    "de-DE",
    "fr-FR",
    "nl-NL",
    "fi-FI",
    "pl-PL",
]
OFFLINE_ONLY = {"fi-FI", "pl-PL"}  # Alexa does not speak these; only the offline box reads them

PLAYER = "PLAYER_NAME"
CUSTOM_INTENTS: dict[str, dict[str, str]] = {
    "VoteIntent": {"player": PLAYER},
    "ElectIntent": {"player": PLAYER},
    "NobodyIntent": {},
    "SkipIntent": {},
    "ReadyIntent": {},
    "SkipClockIntent": {},
    "TimeLeftIntent": {},
    "UndoIntent": {},
    "NewGameIntent": {},
    "StartGameIntent": {},
    "GameIntent": {"game": "GAME"},
    "JoinIntent": {"player": PLAYER},
    "PlayTooIntent": {"player": PLAYER},
    "PresetIntent": {"preset": "PRESET"},
    "OptionIntent": {"option": "OPTION", "toggle": "TOGGLE"},
    "NightModeIntent": {"night_mode": "NIGHT_MODE"},
    "VotingIntent": {"protocol": "PROTOCOL"},
    "ClockIntent": {"minutes": "AMAZON.NUMBER"},
    "HandsResultIntent": {"player": PLAYER},
    "HandsTieIntent": {"player": PLAYER, "other": PLAYER},
}
BUILTINS_WITH_SAMPLES = [
    "AMAZON.YesIntent",
    "AMAZON.NoIntent",
    "AMAZON.RepeatIntent",
    "AMAZON.PauseIntent",
    "AMAZON.ResumeIntent",
    "AMAZON.HelpIntent",
    "AMAZON.StopIntent",
    "AMAZON.CancelIntent",
]
BUILTINS_WITHOUT_SAMPLES = ["AMAZON.FallbackIntent", "AMAZON.NavigateHomeIntent"]
ALL_INTENTS = set(CUSTOM_INTENTS) | set(BUILTINS_WITH_SAMPLES) | set(BUILTINS_WITHOUT_SAMPLES)

TYPE_IDS = {
    "PRESET": {"basic", "classic", "standard12", "fox", "chaos", "suggested"},
    "GAME": {"wolf-village", "one-night", "werewords"},
    "OPTION": {
        "reveal_dead_roles",
        "doctor_self_protect",
        "doctor_repeat",
        "minion_knows_wolves",
        "sheriff",
    },
    "TOGGLE": {"on", "off"},
    "NIGHT_MODE": {"narrated", "all_at_once", "pass_phones"},
    "PROTOCOL": {"roll_call", "show_of_hands", "phones"},
}

# Launch words, wake words and words Alexa forbids in an invocation name, in each language.
FORBIDDEN_INVOCATION_WORDS = {
    "alexa", "amazon", "echo", "skill", "app", "computer",
    "open", "ask", "start", "launch", "tell", "begin", "load", "run", "enable", "use", "play",
    "abre", "abrir", "pregunta", "preguntar", "inicia", "iniciar", "empieza", "lanza", "juega",
    "öffne", "öffnen", "frage", "fragen", "starte", "starten", "spiele", "sage",
    "ouvre", "ouvrir", "demande", "demander", "lance", "lancer", "commence", "joue",
    "vraag", "speel", "openen",
    "avaa", "kysy", "aloita", "käynnistä", "pelaa",
    "otwórz", "zapytaj", "uruchom", "zacznij", "graj",
    "fähigkeit", "habilidad", "compétence",
}  # fmt: skip
TWO_WORD_ARTICLES = {"the", "a", "an", "for", "to", "of"}

SLOT_RE = re.compile(r"\{(\w+)\}")
SAMPLE_CHARS = re.compile(r"^[^\W\d_]+(?:'[^\W\d_]+)?\.?$")  # a word, an apostrophe, an abbrev.


def load(locale: str) -> dict[str, Any]:
    with open(MODELS_DIR / f"{locale}.json", encoding="utf-8") as handle:
        return json.load(handle)


def language_model(locale: str) -> dict[str, Any]:
    return load(locale)["interactionModel"]["languageModel"]


def intents(locale: str) -> dict[str, dict[str, Any]]:
    return {intent["name"]: intent for intent in language_model(locale)["intents"]}


def types(locale: str) -> dict[str, dict[str, Any]]:
    return {t["name"]: t for t in language_model(locale).get("types", [])}


def key(sample: str) -> str:
    """How two samples are compared: case, accents and spacing do not count."""
    text = unicodedata.normalize("NFKD", sample.casefold())
    text = "".join(c for c in text if not unicodedata.combining(c))
    return " ".join(text.split())


def samples(locale: str, intent: str) -> list[str]:
    return intents(locale)[intent].get("samples", [])


def test_every_locale_file_exists_and_nothing_else():
    found = sorted(p.stem for p in MODELS_DIR.glob("*.json"))
    assert found == sorted(LOCALES)


@pytest.mark.parametrize("locale", LOCALES)
def test_structure(locale):
    doc = load(locale)
    assert set(doc) == {"interactionModel"}
    model = doc["interactionModel"]["languageModel"]
    assert isinstance(model["invocationName"], str)
    assert isinstance(model["intents"], list)
    assert isinstance(model["types"], list)
    for intent in model["intents"]:
        assert set(intent) <= {"name", "slots", "samples"}, intent["name"]
        assert isinstance(intent["name"], str)
        assert isinstance(intent["samples"], list)
        assert all(isinstance(s, str) and s == s.strip() for s in intent["samples"])
        for slot in intent.get("slots", []):
            assert set(slot) == {"name", "type"}
    for slot_type in model["types"]:
        assert set(slot_type) == {"name", "values"}
        for value in slot_type["values"]:
            assert set(value) == {"id", "name"}
            assert isinstance(value["id"], str) and value["id"]
            assert isinstance(value["name"]["value"], str) and value["name"]["value"]
            assert isinstance(value["name"].get("synonyms", []), list)


@pytest.mark.parametrize("locale", LOCALES)
def test_intents_are_exactly_the_expected_ones(locale):
    names = [intent["name"] for intent in language_model(locale)["intents"]]
    assert len(names) == len(set(names)), "an intent is declared twice"
    assert set(names) == ALL_INTENTS


@pytest.mark.parametrize("locale", LOCALES)
def test_slots_are_declared_with_their_types(locale):
    declared_types = set(types(locale))
    for name, intent in intents(locale).items():
        slots = {slot["name"]: slot["type"] for slot in intent.get("slots", [])}
        assert len(slots) == len(intent.get("slots", [])), f"{name}: a slot declared twice"
        assert slots == CUSTOM_INTENTS.get(name, {}), name
        for slot_type in slots.values():
            assert slot_type.startswith("AMAZON.") or slot_type in declared_types, slot_type
        for sample in intent["samples"]:
            used = SLOT_RE.findall(sample)
            assert set(used) <= set(slots), f"{name}: {sample!r} uses an undeclared slot"
            assert len(used) == len(set(used)), f"{name}: {sample!r} repeats a slot"


@pytest.mark.parametrize("locale", LOCALES)
def test_custom_types_have_all_ids(locale):
    declared = types(locale)
    assert set(declared) == {PLAYER, *TYPE_IDS}
    for name, ids in TYPE_IDS.items():
        assert {v["id"] for v in declared[name]["values"]} == ids, name
    assert len(declared[PLAYER]["values"]) >= 3


@pytest.mark.parametrize("locale", LOCALES)
def test_a_spoken_value_means_one_thing(locale):
    for name, slot_type in types(locale).items():
        meaning: dict[str, str] = {}
        for value in slot_type["values"]:
            for said in [value["name"]["value"], *value["name"].get("synonyms", [])]:
                assert meaning.setdefault(key(said), value["id"]) == value["id"], (name, said)


@pytest.mark.parametrize("locale", LOCALES)
def test_no_sample_belongs_to_two_intents(locale):
    owner: dict[str, str] = {}
    for name, intent in intents(locale).items():
        for sample in intent["samples"]:
            k = key(sample)
            assert k not in owner, f"{sample!r} is in {owner.get(k)} and {name}"
            owner[k] = name


@pytest.mark.parametrize("locale", LOCALES)
def test_samples_are_plain_words(locale):
    for name, intent in intents(locale).items():
        for sample in intent["samples"]:
            assert sample == " ".join(sample.split()), f"{name}: {sample!r} spacing"
            assert sample == sample.lower(), f"{name}: {sample!r} is not lower case"
            for word in sample.split():
                ok = SLOT_RE.fullmatch(word) or SAMPLE_CHARS.match(word)
                assert ok, f"{name}: {sample!r}: {word!r} (spell numbers out, no punctuation)"


@pytest.mark.parametrize("locale", LOCALES)
def test_builtins(locale):
    found = intents(locale)
    for name in BUILTINS_WITHOUT_SAMPLES:
        assert found[name]["samples"] == [], name
        assert "slots" not in found[name]
    for name in BUILTINS_WITH_SAMPLES:
        assert len(found[name]["samples"]) >= 4, name
        assert "slots" not in found[name]


@pytest.mark.parametrize("locale", LOCALES)
def test_enough_samples(locale):
    for name in CUSTOM_INTENTS:
        assert len(samples(locale, name)) >= 6, name
    assert len(samples(locale, "VoteIntent")) >= 15


@pytest.mark.parametrize("locale", LOCALES)
def test_a_bare_name_is_a_vote(locale):
    for name, intent in intents(locale).items():
        for sample in intent["samples"]:
            if SLOT_RE.fullmatch(sample.strip()):
                assert (name, sample) == ("VoteIntent", "{player}")
    assert "{player}" in samples(locale, "VoteIntent")


@pytest.mark.parametrize("locale", LOCALES)
def test_slot_samples_use_their_slots(locale):
    for name, slots in CUSTOM_INTENTS.items():
        used = {s for sample in samples(locale, name) for s in SLOT_RE.findall(sample)}
        assert used == set(slots), name
    assert any(not SLOT_RE.search(s) for s in samples(locale, "ClockIntent")), "no 'no clock'"
    assert all(
        set(SLOT_RE.findall(s)) == {"player", "other"} for s in samples(locale, "HandsTieIntent")
    )


@pytest.mark.parametrize("locale", LOCALES)
def test_invocation_name(locale):
    name = language_model(locale)["invocationName"]
    assert name == name.lower().strip()
    assert re.fullmatch(r"[^\W\d_]+(?:'[^\W\d_]+)?(?: [^\W\d_]+(?:'[^\W\d_]+)?)+", name), name
    words = name.split()
    assert len(words) >= 2
    assert not set(words) & FORBIDDEN_INVOCATION_WORDS, name
    if len(words) == 2:
        assert not set(words) & TWO_WORD_ARTICLES, name


def vote_keys(locale: str) -> set[str]:
    return {key(s) for s in samples(locale, "VoteIntent")} - {"{player}"}


def all_keys(locale: str) -> set[str]:
    return {key(s) for intent in intents(locale).values() for s in intent["samples"]}


@pytest.mark.parametrize("locale", [loc for loc in LOCALES if not loc.startswith("en")])
def test_each_locale_speaks_its_own_language(locale):
    english = vote_keys("en-US") | vote_keys("en-GB")
    assert not vote_keys(locale) & english, "VoteIntent samples in English"
    shared = all_keys(locale) & (all_keys("en-US") | all_keys("en-GB"))
    assert len(shared) <= 0.05 * len(all_keys(locale)), sorted(shared)


@pytest.mark.parametrize(("one", "other"), [("en-US", "en-GB"), ("es-ES", "es-MX")])
def test_varieties_have_their_own_wording(one, other):
    assert all_keys(one) - all_keys(other)
    assert all_keys(other) - all_keys(one)
    assert language_model(one)["types"] != language_model(other)["types"]


def test_languages_differ_from_each_other():
    langs = {"en-US", "es-ES", "de-DE", "fr-FR", "nl-NL", "fi-FI", "pl-PL"}
    for a in langs:
        for b in langs - {a}:
            assert len(vote_keys(a) & vote_keys(b)) <= 1, (a, b, vote_keys(a) & vote_keys(b))


# --- the offline box reads each sample back as its own intent ---------------------------------

TABLE = ["Sam", "Alex"]


def understanding(locale: str) -> Understanding:
    reader = Understanding(locale.split("-")[0])
    reader.model = load_model(locale)
    return reader


def first_value(locale: str, slot_type: str) -> tuple[str, str]:
    value = types(locale)[slot_type]["values"][0]
    return value["name"]["value"], value["id"]


def fill(locale: str, intent: str, sample: str) -> tuple[str, dict[str, Any]]:
    """The sample with a value in each slot, and what the slots should read back as."""
    expected: dict[str, Any] = {}
    text = sample
    for slot, slot_type in CUSTOM_INTENTS.get(intent, {}).items():
        if "{" + slot + "}" not in text:
            continue
        if slot_type == PLAYER:
            said = meant = TABLE[0] if slot == "player" else TABLE[1]
        elif slot_type == "AMAZON.NUMBER":
            said, meant = "3", 3
        else:
            said, meant = first_value(locale, slot_type)
        text = text.replace("{" + slot + "}", said)
        expected[slot] = meant
    return text, expected


ADJACENT_SLOTS = re.compile(r"\}\s*\{")


@pytest.mark.parametrize("locale", LOCALES)
def test_two_slot_intents_have_separated_samples(locale):
    """speech.understanding splits '{toggle} {option}' at the first character (a lazy regex,
    no retry), so the box needs samples with words between the slots."""
    for name in ("OptionIntent", "HandsTieIntent"):
        separated = [s for s in samples(locale, name) if not ADJACENT_SLOTS.search(s)]
        assert len(separated) >= 4, name


@pytest.mark.parametrize("locale", LOCALES)
def test_offline_reads_every_sample_as_its_intent(locale):
    reader = understanding(locale)
    wrong = []
    for name, intent in intents(locale).items():
        for sample in intent["samples"]:
            if ADJACENT_SLOTS.search(sample):
                continue  # Alexa reads these; the box's matcher cannot split them
            text, expected = fill(locale, name, sample)
            heard = reader.understand(text, TABLE)
            got = (heard.intent, heard.slots) if heard else None
            if got != (name, expected):
                wrong.append((text, name, got))
    assert not wrong, "\n".join(map(str, wrong))


@pytest.mark.parametrize("locale", LOCALES)
def test_offline_reads_every_synonym(locale):
    """Each value and synonym of the set-up types reaches its id through some sample."""
    reader = understanding(locale)
    carriers = {
        "PRESET": ("PresetIntent", "preset"),
        "NIGHT_MODE": ("NightModeIntent", "night_mode"),
        "PROTOCOL": ("VotingIntent", "protocol"),
        "GAME": ("GameIntent", "game"),
    }
    for slot_type, (intent, slot) in carriers.items():
        sample = next(s for s in samples(locale, intent) if s.count("{") == 1)
        for value in types(locale)[slot_type]["values"]:
            for said in [value["name"]["value"], *value["name"].get("synonyms", [])]:
                heard = reader.understand(sample.replace("{" + slot + "}", said))
                assert heard is not None, (sample, said)
                assert (heard.intent, heard.slots.get(slot)) == (intent, value["id"]), said


@pytest.mark.parametrize("locale", LOCALES)
def test_offline_lobby_names_are_newcomers(locale):
    """In the lobby nobody is seated yet: a join sample takes any name."""
    reader = understanding(locale)
    sample = samples(locale, "JoinIntent")[0]
    heard = reader.understand(sample.replace("{player}", "Zelda"), None, ("JoinIntent",))
    assert heard is not None
    assert (heard.intent, heard.slots) == ("JoinIntent", {"player": "Zelda"})


def test_every_language_of_the_box_has_its_model():
    """The console and the box pick a model per narrator language; Finnish and Polish exist only
    for the box (Alexa does not speak them) but keep the Alexa format."""
    assert set(LOCALE_FOR_LANG.values()) <= set(LOCALES)
    assert set(LOCALES) >= OFFLINE_ONLY


# --- One Night (seed 001): the game choice, the pointing vote, "we are ready to vote" ----------

ONE_NIGHT_PHRASES: dict[str, list[tuple[str, str, dict[str, Any]]]] = {
    "en-US": [("let's play one night", "GameIntent", {"game": "one-night"}),
              ("we want to play one night ultimate werewolf", "GameIntent", {"game": "one-night"}),
              ("use the suggested deck", "PresetIntent", {"preset": "suggested"}),
              ("i point at Sam", "VoteIntent", {"player": "Sam"}),
              ("i'm pointing at Alex", "VoteIntent", {"player": "Alex"}),
              ("number two", "VoteIntent", {"player": "Alex"}),
              ("we are ready to vote", "SkipClockIntent", {})],
    "en-GB": [("let's play one night", "GameIntent", {"game": "one-night"}),
              ("fancy a game of one night werewolf", "GameIntent", {"game": "one-night"}),
              ("i point at Sam", "VoteIntent", {"player": "Sam"}),
              ("number one", "VoteIntent", {"player": "Sam"})],
    "es-ES": [("vamos a jugar al hombre lobo de una noche", "GameIntent", {"game": "one-night"}),
              ("usa el reparto propuesto", "PresetIntent", {"preset": "suggested"}),
              ("señalo a Sam", "VoteIntent", {"player": "Sam"}),
              ("número dos", "VoteIntent", {"player": "Alex"}),
              ("estamos listos para votar", "SkipClockIntent", {})],
    "es-MX": [("vamos a jugar hombre lobo de una noche", "GameIntent", {"game": "one-night"}),
              ("señalo a Alex", "VoteIntent", {"player": "Alex"})],
    "de-DE": [("wir wollen werwolf für eine nacht spielen", "GameIntent", {"game": "one-night"}),
              ("ich zeige auf Sam", "VoteIntent", {"player": "Sam"}),
              ("nummer zwei", "VoteIntent", {"player": "Alex"}),
              ("wir sind bereit zur abstimmung", "SkipClockIntent", {})],
    "fr-FR": [("on joue à loup garou pour une nuit", "GameIntent", {"game": "one-night"}),
              ("je montre Sam", "VoteIntent", {"player": "Sam"}),
              ("on est prêts à voter", "SkipClockIntent", {})],
    "nl-NL": [("we willen weerwolf voor één nacht spelen", "GameIntent", {"game": "one-night"}),
              ("ik wijs naar Sam", "VoteIntent", {"player": "Sam"}),
              ("we zijn klaar om te stemmen", "SkipClockIntent", {})],
    "fi-FI": [("haluamme pelata yhden yön ihmissusi", "GameIntent", {"game": "one-night"}),
              ("osoitan Sam", "VoteIntent", {"player": "Sam"}),
              ("olemme valmiita äänestämään", "SkipClockIntent", {})],
    "pl-PL": [("zagrajmy w wilkołak jednej nocy", "GameIntent", {"game": "one-night"}),
              ("wskazuję na Sam", "VoteIntent", {"player": "Sam"}),
              ("jesteśmy gotowi do głosowania", "SkipClockIntent", {})],
}


@pytest.mark.parametrize("locale", LOCALES)
def test_one_night_is_chosen_and_voted_by_voice(locale):
    """Issue 13: "let's play One Night" (the game as a slot value), the vote by pointing
    ("I point at Ana", a bare name, "number three"), "we are ready to vote"."""
    reader = understanding(locale)
    for text, intent, slots in ONE_NIGHT_PHRASES[locale]:
        heard = reader.understand(text, TABLE)
        assert heard is not None, text
        assert (heard.intent, heard.slots) == (intent, slots), text
    # in the lobby nobody is seated: the game's name is still the game, not a newcomer
    lobby = reader.understand(ONE_NIGHT_PHRASES[locale][0][0], None)
    assert lobby is not None and lobby.intent == "GameIntent"


@pytest.mark.parametrize("locale", LOCALES)
def test_every_game_has_a_name_in_every_locale(locale):
    from narrator.scripts import SCRIPTS

    ids = {v["id"] for v in types(locale)["GAME"]["values"]}
    assert set(SCRIPTS) <= ids
