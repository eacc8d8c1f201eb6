"""Speech to text, restricted to the grammar of the moment. Two engines, one interface.

- PocketSphinx (default): its PyPI wheel ships an en-US model. The grammar becomes JSGF;
  words missing from the model's dictionary get pronunciations from espeak-ng (bundled with
  piper-tts) mapped to the model's phones. Confidence compares the grammar's best path
  with a free phone loop over the same audio: speech that fits the grammar scores close to
  the phone loop, speech that does not (noise, other words) scores far below it.
- Vosk: any language Vosk has a model for (a folder). The grammar becomes a phrase list;
  names missing from the model's vocabulary are reported at set-up and fall back to seat
  numbers and phonetic matching.
"""

from __future__ import annotations

import json
import math
import os
import re
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Protocol

from local_voice.grammar import Grammar, name_forms, words_of
from local_voice.phonetics import pronunciations

SAMPLE_RATE = 16000


@dataclass(frozen=True)
class Recognized:
    text: str
    confidence: float


class Recognizer(Protocol):
    name: str

    def recognize(self, pcm: bytes, grammar: Grammar) -> Recognized | None: ...

    def missing_words(self, words: list[str]) -> list[str]: ...


# ---------------------------------------------------------------------- PocketSphinx


@cache
def _cmudict() -> dict[str, list[str]]:
    from pocketsphinx import get_model_path

    entries: dict[str, list[str]] = {}
    path = Path(get_model_path()) / "en-us" / "cmudict-en-us.dict"
    with open(path, encoding="utf-8") as handle:
        for row in handle:
            parts = row.split()
            if not parts:
                continue
            word = parts[0].split("(")[0]
            entries.setdefault(word, []).append(" ".join(parts[1:]))
    return entries


class PocketSphinxRecognizer:
    name = "pocketsphinx"
    # confidence = sigmoid(SLOPE * (margin - MARGIN0)) * fit, where margin is how much
    # better (natural log, per second of the name) the heard name scores than the best
    # path naming anybody else, and fit says how close the grammar's path comes to a free
    # phone loop (speech that is not in the grammar, or noise, scores far below it)
    SCALE = 0.0007  # no longer used (kept for callers)
    # fit: log units (base 1.0001) per 10 ms frame, grammar path - phone loop
    FIT0, FIT_WIDTH = -5.0, 1.5
    MARGIN0, MARGIN_WIDTH = 100.0, 40.0  # log units, heard reading - best other player
    NBEST = 60

    def __init__(self, model_dir: str | None = None):
        from pocketsphinx import Config, Decoder, get_model_path

        base = Path(model_dir) if model_dir else Path(get_model_path()) / "en-us"
        self._hmm = str(base / "en-us") if (base / "en-us").is_dir() else str(base)
        self._dict_words: set[str] = set()
        self._tmp = tempfile.mkdtemp(prefix="wolfvillage-ps-")
        dict_path = os.path.join(self._tmp, "base.dict")
        with open(dict_path, "w", encoding="utf-8") as handle:
            handle.write("nobody N OW B AA D IY\n")
        self._dict_words.add("nobody")
        config = Config(hmm=self._hmm, dict=dict_path, samprate=SAMPLE_RATE,
                        loglevel="FATAL", bestpath=True)
        self.decoder = Decoder(config)
        phone_lm = Path(get_model_path()) / "en-us" / "en-us-phone.lm.bin"
        self.decoder.add_allphone_file("phones", str(phone_lm))
        self._searches: dict[str, tuple[str, frozenset[str]]] = {}

    def missing_words(self, words: list[str]) -> list[str]:
        cmu = _cmudict()
        return [w for w in words if w.lower() not in cmu]

    def _ensure_words(self, words: set[str]) -> None:
        cmu = _cmudict()
        for word in sorted(words - self._dict_words):
            variants = cmu.get(word) or [" ".join(p) for p in pronunciations(word)]
            for k, phones in enumerate(variants):
                self.decoder.add_word(word if k == 0 else f"{word}({k + 1})", phones,
                                      update=(k == len(variants) - 1))
            self._dict_words.add(word)

    def _search(self, grammar: Grammar) -> str:
        """The compiled search for a grammar; built once per (phrases, names)."""
        jsgf, players = factored_jsgf(grammar)
        key = f"g{abs(hash(jsgf))}"
        if key not in self._searches:
            self._ensure_words(grammar.vocabulary())
            self.decoder.add_jsgf_string(key, jsgf)
            self._searches[key] = (jsgf, players)
        return key

    def prepare(self, grammar: Grammar) -> None:
        """Compile the grammar's search ahead of time (the box does it while it speaks)."""
        self._search(grammar)

    def _decode(self, search: str, pcm: bytes) -> tuple[str | None, int, int]:
        pcm = with_noise_floor(pcm)
        d = self.decoder
        d.activate_search(search)
        d.start_utt()
        d.process_raw(pcm, full_utt=True)
        d.end_utt()
        hyp = d.hyp()
        frames = d.n_frames()
        if hyp is None:
            return None, 0, frames
        return hyp.hypstr, hyp.best_score, frames

    def recognize(self, pcm: bytes, grammar: Grammar) -> Recognized | None:
        if not pcm:
            return None
        search = self._search(grammar)
        text, score, frames = self._decode(search, pcm)
        if not text:
            return None
        best = self._log(score)
        rival = self._rival(text, best, self._searches[search][1])
        _, loop, _ = self._decode("phones", pcm)
        fit = (best - self._log(loop)) / max(frames, 1)
        margin = best - rival if rival is not None else math.inf
        return Recognized(text, self.confidence(fit, margin))

    def confidence(self, fit: float, margin: float) -> float:
        """0.5 where right and wrong answers were equally likely in bench/voice_accuracy.py:
        a path much worse than the free phone loop per frame (FIT0), or another player
        almost as likely as the heard one (MARGIN0), means ask again."""
        sure_fit = 1.0 / (1.0 + math.exp(-(fit - self.FIT0) / self.FIT_WIDTH))
        sure_margin = 1.0 if margin == math.inf else 1.0 / (
            1.0 + math.exp(-(margin - self.MARGIN0) / self.MARGIN_WIDTH))
        # both have to hold; scaled so that either one alone at its threshold gives 0.5
        return max(0.0, min(1.0, min(sure_fit, sure_margin)))

    def _log(self, probability: float) -> float:
        """pocketsphinx returns path scores as probabilities (logmath exp); back to the
        decoder's own log units (base 1.0001), in which FIT0 and MARGIN0 are set."""
        return float(self.decoder.get_logmath().log(probability)) if probability > 0 else -1e12

    def _rival(self, text: str, best: float, players: frozenset[str]) -> float | None:
        """The score of the best other reading in the lattice that names someone else
        (or nobody), from the n-best list of the same search: no second decode."""
        mine = _player_in(text, players)
        for count, hyp in enumerate(self.decoder.nbest()):
            if count >= self.NBEST:
                break
            if hyp is None or not hyp.hypstr:
                continue
            if _player_in(hyp.hypstr, players) != mine:
                return self._log(hyp.best_score)
        return None


def _player_in(text: str, players: frozenset[str]) -> str:
    padded = f" {text} "
    for form in sorted(players, key=len, reverse=True):
        if f" {form} " in padded:
            return form
    return ""


NOISE_FLOOR = 40.0  # RMS of the added noise, about -58 dBFS


@cache
def _floor_noise(samples: int) -> bytes:
    import numpy as np

    rng = np.random.default_rng(12345)
    return rng.normal(0.0, NOISE_FLOOR, samples).astype(np.float32).tobytes()


def with_noise_floor(pcm: bytes) -> bytes:
    """A faint, fixed noise under the audio. Digital silence (a gated microphone, a file,
    synthetic speech) breaks PocketSphinx's noise estimate and its cepstral mean: the
    model then hears silence where words are. A real room always has this much noise."""
    import numpy as np

    samples = np.frombuffer(pcm, dtype=np.int16)
    size = 1 << max(14, (len(samples) - 1).bit_length())
    noise = np.frombuffer(_floor_noise(size), dtype=np.float32)[: len(samples)]
    return np.clip(samples + noise, -32768, 32767).astype(np.int16).tobytes()


def factored_jsgf(grammar: Grammar) -> tuple[str, frozenset[str]]:
    """The grammar as JSGF with the players in one rule of their own: "i vote for <player>"
    once instead of once per name, which makes a search graph twenty times smaller."""
    forms = sorted({" ".join(words_of(f)) for f in name_forms(grammar.lang, grammar.names)},
                   key=len, reverse=True) if grammar.names else []
    forms = [f for f in forms if f]
    players = frozenset(forms)
    templates: set[str] = set()
    pattern = (re.compile(r"(?<!\S)(" + "|".join(re.escape(f) for f in forms) + r")(?!\S)")
               if forms else None)
    for phrase in grammar.phrases:
        said = " ".join(words_of(phrase))
        if not said:
            continue
        templates.add(pattern.sub("<player>", said) if pattern else said)
    body = " | ".join(sorted(templates)) if templates else "<VOID>"
    rules = f"public <utterance> = {body};\n"
    if forms and any("<player>" in t for t in templates):
        rules += "<player> = " + " | ".join(forms) + ";\n"
    return "#JSGF V1.0;\ngrammar wolfvillage;\n" + rules, players


# ---------------------------------------------------------------------- Vosk


class VoskRecognizer:
    name = "vosk"

    def __init__(self, model_dir: str):
        import vosk

        vosk.SetLogLevel(-1)
        if not Path(model_dir).is_dir():
            raise FileNotFoundError(f"no Vosk model folder at {model_dir}")
        self.model = vosk.Model(model_dir)

    def missing_words(self, words: list[str]) -> list[str]:
        # vosk 0.3.45 names it vosk_model_find_word (find_word in later releases)
        find = getattr(self.model, "find_word", None) or self.model.vosk_model_find_word
        return [w for w in words if find(w.lower()) < 0]

    def recognize(self, pcm: bytes, grammar: Grammar) -> Recognized | None:
        import vosk

        phrases = [p for p in (" ".join(words_of(x)) for x in grammar.phrases)
                   if p and not self.missing_words(p.split())]
        recognizer = vosk.KaldiRecognizer(self.model, SAMPLE_RATE,
                                          json.dumps([*phrases, "[unk]"], ensure_ascii=False))
        recognizer.SetWords(True)
        recognizer.AcceptWaveform(pcm)
        result = json.loads(recognizer.FinalResult())
        text = result.get("text", "").replace("[unk]", "").strip()
        if not text:
            return None
        words = result.get("result") or []
        confidence = min((w.get("conf", 1.0) for w in words), default=0.0)
        return Recognized(text, float(confidence))


def make_recognizer(engine: str = "pocketsphinx", model: str | None = None) -> Recognizer:
    if engine == "vosk":
        if not model:
            raise ValueError("Vosk needs a model folder (recognizer.model in the config)")
        return VoskRecognizer(model)
    if engine == "pocketsphinx":
        return PocketSphinxRecognizer(model)
    raise ValueError(f"unknown recogniser {engine!r} (pocketsphinx or vosk)")
