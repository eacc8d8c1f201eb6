"""Dump the recogniser's confidence features for every utterance of bench/voice_accuracy.py.

    .venv/bin/python bench/voice_features.py [--conditions clean,babble] [--out FILE]

One JSON object per utterance and condition: the voice, what was said and meant, what the
best path read and whom it names, and `PocketSphinxRecognizer.last_features` (fit, margin,
snr, unsaid, name_prob, utt_prob, agree, ...). bench/fit_voice_confidence.py fits the
confidence on these rows. Same audio, same path (`understand_audio`) as the accuracy bench,
with its three conditions: votes clean, votes in babble, and table talk that is not a vote.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import voice_accuracy as va

from local_voice.hearing import EXPECT, understand_audio
from local_voice.recognizers import make_recognizer

DEFAULT_OUT = va.CACHE / "features.jsonl"


def _clean(value: object) -> object:
    if isinstance(value, float) and math.isinf(value):
        return 1e6 if value > 0 else -1e6
    return value


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--conditions", default="clean,babble,talk")
    parser.add_argument("--out", default=str(DEFAULT_OUT))
    args = parser.parse_args()
    recognizer = make_recognizer("pocketsphinx")
    rows = []
    for condition in args.conditions.split(","):
        todo = va.talk_cases(False) if condition == "talk" else va.cases(False)
        for i, (kind, voice, text, player) in enumerate(todo):
            clean = va.speech(kind, voice, text)
            audio = (va.babble(clean, 1000 + i) if condition == "babble" else
                     va.padded(clean))
            recognizer.last_features = {}
            heard = understand_audio(audio, recognizer, "en", va.NAMES, EXPECT["vote"])
            features = {k: _clean(v) for k, v in recognizer.last_features.items()}
            rows.append({"condition": condition, "voice": voice, "said": text,
                         "player": player, "text": heard.text, "intent": heard.intent,
                         "heard": heard.player, "confidence": heard.confidence,
                         "vote": heard.intent in va.VOTES,
                         "right": va.reads_right(heard, player),
                         **features})
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row) + "\n")
    print(f"{len(rows)} rows -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
