"""From the end of speech to the first sample of the narrator's answer, on this machine.

    .venv/bin/python bench/voice_latency.py [--runs 3]

Counts the processing only (not the VAD's trailing silence): recognition of the utterance
under the vote grammar (compiled in advance, as the box can do while it speaks the
question), matching, the narrator handling the answer, and the first sentence of the reply
(a name line synthesised by Piper: the worst case; a fixed line comes from the disk cache).
Utterances: votes for names in and out of the dictionary, said by an espeak-ng voice.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from local_voice.box import make_voice
from local_voice.grammar import build_grammar
from local_voice.hearing import EXPECT, understand_audio
from local_voice.recognizers import make_recognizer
from local_voice.voices import Audio
from narrator import Heard, Host
from narrator.narrator import Narrator
from speech import line

NAMES = ["Tamsin", "Siobhan", "Xochitl", "Ignatius", "Aoife", "Niamh", "Saoirse", "Tadhg",
         "Oisin", "Eilidh", "Sam", "Ben", "Anna", "Mark", "Lucy", "Grace", "Oliver", "Henry",
         "Emma", "Jack"]
PHRASES = ["I vote for Tamsin", "Siobhan", "my vote goes to Oliver", "nobody", "skip",
           "I vote for Ignatius", "Jack"]
TARGET_MS = 150


def espeak(text: str) -> Audio:
    wav = subprocess.run(["espeak-ng", "-v", "en-us+m7", "--stdout", text],
                         capture_output=True, check=True).stdout
    return Audio.from_wav(wav)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    recognizer = make_recognizer("pocketsphinx")
    voice = make_voice("en", {}, Path(tempfile.mkdtemp(prefix="wolfvillage-lat-")))
    voice.synthesize("Warm up.", cache_it=False)
    t = time.perf_counter()
    grammar = build_grammar("en", EXPECT["vote"], NAMES)
    prepare = getattr(recognizer, "prepare", None)
    if prepare:
        prepare(grammar)
    compile_ms = 1000 * (time.perf_counter() - t)
    narrator = Narrator("en")
    for name in NAMES:
        narrator.handle(Host("join", name))
    clips = [(text, espeak(text)) for text in PHRASES]
    rows: list[tuple[float, float, float, float]] = []
    for _ in range(args.runs):
        for _text, audio in clips:
            t0 = time.perf_counter()
            heard = understand_audio(audio, recognizer, "en", NAMES, EXPECT["vote"])
            t1 = time.perf_counter()
            reply = narrator.handle(Heard(heard.intent or "AMAZON.FallbackIntent",
                                          heard.slots))
            first = line("en", "did_you_say", {"name": heard.player or "nobody"})
            t2 = time.perf_counter()
            audio_out = voice.synthesize(first, cache_it=False)
            t3 = time.perf_counter()
            assert audio_out.seconds() > 0 and reply is not None
            rows.append((1000 * (t1 - t0), 1000 * (t2 - t1), 1000 * (t3 - t2),
                         1000 * (t3 - t0)))
    cached = voice.synthesize("Time to vote.")
    t = time.perf_counter()
    voice.synthesize("Time to vote.")
    cached_ms = 1000 * (time.perf_counter() - t)
    assert cached.seconds() > 0
    hear = [r[0] for r in rows]
    total = [r[3] for r in rows]
    print(f"grammar compiled once per (intents, names): {compile_ms:.0f} ms")
    print(f"recognition + matching: median {statistics.median(hear):.0f} ms, "
          f"max {max(hear):.0f} ms")
    print(f"narrator: median {statistics.median(r[1] for r in rows):.1f} ms")
    print(f"first sentence (Piper, a name line): median "
          f"{statistics.median(r[2] for r in rows):.0f} ms; a cached line: {cached_ms:.1f} ms")
    p90 = sorted(total)[int(0.9 * (len(total) - 1))]
    print(f"end of speech -> first sample: median {statistics.median(total):.0f} ms, "
          f"p90 {p90:.0f} ms, max {max(total):.0f} ms "
          f"(target <= {TARGET_MS} ms: {'met' if p90 <= TARGET_MS else 'NOT met'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
