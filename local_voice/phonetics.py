"""Pronunciations for words the recogniser's dictionary lacks (most players' names).

espeak-ng (bundled with piper-tts) turns any word into IPA; we map the IPA to the phone set
of the PocketSphinx en-US model (CMU/ARPAbet). Several espeak voices give several
plausible pronunciations, which all go into the dictionary as alternatives.
"""

from __future__ import annotations

from functools import cache

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


def espeak_ipa(word: str, voice: str = "en-us") -> str:
    sentences = _phonemizer().phonemize(voice, word)
    return "".join("".join(s) for s in sentences).strip()


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
