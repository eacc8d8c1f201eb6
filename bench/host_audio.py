"""How long the host's phone waits for a narrator line (issue 11): the server's voice
renders a line the first time (Piper for English, espeak-ng for a language without a Piper
voice) and serves it from the disk cache afterwards.

    .venv/bin/python bench/host_audio.py [--langs en,es] [--lines 8]

Prints, per language, the first render (model load + synthesis, the first line of a
table), a new line once the voice is loaded, and a cached line, each the median over the
lines of the narrator's own catalogue.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from phones.audio import LineVoices
from speech import catalog, line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--langs", default="en,es")
    parser.add_argument("--lines", type=int, default=8)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for lang in args.langs.split(","):
            voices = LineVoices(Path(folder) / lang)
            # the catalogue's lines that need no name or number, in its own order
            texts = [line(lang, key) for key, text in catalog(lang)["lines"].items()
                     if "{" not in text][: args.lines]
            start = time.perf_counter()
            first = voices.render(lang, texts[0])
            first_ms = (time.perf_counter() - start) * 1000
            fresh, cached = [], []
            for text in texts[1:]:
                start = time.perf_counter()
                voices.render(lang, text)
                fresh.append((time.perf_counter() - start) * 1000)
            for text in texts:
                start = time.perf_counter()
                hit = voices.render(lang, text)
                cached.append((time.perf_counter() - start) * 1000)
                assert hit.cached
            print(f"{lang} ({first.voice}): first line {first_ms:.0f} ms (voice loaded and "
                  f"line rendered); a new line median {statistics.median(fresh):.0f} ms "
                  f"over {len(fresh)}; a cached line median {statistics.median(cached):.2f} "
                  f"ms over {len(cached)}")


if __name__ == "__main__":
    main()
