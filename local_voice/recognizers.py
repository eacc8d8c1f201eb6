"""Speech to text, restricted to the grammar of the moment. Two engines, one interface.

- PocketSphinx (default): its PyPI wheel ships an en-US model. The grammar becomes JSGF;
  words missing from the model's dictionary get pronunciations from espeak-ng (bundled with
  piper-tts) mapped to the model's phones. The audio can be fed while it is spoken
  (`stream`): the grammar search and a free phone loop run side by side in two decoders.
  Confidence: a logistic regression (fitted on bench/voice_features.py's dump by
  bench/fit_voice_confidence.py) over the grammar's best path against the phone loop
  (speech that does not fit the grammar scores far below it), against the best n-best
  reading that means something else, the lattice's posteriors, how many of the n-best
  readings agree, the utterance's signal-to-noise ratio (other talkers) and how much of
  the speech the path had to call silence. With other people talking, only the loudest
  talker's span is decoded (`Utterance.speech_span`), the steady chatter gated out first
  (`local_voice.denoise`), through an unwarped front end (quiet rooms are heard through
  a warped one: `PocketSphinxRecognizer.WARP`).
- Vosk: any language Vosk has a model for (a folder). The grammar becomes a phrase list;
  names missing from the model's vocabulary are reported at set-up and fall back to seat
  numbers and phonetic matching.
- Whisper (local_voice.whisper), the back-up when the first pass is unsure and the only
  ears for a language PocketSphinx has no model for; `make_recognizer` puts the two
  behind one interface (local_voice.fusion.TwoPass).

Players' own clips of their names (local_voice.enrollment) reach PocketSphinx through
`enroll`: the pronunciations heard in them become alternatives of the name.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, ClassVar, Protocol

from local_voice.grammar import PLAYER, Grammar, name_forms, words_of
from local_voice.phonetics import pronunciation_in, pronunciations

SAMPLE_RATE = 16000


@dataclass(frozen=True)
class Recognized:
    text: str
    confidence: float
    # a name heard where `text` names its player that is nobody at the table ("henry" in
    # "i vote for henry", no Henry): the vote is for no one, and the narrator says so
    # (fusion.TwoPass._unlisted)
    unknown: str | None = None


class Recognizer(Protocol):
    name: str

    def recognize(self, pcm: bytes, grammar: Grammar) -> Recognized | None: ...

    def missing_words(self, words: list[str]) -> list[str]: ...


# ---------------------------------------------------------------------- PocketSphinx


class CmuDict:
    """The model's pronunciation dictionary, looked up on demand: a binary search over the
    sorted file (memory-mapped) instead of 135 000 entries in a Python dict (30 MB)."""

    def __init__(self, path: Path):
        import mmap

        self.path = path
        with open(path, "rb") as handle:
            self._data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)

    def _key_at(self, offset: int) -> tuple[bytes, int]:
        """The headword of the line that starts at or after `offset`, and where it starts."""
        data = self._data
        start = 0 if offset == 0 else data.find(b"\n", offset - 1) + 1
        if start <= 0 and offset:
            return b"", len(data)
        end = data.find(b" ", start)
        key = data[start:end] if end > start else b""
        return key.split(b"(")[0], start

    def get(self, word: str) -> list[str]:
        target = word.lower().encode("utf-8")
        data = self._data
        lo, hi = 0, len(data)
        while lo < hi:  # first line whose headword is >= target
            mid = (lo + hi) // 2
            key, start = self._key_at(mid)
            if start >= len(data) or key >= target:
                hi = mid
            else:
                lo = mid + 1
        _, start = self._key_at(lo)
        found: list[str] = []
        while start < len(data):
            end = data.find(b"\n", start)
            end = len(data) if end < 0 else end
            parts = data[start:end].decode("utf-8").split()
            if not parts or parts[0].split("(")[0] != word.lower():
                break
            found.append(" ".join(parts[1:]))
            start = end + 1
        return found

    def __contains__(self, word: str) -> bool:
        return bool(self.get(word))


@cache
def _cmudict() -> CmuDict:
    from pocketsphinx import get_model_path

    return CmuDict(Path(get_model_path()) / "en-us" / "cmudict-en-us.dict")


class PocketSphinxRecognizer:
    name = "pocketsphinx"
    # The confidence is a logistic regression over the features of `confidence_inputs`
    # (fit to the free phone loop, n-best margin, signal-to-noise, share of the speech read
    # as silence, posteriors from the lattice, n-best agreement, length, agreement of the
    # path's phones with the phone loop's), fitted by bench/fit_voice_confidence.py on
    # bench/voice_features.py's dump (votes, and table talk that is not a vote) so that
    # wrong votes stay at about 1 in 300 (quiet) to 1 in 100 (babble) of the utterances,
    # with the threshold at 0.5. Two sets of weights: a quiet room and one with other
    # people talking (snr < Utterance.TRIM_SNR), where the same features mean different
    # things (every path fits babble worse).
    # bench/fit_voice_confidence.py --wrong 0.003 --l2 10 --noisy no (held out by voice:
    # 64.9 % right, 0.5 % wrong, clean; 2 of 48 lines of table talk taken for a vote) and
    # --wrong 0.006 --l2 10 --noisy yes (4.1 % / 0.6 %, babble)
    WEIGHTS: ClassVar[tuple[float, ...]] = (
        0.05607, 0.1045, 1.194, -0.02884, -12.48, 0.3296, 0.178, -0.5668, 1.081, -0.1006,
        -0.8495, 1.789, -0.3417)
    NOISY_WEIGHTS: ClassVar[tuple[float, ...]] = (
        -0.03193, 0.05647, 0.8598, -0.08147, -0.09683, 1.979, 0.4476, -0.6204, 1.573,
        -0.1319, 0.2152, 0.9786, -2.47)
    # guards the regression was not fitted to see: a path that had to call a fifth of
    # the speech silence (a sentence outside the grammar), or that fits far worse than
    # the phone loop (noise), is never sure
    UNSAID0, UNSAID_WIDTH = 0.2, 0.04
    FIT0, FIT_WIDTH = -16.0, 1.0
    NBEST = 60
    NAME_VARIANTS = True  # espeak-ng's pronunciations of names the dictionary knows too
    AGREE_N = 10
    # settings of the grammar's decoder (PocketSphinx's names); the phone loop gets its own
    # decoder so that both can follow the audio while the person is still speaking
    SETTINGS: ClassVar[dict[str, object]] = {"wbeam": 1e-24}
    # Frequency warping of the front end (vocal tract length normalisation, PocketSphinx's
    # inverse_linear warp: the spectrum is read stretched by 1/WARP) for the bundled en-US
    # model. Measured on bench/voice_accuracy.py's voices (best paths naming the intended
    # player, of 370): quiet room 289 at 1.0, 299 at 0.9, 307 at 0.85, 304 at 0.8, 298 at
    # 0.75, 280 at 1.1, 272 at 1.2; every voice but the highest-pitched gained. With
    # other people talking the warp costs (86 at 1.0, 76 at 0.85, 80 at 1.2): there the
    # talker's span is decoded again anyway (Utterance.speech_span), so at NOISY_WARP.
    # Another model folder is decoded unwarped: these figures say nothing about it.
    WARP, NOISY_WARP = 0.85, 1.0

    def __init__(self, model_dir: str | None = None):
        from pocketsphinx import Config, Decoder, get_model_path

        base = Path(model_dir) if model_dir else Path(get_model_path()) / "en-us"
        self.lang = "en" if model_dir is None else None  # another folder: its own language
        self.warp = self.WARP if model_dir is None else 1.0
        self.noisy_warp = self.NOISY_WARP if model_dir is None else 1.0
        self._warp = self.warp  # the warp both decoders' front ends are set to now
        self._hmm = str(base / "en-us") if (base / "en-us").is_dir() else str(base)
        self._dict_words: set[str] = set()
        # the decoders read their starting dictionary from a file, once, when they are
        # made (later words go in with add_word); the folder goes when they have read it,
        # or every recogniser made (each `wolfvillage hear`, each test) left one in /tmp
        tmp = tempfile.mkdtemp(prefix="wolfvillage-ps-")
        dict_path = os.path.join(tmp, "base.dict")
        with open(dict_path, "w", encoding="utf-8") as handle:
            handle.write("nobody N OW B AA D IY\n")
        self._dict_words.add("nobody")
        # lm=None: the Config would otherwise load the 27 MB general language model,
        # which a grammar never uses
        common = dict(hmm=self._hmm, dict=dict_path, samprate=SAMPLE_RATE,
                      loglevel="FATAL", lm=None, **_warp_settings(self.warp))
        # a narrower word beam for the grammar (-wbeam 1e-24, default 7e-29): a smaller
        # lattice, so the end of the search after the end of speech is 2-3x faster; the
        # phone loop keeps the default beams: pruning it would make every grammar path
        # look good against it
        phone_lm = Path(get_model_path()) / "en-us" / "en-us-phone.lm.bin"
        try:
            self.decoder = Decoder(Config(**{"bestpath": True, **common, **self.SETTINGS}))
            self.loop = Decoder(Config(allphone=str(phone_lm), **common))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        self._searches: dict[str, tuple[str, frozenset[str]]] = {}
        self.last_features: dict[str, float | None] = {}
        self.last_unsaid: dict[str, float] = {}  # sentence_scores' share left unsaid
        # pronunciations heard in players' clips of their own names (enroll): each is a
        # word of its own in the dictionary ("siobhan_heard1"), an alternative of the name
        # in the <player> rule, read back as the name (so forgetting it is leaving it out)
        self.enrolled: dict[str, list[tuple[str, str]]] = {}  # word -> (token, phones)
        self._aliases: dict[str, str] = {}  # token -> word
        self._enrolled_version = 0

    def use_warp(self, warp: float) -> None:
        """A new front end for both decoders, warped by `warp`, before every utterance (the
        model and the searches stay; 0.1 ms). New each time, not only when the warp
        changes: the front end otherwise carries state from the utterances before it (the
        live cepstral mean, and in a recording's full-utterance decode more than that),
        and the same vote was then scored differently after other speech (fit 2.17 fresh,
        1.49 after hearing itself once, 1.47 after table talk): a box's answer must depend
        on what was said, not on what it heard before."""
        for decoder in (self.decoder, self.loop):
            config = decoder.config
            for key, value in _warp_settings(warp).items():
                config[key] = value
            decoder.reinit_feat(config)
        self._warp = warp

    def heard_phones(self, samples: bytes) -> list[str]:
        """The phones the free phone loop hears in a clip (between utterances only: the
        loop's decoder is the one streaming uses)."""
        pcm = with_noise_floor(samples)
        self.use_warp(self.warp)  # the same front end as any utterance starts with
        self.loop.start_utt()
        self.loop.process_raw(pcm, full_utt=True)
        self.loop.end_utt()
        phones = [s.word for s in self.loop.seg() if not _is_filler(s.word)]
        return [p for k, p in enumerate(phones) if k == 0 or p != phones[k - 1]]

    def enroll(self, player: str, samples: object, lang: str = "en",
               spellings: tuple[str, ...] | list[str] = ()) -> list[str]:
        """Add the pronunciations heard in `player`'s clip of their own name beside the
        spelled ones: the free phone loop's, and espeak-ng's for each way another
        recogniser wrote the clip (`spellings`: Whisper's "Shivon" for "Shivawn"). A
        one-word name only (a longer one is left to Whisper). Returns the pronunciations
        added; the grammars are compiled again when next used."""
        import numpy as np

        words = words_of(player)
        if len(words) != 1:
            return []
        pcm = np.asarray(samples, dtype=np.int16).tobytes()
        heard = [" ".join(self.heard_phones(pcm))]
        for spelling in spellings:
            said = words_of(spelling)
            if len(said) == 1 and said[0] != words[0]:
                heard += [" ".join(p) for p in pronunciations(said[0])]
        known = set(_cmudict().get(words[0])) | {" ".join(p) for p in pronunciations(words[0])}
        added = [p for p in dict.fromkeys(heard) if len(p.split()) >= 2 and p not in known]
        self._enrolled_version += 1
        tokens = []
        for k, phones in enumerate(added):
            token = f"{words[0]}_heard{self._enrolled_version}x{k}"
            self.decoder.add_word(token, phones, update=k == len(added) - 1)
            self._aliases[token] = words[0]
            tokens.append((token, phones))
        self.enrolled[words[0]] = tokens
        return added

    def forget(self, player: str) -> None:
        words = words_of(player)
        if len(words) == 1 and self.enrolled.pop(words[0], None) is not None:
            self._enrolled_version += 1

    def canonical(self, text: str) -> str:
        """A path's words with enrolled pronunciations read back as the names."""
        if not self._aliases:
            return text
        return " ".join(self._aliases.get(w, w) for w in text.split())

    def missing_words(self, words: list[str]) -> list[str]:
        cmu = _cmudict()
        return [w for w in words if w.lower() not in cmu]

    def _ensure_words(self, words: set[str], names: frozenset[str] = frozenset()) -> None:
        """Pronunciations for the grammar's words: the dictionary's, or espeak-ng's when it
        has none. Players' names get espeak-ng's (US, British RP and generic English) as
        well as the dictionary's: people say names in their own accent, and the US-only
        dictionary knows one way ("Anna" as AE N AH, not the British AA N AH)."""
        cmu = _cmudict()
        todo = sorted(words - self._dict_words)
        for n, word in enumerate(todo):
            variants = cmu.get(word)
            if not variants or (word in names and self.NAME_VARIANTS):
                variants = list(dict.fromkeys(
                    [*variants, *(" ".join(p) for p in pronunciations(word))]))
            for k, phones in enumerate(variants):
                last = n == len(todo) - 1 and k == len(variants) - 1
                self.decoder.add_word(word if k == 0 else f"{word}({k + 1})", phones,
                                      update=last)
            self._dict_words.add(word)

    def _search(self, grammar: Grammar) -> str:
        """The compiled search for a grammar; built once per (phrases, names)."""
        aliases = {word: [token for token, _ in tokens] for word, tokens in self.enrolled.items()}
        jsgf, players = factored_jsgf(grammar, aliases)
        key = f"g{abs(hash(jsgf))}"
        if key not in self._searches:
            self._ensure_words(grammar.vocabulary(), frozenset(
                w for name in grammar.names for w in words_of(name)))
            self.decoder.add_jsgf_string(key, jsgf)
            self._searches[key] = (jsgf, players)
        return key

    def prepare(self, grammar: Grammar) -> None:
        """Compile the grammar's search ahead of time (the box does it while it speaks)."""
        self._search(grammar)

    def stream(self, grammar: Grammar) -> Utterance:
        """Decode while the person speaks: feed audio as it comes, `finish()` at the end."""
        return Utterance(self, self._search(grammar))

    def recognize(self, pcm: bytes, grammar: Grammar) -> Recognized | None:
        if not pcm:
            return None
        utterance = Utterance(self, self._search(grammar), batch=True)
        utterance.feed(pcm)
        return utterance.finish()

    def scores_lang(self, lang: str) -> bool:
        """Whether `sentence_scores` can score sentences of `lang`: its own model's
        language, or with the bundled en-US model any language espeak-ng speaks (each
        word as espeak-ng's voice of that language says it, in the model's phones). A
        configured model folder is taken to be of the table's language, as before."""
        return self.lang is None or lang == self.lang or self.lang == "en"

    def _foreign_words(self, words: set[str], lang: str) -> dict[str, str]:
        """Dictionary entries for words of another language (`word@lang`, so that "pour"
        or "die" keep their English pronunciation as English words): espeak-ng's
        pronunciation in that language. Returns word -> entry; a word espeak-ng cannot
        say has none (its sentence is then not scored)."""
        entries: dict[str, str] = {}
        new: list[tuple[str, str]] = []
        for word in sorted(words):
            entry = f"{word}@{lang}"
            if entry not in self._dict_words:
                phones = pronunciation_in(word, lang)
                if not phones:
                    continue
                new.append((entry, " ".join(phones)))
            entries[word] = entry
        for n, (entry, phones) in enumerate(new):
            self.decoder.add_word(entry, phones, update=n == len(new) - 1)
            self._dict_words.add(entry)
        return entries

    def sentence_scores(self, pcm: bytes, texts: list[str], lang: str = "en"
                        ) -> dict[str, float]:
        """PocketSphinx's own say on sentences another recogniser proposes (Whisper's best
        candidates): the audio decoded again under a grammar of each sentence alone (a
        forced alignment that may still skip silence and fillers, every pronunciation of
        a name, enrolled ones included), with the same front end and, in babble, the same
        talker's span as the first pass. Each sentence's best path score per frame, in
        the decoder's log units: only differences between sentences mean anything. A
        sentence the search cannot fit to the audio at all gets no score. One small
        decode per sentence (about 40 ms for 2 s on the bench's machine): the n-best list
        of one grammar of all of them lost most sentences to the word beam.

        In another language than the model's (`scores_lang`) each word is said as
        espeak-ng says it in that language. `last_unsaid` keeps, per sentence scored,
        the share of the speech its path had to call silence: a sentence that covers
        only a word of what was said (table talk) leaves most of it unsaid."""
        self.last_unsaid = {}
        wanted = [t for t in dict.fromkeys(texts) if t and t.split()]
        if not pcm or not wanted or not self.scores_lang(lang):
            return {}
        words = {w for t in wanted for w in t.split()}
        if self.lang is None or lang == self.lang:
            self._ensure_words(words)
            entry = {w: w for w in words}
            aliases = {word: [token for token, _ in tokens]
                       for word, tokens in self.enrolled.items()}
        else:
            entry = self._foreign_words(words, lang)
            aliases = {}
            wanted = [t for t in wanted if all(w in entry for w in t.split())]

        def said(word: str) -> str:
            more = aliases.get(word, [])
            return f"({' | '.join([entry[word], *more])})" if more else entry[word]

        # the audio as the first pass decoded it: in babble the talker's span, gated
        utterance = Utterance(self, "", batch=True)
        utterance.feed(pcm)
        audio, warp, _ = utterance.talker() or (b"".join(utterance._whole), self.warp, 0)
        if not audio:
            return {}
        audio = with_noise_floor(audio)
        loud = _loud_frames(audio)
        scores: dict[str, float] = {}
        for text in wanted:
            body = " ".join(said(w) for w in text.split())
            self.decoder.add_jsgf_string(
                "scored", f"#JSGF V1.0;\ngrammar scored;\npublic <utterance> = {body};\n")
            self.use_warp(warp)
            self.decoder.activate_search("scored")
            self.decoder.start_utt()
            self.decoder.process_raw(audio, full_utt=True)
            self.decoder.end_utt()
            hyp = self.decoder.hyp()
            if hyp is not None and hyp.hypstr:
                scores[text] = self._log(hyp.best_score) / max(self.decoder.n_frames(), 1)
                self.last_unsaid[text] = _unsaid_share(loud, self.decoder.seg())
        return scores

    def confidence(self, features: dict) -> float:
        """Between 0 and 1, 0.5 at the threshold where the bench's wrong votes stay rare
        (see WEIGHTS); under the box's threshold the narrator asks "Did you say X?"."""
        noisy = features.get("snr", math.inf) < Utterance.TRIM_SNR
        weights = self.NOISY_WEIGHTS if noisy else self.WEIGHTS
        inputs = confidence_inputs(features)
        score = weights[-1] + sum(w * x for w, x in zip(weights[:-1], inputs, strict=True))
        return min(_sigmoid(score), self.guard(features))

    @classmethod
    def guard(cls, features: dict) -> float:
        sure_said = _sigmoid((cls.UNSAID0 - features.get("unsaid", 0.0)) / cls.UNSAID_WIDTH)
        sure_fit = _sigmoid((features.get("fit", 0.0) - cls.FIT0) / cls.FIT_WIDTH)
        return min(sure_said, sure_fit)

    def _log(self, probability: float) -> float:
        """pocketsphinx returns path scores as probabilities (logmath exp); back to the
        decoder's own log units (base 1.0001), in which fit and margin are measured."""
        return float(self.decoder.get_logmath().log(probability)) if probability > 0 else -1e12

    def _rivals(self, text: str, players: frozenset[str]) -> tuple[float | None, float]:
        """From the n-best list of the same search (no second decode): the score of the
        best other reading that names someone else (or, naming nobody, says other words),
        and the share of the first AGREE_N readings that mean the same as the heard one."""
        mine = _reading(text, players)
        rival: float | None = None
        same = seen = 0
        for count, hyp in enumerate(self.decoder.nbest()):
            if count >= self.NBEST or (rival is not None and seen >= self.AGREE_N):
                break
            if hyp is None or not hyp.hypstr:
                continue
            reading = _reading(self.canonical(hyp.hypstr), players)
            if seen < self.AGREE_N:
                seen += 1
                same += reading == mine
            if rival is None and reading != mine:
                rival = self._log(hyp.best_score)
        return rival, same / max(seen, 1)


class Utterance:
    """One utterance decoded as it arrives, by the grammar's search and, in a second
    decoder, the free phone loop. Every piece of audio is decoded when it comes (the VAD's
    trailing half second included: it is decoded while the VAD waits for it to end), so
    at the end of speech only the end of both searches and the n-best list are left.
    Even those can be done before the end of speech: `settle()` (the VAD calls it when the
    speaker has been quiet for a while, before it is sure they are done) ends the search
    then, and `unsettle()` (they went on speaking) throws that answer away; the whole
    utterance is then decoded again at `finish`.

    Trimming the leading and trailing silence of quiet recordings was tried: it made the
    confidence features worse at telling right from wrong (bench/voice_accuracy.py). Only
    babble is trimmed (`speech_span`).
    """

    FRAME = SAMPLE_RATE * 10 // 1000 * 2  # 10 ms of 16-bit samples
    # babble: decode only the span within TRIM_DB of the loudest talker (bench: best paths
    # right in 10 dB babble 9 -> 16 of 62 at 10 dB; 15 dB: 10, 8 dB: 12)
    TRIM_SNR, TRIM_DB, TRIM_PAD = 32.0, 10.0, 5

    def __init__(self, owner: PocketSphinxRecognizer, search: str, batch: bool = False):
        self.owner = owner
        self.search = search
        # batch: decode everything at `finish` with the whole utterance's cepstral mean
        # (a recording). Streaming uses the live mean, carried from one utterance to the
        # next, which scores differently: the thresholds were set on batch decoding.
        self.batch = batch
        self._whole: list[bytes] = []
        self._rest = b""
        self._offset = 0
        self._started = False
        self._fed = 0
        self._energy: list[float] = []  # RMS of every 10 ms frame heard
        self._skip = 0  # frames left out before the decoded span (see speech_span)
        self._ended = False  # both searches ended (at settle, or at finish)
        self._dirty = False  # speech went on after settle: the streamed search is stale
        self._result: tuple[Recognized | None] | None = None
        # in babble, the frames the utterance is cut at (babble_end; None: all of them)
        self.limit: int | None = None

    def _start(self, warp: float | None = None) -> None:
        self.owner.use_warp(self.owner.warp if warp is None else warp)
        self.owner.decoder.activate_search(self.search)
        self.owner.decoder.start_utt()
        self.owner.loop.start_utt()
        self._started = True
        self._ended = False

    def _decode(self, pcm: bytes) -> None:
        if not pcm:
            return
        if not self._started:
            self._start()
        pcm = with_noise_floor(pcm, self._offset)
        self._offset += len(pcm) // 2
        self.owner.decoder.process_raw(pcm)
        self.owner.loop.process_raw(pcm)
        self._fed += len(pcm)

    def feed(self, pcm: bytes) -> None:
        import numpy as np

        data = self._rest + pcm
        whole = len(data) - len(data) % self.FRAME
        self._rest = data[whole:]
        if not whole:
            return
        self._energy.extend(frame_rms(np.frombuffer(data[:whole], dtype=np.int16)).tolist())
        self._whole.append(data[:whole])  # kept: in babble it is decoded again, trimmed
        if not self.batch and not self._ended and not self._dirty:
            self._decode(data[:whole])

    def _batch(self, pcm: bytes, warp: float | None = None) -> None:
        owner = self.owner
        self._start(warp)
        pcm = with_noise_floor(pcm)
        owner.decoder.process_raw(pcm, full_utt=True)
        owner.loop.process_raw(pcm, full_utt=True)
        owner.decoder.end_utt()
        owner.loop.end_utt()
        self._ended = True
        self._fed = len(pcm)

    def speech_span(self) -> tuple[int, int] | None:
        """Where the loudest talker speaks, in 10 ms frames, when other people talk
        around them (the VAD cannot end an utterance in babble, so it hands over the chatter
        before and after the vote too, and the grammar's path then reads words into it):
        `loudest_span` of the utterance as it is concluded. None when the room is quiet
        (snr >= TRIM_SNR): there the silence around the words helps the search."""
        if len(self._used()) < 20 or self.snr() >= self.TRIM_SNR:
            return None
        return loudest_span(self._used())

    def _used(self) -> list[float]:
        """The frames' levels of the utterance as it is concluded (up to `limit`)."""
        return self._energy[: self.limit]

    @property
    def energy(self) -> list[float]:
        """The RMS of every 10 ms frame heard so far."""
        return self._energy

    def conclude_at(self, limit: int | None) -> Recognized | None:
        """The answer for the utterance cut at `limit` frames (babble_end; None: all of
        it), worked out now, whatever comes after. The streamed search ends here: were
        the utterance concluded whole after all, it is decoded again (as after
        `unsettle`)."""
        self.limit = limit
        self._dirty = True
        self._result = (self._conclude(),)
        return self._result[0]

    def settle(self, after: float = 0.0) -> None:
        """The speaker has gone quiet: end the search and work out the answer now, while
        the VAD waits to be sure (the `after` seconds of silence still to come add nothing
        to a vote)."""
        if self._result is None and self._started and not self.batch and not self._dirty:
            self._result = (self._conclude(),)

    def unsettle(self) -> None:
        """They went on speaking after `settle`: that answer was premature."""
        if self._result is not None and not self.batch:
            self._result = None
            self._dirty = True

    def finish(self) -> Recognized | None:
        if self._result is None:
            self._result = (self._conclude(),)
        return self._result[0]

    def talker(self) -> tuple[bytes, float, int] | None:
        """In babble, the talker's own span (`speech_span`) with the chatter gated out
        (the whole utterance as its noise sample), the warp it is decoded with and the
        frames left out before it; None in a quiet room."""
        span = self.speech_span()
        if span is None:
            return None
        return (self._gated()[span[0] * self.FRAME : span[1] * self.FRAME],
                self.owner.noisy_warp, span[0])

    def _conclude(self) -> Recognized | None:
        owner = self.owner
        # the room as this utterance measured it, even where the search finds nothing:
        # the back-up reads babble with care (fusion.noisy), and a search that found
        # nothing in babble had left the utterance before's measure there (a quiet
        # one: Whisper then read the chatter whole, raw and once)
        snr = self.snr()
        owner.last_features = {"snr": snr}
        talker = self.talker()
        if self._started and not self._ended:
            owner.decoder.end_utt()
            owner.loop.end_utt()
            self._ended = True
        if talker is not None:
            # decoded again over the talker's own span only (in babble the streamed pass
            # is thrown away: a second search, but only when other people are talking)
            pcm, warp, self._skip = talker
            self._batch(pcm, warp)
        elif (self.batch or self._dirty) and self._whole:
            self._batch(self._pcm_used())
        if not self._fed:
            return None
        hyp = owner.decoder.hyp()
        if hyp is None or not hyp.hypstr:
            return None
        text = owner.canonical(hyp.hypstr)
        frames = max(owner.decoder.n_frames(), 1)
        best = owner._log(hyp.best_score)
        loop_hyp = owner.loop.hyp()
        loop = owner._log(loop_hyp.best_score) if loop_hyp is not None else best
        players = owner._searches[self.search][1]
        name_fit = self._name_fit(players)
        phone_fit = self._phone_fit()
        rival, agree = owner._rivals(text, players)
        fit = (best - loop) / frames
        margin = best - rival if rival is not None else math.inf
        unsaid = self.unsaid()
        name_prob, utt_prob = self._posteriors(players)
        owner.last_features = {"fit": fit, "margin": margin, "name_fit": name_fit,
                               "frames": frames, "snr": snr, "unsaid": unsaid,
                               "name_prob": name_prob, "utt_prob": utt_prob, "agree": agree,
                               "words": len(text.split()), "phone_fit": phone_fit}
        return Recognized(text, owner.confidence(owner.last_features))

    def _pcm_used(self) -> bytes:
        """The utterance's audio as it is concluded (up to `limit` frames)."""
        whole = b"".join(self._whole)
        return whole if self.limit is None else whole[: self.limit * self.FRAME]

    def _gated(self) -> bytes:
        """The utterance (up to `limit`) with the steady babble gated out
        (local_voice.denoise)."""
        import numpy as np

        from local_voice.denoise import spectral_gate

        samples = np.frombuffer(self._pcm_used(), dtype=np.int16)
        gated = spectral_gate(samples, SAMPLE_RATE)
        return np.clip(np.round(gated), -32768, 32767).astype(np.int16).tobytes()

    def _posteriors(self, players: frozenset[str]) -> tuple[float, float]:
        """The lattice's posterior probability of the heard name (or, naming nobody, of its
        least sure word) and of the whole best path."""
        decoder = self.owner.decoder
        words = {w for form in players for w in form.split()}
        probs = [(s.word.split("(")[0] in words, min(1.0, s.prob)) for s in decoder.seg()
                 if not s.word.startswith(("<", "["))]
        named = [p for is_name, p in probs if is_name]
        name_prob = min(named) if named else min((p for _, p in probs), default=0.0)
        return float(name_prob), float(min(1.0, decoder.get_prob()))

    def unsaid(self) -> float:
        """The share of the loud frames (speech) that the grammar's path spends in silence
        or fillers: words it could not place. A sentence outside the grammar leaves many."""
        import numpy as np

        if not self._used():
            return 0.0
        energy = np.asarray(self._used()[self._skip :])
        loud = energy >= 0.1 * np.percentile(energy, 95)
        return _unsaid_share(loud, self.owner.decoder.seg())

    def snr(self) -> float:
        """A rough signal-to-noise ratio of the utterance in dB (`level_snr`)."""
        return level_snr(self._used())

    def _phone_fit(self) -> float | None:
        """How well the free phone loop agrees with the phones of the whole best path:
        1 - edit distance / length. Table talk that the grammar can only read as a vote
        ("who wants another cup of tea" as "i want number thirteen") agrees far less than
        the vote it is read as would."""
        decoder = self.owner.decoder
        said: list[str] = []
        for seg in decoder.seg():
            if not _is_filler(seg.word):
                said += (decoder.lookup_word(seg.word) or "").split()
        if not said:
            return None
        heard = [s.word for s in self.owner.loop.seg() if s.word != "SIL"]
        return 1.0 - _edit_distance(said, heard) / len(said)

    def _name_fit(self, players: frozenset[str]) -> float | None:
        """How well the phone loop, over the very frames of the heard name (not the words
        around it, nor the babble before and after), agrees with the name's
        pronunciation: 1 - edit distance / length, the best over its pronunciations."""
        owner = self.owner
        words = {w for form in players for w in form.split()}
        name = [(s.start_frame, s.end_frame, s.word) for s in owner.decoder.seg()
                if s.word.split("(")[0] in words]
        if not name:
            return None
        start, end, word = name[-1]
        heard = [s.word for s in owner.loop.seg()
                 if s.word != "SIL" and min(end, s.end_frame) - max(start, s.start_frame) >= 2]
        best = 0.0
        base = word.split("(")[0]
        for k in range(1, 6):
            phones = owner.decoder.lookup_word(base if k == 1 else f"{base}({k})")
            if not phones:
                break
            said = phones.split()
            best = max(best, 1.0 - _edit_distance(said, heard) / len(said))
        return best


def loudest_span(energy: Any, pad: int | None = None) -> tuple[int, int] | None:
    """Where the loudest talker speaks, in 10 ms frames (`energy`: each frame's RMS): the
    frames whose smoothed level is within Utterance.TRIM_DB of the loudest, from the
    talker's first (`talker_start`) to the last, with `pad` (Utterance.TRIM_PAD) frames
    either side; None if that is all of them."""
    import numpy as np

    pad = Utterance.TRIM_PAD if pad is None else pad
    loud = talker_loud(energy)
    if loud is None:
        return None
    frames = np.flatnonzero(loud)
    start = max(0, talker_start(energy, loud) - pad)
    end = min(len(loud), int(frames[-1]) + 1 + pad)
    return (start, end) if end - start < len(loud) else None


def _smoothed(energy: Any) -> Any:
    """Each 10 ms frame's level in dB (`energy`: its RMS), smoothed over 5 frames."""
    import numpy as np

    level = 20 * np.log10(np.maximum(np.asarray(energy, dtype=np.float64), 1.0))
    return np.convolve(level, np.ones(5) / 5, mode="same")


def talker_loud(energy: Any) -> Any:
    """Which 10 ms frames (`energy`: each frame's RMS) are the loudest talker's: their
    level, smoothed over 5 frames, within Utterance.TRIM_DB of the loudest (a boolean
    array); None under 20 frames."""
    if len(energy) < 20:
        return None
    smooth = _smoothed(energy)
    return smooth > smooth.max() - Utterance.TRIM_DB


def talker_start(energy: Any, loud: Any, gap: int | None = None) -> int:
    """The loudest talker's first loud frame (`loud`: `talker_loud`'s): going back from the
    loudest frame over the loud frames less than `gap` (BABBLE_GAP) frames before the one
    after. Where the chatter goes on a while before the vote (a real table: the talker
    answers the narrator in the middle of it), its own peaks within TRIM_DB of the talker
    are not the talker's: the bench's babble-late (2.5 s of chatter before the vote) had
    the span start 1.9 s early in 55 of 97 clips, read by both passes (the first pass's
    second search over it took 1-3 s); no clip of its babble (0.4 s before) moves
    (docs/voice.md, round 29)."""
    import numpy as np

    gap = BABBLE_GAP if gap is None else gap
    first = int(np.argmax(_smoothed(energy)))
    for frame in np.flatnonzero(loud[:first])[::-1]:
        if first - frame >= gap:
            break
        first = int(frame)
    return first


def level_snr(energy: Any) -> float:
    """A rough signal-to-noise ratio in dB of the frames' levels `energy` (each frame's
    RMS): the loud frames against the quiet ones. Other people talking over a vote keep
    the quiet frames loud. Frames of digital silence (a gated microphone, the padding of
    a file) say nothing about the room's noise and are left out."""
    import numpy as np

    energy = np.asarray(energy, dtype=np.float64)
    energy = energy[energy > 0]
    if not len(energy):
        return 0.0
    loud, quiet = np.percentile(energy, 95), np.percentile(energy, 10)
    return float(20 * np.log10(max(loud, 1.0) / max(quiet, NOISE_FLOOR)))


# In babble the VAD never hears the end of a vote: the chatter goes on after it (to
# `max_seconds`, or until the table pauses). The utterance is then read as ending
# BABBLE_TAIL frames of 10 ms after the loudest talker's last loud frame (babble_end),
# so that its answer can be worked out as soon as the talker stops, while the chatter
# goes on, and is the same whenever the VAD ends it (docs/voice.md, round 28). Their
# last loud frame: within Utterance.TRIM_DB of the loudest, as `loudest_span`'s, and
# less than BABBLE_GAP frames after the one before, from their last stretch of
# BABBLE_SUSTAIN such frames on, so that the chatter's own peaks a while after the vote
# do not move the end, while a name said quieter than the words before it is kept
# (Piper's "Lucy" comes 0.3 s after its last stretch). On the bench's babble clips
# (latency's and accuracy's, 211), any loud frame moved the end to the end of the clip in
# 24; with the rule, 19, and a live box then has 0.7 s or more to work out the answer
# after the talker stops in every latency clip (a `/tmp` simulation).
BABBLE_TAIL = 30
BABBLE_SUSTAIN = 8
BABBLE_GAP = 50


def talker_end(energy: Any, sustain: int = BABBLE_SUSTAIN, gap: int = BABBLE_GAP
               ) -> int | None:
    """The frame after the loudest talker's last loud frame (`talker_loud`): the end of
    their last stretch of `sustain` loud frames, carried on over the loud frames that
    come less than `gap` frames after the one before. None if there is no such
    stretch."""
    import numpy as np

    loud = talker_loud(energy)
    if loud is None:
        return None
    # where a run of `sustain` loud frames ends
    runs = np.convolve(loud.astype(np.int64), np.ones(sustain, dtype=np.int64), mode="valid")
    ends = np.flatnonzero(runs >= sustain)
    if not len(ends):
        return None
    last = int(ends[-1]) + sustain  # the frame after the last such run
    for frame in np.flatnonzero(loud[last:]) + last:
        if frame - last >= gap:
            break
        last = int(frame) + 1
    return last


def babble_end(energy: Any, tail: int = BABBLE_TAIL) -> int | None:
    """Where an utterance whose frames' levels are `energy` is cut: `tail` frames after
    the loudest talker's last loud frame (`talker_end`), when the utterance is babble
    both whole and up to there (its `level_snr` under Utterance.TRIM_SNR: an utterance
    read as a quiet room's is never cut). None in a quiet room, or while the talker may
    still be speaking (fewer than `tail` frames since their last loud frame)."""
    end = talker_end(energy)
    if end is None or end + tail >= len(energy):
        return None
    cut = end + tail
    if max(level_snr(energy), level_snr(energy[:cut])) >= Utterance.TRIM_SNR:
        return None
    return cut


def frame_rms(samples: Any) -> Any:
    """The RMS of every whole 10 ms frame of `samples` (16 kHz)."""
    import numpy as np

    frame = Utterance.FRAME // 2
    whole = len(samples) - len(samples) % frame
    frames = np.asarray(samples[:whole], dtype=np.float32).reshape(-1, frame)
    return np.sqrt(np.mean(frames**2, axis=1))


def talker_span(samples: Any, pad: int | None = None) -> slice:
    """Where in `samples` (16 kHz int16) the loudest talker speaks (`loudest_span`, `pad`
    frames either side): all of them when that talker fills them."""
    frame = Utterance.FRAME // 2
    span = loudest_span(frame_rms(samples), pad)
    return slice(0, len(samples)) if span is None else slice(span[0] * frame,
                                                              span[1] * frame)


def confidence_inputs(features: dict) -> list[float]:
    """The recogniser's features as the inputs of the fitted confidence (same order as
    `PocketSphinxRecognizer.WEIGHTS`), each clipped to the range it was fitted on."""
    def get(key: str, default: float = 0.0) -> float:
        value = features.get(key)
        return default if value is None else float(value)

    margin = get("margin", math.inf)
    return [
        min(5.0, max(-20.0, get("fit"))),
        min(10.0, max(0.0, margin / 100.0)),
        1.0 if margin >= 1e5 else 0.0,  # no rival reading in the n-best list at all
        min(60.0, max(0.0, get("snr", 60.0))),
        get("unsaid"),
        get("name_fit"),
        get("name_prob"),
        math.log10(max(get("utt_prob"), 1e-6)),
        get("agree"),
        get("words"),
        min(10.0, get("frames") / 100.0),
        max(-1.0, get("phone_fit")),
    ]


def _loud_frames(pcm: bytes) -> Any:
    """Which 10 ms frames of `pcm` are speech: loud against the loudest (Utterance.unsaid's
    measure)."""
    import numpy as np

    energy = frame_rms(np.frombuffer(pcm, dtype=np.int16))
    return energy >= 0.1 * np.percentile(energy, 95) if len(energy) else energy > 0


def _unsaid_share(loud: Any, segments: Any) -> float:
    """The share of the speech frames (`loud`) a path spends in silence or fillers."""
    import numpy as np

    filler = np.zeros(len(loud), dtype=bool)
    for seg in segments:
        if _is_filler(seg.word):
            filler[max(seg.start_frame, 0) : seg.end_frame + 1] = True
    return float((loud & filler).sum() / max(int(loud.sum()), 1))


def _is_filler(word: str) -> bool:
    """Silence or a filler on a path (<s>, </s>, <sil>, [NOISE], SIL), not a word."""
    return word.startswith(("<", "[")) or word == "SIL"


def _warp_settings(warp: float) -> dict[str, str]:
    """PocketSphinx's settings for a front end warped by `warp` (1.0: none)."""
    return {"warp_type": "inverse_linear", "warp_params": f"{warp:g}"}


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, x))))


def _edit_distance(a: list[str], b: list[str]) -> int:
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[-1]


def _reading(text: str, players: frozenset[str]) -> str:
    """What a hypothesis means for the margin: the player it names, or, naming nobody, its
    words ("ready" and "repeat" are rivals; "i vote for sam" and "vote for sam" are not)."""
    return _player_in(text, players) or f"={text}"


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


def with_noise_floor(pcm: bytes, offset: int = 0) -> bytes:
    """A faint, fixed noise under the audio. Digital silence (a gated microphone, a file,
    synthetic speech) breaks PocketSphinx's noise estimate and its cepstral mean: the
    model then hears silence where words are. A real room always has this much noise."""
    import numpy as np

    samples = np.frombuffer(pcm, dtype=np.int16)
    size = 1 << max(14, (offset + len(samples) - 1).bit_length())
    noise = np.frombuffer(_floor_noise(size), dtype=np.float32)[offset : offset + len(samples)]
    return np.clip(samples + noise, -32768, 32767).astype(np.int16).tobytes()


def factored_jsgf(grammar: Grammar, aliases: dict[str, list[str]] | None = None
                  ) -> tuple[str, frozenset[str]]:
    """The grammar as JSGF with the players in one rule of their own: "i vote for <player>"
    once instead of once per name, which makes a search graph twenty times smaller. Only
    the interaction model's player slots become <player> ("no one" stays a phrase, though
    "one" names seat 1)."""
    # bare numbers ("three") stay out of PocketSphinx's grammar: "Oisin" was read as
    # "four is the wolf", sure; the back-up and the matcher take them
    forms = sorted({" ".join(words_of(f)) for f in name_forms(grammar.lang, grammar.names,
                                                               bare=False)},
                   key=len, reverse=True) if grammar.names else []
    forms = [f for f in forms if f]
    forms += [a for f in forms for a in (aliases or {}).get(f, [])]  # enrolled names
    players = frozenset(forms)
    if grammar.names:  # the carriers once, the players in their own rule
        templates = {t.replace(PLAYER, "<player>") for t in grammar.carriers()}
    else:
        templates = {" ".join(words_of(p)) for p in grammar.phrases} - {""}
    body = " | ".join(sorted(templates)) if templates else "<VOID>"
    rules = f"public <utterance> = {body};\n"
    if forms and any("<player>" in t for t in templates):
        rules += "<player> = " + " | ".join(forms) + ";\n"
    return "#JSGF V1.0;\ngrammar wolfvillage;\n" + rules, players


# ---------------------------------------------------------------------- Vosk


class VoskRecognizer:
    name = "vosk"
    lang = None  # whatever language its model folder is

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


def make_recognizer(engine: str = "pocketsphinx", model: str | None = None,
                    whisper_model: str | None = None, lang: str = "en",
                    data_dir: Path | None = None, ask_below: float = 0.5,
                    compute_type: str | None = None) -> Recognizer:
    """The box's ears: the first pass (`engine`: PocketSphinx, English only, or Vosk with
    a model folder), with Whisper as the back-up when `whisper_model` names one ("tiny.en",
    "base" or a CTranslate2 Whisper folder; "" or None: none). Another language than
    English needs Whisper (the multilingual base) or a Vosk model. `ask_below`: the
    confidence under which the narrator asks a vote again (TwoPass.ask_below).
    `compute_type`: Whisper's arithmetic (default whisper.COMPUTE_TYPE, float32)."""
    from local_voice.whisper import COMPUTE_TYPE, WhisperRecognizer

    if engine == "vosk":
        if not model:
            raise ValueError("Vosk needs a model folder (recognizer.model in the config)")
        first: Recognizer | None = VoskRecognizer(model)
    elif engine == "pocketsphinx":
        # in another language the bundled en-US model is no first pass, but it still
        # gives Whisper its second opinion on the best sentences, said as espeak-ng says
        # them in that language (TwoPass.second_scores; round 16 in docs/voice.md)
        first = PocketSphinxRecognizer(model) if lang == "en" or model or whisper_model \
            else None
    else:
        raise ValueError(f"unknown recogniser {engine!r} (pocketsphinx or vosk)")
    backup = WhisperRecognizer(whisper_model, data_dir=data_dir,
                               compute_type=compute_type or COMPUTE_TYPE) \
        if whisper_model else None
    if backup is not None and not backup.supports(lang):
        raise ValueError(f"the Whisper model {whisper_model!r} is English-only: for "
                         f"{lang!r} use \"base\" (or another multilingual model)")
    if first is None and backup is None:
        raise ValueError("PocketSphinx ships an English model only: for another language "
                         "set recognizer.whisper_model = \"base\" (or a Vosk model)")
    if backup is None:
        assert first is not None
        return first
    from local_voice import hush
    from local_voice.fusion import TwoPass

    # babble is measured by the first pass, so the babble filter only serves a first pass
    # of the table's language (TwoPass.first_for; in another language PocketSphinx only
    # gives Whisper its second opinion)
    ears = TwoPass(first, backup, ask_below=ask_below)
    if ears.first_for(lang) is not None:
        ears.hush = hush.load()
    return ears
