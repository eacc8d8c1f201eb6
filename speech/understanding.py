"""Understanding what people say or type, from the interaction models alone.

`interaction_models/<locale>.json` is the single source of what can be said: the Alexa
skill uploads it, and the console and the offline box match text against its sample
utterances here. Slots are resolved against the slot types' values and synonyms, player
names against the names at the table (also "seat three" / "number three"), numbers from
digits or words. The result carries a confidence so a listener can ask "Did you say Sam?"
when it is low.
"""

from __future__ import annotations

import difflib
import json
import re
import unicodedata
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

MODELS_DIR = Path(__file__).resolve().parent.parent / "interaction_models"

# The language of the narrator -> the interaction model the console and the box use.
LOCALE_FOR_LANG = {
    "en": "en-US",
    "es": "es-ES",
    "de": "de-DE",
    "fr": "fr-FR",
    "nl": "nl-NL",
    "fi": "fi-FI",
    "pl": "pl-PL",
}

# Seat numbers and the words before them, written as the language writes them (accents,
# German's capital): the box's grammar is built from them, Whisper scores those spellings
# and espeak-ng says them for the first pass's second opinion. Until round 18 they were
# kept without accents ("numero", "funf", "piec"), which Whisper never writes and espeak-ng
# says wrongly; the matcher compares them normalized (`parse_number`, `seat_words`).
NUMBER_WORDS: dict[str, list[str]] = {
    "en": [
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
        "twenty",
    ],
    "es": [
        "cero",
        "uno",
        "dos",
        "tres",
        "cuatro",
        "cinco",
        "seis",
        "siete",
        "ocho",
        "nueve",
        "diez",
        "once",
        "doce",
        "trece",
        "catorce",
        "quince",
        "dieciséis",
        "diecisiete",
        "dieciocho",
        "diecinueve",
        "veinte",
    ],
    "de": [
        "null",
        "eins",
        "zwei",
        "drei",
        "vier",
        "fünf",
        "sechs",
        "sieben",
        "acht",
        "neun",
        "zehn",
        "elf",
        "zwölf",
        "dreizehn",
        "vierzehn",
        "fünfzehn",
        "sechzehn",
        "siebzehn",
        "achtzehn",
        "neunzehn",
        "zwanzig",
    ],
    "fr": [
        "zero",
        "un",
        "deux",
        "trois",
        "quatre",
        "cinq",
        "six",
        "sept",
        "huit",
        "neuf",
        "dix",
        "onze",
        "douze",
        "treize",
        "quatorze",
        "quinze",
        "seize",
        "dix-sept",
        "dix-huit",
        "dix-neuf",
        "vingt",
    ],
    "nl": [
        "nul",
        "een",
        "twee",
        "drie",
        "vier",
        "vijf",
        "zes",
        "zeven",
        "acht",
        "negen",
        "tien",
        "elf",
        "twaalf",
        "dertien",
        "veertien",
        "vijftien",
        "zestien",
        "zeventien",
        "achttien",
        "negentien",
        "twintig",
    ],
    "fi": [
        "nolla",
        "yksi",
        "kaksi",
        "kolme",
        "neljä",
        "viisi",
        "kuusi",
        "seitsemän",
        "kahdeksan",
        "yhdeksän",
        "kymmenen",
        "yksitoista",
        "kaksitoista",
        "kolmetoista",
        "neljätoista",
        "viisitoista",
        "kuusitoista",
        "seitsemäntoista",
        "kahdeksantoista",
        "yhdeksäntoista",
        "kaksikymmentä",
    ],
    "pl": [
        "zero",
        "jeden",
        "dwa",
        "trzy",
        "cztery",
        "pięć",
        "sześć",
        "siedem",
        "osiem",
        "dziewięć",
        "dziesięć",
        "jedenaście",
        "dwanaście",
        "trzynaście",
        "czternaście",
        "piętnaście",
        "szesnaście",
        "siedemnaście",
        "osiemnaście",
        "dziewiętnaście",
        "dwadzieścia",
    ],
}
SEAT_WORDS: dict[str, tuple[str, ...]] = {
    "en": ("seat", "number", "player"),
    "es": ("asiento", "número", "jugador"),
    "de": ("Platz", "Nummer", "Spieler"),
    "fr": ("place", "numéro", "joueur"),
    "nl": ("plaats", "nummer", "speler"),
    "fi": ("paikka", "numero", "pelaaja"),
    "pl": ("miejsce", "numer", "gracz"),
}
NAME_CUTOFF = 0.72  # below this a heard name is not taken for a player's


def normalize(text: str) -> str:
    """Lower case, no accents, no punctuation but apostrophes, single spaces."""
    text = unicodedata.normalize("NFKD", text.casefold())
    text = "".join(c for c in text if not unicodedata.combining(c))
    text = text.replace("ł", "l").replace("ß", "ss")
    text = re.sub(r"(?<=\w)-(?=\w)", "", text)  # "set-up" and "setup" are one word
    text = re.sub(r"[^\w\s'{}]", " ", text)
    return re.sub(r"\s+", " ", text).strip()


@dataclass(frozen=True)
class Understood:
    text: str
    intent: str
    slots: dict[str, Any] = field(default_factory=dict)
    confidence: float = 1.0


@dataclass(frozen=True)
class _Sample:
    intent: str
    pattern: re.Pattern[str]
    slots: tuple[str, ...]
    literal: int  # how many literal characters: more specific samples win


@dataclass
class _Model:
    locale: str
    lang: str
    samples: list[_Sample]
    slot_types: dict[tuple[str, str], str]  # (intent, slot) -> type
    values: dict[str, dict[str, str]]  # type -> normalized synonym -> id


def _compile(intent: str, sample: str, choices: dict[str, str] | None = None) -> _Sample:
    """A sample as a regex over whole words; a slot whose type has a closed list of values
    only matches one of them, so "turn off reveal dead roles" splits where the words say,
    and "Alexander and Sam" never splits inside a name."""
    tokens = re.findall(r"\{\w+\}|[^\s{}]+", normalize(sample))
    parts: list[str] = []
    slots: list[str] = []
    literal = 0
    for token in tokens:
        if token.startswith("{") and token.endswith("}"):
            slot = token[1:-1]
            slots.append(slot)
            closed = (choices or {}).get(slot)
            parts.append(f"(?P<{slot}>{closed})" if closed else f"(?P<{slot}>.+?)")
        else:
            literal += len(token)
            parts.append(re.escape(token))
    return _Sample(intent, re.compile("^" + r"\s+".join(parts) + "$"), tuple(slots), literal)


@cache
def load_model(locale: str) -> _Model:
    path = MODELS_DIR / f"{locale}.json"
    with open(path, encoding="utf-8") as handle:
        doc = json.load(handle)["interactionModel"]["languageModel"]
    values: dict[str, dict[str, str]] = {}
    for slot_type in doc.get("types", []):
        table: dict[str, str] = {}
        for value in slot_type.get("values", []):
            name = value["name"]
            ident = value.get("id") or name["value"]
            for synonym in [name["value"], *name.get("synonyms", [])]:
                table[normalize(synonym)] = ident
        values[slot_type["name"]] = table
    alternations = {
        name: "|".join(re.escape(v) for v in sorted(table, key=len, reverse=True))
        for name, table in values.items()
        if name != "PLAYER_NAME" and table
    }
    samples: list[_Sample] = []
    slot_types: dict[tuple[str, str], str] = {}
    for intent in doc["intents"]:
        choices = {}
        for slot in intent.get("slots", []):
            slot_types[(intent["name"], slot["name"])] = slot["type"]
            if slot["type"] in alternations:
                choices[slot["name"]] = alternations[slot["type"]]
        for sample in intent.get("samples", []):
            samples.append(_compile(intent["name"], sample, choices))
    lang = locale.split("-")[0]
    return _Model(locale, lang, samples, slot_types, values)


def model_for(lang: str) -> _Model:
    return load_model(LOCALE_FOR_LANG.get(lang, lang))


@cache
def seat_words(lang: str) -> frozenset[str]:
    """The words before a seat number ("seat three", "numéro trois"), as `normalize` leaves
    them: English's are understood in every language."""
    return frozenset(normalize(w) for w in SEAT_WORDS.get(lang, ()) + SEAT_WORDS["en"])


def parse_number(lang: str, text: str) -> int | None:
    text = normalize(text)
    if text.isdigit():
        return int(text)
    words = [normalize(w) for w in NUMBER_WORDS.get(lang, NUMBER_WORDS["en"])]
    return words.index(text) if text in words else None


def resolve_player(lang: str, heard: str, names: list[str]) -> tuple[str | None, float]:
    """The player a heard name means, and how sure we are (1.0 exact)."""
    said = normalize(heard)
    folded = {normalize(n): n for n in names}
    if said in folded:
        return folded[said], 1.0
    words = said.split(" ")
    # "seat three", "number three" and a bare "three" name the player in seat 3
    if len(words) >= 2 and words[0] in seat_words(lang):
        words = words[1:]
    if len(words) >= 2:
        # the seat and the name together ("number three Tamsin"): that player when they
        # agree, nobody when they do not (which one was meant cannot be told)
        seat = parse_number(lang, words[0])
        if seat is not None:
            named = folded.get(" ".join(words[1:]))
            agree = named is not None and 1 <= seat <= len(names) and \
                names[seat - 1] == named
            return (named, 1.0) if agree else (None, 0.0)
    if len(words) == 1:
        seat = parse_number(lang, words[0])
        if seat is not None and 1 <= seat <= len(names):
            return names[seat - 1], 1.0
    best, score = None, 0.0
    for key, name in folded.items():
        ratio = difflib.SequenceMatcher(None, said, key).ratio()
        if ratio > score:
            best, score = name, ratio
    if best is not None and score >= NAME_CUTOFF:
        return best, score
    return None, 0.0


class Understanding:
    """Turns text into an intent and slots for one language."""

    def __init__(self, lang: str):
        self.lang = lang
        self.model = model_for(lang)

    def understand(
        self,
        text: str,
        names: list[str] | None = None,
        expect: tuple[str, ...] | None = None,
    ) -> Understood | None:
        """The best reading of `text`, preferring the intents in `expect` if given."""
        said = normalize(text)
        if not said:
            return None
        candidates: list[tuple[float, int, Understood]] = []
        for sample in self.model.samples:
            match = sample.pattern.match(said)
            if match is None:
                continue
            reading = self._slots(sample, match.groupdict(), names)
            if reading is None:
                continue
            slots, confidence = reading
            preferred = 1 if expect is None or sample.intent in expect else 0
            candidates.append(
                (
                    preferred + confidence,
                    sample.literal,
                    Understood(text, sample.intent, slots, confidence),
                )
            )
        if candidates:
            candidates.sort(key=lambda c: (c[0], c[1]), reverse=True)
            return candidates[0][2]
        return self._nearest(text, said, expect)

    def _slots(
        self, sample: _Sample, raw: dict[str, str], names: list[str] | None
    ) -> tuple[dict[str, Any], float] | None:
        slots: dict[str, Any] = {}
        confidence = 1.0
        for slot, value in raw.items():
            slot_type = self.model.slot_types.get((sample.intent, slot), "")
            if slot_type == "PLAYER_NAME" and names is not None:
                player, sure = resolve_player(self.lang, value, names)
                if player is None:
                    return None
                slots[slot] = player
                confidence = min(confidence, sure)
            elif slot_type == "AMAZON.NUMBER":
                number = parse_number(self.lang, value)
                if number is None:
                    return None
                slots[slot] = number
            elif slot_type in self.model.values and slot_type != "PLAYER_NAME":
                table = self.model.values[slot_type]
                key = normalize(value)
                if key in table:
                    slots[slot] = table[key]
                else:
                    close = difflib.get_close_matches(key, list(table), n=1, cutoff=0.8)
                    if not close:
                        return None
                    slots[slot] = table[close[0]]
                    confidence = min(confidence, 0.8)
            elif slot_type == "PLAYER_NAME":
                # a newcomer's name: text lost its case when normalised
                slots[slot] = " ".join(w.capitalize() for w in value.split())
            else:
                slots[slot] = value.strip()
        return slots, confidence

    def _nearest(self, text: str, said: str, expect: tuple[str, ...] | None) -> Understood | None:
        """No sample matches exactly: the closest sample without slots, if close enough."""
        best, score = None, 0.0
        for sample in self.model.samples:
            if sample.slots or (expect is not None and sample.intent not in expect):
                continue
            literal = sample.pattern.pattern.replace("\\s+", " ").strip("^$ ").replace("\\", "")
            ratio = difflib.SequenceMatcher(None, said, literal).ratio()
            if ratio > score:
                best, score = sample, ratio
        if best is not None and score >= 0.8:
            return Understood(text, best.intent, {}, round(score, 3))
        return None
