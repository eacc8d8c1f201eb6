"""The recognition grammar of the moment, built from the interaction model.

What the narrator is listening for (intents, names) selects sample utterances from
`interaction_models/<locale>.json`; slots expand to the players' names (plus "seat three",
"number three"), the slot types' values and synonyms, and numbers. The same phrases feed
PocketSphinx (as JSGF) and Vosk (as a phrase list): there is no second list of phrases.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cache

from speech.understanding import LOCALE_FOR_LANG, MODELS_DIR, NUMBER_WORDS, SEAT_WORDS

ALWAYS = ("AMAZON.RepeatIntent", "AMAZON.HelpIntent", "AMAZON.PauseIntent",
          "AMAZON.ResumeIntent")
MAX_SEAT = 20
PLAYER = "PLAYER"  # where a template names a player


def words_of(text: str) -> list[str]:
    text = text.lower().replace("-", " ")
    return re.findall(r"[\w']+", text)


@dataclass
class Grammar:
    lang: str
    phrases: list[str] = field(default_factory=list)  # every full sentence that may be said
    names: list[str] = field(default_factory=list)
    # the same sentences with PLAYER where a player is named ("i vote for PLAYER"), and
    # those without one as they are: a recogniser can score the players in one place
    # (PocketSphinx's <player> rule, Whisper's candidates) instead of in every phrase
    templates: list[str] = field(default_factory=list)
    # the narrator has asked for a seat and a name together ("number three Tamsin"): the
    # back-up scores them too (pair_forms). Only then: "Tamsin" read as "ten Sam" was
    # counted at a table without Tamsin, where seat 10 was Sam (docs/voice.md, round 31)
    pairs: bool = False

    def carriers(self) -> list[str]:
        """The templates in the recogniser's words, PLAYER kept as it is."""
        out = []
        for template in self.templates:
            parts = [" ".join(words_of(p)) for p in template.split(PLAYER)]
            out.append(" PLAYER ".join(parts).strip())
        # in the interaction model's order: its first samples are the commonest
        return [t for t in dict.fromkeys(" ".join(t.split()) for t in out) if t]

    def vocabulary(self) -> set[str]:
        return {w for p in self.phrases for w in words_of(p)}

    def to_jsgf(self) -> str:
        """One public rule of alternatives; names and numbers as their own rules."""
        alternatives = sorted({" ".join(words_of(p)) for p in self.phrases if words_of(p)})
        body = " | ".join(alternatives) if alternatives else "<VOID>"
        return f"#JSGF V1.0;\ngrammar wolfvillage;\npublic <utterance> = {body};\n"


@cache
def _model(locale: str) -> dict:
    with open(MODELS_DIR / f"{locale}.json", encoding="utf-8") as handle:
        return json.load(handle)["interactionModel"]["languageModel"]


def name_forms(lang: str, names: list[str], bare: bool = True) -> list[str]:
    """Ways to say a player: the name, and "seat three", "number three" and "three" for
    seat 3 (in the table's language): a number always names the player in that seat, even
    when the recogniser cannot hear their name. `bare=False` leaves the bare numbers out
    (PocketSphinx: a lone short number word fits too much else)."""
    return [form for form, _ in player_forms(lang, names, bare)]


def player_forms(lang: str, names: list[str], bare: bool = True) -> list[tuple[str, str]]:
    """(form, player) for every way to say a player (see `name_forms`)."""
    words = NUMBER_WORDS.get(lang, NUMBER_WORDS["en"])
    forms = [(name, name) for name in names]
    seat_words = SEAT_WORDS.get(lang, SEAT_WORDS["en"])[:2]
    for seat in range(1, min(len(names), MAX_SEAT) + 1):
        player = names[seat - 1]
        forms += [(f"{word} {words[seat]}", player) for word in seat_words]
        if bare:
            forms.append((words[seat], player))
    return forms


def pair_forms(lang: str, names: list[str]) -> list[tuple[str, str]]:
    """(form, player) for a player's seat number and name said together ("number three
    Tamsin", "seat three Tamsin", "three Tamsin"): two words that must agree, which said
    over the chatter are heard right far more often than either alone (docs/voice.md,
    round 31). Once the narrator has asked for them (`Grammar.pairs`), and Whisper's
    candidates only (where its transcript holds the number, and for the players it
    already finds likeliest): the first pass's grammar is left without them."""
    words = NUMBER_WORDS.get(lang, NUMBER_WORDS["en"])
    seat_words = SEAT_WORDS.get(lang, SEAT_WORDS["en"])[:2]
    forms = []
    for seat in range(1, min(len(names), MAX_SEAT) + 1):
        player = names[seat - 1]
        forms += [(f"{word} {words[seat]} {player}", player) for word in seat_words]
        forms.append((f"{words[seat]} {player}", player))
    return forms


def build_grammar(lang: str, intents: tuple[str, ...] | None, names: list[str],
                  max_samples: int = 400, pairs: bool = False) -> Grammar:
    """The phrases for `intents` (all of the model's if None) with slots filled in;
    `pairs`: a player's seat and name said together are listened for too."""
    model = _model(LOCALE_FOR_LANG.get(lang, lang))
    values: dict[str, list[str]] = {}
    for slot_type in model.get("types", []):
        vals = []
        for value in slot_type.get("values", []):
            vals += [value["name"]["value"], *value["name"].get("synonyms", [])]
        values[slot_type["name"]] = vals
    numbers = NUMBER_WORDS.get(lang, NUMBER_WORDS["en"])[: MAX_SEAT + 1]
    players = name_forms(lang, names) if names else values.get("PLAYER_NAME", [])
    wanted = set(intents) | set(ALWAYS) if intents is not None else None
    phrases: list[str] = []
    templates: list[str] = []
    for intent in model["intents"]:
        if wanted is not None and intent["name"] not in wanted:
            continue
        slot_types = {s["name"]: s["type"] for s in intent.get("slots", [])}
        for sample in intent.get("samples", [])[:max_samples]:
            phrases += _expand(sample, slot_types, values, players, numbers)
            templates += _expand(sample, slot_types, values, [PLAYER], numbers)
    # a recogniser cannot pronounce digits ("standard 12"): the spelled-out forms are there
    spoken = {p for p in phrases if not any(ch.isdigit() for ch in p)}
    carriers = [t for t in dict.fromkeys(templates) if not any(ch.isdigit() for ch in t)]
    # without players (the lobby) only the sentences naming no one: Whisper's candidates
    # there (the lobby's commands), where it once had none and failed on every utterance
    # the first pass was unsure of ("is everyone here?")
    return Grammar(lang, sorted(spoken), list(names),
                   carriers if names else [t for t in carriers if PLAYER not in t],
                   pairs=pairs and bool(names))


def _expand(sample: str, slot_types: dict[str, str], values: dict[str, list[str]],
            players: list[str], numbers: list[str]) -> list[str]:
    slots = re.findall(r"\{(\w+)\}", sample)
    if not slots:
        return [sample]
    out = [sample]
    for slot in slots:
        kind = slot_types.get(slot, "")
        if kind == "PLAYER_NAME":
            fill = players
        elif kind == "AMAZON.NUMBER":
            fill = numbers
        else:
            fill = values.get(kind, [])
        out = [text.replace("{" + slot + "}", value, 1) for text in out for value in fill]
        if len(out) > 5000:  # two name slots at a 20-player table: keep it bounded
            out = out[:5000]
    return out
