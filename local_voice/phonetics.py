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
