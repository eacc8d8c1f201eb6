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
