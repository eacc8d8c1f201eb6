"""Fit the recogniser's confidence (a logistic regression) on bench/voice_features.py's dump.

    .venv/bin/python bench/voice_features.py            # once, ~3 min
    .venv/bin/python bench/fit_voice_confidence.py [--rows FILE] [--wrong 0.01]
    .venv/bin/python bench/voice_features.py --whisper tiny.en --out F   # the back-up too
    .venv/bin/python bench/fit_voice_confidence.py --fusion --rows F [--wrong 0.01]

With --fusion, the fused confidence of the two passes (`TwoPass.WEIGHTS`, over
`fusion_inputs`, and `TwoPass.ALONE_WEIGHTS` for Whisper alone in the other languages,
each with its own threshold: `--wrong`, `--wrong-alone`) is fitted instead, on the
utterances where the fused confidence decides, and the whole two-pass box is simulated
per condition: the first pass where it is sure (`--run-below`), its answer where Whisper
only checks it (`--check-above`), the fused reading elsewhere. With --first-kept, the first
pass's reading where the fused confidence does not take Whisper's and the two read other
votes (`TwoPass.FIRST_WEIGHTS`, over `first_kept_inputs`, its own budget `--wrong-first`)
is fitted too, on those rows, after the fused confidence in every fold.

The label is "the best path is a vote for the intended player (or for nobody, when nobody
was meant)"; only utterances whose text the matcher understood are candidates (the others
are asked again whatever their confidence). The threshold counts as wrong only what would
be a wrong vote: a command that is not a vote ("repeat that" for "I'm voting for Ben") is
not right, but accepting it counts nobody (the narrator repeats the question). Table talk
(the dump's "talk" rows: "who wants another cup of tea") is never right, and accepting it
as a vote is a wrong vote. To see how much of it is fitting the bench, it is first
fitted leaving one voice out at a time (the held-out voice never seen by the fit nor by the
threshold) and the held-out figures are summed; then fitted on all voices, which gives the
coefficients printed for `PocketSphinxRecognizer.WEIGHTS`. The threshold is the lowest one
that keeps the wrong votes at or under `--wrong` of all the training utterances; the
intercept is shifted so that it sits at 0.5.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from local_voice.fusion import (
    TwoPass,
    first_gap,
    first_kept_inputs,
    fused_scores,
    fusion_inputs,
    noisy,
    ps_margin,
    sound_arbiter,
)
from local_voice.recognizers import (
    PocketSphinxRecognizer,
    Utterance,
    confidence_inputs,
)
from local_voice.whisper import Candidate, _meaning


def _matrix(rows: list[dict]) -> np.ndarray:
    return np.array([confidence_inputs(r) for r in rows], dtype=np.float64)


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1.0, steps: int = 3000) -> np.ndarray:
    """Logistic regression by Newton's method, features standardised inside, an L2 penalty;
    returns weights (last = intercept) on the raw features."""
    mean, std = x.mean(0), x.std(0) + 1e-9
    z = np.hstack([(x - mean) / std, np.ones((len(x), 1))])
    w = np.zeros(z.shape[1])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-z @ w))
        grad = z.T @ (p - y) + l2 * np.r_[w[:-1], 0]
        # (a whisper of a penalty on the intercept too: a small group that one feature
        # separates perfectly would otherwise make the Hessian singular)
        hess = (z * (p * (1 - p))[:, None]).T @ z + l2 * np.diag(
            np.r_[np.ones(len(w) - 1), 1e-6])
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    raw = w[:-1] / std
    return np.r_[raw, w[-1] - (mean * raw).sum()]


def threshold(score: np.ndarray, wrong: np.ndarray, wrong_ok: int) -> float:
    """The lowest score threshold with at most `wrong_ok` wrong votes above it."""
    order = np.sort(score[wrong])[::-1]
    if len(order) <= wrong_ok:
        return -np.inf
    return float(order[wrong_ok]) + 1e-9


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", nargs="+", default=None)
    parser.add_argument("--wrong", type=float, default=0.01,
                        help="share of all training utterances allowed to be wrong votes")
    parser.add_argument("--l2", type=float, default=1.0)
    parser.add_argument("--noisy", type=lambda v: v == "yes", default=None,
                        help="yes: only utterances with other talkers (snr < TRIM_SNR), "
                        "no: only quiet ones (NOISY_WEIGHTS and WEIGHTS)")
    parser.add_argument("--fusion", action="store_true",
                        help="fit TwoPass.WEIGHTS on a dump made with --whisper")
    parser.add_argument("--run-below", type=float, default=TwoPass.RUN_BELOW,
                        help="the first pass's confidence under which the back-up runs")
    parser.add_argument("--check-above", type=float, default=TwoPass.CHECK_ABOVE,
                        help="over this, Whisper only checks the first pass's answer")
    parser.add_argument("--wrong-alone", type=float, default=None,
                        help="--wrong for Whisper alone (other languages); default --wrong")
    parser.add_argument("--l2-alone", type=float, default=None,
                        help="--l2 for Whisper alone; default --l2")
    parser.add_argument("--careful", action="store_true",
                        help="English read with care (people talking over the vote: "
                        "TwoPass.CAREFUL_WEIGHTS) fitted as a group of its own")
    parser.add_argument("--wrong-careful", type=float, default=None,
                        help="--wrong for that group; default --wrong")
    parser.add_argument("--l2-careful", type=float, default=None,
                        help="--l2 for that group; default --l2")
    parser.add_argument("--ps-weight", type=float, default=TwoPass.PS_WEIGHT,
                        help="the first pass's second opinion on Whisper's best sentences "
                        "(TwoPass.PS_WEIGHT), applied to the dump's readings")
    parser.add_argument("--ps-weight-alone", type=float, default=TwoPass.PS_WEIGHT_ALONE,
                        help="the same where Whisper is alone (another language: "
                        "TwoPass.PS_WEIGHT_ALONE)")
    parser.add_argument("--unsaid-alone", type=_setting, default=TwoPass.UNSAID_ALONE,
                        help="where Whisper is alone, a reading the first pass fits to "
                        "less than 1 - this of the speech is table talk "
                        "(TwoPass.UNSAID_ALONE); none: never")
    parser.add_argument("--vouch-margin", type=_setting, default=TwoPass.VOUCH_MARGIN,
                        help="where Whisper is alone, the first pass vouches for a reading "
                        "Whisper's transcript beats when it prefers it by this much "
                        "(TwoPass.VOUCH_MARGIN); none: never")
    parser.add_argument("--vouch-unsaid", type=float, default=TwoPass.VOUCH_UNSAID,
                        help="... and leaves at most this much of the speech unsaid")
    parser.add_argument("--ps-floor", type=float, default=TwoPass.PS_FLOOR)
    parser.add_argument("--ps-top", type=int, default=TwoPass.PS_TOP,
                        help="how many of Whisper's best sentences the first pass scores "
                        "(TwoPass.PS_TOP; at most what the dump was made with)")
    parser.add_argument("--ps-quiet-only", choices=("yes", "no"),
                        default="yes" if TwoPass.PS_QUIET_ONLY else "no",
                        help="the second opinion only where nobody talks over the vote")
    parser.add_argument("--arbiter-margin", type=_setting, default=TwoPass.ARBITER_MARGIN,
                        help="the sound arbiter's margin (TwoPass.ARBITER_MARGIN); "
                        "none: no arbiter")
    parser.add_argument("--first-kept", action="store_true",
                        help="fit TwoPass.FIRST_WEIGHTS too: the first pass's reading where "
                        "Whisper's is not taken in a quiet room")
    parser.add_argument("--wrong-first", type=float, default=0.0025,
                        help="wrong votes the first pass's kept readings may add, as a share "
                        "of the quiet room's votes")
    parser.add_argument("--l2-first", type=float, default=10.0)
    parser.add_argument("--name-tokens", type=int, default=TwoPass.FIRST_NAME_TOKENS,
                        help="the first pass's name must take this many Whisper tokens")
    parser.add_argument("--second-weight", type=float, default=0.0,
                        help="a second Whisper model's opinion (the dump's w2_scored, "
                        "voice_features.py --second base): each of the back-up's best "
                        "sentences it scored gets its score times this added, and only "
                        "those stay candidates (0: not used)")
    parser.add_argument("--second-top", type=int, default=None,
                        help="how many of the back-up's best sentences the second model "
                        "scores (at most what the dump was made with)")
    parser.add_argument("--outside-as-before", action="store_true",
                        help="a reading both passes agree on may still be outside the "
                        "grammar (before round 9)")
    args = parser.parse_args()
    global AGREED_INSIDE, QUIET_ONLY
    AGREED_INSIDE = not args.outside_as_before
    TwoPass.UNSAID_ALONE, TwoPass.VOUCH_MARGIN = args.unsaid_alone, args.vouch_margin
    TwoPass.VOUCH_UNSAID = args.vouch_unsaid
    QUIET_ONLY = args.ps_quiet_only == "yes"
    import voice_features

    paths = args.rows or [str(voice_features.DEFAULT_OUT)]
    rows = []
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            rows += [json.loads(line) for line in handle]
    if args.fusion:
        rows = [arbitrated_row(fused_row(_inside(second_model_row(
            _fewer_scored(r, args.ps_top), args.second_weight, args.second_top)),
            args.ps_weight_alone if r.get("first_confidence") is None else args.ps_weight,
            args.ps_floor), args.arbiter_margin) for r in rows]
        print_best_sentences(rows)
        return fit_fusion(rows, args.wrong, args.l2, args.run_below, args.check_above,
                          args.wrong_alone, args.l2_alone, args.careful,
                          args.wrong_careful, args.l2_careful,
                          (args.wrong_first, args.l2_first) if args.first_kept else None,
                          args.name_tokens)
    if args.noisy is not None:
        rows = [r for r in rows if (r.get("snr", 60) < Utterance.TRIM_SNR) == args.noisy]
    # the guards (UNSAID0, FIT0) are not fitted: what they refuse is asked again anyway
    candidates = [r for r in rows if r["intent"] and PocketSphinxRecognizer.guard(r) >= 0.5]
    x = _matrix(candidates)
    y = np.array([r["right"] for r in candidates], dtype=bool)
    bad_vote = np.array([r["vote"] and not r["right"] for r in candidates])  # if accepted
    voices = sorted({r["voice"] for r in rows})
    conditions = sorted({r["condition"] for r in rows})
    totals = {c: sum(r["condition"] == c for r in rows) for c in conditions}
    held = {c: [0, 0] for c in conditions}  # right, wrong accepted
    print("leave one voice out:")
    for voice in voices:
        train = np.array([r["voice"] != voice for r in candidates])
        n_train = sum(r["voice"] != voice for r in rows)
        w = fit(x[train], y[train].astype(float), args.l2)
        score = x @ w[:-1] + w[-1]
        cut = threshold(score[train], bad_vote[train], int(args.wrong * n_train))
        for c in conditions:
            test = ~train & np.array([r["condition"] == c for r in candidates])
            taken = test & (score >= cut)
            ok, bad = int((y & taken).sum()), int((bad_vote & taken).sum())
            held[c][0] += ok
            held[c][1] += bad
            print(f"  {voice:22} {c:6} right {ok:3}  wrong {bad:2}")
    for c in conditions:
        n = totals[c]
        print(f"held-out total {c:6}: right {100 * held[c][0] / n:5.1f} % ({held[c][0]}/{n})"
              f"  wrong {100 * held[c][1] / n:4.1f} % ({held[c][1]})")
    w = fit(x, y.astype(float), args.l2)
    score = x @ w[:-1] + w[-1]
    cut = threshold(score, bad_vote, int(args.wrong * len(rows)))
    w[-1] -= cut
    print("all voices: WEIGHTS =", "(" + ", ".join(f"{v:.4g}" for v in w) + ")")
    for c in conditions:
        test = np.array([r["condition"] == c for r in candidates])
        taken = test & (score >= cut)
        ok, bad = int((y & taken).sum()), int((bad_vote & taken).sum())
        print(f"  in-sample {c:6}: right {ok} wrong {bad} of {totals[c]}")
    return 0


def _candidates(row: dict) -> list[tuple[Candidate, float]]:
    """The dump's every scored candidate (`w_scored`), best first, as the box had them.
    The dump keeps what each means (`text`), not how Whisper was asked it (`said`): an
    enrolled spelling ("I vote for Shivon") and the name ("I vote for Siobhan") share a
    text, so each gets its place in the list as its `said`, to stay a candidate of its
    own."""
    return [(Candidate(str(k), t, p, bool(nb)), v)
            for k, (t, p, nb, v, *_) in enumerate(row.get("w_scored") or [])]


def _first_meaning(row: dict, scored: list[tuple[Candidate, float]]) -> str:
    """What the first pass's reading means, in the back-up's terms (fusion._reading_of)."""
    first = row.get("first_text")
    return next((_meaning(c) for c, _ in scored if c.text == first), f"text:{first}")


def _read_as(row: dict, best: Candidate) -> dict:
    """The row with `best` as the box's reading of it."""
    import voice_accuracy as va

    vote = best.player is not None or best.nobody
    return {**row, "w_text": best.text, "text": best.text, "heard": best.player,
            "vote": vote, "intent": "VoteIntent" if vote else row.get("intent"),
            "right": vote and best.player == row["player"] and row["player"] != va.TALK}


def _setting(text: str) -> float | None:
    """A TwoPass setting that None turns off: a number, or "none" (a negative number is
    read as none too, as --arbiter-margin was given before)."""
    if text.strip().lower() == "none":
        return None
    value = float(text)
    return None if value < 0 else value


def _fewer_scored(row: dict, top: int) -> dict:
    """The dump's second opinion as if only the `top` best sentences (and the first
    pass's reading) had been scored by the first pass."""
    ps, scored = row.get("ps_scores"), row.get("w_scored")
    if not ps or not scored:
        return row
    if top <= 0 or (QUIET_ONLY and noisy(row)):  # no second opinion (before round 9)
        return {k: v for k, v in row.items() if not k.startswith("ps_")}
    texts = [*list(dict.fromkeys(t for t, *_ in scored))[:top], row.get("first_text")]
    return {**row, "ps_scores": {t: v for t, v in ps.items() if t in texts}}


def second_model_row(row: dict, weight: float, top: int | None) -> dict:
    """The reading as it would be with a second Whisper model's opinion: the back-up's
    best sentences that the second model scored (`w2_scored`, the first `top`) keep their
    score plus `weight` times the second model's, and are the only candidates left (the
    others were far behind). Rows without the second model's scores stay as they are."""
    second = row.get("w2_scored")
    scored = row.get("w_scored")
    if not weight or not second or not scored or row.get("outside"):
        return row
    second = second[:top] if top else second
    mixed = [[*s[:3], s[3] + weight * o[3], *s[4:]]
             for s, o in zip(scored, second, strict=False)]
    mixed.sort(key=lambda s: -s[3])
    row = {**row, "w_scored": mixed}
    return _reading_of(row, dict(_candidates(row)))[1]


def _reading_of(row: dict, scores: dict[Candidate, float]) -> tuple[Candidate, dict]:
    """The row read as the box reads `scores` (WhisperRecognizer._reading): its best
    candidate, the share of the probability and the margin of that candidate's meaning,
    and whether the first pass meant the same."""
    cands = list(scores)
    values = np.array([scores[c] for c in cands])
    probs = np.exp(values - values.max())
    probs /= probs.sum()
    best = cands[int(np.argmax(values))]
    keys = [_meaning(c) for c in cands]
    mine = _meaning(best)
    rivals = [v for k, v in zip(keys, values, strict=True) if k != mine]
    return best, {**_read_as(row, best),
            "w_share": float(sum(p for k, p in zip(keys, probs, strict=True) if k == mine)),
            "w_margin": min(30.0, float(values.max() - max(rivals))) if rivals else 30.0,
            "passes_agree": row.get("first_text") is not None
            and _first_meaning(row, list(scores.items())) == mine}


def fused_row(row: dict, weight: float, floor: float) -> dict:
    """A dumped reading as the box would make it with the first pass's second opinion at
    `weight` (TwoPass.second_opinion: fused_scores, ps_margin): the best sentence, its
    share and margin, whether it is right, from the dump's every candidate (`w_scored`)
    and PocketSphinx's scores of the best of them (`ps_scores`). Rows the back-up did not
    decide, or dumped without the scores, are left as they are."""
    ps = row.get("ps_scores")
    scored = _candidates(row)
    if not ps or not scored or row.get("outside"):
        return row
    fused = fused_scores(scored, ps, weight, floor)
    best, read = _reading_of(row, fused)
    ordered = sorted(fused.items(), key=lambda x: -x[1])
    return {**read, "ps_margin": ps_margin(ordered, ps, best)}


def arbitrated_row(row: dict, margin: float | None) -> dict:
    """The player the box would ask about if it asked this vote again, with the sound
    arbiter at `margin` (TwoPass.arbitrate: when the passes read two players by name,
    the first pass's if its name sounds closer to Whisper's transcript, `w_heard`), as
    `asked_player`; the reading itself is left as it is (the arbiter only chooses whom
    a vote asked again names). A row thrown out as table talk is left as it is."""
    scored = _candidates(row)
    first = row.get("first_text")
    if not scored or first is None or row.get("outside") or _outside(row):
        return row
    found = sound_arbiter(scored, scored[0][0], first, str(row.get("w_heard") or ""), margin)
    if found is None or found[0] is None:
        return row
    return {**row, "asked_player": found[0].player, "sound_gap": found[1]}


def print_best_sentences(rows: list[dict]) -> None:
    """How often the reading (Whisper's, or fused) names the intended player, per
    condition, where the back-up read the vote: what any confidence can at most take."""
    conditions = sorted({r["condition"] for r in rows})
    for c in conditions:
        mine = [r for r in rows if r["condition"] == c and r.get("w_scored")]
        right = sum(bool(r["right"]) for r in mine)
        print(f"  best sentence right {c:9}: {right}/{len(mine)}")


def _outside(row: dict) -> bool:
    """Outside the grammar as the box judges it: talk that says more than a vote,
    Whisper's rule unless both passes read the same vote, or where Whisper is alone a
    reading the first pass finds only a word of (TwoPass.decide, left_unsaid)."""
    alone = row.get("first_confidence") is None
    text = str(row.get("w_text"))
    scored = _candidates(row)
    meaning = next((_meaning(c) for c, _ in scored if c.text == text), None)
    same = tuple(c.text for c, _ in scored if _meaning(c) == meaning)
    return TwoPass.said_more(row) or (
        TwoPass.outside(row) and not (AGREED_INSIDE and _agreed(row)) and
        not (alone and TwoPass.vouches(row, text))) or (
        alone and TwoPass.left_unsaid(row, text, same))


AGREED_INSIDE = True  # --outside-as-before: False
QUIET_ONLY = TwoPass.PS_QUIET_ONLY  # the second opinion in a quiet room only


def _agreed(row: dict) -> bool:
    """The first pass's reading means what Whisper's best sentence means (from the
    dump's candidates: also for rows dumped as outside, which carry no passes_agree)."""
    if "passes_agree" in row:
        return bool(row["passes_agree"])
    scored = _candidates(row)
    if not scored or row.get("first_text") is None:
        return False
    return _first_meaning(row, scored) == _meaning(scored[0][0])


def _inside(row: dict) -> dict:
    """A row dumped as outside the grammar that the box now keeps (both passes agree,
    or where Whisper is alone the first pass vouches for it): Whisper's best sentence
    as its reading."""
    if not row.get("outside") or _outside(row) or not row.get("w_scored") or \
            not AGREED_INSIDE:
        return row
    return {**_read_as(row, _candidates(row)[0][0]), "outside": False,
            "passes_agree": row.get("first_confidence") is not None}


def _reread(row: dict) -> dict:
    """A row the box threw out as outside the grammar, which the current
    `TwoPass.outside` would keep: Whisper's best sentence (`w_text`) as its reading, so
    that the outside rule itself can be tried on a dump (other languages only: their
    table's names are the bench's)."""
    import voice_accuracy as va

    if not row.get("outside") or _outside(row) or not row.get("w_text") or \
            row["lang"] not in va.LANGS:
        return row
    intent, player = va.meaning_of(row["w_text"], row["lang"], va.LANGS[row["lang"]])
    vote = intent in va.VOTES
    return {**row, "outside": False, "text": row["w_text"], "intent": intent,
            "heard": player, "vote": vote,
            "right": vote and player == row["player"] and row["player"] != va.TALK}


def _bare_number(row: dict) -> bool:
    """Whisper's best sentence names a player by a lone number (see TwoPass)."""
    from local_voice.whisper import Candidate, WhisperRecognizer

    text = row.get("w_text") or ""
    return WhisperRecognizer._bare_number(row["lang"], Candidate(text, text, "?"))


def _unwritten_seat(row: dict) -> bool:
    """The first pass read a seat number Whisper's transcript does not hold (see TwoPass)."""
    from local_voice.fusion import _names_a_player
    from local_voice.whisper import WhisperRecognizer

    first = str(row.get("first_text") or "")
    return _names_a_player(_candidates(row), first) and \
        WhisperRecognizer._unwritten_seat(row["lang"], first, str(row.get("w_heard") or ""))


def _seat_asked(row: dict, text: object) -> bool:
    """The box asks again a reading `text` of a seat number Whisper's transcript does not
    hold, in a quiet room, whichever pass read it (TwoPass.UNWRITTEN_SEAT)."""
    from local_voice.fusion import seat_unwritten

    return TwoPass.UNWRITTEN_SEAT and seat_unwritten(row, str(text or ""), row["lang"])


def _carried(row: dict) -> bool:
    """Whisper read a name alone, the first pass a longer sentence (see TwoPass)."""
    from local_voice.fusion import _carried_off

    text = str(row.get("w_text") or "")
    player = next((c.player for c, _ in _candidates(row) if c.text == text), None)
    return _carried_off(Candidate(text, text, player), str(row.get("first_text") or ""))


def _tiny_en_tokens() -> Callable[[str], list[int]]:
    """tiny.en's tokens of a text (WhisperScorer.tokens, without loading the model): how
    the box's back-up counts a name's tokens (TwoPass.FIRST_NAME_TOKENS)."""
    import tokenizers

    from local_voice.whisper import text_tokens, tiny_en_dir

    tokenizer = tokenizers.Tokenizer.from_file(str(tiny_en_dir() / "tokenizer.json"))
    return lambda text: text_tokens(tokenizer, text)


def fit_fusion(rows: list[dict], wrong: float, l2: float,
               run_below: float = TwoPass.RUN_BELOW, check_above: float = TwoPass.CHECK_ABOVE,
               wrong_alone: float | None = None, l2_alone: float | None = None,
               careful: bool = False, wrong_careful: float | None = None,
               l2_careful: float | None = None,
               first_kept: tuple[float, float] | None = None,
               name_tokens: int = TwoPass.FIRST_NAME_TOKENS) -> int:
    """TwoPass.WEIGHTS (utterances with a first pass) and TwoPass.ALONE_WEIGHTS (Whisper
    alone: another language), each fitted and thresholded on its own group's rows where
    the fused confidence decides, held out by voice; then the whole box simulated per
    condition: the first pass alone where sure, its answer over `check_above` unless
    Whisper heard a bare number (or talk outside the grammar), the fused confidence
    otherwise."""
    import voice_accuracy as va

    wrong_alone = wrong if wrong_alone is None else wrong_alone
    # the groups, as TwoPass.confidence tells them apart (TwoPass.group)
    penalty = {"quiet": l2, "alone": l2 if l2_alone is None else l2_alone,
               "careful": l2 if l2_careful is None else l2_careful}
    rows = [_reread(r) for r in rows]

    def path(r: dict) -> str:
        first = r.get("first_confidence")
        if first is None:
            return "backup"
        if first >= run_below:
            return "first"
        if first >= check_above and not _outside(r) and \
                not _seat_asked(r, r.get("first_text")) and (
                r.get("passes_agree") or (not TwoPass.CHECK_AGREE and not (
                    _bare_number(r) or _unwritten_seat(r) or _carried(r)))):
            return "checked"
        return "backup"

    backup = [r for r in rows if "w_share" in r and path(r) == "backup" and not _outside(r)
              and r["intent"]]
    x = np.array([fusion_inputs(r) for r in backup], dtype=np.float64)
    y = np.array([r["right"] for r in backup], dtype=bool)
    bad = np.array([r["vote"] and not r["right"] for r in backup])
    # without --careful, English in babble is fitted with the quiet room (round 7's way)
    kinds = [TwoPass.group(r) for r in backup]
    group = np.array([k if careful or k != "careful" else "quiet" for k in kinds])
    budget = {"quiet": wrong, "alone": wrong_alone,
              "careful": wrong if wrong_careful is None else wrong_careful}
    voices = sorted({r["voice"] for r in rows})
    conditions = sorted({r["condition"] for r in rows})

    def fit_groups(train: np.ndarray) -> dict[str, np.ndarray]:
        weights = {}
        for name in ("quiet", "careful", "alone"):
            mine = train & (group == name)
            if not mine.any():
                continue
            w = fit(x[mine], y[mine].astype(float), penalty[name])
            score = x @ w[:-1] + w[-1]
            w[-1] -= threshold(score[mine], bad[mine], int(budget[name] * mine.sum()))
            weights[name] = w
        return weights

    def accepted(weights: dict[str, np.ndarray], k: int) -> bool:
        w = weights.get(str(group[k]))
        return w is not None and float(x[k] @ w[:-1] + w[-1]) >= 0.0

    # the first pass's kept reading (TwoPass.first_kept): quiet rows whose two passes
    # read other votes, and how far Whisper preferred its own
    tokens = _tiny_en_tokens()
    gaps = [first_gap(_candidates(r), str(r.get("first_text")), tokens, name_tokens)
            if TwoPass.group(r) == "quiet" else None for r in backup]
    kx = np.array([first_kept_inputs({**r, "w_first_gap": g if g is not None else 20.0})
                   for r, g in zip(backup, gaps, strict=True)], dtype=np.float64)
    ky = np.array([bool(r.get("first_right")) for r in backup])
    kbad = np.array([bool(r.get("first_vote")) and not r.get("first_right") for r in backup])
    keepable = np.array([g is not None for g in gaps])

    def fit_first(train: np.ndarray, weights: dict[str, np.ndarray]) -> np.ndarray | None:
        """FIRST_WEIGHTS on the training rows where Whisper's reading is not taken."""
        if first_kept is None:
            return None
        budget_share, penalty_first = first_kept
        taken = np.array([accepted(weights, k) for k in range(len(backup))])
        mine = train & keepable & ~taken
        if mine.sum() < 2 or ky[mine].all() or not ky[mine].any():
            return None
        w = fit(kx[mine], ky[mine].astype(float), penalty_first)
        score = kx @ w[:-1] + w[-1]
        voices_in = {r["voice"] for r, t in zip(backup, train, strict=True) if t}
        quiet = sum(1 for r in rows if r["voice"] in voices_in and r["lang"] == "en"
                    and not noisy(r))
        w[-1] -= threshold(score[mine], kbad[mine], int(budget_share * quiet))
        return w

    def kept(first_w: np.ndarray | None, k: int) -> bool:
        return first_w is not None and bool(keepable[k]) and \
            float(kx[k] @ first_w[:-1] + first_w[-1]) >= 0.0 and \
            not _seat_asked(backup[k], backup[k].get("first_text"))

    def simulate(accept: dict[int, bool], label: str, keep: dict[int, bool]) -> None:
        for c in conditions:
            mine = [r for r in rows if r["condition"] == c]
            right = bad_votes = firsts = 0
            for r in mine:
                if r.get("unlisted") and path(r) != "first":
                    # a vote for a name the table does not have (TwoPass._unlisted: the
                    # dump flags it where the box's own confidence counted the vote)
                    continue
                if path(r) != "backup" or keep.get(id(r)):  # the first pass's answer
                    right += bool(r.get("first_right"))
                    bad_votes += bool(r.get("first_vote")) and not r.get("first_right")
                    firsts += bool(keep.get(id(r)))
                elif accept.get(id(r)) and not _seat_asked(r, r.get("w_text")):
                    right += bool(r["right"])
                    bad_votes += bool(r["vote"]) and not r["right"]
            n = max(len(mine), 1)
            print(f"  {label} {c:9}: right {100 * right / n:5.1f} % ({right}/{len(mine)})  "
                  f"wrong {100 * bad_votes / n:4.1f} % ({bad_votes})"
                  + (f"  first pass kept {firsts}" if first_kept else ""))

    held: dict[int, bool] = {}
    held_kept: dict[int, bool] = {}
    for voice in voices:
        train = np.array([r["voice"] != voice for r in backup])
        if train.all() or not train.any():
            continue
        weights = fit_groups(train)
        first_w = fit_first(train, weights)
        for k, r in enumerate(backup):
            if not train[k]:
                held[id(r)] = accepted(weights, k)
                held_kept[id(r)] = not held[id(r)] and kept(first_w, k)
    print("held out by voice (fit and threshold without the voice):")
    simulate(held, "held-out", held_kept)
    print("votes the back-up asked about again, naming the intended player (without / "
          "with the sound arbiter, TwoPass.ARBITER_MARGIN):")
    for c in conditions:
        asked = [r for r in backup if r["condition"] == c and not held.get(id(r), True)
                 and r["vote"] and r["player"] != va.TALK]
        if asked:
            plain = sum(r["heard"] == r["player"] for r in asked)
            sounded = sum(r.get("asked_player", r["heard"]) == r["player"] for r in asked)
            print(f"  asked again {c:9}: {plain} -> {sounded} of {len(asked)}")
    everyone = np.ones(len(backup), dtype=bool)
    weights = fit_groups(everyone)
    for key, name in (("quiet", "WEIGHTS"), ("careful", "CAREFUL_WEIGHTS"),
                      ("alone", "ALONE_WEIGHTS")):
        if key in weights:
            print(f"all voices: TwoPass.{name} =",
                  "(" + ", ".join(f"{v:.4g}" for v in weights[key]) + ")")
    first_w = fit_first(everyone, weights)
    if first_kept is not None:
        print("all voices: TwoPass.FIRST_WEIGHTS =", None if first_w is None else
              "(" + ", ".join(f"{v:.4g}" for v in first_w) + ")")
    taken = {id(r): accepted(weights, k) for k, r in enumerate(backup)}
    simulate(taken, "in-sample", {id(r): not taken[id(r)] and kept(first_w, k)
                                  for k, r in enumerate(backup)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
