"""Dump the recognisers' confidence features for every utterance of bench/voice_accuracy.py.

    .venv/bin/python bench/voice_features.py [--conditions clean,babble,talk] [--out FILE]
        [--whisper tiny.en]

One JSON object per utterance and condition: the voice, what was said and meant, what the
best path read and whom it names, and `PocketSphinxRecognizer.last_features` (fit, margin,
snr, unsaid, name_prob, utt_prob, agree, ...). With --whisper, the Whisper pass is run on
every utterance too (whatever PocketSphinx's confidence) and its reading and features are
added (`w_*`, and whether the two passes agree), so that the fusion can be fitted
(bench/fit_voice_confidence.py --fusion). Same audio, same path (`understand_audio`) as
the accuracy bench, with its conditions: votes clean, votes in babble, table talk that is
not a vote, and names said the way people say them (with enrolled clips, `respelled`).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import voice_accuracy as va

from local_voice.hearing import EXPECT, understand_audio

DEFAULT_OUT = va.CACHE / "features.jsonl"


def _clean(value: object) -> object:
    if isinstance(value, float) and math.isinf(value):
        return 1e6 if value > 0 else -1e6
    return value


READ: dict[str, object] = {}  # the samples the back-up last read (its utterance)


def _recording(backup: object) -> None:
    """Keep the samples each read of `backup` is given (once per back-up)."""
    if getattr(backup, "_bench_recorded", False):
        return
    read = backup.read

    def recorded(samples, *args, **kwargs):  # type: ignore[no-untyped-def]
        READ["samples"] = samples
        return read(samples, *args, **kwargs)

    backup.read = recorded
    backup._bench_recorded = True


def _second_opinion(second: object, lang: str, reading: object,
                    top: int) -> list[list[object]]:
    """The second model's scores (heard minus its PRIOR x silence, as the back-up's) of
    the back-up's `top` best sentences, on the utterance the back-up read, and its time."""
    from local_voice.whisper import log_mel

    began = time.perf_counter()
    samples = second._padded(READ["samples"])
    encoded = second.scorer.encode(samples)
    frames = log_mel(samples, second.scorer.n_mels).shape[1]
    cands = [c for c, _ in reading.scored[:top]]
    values = second._scores(encoded, frames, lang, cands)
    ms = round(1000 * (time.perf_counter() - began))
    return [[c.text, c.player, c.nobody, round(v, 3), ms]
            for c, v in zip(cands, values, strict=True)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--conditions", default="clean,babble,talk")
    parser.add_argument("--out", default=str(DEFAULT_OUT))
    parser.add_argument("--whisper", default=None, help="tiny.en, base or a folder")
    parser.add_argument("--step", type=int, default=1, help="every n-th utterance only")
    parser.add_argument("--offset", type=int, default=0,
                        help="from the n-th utterance (with --step 2: 1 is the other half)")
    parser.add_argument("--second", default=None,
                        help="a second Whisper model (base) that scores the back-up's "
                        "--second-top best sentences again on the same audio (w2_scored)")
    parser.add_argument("--second-top", type=int, default=6)
    parser.add_argument("--draw", type=int, default=va.DRAW,
                        help="the draw of Piper's noise (bench/voice_accuracy.py --draw)")
    args = parser.parse_args()
    va.use_draw(args.draw)
    second = None
    if args.second:
        from local_voice.whisper import WhisperRecognizer
        second = WhisperRecognizer(args.second)
    made: dict[str, object] = {}
    rows = []
    for condition in args.conditions.split(","):
        for lang, names, audio, voice, text, player in va.condition_audio(
                condition, False, args.step, args.offset):
            recognizer = va.recognizer_of(lang, "pocketsphinx", None, args.whisper, made)
            if args.whisper:
                recognizer.RUN_BELOW = 2.0  # type: ignore[attr-defined]  # always, for the fit
                # Whisper's reading as it is: the fit simulates the first pass's kept one
                recognizer.FIRST_WEIGHTS = None  # type: ignore[attr-defined]
            va.enroll_for(recognizer, condition, lang)
            if second is not None and getattr(recognizer, "backup", None) is not None:
                _recording(recognizer.backup)
            first = getattr(recognizer, "first", recognizer)
            if first is not None:
                first.last_features = {}
            began = time.perf_counter()
            heard = understand_audio(audio, recognizer, lang, names, EXPECT["vote"])
            elapsed = time.perf_counter() - began
            features = {k: _clean(v) for k, v in
                        (getattr(recognizer, "last_features", {}) or {}).items()}
            row = {"condition": condition, "lang": lang, "voice": voice, "said": text,
                   "player": player, "text": heard.text, "intent": heard.intent,
                   "heard": heard.player, "confidence": heard.confidence,
                   "vote": heard.intent in va.VOTES,
                   "right": va.reads_right(heard, player), "ms": round(1000 * elapsed),
                   **features}
            if args.whisper and first is not None and features.get("first_text") is not None:
                # the first pass's own reading, as if it had decided alone
                alone = va.meaning_of(features["first_text"], lang, names)
                row["first_right"] = alone[0] in va.VOTES and alone[1] == player and \
                    player != va.TALK
                row["first_vote"] = alone[0] in va.VOTES
            backup = getattr(recognizer, "backup", None)
            reading = getattr(backup, "last_reading", None) if args.whisper else None
            if reading is not None and getattr(recognizer, "last_path", "") == "backup":
                # every candidate scored, best first: fusions and cuts can be tried offline
                row["w_scored"] = [[c.text, c.player, c.nobody, round(v, 3), c.said]
                                   for c, v in reading.scored]
                if second is not None and lang == "en":
                    row["w2_scored"] = _second_opinion(second, lang, reading,
                                                       args.second_top)
            rows.append(row)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row) + "\n")
    print(f"{len(rows)} rows -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
