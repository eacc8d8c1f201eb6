"""How much better a name the table does not have fits a vote than the vote's own reading.

    .venv/bin/python bench/voice_decoys.py --conditions fr,talk-absent-fr [--step 2]
        [--offset 0] [--top K] [--draw N] [--out FILE]

For every vote the box is about to count (a player by name, confidence >= 0.5, read by
the back-up, with the box's own decoy rule off: `TwoPass.DECOY_MARGIN`), the sentence it
read ("Je vote pour Louis") is scored again on the same encoding with each of the
language's common first names the table does not have in the player's place
(`WhisperRecognizer.decoy_margins`, as the box does). The margin is the best such
decoy's score minus the reading's; the first pass's say is how much it prefers the
reading to the best decoy's sentence (`TwoPass._decoyed`). Printed: each vote's margin,
best decoy and the first pass's say, then, for each margin, how many votes read right,
read wrong, and said for a name the table does not have (`talk-absent` conditions) a
rule "ask again above that margin" would stop, without and with the first pass's say
(DECOY_VOUCH: the box's rule at DECOY_MARGIN), the box's whole rule (with its
DECOY_AGREED under the margin), and a penalty on the confidence (`penalized`) instead.
Rounds 34-36 (docs/voice.md).

Without `--top` every decoy of the list is scored (150-3,200 a language: 2-3 s a vote,
printed as `ms`); with `--top K` only the K whose first token Whisper finds likeliest
after the sentence's carrier (`WhisperRecognizer.DECOY_TOP`: the box's shortlist, 16).
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

from local_voice.fusion import TwoPass
from local_voice.grammar import build_grammar
from local_voice.hearing import EXPECT, understand_audio
from local_voice.whisper import Candidate, WhisperRecognizer

MARGINS = (-1.0, 0.0, 1.0, 2.0, 2.5, 3.0, 4.0)
# the box's margin, read before main() switches its rule off
BOX_MARGIN = TwoPass.DECOY_MARGIN
# (a, b): the vote's confidence less a log-odds for each log unit the best decoy is more
# than b over the reading (round 34's offline grid)
PENALTIES = ((0.5, 1.0), (0.5, 2.0), (1.0, 2.5), (2.0, 1.5))


def margin_of(backup: WhisperRecognizer, grammar: object, best: Candidate
              ) -> dict[str, object] | None:
    """The best decoy's score minus `best`'s on the audio the back-up last read, as the
    box works it out (`WhisperRecognizer.decoy_margins`, its DECOY_TOP shortlist), with
    the three best decoys and the time it took."""
    began = time.perf_counter()
    margins = backup.decoy_margins(best, grammar)
    ms = round(1000 * (time.perf_counter() - began))
    if not margins:
        return None
    return {"reading": best.said, "decoys": [[n, round(m, 3)] for n, m in margins[:3]],
            "margin": round(margins[0][1], 3), "ms": ms,
            "name_tokens": len(backup.scorer.tokens(f" {best.player}"))}


def keep_pcm(recognizer: TwoPass) -> dict[str, bytes]:
    """The audio the box last decided on (`TwoPass.decide`'s pcm), kept for the first
    pass's say: understand_audio hands the recogniser the VAD's longest utterance."""
    kept: dict[str, bytes] = getattr(recognizer, "_bench_pcm", None) or {}
    if not kept:
        decide = recognizer.decide

        def keeping(heard, features, pcm, grammar):  # type: ignore[no-untyped-def]
            kept["pcm"] = pcm
            return decide(heard, features, pcm, grammar)

        recognizer.decide = keeping  # type: ignore[method-assign]
        recognizer._bench_pcm = kept  # type: ignore[attr-defined]
    return kept


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
    TwoPass.DECOY_MARGIN = None  # every vote about to be counted, as before round 35
    rows = []
    for condition in args.conditions.split(","):
        for lang, names, audio, voice, text, player in va.condition_audio(
                condition, False, args.step, args.offset):
            recognizer = va.recognizer_of(lang, "pocketsphinx", None, "tiny.en", made)
            va.enroll_for(recognizer, condition, lang)  # the enrolled condition's clips
            backup = getattr(recognizer, "backup", None)
            if backup is None:
                raise SystemExit("the decoys are scored by the Whisper back-up")
            kept = keep_pcm(recognizer)
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
            backup.DECOY_TOP = args.top or len(backup.decoys(grammar))
            found = margin_of(backup, grammar, best)
            if found is None:
                continue
            row = {"condition": condition, "voice": voice, "said": text, "player": player,
                   "heard": heard.player, "confidence": round(heard.confidence, 3), **found}
            # the first pass's say, as the box works it out (`TwoPass._decoyed`)
            vouch = recognizer._decoy_preference(best, found["decoys"][0][0], reading,
                                                 kept["pcm"], grammar)
            row["vouch"] = None if vouch is None else round(vouch, 3)
            row["kind"] = kind_of(row)
            rows.append(row)
            print(f"  {row['kind']:6} {row['margin']:6.2f} {condition} {voice}: {text!r} -> "
                  f"{row['reading']!r} ({row['confidence']:.2f}); best decoy "
                  f"{row['decoys'][0][0]!r} (player's name in {row['name_tokens']} "
                  f"tokens; the first pass prefers the reading by {row['vouch']})",
                  flush=True)
    if args.out:
        Path(args.out).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n"
                                          for r in rows), encoding="utf-8")
    totals = {k: sum(r["kind"] == k for r in rows) for k in ("right", "wrong", "absent")}
    print(f"votes about to be counted: {totals}")
    for margin in MARGINS:
        stopped = {k: sum(r["kind"] == k and r["margin"] > margin for r in rows)
                   for k in totals}
        vouched = TwoPass.DECOY_VOUCH
        kept_by = {k: sum(r["kind"] == k and r["margin"] > margin and vouched is not None
                          and r["vouch"] is not None and r["vouch"] > vouched
                          for r in rows) for k in totals}
        print(f"  asked again over a margin of {margin:4}: right {stopped['right']}, "
              f"wrong {stopped['wrong']}, absent {stopped['absent']}; with the first "
              f"pass's say (DECOY_VOUCH {vouched}): right "
              f"{stopped['right'] - kept_by['right']}, wrong "
              f"{stopped['wrong'] - kept_by['wrong']}, absent "
              f"{stopped['absent'] - kept_by['absent']}")
    TwoPass.DECOY_MARGIN = BOX_MARGIN  # the box's whole rule (`TwoPass.decoy_asks`)
    boxed = {k: sum(r["kind"] == k and TwoPass.decoy_asks(r["margin"], r["vouch"])
                    for r in rows) for k in totals}
    print(f"  asked again by the box's rule (margin {TwoPass.DECOY_MARGIN}, the first "
          f"pass's say {TwoPass.DECOY_VOUCH}, agreed over {TwoPass.DECOY_AGREED_MARGIN} "
          f"by {TwoPass.DECOY_AGREED}): right {boxed['right']}, wrong {boxed['wrong']}, "
          f"absent {boxed['absent']}")
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
