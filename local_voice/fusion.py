"""Two recognisers decided by confidence: a fast first pass, and Whisper when it is unsure.

The first pass (PocketSphinx under the grammar, English only; or Vosk) hears every
utterance; when its confidence is under `TwoPass.RUN_BELOW`, or when it has no model for
the table's language, Whisper scores the grammar's sentences against the same audio
(`local_voice.whisper`) with the first pass's reading among its candidates. The answer is
then Whisper's best sentence, with a confidence fitted on the bench
(bench/fit_voice_confidence.py --fusion) from Whisper's share of the probability, its
margin, whether both passes mean the same vote, and the first pass's own confidence.

Between `TwoPass.CHECK_ABOVE` and `RUN_BELOW` Whisper runs too, only to check for what
the first pass cannot hear (a seat number said alone, talk outside the grammar); its
answer stands otherwise ("checked"). Without a first pass (another language) Whisper
decides alone, with weights of its own (`ALONE_WEIGHTS`).

`last_path` says which decided ("first", "checked" or "backup"), for the bench's figures.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from local_voice.grammar import Grammar
from local_voice.recognizers import Recognized, Recognizer
from local_voice.whisper import WhisperRecognizer, _meaning


def _logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, x))))


NOISY_SNR = 32.0  # as PocketSphinx's Utterance.TRIM_SNR


def noisy(features: dict[str, Any]) -> bool:
    """Other people talking: the first pass measured the babble (its snr)."""
    snr = features.get("snr")
    return snr is not None and float(snr) < NOISY_SNR


def fusion_inputs(features: dict[str, Any]) -> list[float]:
    """The inputs of the fused confidence, in the order of `TwoPass.WEIGHTS`."""
    first = features.get("first_confidence")
    babble = 1.0 if noisy(features) else 0.0
    return [
        _logit(float(features.get("w_share", 0.0))),
        min(20.0, float(features.get("w_margin", 0.0))),
        1.0 if features.get("passes_agree") else 0.0,
        0.0 if first is None else float(first),
        1.0 if first is None else 0.0,  # no first pass (another language)
        max(-20.0, min(25.0, float(features.get("w_best", 0.0)))) / 10.0,
        min(5.0, float(features.get("w_outside", 0.0))),
        babble,  # other people talking (the first pass's snr): margins mean less
        babble * min(20.0, float(features.get("w_margin", 0.0))),
    ]


@dataclass
class TwoPass:
    """A first pass and a Whisper back-up behind one Recognizer interface."""

    first: Recognizer | None
    backup: WhisperRecognizer | None
    name: str = "two-pass"
    last_path: str = ""
    last_features: dict[str, Any] = field(default_factory=dict)
    _warmed: set[tuple[str, tuple[str, ...]]] = field(default_factory=set, repr=False)
    # The back-up runs when the first pass is less sure than RUN_BELOW; an answer it is
    # surer of is never second-guessed, so that path costs nothing more. Between
    # CHECK_ABOVE and RUN_BELOW Whisper only checks the first pass for what its grammar
    # cannot hear: a seat number said alone (not in PocketSphinx's grammar: "three" was
    # read as "henry", 0.77) and talk outside the grammar ("Seersha" as "shoot jack",
    # 0.73); the first pass's answer stands otherwise ("checked"). Under CHECK_ABOVE the
    # fused confidence decides. Round 6 (bench/fit_voice_confidence.py --fusion, held out
    # by voice): this keeps wrong votes under 1 in 50 in every English condition
    # (respelled names 1.7 %), where round 5's single 0.7 let 3.3 % through, for about
    # the same share right in a quiet room; a band that trusts Whisper's reading over the
    # first pass's there (the fused confidence deciding every disagreement) cost 3-4
    # points of clean votes
    RUN_BELOW: ClassVar[float] = 0.8
    CHECK_ABOVE: ClassVar[float] = 0.7
    # outside the grammar (table talk): Whisper's own transcript beats the grammar's best
    # sentence by more than OUTSIDE log units per token, and that sentence itself has
    # little support from the audio (its score under OUTSIDE_BEST). Table talk by the
    # test voices: 2.8-5.5 per token and -4.1 to -10.5; votes mostly under 1.6, and those
    # above (names Whisper cannot spell) mostly over -3 (docs/voice.md, round 5)
    OUTSIDE: ClassVar[float] = 2.5
    OUTSIDE_BEST: ClassVar[float] = -3.5
    # base in the other languages: votes by espeak-ng voices that Whisper transcribes
    # badly ("Carmen" as "cartman") often look outside, yet one sentence is clearly best
    OUTSIDE_MARGIN: ClassVar[float] = 4.0
    # the same when Whisper decides alone (no first pass: the other languages), where
    # base writes espeak-ng's voices so badly that its own transcript often "beats" the
    # vote that was said: at 2.5, 21 of the 288 votes whose best sentence was right were
    # thrown out. Round 7, held out by voice with table talk in those languages
    # (bench's talk-langs, 96 lines) in the fit: 3.5 gives 194 right votes of 288
    # instead of 180, table talk still 0 of 96 counted
    OUTSIDE_ALONE: ClassVar[float] = 3.5
    # bench/fit_voice_confidence.py --fusion --careful --wrong 0.01 --wrong-alone 0.0075
    # --l2 100 --l2-alone 10 --l2-careful 30, on bench/voice_features.py --whisper tiny.en
    # --step 2 (the English conditions, and the six languages and their table talk with
    # base); each group fitted and thresholded on its own (`group`): WEIGHTS for a quiet
    # English room, CAREFUL_WEIGHTS for English in babble (read with care: the scores
    # averaged over three speeds mean something else than one reading's), ALONE_WEIGHTS
    # for Whisper alone. Round 8, held out by voice: clean 83.0 % right / 1.5 % wrong,
    # babble 38.7 / 1.0, respelled 53.3 / 1.7, enrolled 88.3 / 0, table talk 0 of 24;
    # es 83.3 / 0, fi 83.3 / 0, pl 75.0 / 2.1, de 72.9 / 2.1, nl 72.9 / 0, fr 39.6 /
    # 2.1, their table talk 0 of 96 (docs/voice.md, round 8). The penalties and the
    # alone budget were each chosen among 2-4 values on these held-out figures.
    WEIGHTS: ClassVar[tuple[float, ...]] = (
        0.07222, 0.06779, 0.3588, -0.1749, 0.0, 0.167, -0.1288, 0.0, 0.0, -0.1517)
    CAREFUL_WEIGHTS: ClassVar[tuple[float, ...]] = (
        0.1581, 0.1467, 0.7076, -0.005939, 0.0, -0.000348, -0.1285, 0.0, 0.1467, -1.072)
    ALONE_WEIGHTS: ClassVar[tuple[float, ...]] = (
        0.2968, 0.2382, 0.0, 0.0, 0.0, 1.882, -0.2256, 0.0, 0.0, -0.09072)

    def __post_init__(self) -> None:
        parts = [p.name for p in (self.first, self.backup) if p is not None]
        self.name = "+".join(parts) or "none"

    # the Recognizer protocol

    def missing_words(self, words: list[str]) -> list[str]:
        if self.backup is not None:
            return []
        return self.first.missing_words(words) if self.first is not None else list(words)

    def first_for(self, lang: str) -> Recognizer | None:
        """The first pass if it has a model for `lang` (PocketSphinx: English only)."""
        first = self.first
        if first is None:
            return None
        model_lang = getattr(first, "lang", "en")
        return first if model_lang in (None, lang) else None

    def prepare(self, grammar: Grammar) -> None:
        """Compile the first pass's search and, in a background thread (once per table
        and language), score the back-up's likeliest sentences on silence."""
        first = self.first_for(grammar.lang)
        prepare = getattr(first, "prepare", None)
        if prepare:
            prepare(grammar)
        key = (grammar.lang, tuple(grammar.names))
        if self.backup is not None and key not in self._warmed:
            import threading

            self._warmed.add(key)
            threading.Thread(target=self.backup.warm, args=(grammar,), daemon=True,
                             name="whisper-warm").start()

    def recognize(self, pcm: bytes, grammar: Grammar) -> Recognized | None:
        if not pcm:
            return None
        first = self.first_for(grammar.lang)
        heard = first.recognize(pcm, grammar) if first is not None else None
        features = dict(getattr(first, "last_features", {}) or {}) if first else {}
        return self.decide(heard, features, pcm, grammar)

    def stream(self, grammar: Grammar) -> Any:
        first = self.first_for(grammar.lang)
        stream = getattr(first, "stream", None)
        if stream is None:
            return None
        return TwoPassUtterance(self, stream(grammar), grammar)

    def decide(self, heard: Recognized | None, first_features: dict[str, Any], pcm: bytes,
               grammar: Grammar) -> Recognized | None:
        """The first pass's answer if it is sure; otherwise Whisper's, fused."""
        self.last_features = dict(first_features)
        sure = heard is not None and heard.confidence >= self.RUN_BELOW
        if sure or self.backup is None or not self.backup.supports(grammar.lang):
            self.last_path = "first"
            return heard
        samples = np.frombuffer(pcm, dtype=np.int16)
        # read with care when people talk over the vote, or when Whisper is alone
        careful = noisy(first_features) or self.first_for(grammar.lang) is None
        reading = self.backup.read(samples, grammar, hints=(heard.text,) if heard else (),
                                   careful=careful)
        if reading is None:
            self.last_path = "first"
            return heard
        if self.outside(reading.features, alone=heard is None):
            # outside the grammar (table talk): nothing was said to the narrator, not even
            # the first pass's unsure reading ("the weather is lovely" as "one is the wolf")
            self.last_path = "backup"
            self.last_features = {**first_features, **reading.features, "outside": True,
                                  "first_confidence": heard.confidence if heard else None,
                                  "first_text": heard.text if heard else None}
            return None
        agree = heard is not None and _reading_of(heard.text, reading) == _meaning(reading.best)
        features = {**first_features, **reading.features, "passes_agree": agree,
                    "first_confidence": heard.confidence if heard is not None else None,
                    "first_text": heard.text if heard is not None else None}
        self.last_features = features
        if heard is not None and heard.confidence >= self.CHECK_ABOVE and (
                agree or not self.backup._bare_number(grammar.lang, reading.best)):
            self.last_path = "checked"  # Whisper found nothing the first pass cannot hear
            return heard
        self.last_path = "backup"
        return Recognized(reading.best.text, self.confidence(features))

    @classmethod
    def outside(cls, features: dict[str, Any], alone: bool | None = None) -> bool:
        """Outside the grammar (see OUTSIDE); a sentence Whisper clearly prefers to every
        other (margin OUTSIDE_MARGIN) is left to the fitted confidence. `alone`: no
        first pass heard anything (default: as the features say)."""
        if alone is None:
            alone = "first_confidence" in features and features["first_confidence"] is None
        limit = cls.OUTSIDE_ALONE if alone else cls.OUTSIDE
        return (features.get("w_outside", 0.0) > limit
                and features.get("w_best", 0.0) < cls.OUTSIDE_BEST
                and features.get("w_margin", 0.0) < cls.OUTSIDE_MARGIN)

    @staticmethod
    def group(features: dict[str, Any]) -> str:
        """Which fitted weights read these features: "alone" (no first pass: another
        language), "careful" (English in babble, read with care: w_speeds) or "quiet"."""
        if features.get("first_confidence") is None:
            return "alone"
        return "careful" if float(features.get("w_speeds", 1.0)) > 1.0 else "quiet"

    def confidence(self, features: dict[str, Any]) -> float:
        weights = {"alone": self.ALONE_WEIGHTS, "careful": self.CAREFUL_WEIGHTS,
                   "quiet": self.WEIGHTS}[self.group(features)]
        inputs = fusion_inputs(features)
        return _sigmoid(weights[-1] + sum(w * x for w, x in zip(weights[:-1], inputs,
                                                                 strict=True)))

    # enrollment

    def enroll(self, player: str, samples: np.ndarray, lang: str = "en") -> None:
        """Give both passes a player's clip of their own name: Whisper's spellings of it
        become pronunciations for the first pass too."""
        spellings: list[str] = []
        if self.backup is not None and self.backup.supports(lang):
            spellings = self.backup.enroll(player, samples, lang)
        first = self.first_for(lang)
        enroll = getattr(first, "enroll", None)
        if enroll is not None:
            enroll(player, samples, lang, spellings)

    def forget(self, player: str) -> None:
        for part in (self.first, self.backup):
            forget = getattr(part, "forget", None)
            if forget is not None:
                forget(player)


def _reading_of(text: str, reading: Any) -> str:
    """What the first pass's text means, in the back-up's terms (the same candidate
    text, or its player)."""
    for cand, _ in reading.scored:
        if cand.text == text:
            return _meaning(cand)
    return f"text:{text}"


class TwoPassUtterance:
    """The first pass streamed while the person speaks; at the pause hint (or the end),
    if it is unsure, Whisper reads the whole utterance: during the VAD's trailing silence
    when the pause hint comes."""

    def __init__(self, owner: TwoPass, inner: Any, grammar: Grammar):
        self.owner, self.inner, self.grammar = owner, inner, grammar
        self._pcm: list[bytes] = []
        self._result: tuple[Recognized | None] | None = None

    def feed(self, pcm: bytes) -> None:
        self._pcm.append(pcm)
        self.inner.feed(pcm)

    def settle(self) -> None:
        self.inner.settle()
        if self._result is None:
            self._result = (self._decide(),)

    def unsettle(self) -> None:
        self.inner.unsettle()
        self._result = None

    def finish(self) -> Recognized | None:
        if self._result is None:
            self._result = (self._decide(),)
        return self._result[0]

    def _decide(self) -> Recognized | None:
        heard = self.inner.finish()
        first = self.owner.first
        features = dict(getattr(first, "last_features", {}) or {})
        return self.owner.decide(heard, features, b"".join(self._pcm), self.grammar)
