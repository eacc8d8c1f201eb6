"""What a table's names cost the box at game start: its decoys (the language's common first
names like no player's, `WhisperRecognizer.decoys`), worked out all at once as the box does
and one name at a time as before round 41, on the bench's tables.

    WOLFVILLAGE_THREADS=1 .venv/bin/python bench/voice_game_start.py [--langs en,de,...]

Each language in a process of its own, so that its first table pays what a box's first
game pays (espeak-ng saying every common name once); then a second table, as a later game
at the same box. Prints the seconds and checks that both ways find the same decoys.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import voice_accuracy as va

ROOT = Path(__file__).resolve().parents[1]
# the bench's tables (voice_accuracy.py): its English names, and its other languages'
TABLES = {"en": va.NAMES, **va.LANGS}

ONE_LANG = """
import json, sys, time
from local_voice.grammar import build_grammar
from local_voice.hearing import EXPECT
from local_voice.whisper import WhisperRecognizer
lang, names, way = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
ears = WhisperRecognizer("tiny.en" if lang == "en" else "base")
if way == "one-by-one":  # as before round 41: no distances learnt ahead
    ears._learn_apart = lambda words, forms, lang: None
out = []
for table in (names, names[1:]):
    grammar = build_grammar(lang, EXPECT["vote"], table)
    ears.candidates(grammar)  # the table's spellings, as the box has them by then
    start = time.perf_counter()
    found = ears.decoys(grammar)
    out.append((time.perf_counter() - start, found))
print(json.dumps(out))
"""


def measure(lang: str, way: str) -> list[tuple[float, list[str]]]:
    done = subprocess.run([sys.executable, "-c", ONE_LANG, lang, json.dumps(TABLES[lang]),
                           way], capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--langs", default=",".join(TABLES))
    args = parser.parse_args()
    same = True
    print(f"{'table':<8}{'names':>6}{'decoys':>8}  {'first table':>22}  {'second table':>22}")
    for lang in args.langs.split(","):
        batch, single = measure(lang, "all-at-once"), measure(lang, "one-by-one")
        same &= [d for _, d in batch] == [d for _, d in single]
        cells = [f"{b:.2f} s ({s:.2f} s before)" for (b, _), (s, _) in zip(batch, single,
                                                                           strict=True)]
        print(f"{lang:<8}{len(TABLES[lang]):>6}{len(batch[0][1]):>8}  {cells[0]:>22}  "
              f"{cells[1]:>22}")
    print("the same decoys both ways" if same else "DIFFERENT decoys")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
