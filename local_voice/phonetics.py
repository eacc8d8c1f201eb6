"""Pronunciations for words the recogniser's dictionary lacks (most players' names).

espeak-ng (bundled with piper-tts) turns any word into IPA; we map the IPA to the phone set
of the PocketSphinx en-US model (CMU/ARPAbet). Several espeak voices give several
plausible pronunciations, which all go into the dictionary as alternatives.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache

import numpy as np

# longest IPA sequences first
IPA_TO_ARPABET: dict[str, list[str]] = {
    "aɪ": ["AY"], "aʊ": ["AW"], "eɪ": ["EY"], "oʊ": ["OW"], "ɔɪ": ["OY"], "əʊ": ["OW"],
    "tʃ": ["CH"], "dʒ": ["JH"], "ɪə": ["IH", "R"], "eə": ["EH", "R"], "ʊə": ["UH", "R"],
    "ɑ": ["AA"], "æ": ["AE"], "ʌ": ["AH"], "ə": ["AH"], "ɐ": ["AH"], "ɔ": ["AO"],
    "ɒ": ["AA"], "ɛ": ["EH"], "e": ["EH"], "ɜ": ["ER"], "ɝ": ["ER"], "ɚ": ["ER"],
    "ɪ": ["IH"], "ᵻ": ["IH"], "i": ["IY"], "y": ["IY"], "ʊ": ["UH"], "u": ["UW"],
    "o": ["OW"], "a": ["AA"], "ø": ["ER"], "œ": ["ER"], "ɯ": ["UW"], "ɨ": ["IH"],
    "b": ["B"], "d": ["D"], "ð": ["DH"], "f": ["F"], "ɡ": ["G"], "g": ["G"], "h": ["HH"],
    "k": ["K"], "l": ["L"], "ɫ": ["L"], "m": ["M"], "n": ["N"], "ŋ": ["NG"], "p": ["P"],
    "ɹ": ["R"], "r": ["R"], "ɾ": ["D"], "ʁ": ["R"], "s": ["S"], "ʃ": ["SH"], "t": ["T"],
    "θ": ["TH"], "v": ["V"], "w": ["W"], "j": ["Y"], "z": ["Z"], "ʒ": ["ZH"], "x": ["HH"],
    "ç": ["HH"], "ɬ": ["L"], "ʎ": ["L", "Y"], "ɲ": ["N", "Y"], "c": ["K"], "ɟ": ["G"],
    "β": ["V"], "ɣ": ["G"], "ʝ": ["Y"], "ɕ": ["SH"], "ʑ": ["ZH"], "ts": ["T", "S"],
    # German's short ü, Dutch's w and its u in "nummer", and the ç espeak-ng writes as c
    # with a combining cedilla ("ich"): until round 18 left out, or read as K
    "ʏ": ["IH"], "ʋ": ["V"], "ɵ": ["AH"], "c\u0327": ["HH"],
}
IGNORED = set("ˈˌːˑ‿ʲʰ̩̃ ̯.-ʔ'")
VOICES = ("en-us", "en", "en-gb-x-rp")


def ipa_to_arpabet(ipa: str) -> list[str]:
    phones: list[str] = []
    i = 0
    while i < len(ipa):
        if ipa[i] in IGNORED:
            i += 1
            continue
        for size in (2, 1):
            chunk = ipa[i : i + size]
            if chunk in IPA_TO_ARPABET:
                phones += IPA_TO_ARPABET[chunk]
                i += size
                break
        else:
            i += 1  # a sound the model has no phone for: leave it out
    # the model never has the same phone twice in a row within a word
    return [p for k, p in enumerate(phones) if k == 0 or p != phones[k - 1]]


@cache
def _phonemizer():  # type: ignore[no-untyped-def]
    from piper.phonemize_espeak import EspeakPhonemizer

    return EspeakPhonemizer()


@cache
def _espeak_lock() -> threading.Lock:
    """espeak-ng is one engine in the process, with one voice set at a time, and the
    narrator's Piper voice sets it too, from the box's synthesis thread: a voice is set
    and used under the lock Piper sets and uses it under, or a word could be said in
    another language. Piper keeps that lock in a private name: our own where it has
    none."""
    try:
        from piper.voice import _ESPEAK_PHONEMIZER_LOCK
    except ImportError:
        return threading.Lock()
    return _ESPEAK_PHONEMIZER_LOCK


_IPA: dict[tuple[str, str], str] = {}  # (voice, word) -> espeak_ipa's answer
_CLAUSE_MARKS = frozenset(",.;:!?()")


def espeak_ipa(word: str, voice: str = "en-us") -> str:
    said = _IPA.get((voice, word))
    if said is None:
        with _espeak_lock():
            sentences = _phonemizer().phonemize(voice, word)
        said = _IPA[(voice, word)] = "".join("".join(s) for s in sentences).strip()
    return said


def learn_ipa(words: Iterable[str], voice: str) -> None:
    """`espeak_ipa` of many words in one call of espeak-ng (kept for it), one clause a
    word: the same IPA as one by one (every common name of seven languages, compared), in
    a fifth of the time, most of which went into setting the voice again for each word
    (12,700 words, 2 s, for a German table's decoys). A word with a mark that ends a
    clause is left to `espeak_ipa` alone, and so is the whole list if its clauses do
    not come back one a word."""
    from piper import espeakbridge

    todo = [w for w in dict.fromkeys(words) if (voice, w) not in _IPA and w.strip()
            and not _CLAUSE_MARKS.intersection(w)]
    if not todo:
        return
    _phonemizer()
    with _espeak_lock():
        espeakbridge.set_voice(voice)
        clauses = espeakbridge.get_phonemes(", ".join(todo))
    if len(clauses) != len(todo):
        return
    for word, (phonemes, _, _) in zip(todo, clauses, strict=True):
        # as EspeakPhonemizer.phonemize leaves a word: its language switches out, its
        # accents decomposed
        said = unicodedata.normalize("NFD", re.sub(r"\([^)]+\)", "", phonemes)).strip()
        _IPA.setdefault((voice, word), said)


@cache
def pronunciations(word: str) -> tuple[tuple[str, ...], ...]:
    """Distinct ARPAbet pronunciations of `word` from several English espeak voices."""
    found: list[tuple[str, ...]] = []
    for voice in VOICES:
        try:
            phones = tuple(ipa_to_arpabet(espeak_ipa(word, voice)))
        except (RuntimeError, ValueError):
            continue
        if phones and phones not in found:
            found.append(phones)
    return tuple(found)


@cache
def pronunciation_in(word: str, lang: str) -> tuple[str, ...]:
    """`word` as espeak-ng says it in `lang` (its voice for that language), in the
    en-US model's phones: how the first pass scores sentences of another language
    (PocketSphinxRecognizer.sentence_scores). Empty when espeak-ng cannot say it."""
    from local_voice.voices import ESPEAK_VOICES

    try:
        return tuple(ipa_to_arpabet(espeak_ipa(word, ESPEAK_VOICES.get(lang, lang))))
    except (RuntimeError, ValueError):
        return ()


# ---------------------------------------------------------------------- sounding alike

VOWELS = frozenset(["AA", "AE", "AH", "AO", "AW", "AY", "EH", "ER", "EY", "IH", "IY", "OW",
                    "OY", "UH", "UW"])
VOWEL_FOR_VOWEL = 0.6  # one vowel heard for another costs less than a consonant


@cache
def _said_phones(text: str) -> tuple[str, ...]:
    """How espeak-ng (en-US) says a whole transcript, as ARPAbet phones ("I'll sing" ->
    AY L S IH NG; digits are said as numbers)."""
    phones: list[str] = []
    for word in text.split():
        said = pronunciations(word)
        if said:
            phones += said[0]  # en-US's, the first voice
    return tuple(phones)


def _inside_distance(name: tuple[str, ...], heard: tuple[str, ...]) -> float:
    """Edit distance of `name` to the closest stretch of `heard` (free start and end in
    `heard`), per phone of the name."""
    previous = [0.0] * (len(heard) + 1)
    for i, phone in enumerate(name, 1):
        current = [float(i)] + [0.0] * len(heard)
        for j, other in enumerate(heard, 1):
            swap = 0.0 if phone == other else (
                VOWEL_FOR_VOWEL if phone in VOWELS and other in VOWELS else 1.0)
            current[j] = min(previous[j] + 1.0, current[j - 1] + 1.0,
                             previous[j - 1] + swap)
        previous = current
    return min(previous) / max(1, len(name))


def sounds_apart(transcript: str, name: str) -> float:
    """How far `name` (any of espeak-ng's pronunciations of it) is from the closest part
    of what a transcript sounds like: 0 when the transcript says it ("vote for ted" and
    Ted), about 1 when nothing in it sounds like the name. A transcript is someone's
    spelling of what was heard: Whisper writes a name it does not know as words that
    sound like it ("ted" for Tadhg, "ali" for Eilidh, "she won" for Siobhan)."""
    heard = _said_phones(" ".join(transcript.lower().split()))
    names = pronunciations(name.lower())
    if not heard or not names:
        return 1.0
    return min(_inside_distance(phones, heard) for phones in names)


# ---------------------------------------------------------------------- many at once

# The same distances for many words at once (`apart_each`, `apart_in_each`): a table's
# decoys ask each of the language's common names against every way the table says a
# player (WhisperRecognizer.decoys, at game start), 20,000 to 130,000 distances, which
# one by one took 1.1-1.5 s for an English table of 20 and 4.4-5.0 s for a German table
# of 10 (bench/voice_game_start.py). The dynamic programme's rows and columns stay in
# Python, the words go in NumPy, and every cell is the same sum and minimum as
# `_inside_distance`'s: the same numbers.
# Each phone's id (0 pads): the model's phones from the start, so that ids are not handed
# out by two threads at once (a new one, which ipa_to_arpabet never makes, under a lock)
_PHONE_IDS: dict[str, int] = {p: k for k, p in enumerate(
    dict.fromkeys(p for phones in IPA_TO_ARPABET.values() for p in phones), 1)}
_NEW_PHONE = threading.Lock()


def _phone_id(phone: str) -> int:
    found = _PHONE_IDS.get(phone)
    if found is None:
        with _NEW_PHONE:
            found = _PHONE_IDS.setdefault(phone, len(_PHONE_IDS) + 1)
    return found


@dataclass(frozen=True)
class _Spelled:
    """Phone sequences as ids, padded with 0 to the longest, and each one's length."""

    ids: np.ndarray
    lengths: np.ndarray

    @classmethod
    def of(cls, sequences: list[tuple[str, ...]]) -> _Spelled:
        ids = np.zeros((len(sequences), max([1, *map(len, sequences)])), dtype=np.intp)
        for k, phones in enumerate(sequences):
            ids[k, : len(phones)] = [_phone_id(p) for p in phones]
        return cls(ids, np.array([len(p) for p in sequences], dtype=np.intp))


def _swap_costs() -> np.ndarray:
    """`_inside_distance`'s cost of one phone heard for another, by phone id."""
    vowel = np.zeros(len(_PHONE_IDS) + 1, dtype=bool)
    for phone, k in _PHONE_IDS.items():
        vowel[k] = phone in VOWELS
    costs = np.where(vowel[:, None] & vowel[None, :], VOWEL_FOR_VOWEL, 1.0)
    np.fill_diagonal(costs, 0.0)
    return costs


def _inside_distances(names: _Spelled, heards: _Spelled) -> np.ndarray:
    """`_inside_distance(name, heard)` for each row of `names` and of `heards` (either
    may be a single row, then it goes with every row of the other)."""
    if not len(names.lengths) or not len(heards.lengths):
        return np.zeros(0)
    count = max(len(names.lengths), len(heards.lengths))
    rows, width = int(names.lengths.max(initial=0)), int(heards.lengths.max(initial=0))
    costs = _swap_costs()
    heard = np.broadcast_to(heards.ids[:, :width], (count, width))
    # a column past a row's own heard phones is never its answer
    beyond = np.broadcast_to(np.arange(width + 1)[None, :] > heards.lengths[:, None],
                             (count, width + 1))
    name_len = np.broadcast_to(names.lengths, (count,))
    out = np.zeros(count)
    previous = np.zeros((count, width + 1))
    for i in range(1, rows + 1):
        current = np.empty_like(previous)
        current[:, 0] = float(i)
        phone = np.broadcast_to(names.ids[:, i - 1], (count,))
        # from above and from the diagonal first, then left to right: the cell to the
        # left (a heard phone left out) is known only once that cell is
        reach = np.minimum(previous[:, 1:] + 1.0, previous[:, :-1] + costs[phone[:, None],
                                                                           heard])
        for j in range(1, width + 1):
            np.minimum(reach[:, j - 1], current[:, j - 1] + 1.0, out=current[:, j])
        done = name_len == i
        if done.any():
            out[done] = np.where(beyond[done], np.inf, current[done]).min(axis=1)
        previous = current
    return out / np.maximum(1, name_len)


@dataclass(frozen=True)
class _Words:
    """A list of words as `sounds_apart` hears them (`_said_phones`) and names them
    (`pronunciations`, every one, `owner` saying whose)."""

    said: _Spelled
    named: _Spelled
    owner: np.ndarray


@lru_cache(maxsize=8)
def _words(words: tuple[str, ...]) -> _Words:
    lowered = [w.lower() for w in words]
    for voice in VOICES:
        learn_ipa([*lowered, *(t for w in lowered for t in w.split())], voice)
    named = [(k, p) for k, w in enumerate(words) for p in pronunciations(w.lower())]
    return _Words(_Spelled.of([_said_phones(" ".join(w.lower().split())) for w in words]),
                  _Spelled.of([p for _, p in named]),
                  np.array([k for k, _ in named], dtype=np.intp))


def apart_each(words: tuple[str, ...], name: str) -> np.ndarray:
    """`max(sounds_apart(word, name), sounds_apart(name, word))` for each word (the
    farther way round, as `WhisperRecognizer._near` asks it)."""
    known = _words(words)
    ways = np.full((2, len(words)), np.inf)
    # each pronunciation of the name inside what each word sounds like ...
    for phones in pronunciations(name.lower()):
        found = _inside_distances(_Spelled.of([phones]), known.said)
        np.minimum(ways[0], np.where(known.said.lengths > 0, found, np.inf), out=ways[0])
    # ... and each pronunciation of each word inside what the name sounds like
    said_name = _said_phones(" ".join(name.lower().split()))
    if said_name and len(known.owner):
        np.minimum.at(ways[1], known.owner,
                      _inside_distances(known.named, _Spelled.of([said_name])))
    ways[np.isinf(ways)] = 1.0  # nothing to compare: as sounds_apart
    return ways.max(axis=0)


@lru_cache(maxsize=8)
def _words_in(words: tuple[str, ...], lang: str) -> tuple[_Spelled, np.ndarray]:
    """The words espeak-ng can say in `lang` (`pronunciation_in`), and which they are."""
    from local_voice.voices import ESPEAK_VOICES

    learn_ipa([w.lower() for w in words], ESPEAK_VOICES.get(lang, lang))
    said = [pronunciation_in(w.lower(), lang) for w in words]
    known = np.array([k for k, s in enumerate(said) if s], dtype=np.intp)
    return _Spelled.of([said[k] for k in known]), known


def apart_in_each(words: tuple[str, ...], name: str, lang: str) -> np.ndarray:
    """`sounds_apart_in(word, name, lang)` for each word."""
    named = pronunciation_in(name.lower(), lang)
    theirs, known = _words_in(words, lang)
    out = np.ones(len(words))
    if named and len(known):
        mine = _Spelled.of([named])
        out[known] = np.maximum(_inside_distances(mine, theirs),
                                _inside_distances(theirs, mine))
    return out


def sounds_apart_in(word: str, name: str, lang: str) -> float:
    """How far apart `word` and `name` sound as the voice of `lang` says both (each
    inside the other, the farther way round): a German table says "Reza" as "Retsa",
    near Greta (0.4), which English says far from it (0.64). 1 when espeak-ng cannot
    say either."""
    said, named = pronunciation_in(word.lower(), lang), pronunciation_in(name.lower(), lang)
    if not said or not named:
        return 1.0
    return max(_inside_distance(named, said), _inside_distance(said, named))


# ---------------------------------------------------------------------- written as said

# How English spells each sound when it spells a name the way it is said ("Shivawn" for
# Siobhan, "Eefa" for Aoife): the respelling keys of English dictionaries, one spelling
# a sound
_RESPELLED_VOWELS = {"AA": "ah", "AE": "a", "AH": "u", "AO": "aw", "AW": "ow", "AY": "y",
                     "EH": "e", "ER": "er", "EY": "ay", "IH": "i", "IY": "ee", "OW": "o",
                     "OY": "oy", "UH": "oo", "UW": "oo"}
_RESPELLED_CONSONANTS = {
    "B": "b", "CH": "ch", "D": "d", "DH": "th", "F": "f", "G": "g", "HH": "h", "JH": "j",
    "K": "k", "L": "l", "M": "m", "N": "n", "NG": "ng", "P": "p", "R": "r", "S": "s",
    "SH": "sh", "T": "t", "TH": "th", "V": "v", "W": "w", "Y": "y", "Z": "z", "ZH": "zh"}


def respelling(phones: tuple[str, ...] | list[str]) -> str:
    """ARPAbet phones written as English spells them, capitalised as a name: SH IH V AO N
    -> "Shivawn", IY F AH -> "Eefa", T AY G ER -> "Tyger"."""
    out: list[str] = []
    for k, phone in enumerate(phones):
        after = phones[k + 1] if k + 1 < len(phones) else None
        if phone not in _RESPELLED_VOWELS:
            out.append(_RESPELLED_CONSONANTS.get(phone, ""))
        elif phone == "AH" and after is None:
            out.append("a")  # a name's last schwa: "Eefa", "Sersha"
        elif phone == "AY":
            # "eye" to start a name, "ie" before a vowel or at its end, "y" between
            # consonants ("Tyger")
            out.append("eye" if k == 0 else "ie" if after is None or after in
                       _RESPELLED_VOWELS else "y")
        else:
            out.append(_RESPELLED_VOWELS[phone])
    word = "".join(out)
    return word[:1].upper() + word[1:]


@cache
def said_spellings(name: str) -> tuple[str, ...]:
    """A one-word name spelled as English says it: the en-US model's dictionary's
    pronunciations of it (how people say it: Niamh N IY V, Joaquin W AA K IY N), then
    espeak-ng's (`pronunciations`), each `respelling` once and none the name's own.
    Whisper scores "Vote for Shivawn" far above "Vote for Siobhan" when that is what was
    said: it writes a name it does not know as it sounds."""
    from local_voice.recognizers import _cmudict

    if len(name.split()) != 1 or not name.isalpha():
        return ()
    said = [tuple(p.split()) for p in _cmudict().get(name)] + list(pronunciations(name))
    spelled = [respelling(p) for p in said]
    return tuple(s for s in dict.fromkeys(spelled) if s and s.casefold() != name.casefold())
