"""How much better a name the table does not have fits a vote than the vote's own reading.

    .venv/bin/python bench/voice_decoys.py --conditions fr,talk-absent-fr [--step 2]
        [--offset 0] [--top K] [--draw N] [--out FILE]

For every vote the box is about to count (a player by name, confidence >= 0.5, read by
the back-up), the sentence it read ("Je vote pour Louis") is scored again on the same
encoding with each of the language's common first names in the player's place
(`local_voice.common_names`, without the names that sound like a way the table says a
player: `WhisperRecognizer._near`). The margin is the best such decoy's score minus the
reading's. Printed: each vote's margin and best decoy, then, for each margin, how many
votes read right, read wrong, and said for a name the table does not have (`talk-absent`
conditions) a rule "ask again above that margin" would stop, and a penalty on the
confidence (`penalized`) instead. Round 34 (docs/voice.md).

This is a measurement only: the box does not score decoys. With every name of the list
(150-3,200 a language) a vote costs about 2-3 s more, printed as `ms`. With `--top K`,
only the K decoys whose first token Whisper finds likeliest after the sentence's carrier
(on the audio, less `PRIOR` times on silence, as every sentence is scored: one step of
the decoder) are scored: the shortlist a box would need.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import voice_accuracy as va
from voice_features import READ, _recording

from local_voice.common_names import common_first_names
from local_voice.grammar import build_grammar
from local_voice.hearing import EXPECT, understand_audio
from local_voice.whisper import Candidate, WhisperRecognizer, log_mel

MARGINS = (-1.0, 0.0, 1.0, 2.0, 2.5, 3.0, 4.0)
# (a, b): the vote's confidence less a log-odds for each log unit the best decoy is more
# than b over the reading (round 34's offline grid)
PENALTIES = ((0.5, 1.0), (0.5, 2.0), (1.0, 2.5), (2.0, 1.5))


def decoys_of(backup: WhisperRecognizer, grammar: object) -> list[str]:
    """The language's common first names that are no way the table says a player and
    sound like none of them (as `unlisted_name` tells a name the table does not have)."""
    table = set().union(*backup._spoken_forms(grammar).values())
    words = {w for form in table for w in form.split()}
    return sorted(n for n in common_first_names(grammar.lang) if n not in words and
                  not any(backup._near(n, form, grammar.lang) for form in table))


def name_at(said: str, forms: list[str]) -> tuple[int, int] | None:
    """Where `said` says its player's name (the longest of `forms` found in it, the last
    time it is said): its start and end; None if it does not."""
    lowered = said.casefold()
    form = next((f for f in sorted(forms, key=len, reverse=True) if f in lowered), None)
    if form is None:
        return None
    at = lowered.rfind(form)
    return at, at + len(form)


def with_name(said: str, forms: list[str], name: str) -> str | None:
    """`said` with its player's name replaced by `name`; None if it says no name."""
    where = name_at(said, forms)
    return None if where is None else said[: where[0]] + name.title() + said[where[1]:]


def _next_token(backup: WhisperRecognizer, memory: list, tokens: list[int]) -> np.ndarray:
    """The decoder's log probabilities of the token after `tokens` (text tokens and the
    end of text)."""
    logits = backup.scorer.decoder.next_logits(memory, tokens)
    top = logits.max()
    return logits - (top + np.log(np.exp(logits - top).sum()))


def shortlist(backup: WhisperRecognizer, lang: str, prefix: str, texts: list[str],
              top: int) -> list[str]:
    """The `top` of `texts` (a sentence with a decoy after `prefix`, its carrier) whose
    decoy's first token is likeliest after the carrier, on the audio the back-up last
    read less PRIOR times on silence."""
    scorer = backup.scorer
    if scorer.decoder is None:
        raise SystemExit("--top needs the tree decoder (WhisperScorer's default scoring)")
    start = scorer._sequences(lang, [], False)[0]  # the start the sentences are scored after
    prefix = prefix.rstrip()
    before = scorer.tokens(prefix) if prefix else []
    encoded, _ = backup._last_encoded
    heard = _next_token(backup, scorer._memory_of(encoded), [*start, *before])
    quiet = _next_token(backup, scorer._quiet_audio()[2], [*start, *before])
    first: dict[str, int] = {}
    for text in texts:
        tokens = scorer.tokens(text)
        if tokens[: len(before)] == before and len(tokens) > len(before):
            first[text] = tokens[len(before)]
    return sorted(first, key=lambda t: -(heard[first[t]] - backup.PRIOR * quiet[first[t]])
                  )[:top]


def margin_of(backup: WhisperRecognizer, grammar: object, best: Candidate,
              decoys: list[str], top: int | None = None) -> dict[str, object] | None:
    """The best decoy's score minus `best`'s, both scored on the audio the back-up last
    read (once, at its own speed), with the three best decoys and the time it took
    (with `top`, the shortlist's too)."""
    forms = sorted(backup._spoken_forms(grammar).get(best.player or "", set()))
    texts = [t for t in (with_name(best.said, forms, d) for d in decoys) if t]
    if not texts:
        return None
    samples = backup._padded(READ["samples"])
    encoded, _ = backup._last_encoded
    frames = log_mel(samples, backup.scorer.n_mels).shape[1]
    began = time.perf_counter()
    if top is not None:
        where = name_at(best.said, forms)
        texts = shortlist(backup, grammar.lang, best.said[: where[0] if where else 0],
                          texts, top)
    cands = [best, *(Candidate(t, t.casefold(), None) for t in texts)]
    values = backup._scores(encoded, frames, grammar.lang, cands)
    ms = round(1000 * (time.perf_counter() - began))
    order = sorted(range(1, len(cands)), key=lambda k: -values[k])
    return {"reading": best.said, "score": round(values[0], 3),
            "decoys": [[cands[k].said, round(values[k], 3)] for k in order[:3]],
            "margin": round(values[order[0]] - values[0], 3), "ms": ms}


def penalized(confidence: float, margin: float, a: float, b: float) -> float:
    """`confidence` less `a` log-odds for each log unit of `margin` over `b`."""
    p = min(max(confidence, 1e-6), 1 - 1e-6)
    return 1 / (1 + math.exp(-(math.log(p / (1 - p)) - a * max(0.0, margin - b))))


def kind_of(row: dict) -> str:
    if row["condition"].startswith("talk-absent"):
        return "absent"
    return "right" if row["heard"] == row["player"] else "wrong"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--conditions", default="fr,talk-absent-fr")
    parser.add_argument("--step", type=int, default=2)
    parser.add_argument("--offset", type=int, default=0)
    parser.add_argument("--draw", type=int, default=va.DRAW)
    parser.add_argument("--top", type=int, default=None,
                        help="score only the shortlist of this many decoys (see above)")
    parser.add_argument("--out", default=None, help="every vote's row, as JSON lines")
    args = parser.parse_args()
    va.use_draw(args.draw)
    made: dict[str, object] = {}
    decoys: dict[tuple[str, tuple[str, ...]], list[str]] = {}
    rows = []
    for condition in args.conditions.split(","):
        for lang, names, audio, voice, text, player in va.condition_audio(
                condition, False, args.step, args.offset):
            recognizer = va.recognizer_of(lang, "pocketsphinx", None, "tiny.en", made)
            backup = getattr(recognizer, "backup", None)
            if backup is None:
                raise SystemExit("the decoys are scored by the Whisper back-up")
            _recording(backup)
            heard = understand_audio(audio, recognizer, lang, names, EXPECT["vote"])
            reading = backup.last_reading
            counted = heard.player is not None and heard.confidence >= 0.5
            # where Whisper did not read this vote (the first pass was sure), its last
            # reading is another vote's
            if not counted or recognizer.last_path == "first" or reading is None:
                continue
            # the sentence of the vote counted (the first pass's reading may be kept)
            best = next((c for c, _ in reading.scored if c.player == heard.player), None)
            if best is None:
                continue
            grammar = build_grammar(lang, EXPECT["vote"], names)
            key = (lang, tuple(names))
            if key not in decoys:
                decoys[key] = decoys_of(backup, grammar)
            found = margin_of(backup, grammar, best, decoys[key], args.top)
            if found is None:
                continue
            row = {"condition": condition, "voice": voice, "said": text, "player": player,
                   "heard": heard.player, "confidence": round(heard.confidence, 3), **found}
            row["kind"] = kind_of(row)
            rows.append(row)
            print(f"  {row['kind']:6} {row['margin']:6.2f} {condition} {voice}: {text!r} -> "
                  f"{row['reading']!r} ({row['confidence']:.2f}); best decoy "
                  f"{row['decoys'][0][0]!r}", flush=True)
    if args.out:
        Path(args.out).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n"
                                          for r in rows), encoding="utf-8")
    totals = {k: sum(r["kind"] == k for r in rows) for k in ("right", "wrong", "absent")}
    print(f"votes about to be counted: {totals}")
    for margin in MARGINS:
        stopped = {k: sum(r["kind"] == k and r["margin"] > margin for r in rows)
                   for k in totals}
        print(f"  asked again over a margin of {margin:4}: right {stopped['right']}, "
              f"wrong {stopped['wrong']}, absent {stopped['absent']}")
    for a, b in PENALTIES:
        stopped = {k: sum(r["kind"] == k and penalized(r["confidence"], r["margin"], a, b)
                          < 0.5 for r in rows) for k in totals}
        print(f"  asked again with a penalty of {a} a log unit over {b}: right "
              f"{stopped['right']}, wrong {stopped['wrong']}, absent {stopped['absent']}")
    if rows:
        mean = sum(r["ms"] for r in rows) / len(rows)
        print(f"mean time of the decoys' scoring per vote {mean:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
