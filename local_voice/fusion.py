"""Two recognisers decided by confidence: a fast first pass, and Whisper when it is unsure.

The first pass (PocketSphinx under the grammar, English only; or Vosk) hears every
utterance; when its confidence is under `TwoPass.RUN_BELOW`, or when it has no model for
the table's language, Whisper scores the grammar's sentences against the same audio
(`local_voice.whisper`) with the first pass's reading among its candidates. The answer is
then Whisper's best sentence, with a confidence fitted on the bench
(bench/fit_voice_confidence.py --fusion) from Whisper's share of the probability, its
margin, whether both passes mean the same vote, and the first pass's own confidence.

Between `TwoPass.CHECK_ABOVE` and `RUN_BELOW` Whisper runs too, only to check for what
the first pass cannot hear (a seat number said alone, talk outside the grammar); its
answer stands otherwise ("checked"). Without a first pass (another language) Whisper
decides alone, with weights of its own (`ALONE_WEIGHTS`).

In babble Whisper reads only the loudest talker's span (`TRIM_BABBLE`: the chatter the VAD
hands over before and after the vote is left out, as the first pass leaves it out), and
the utterance ends where that talker stopped (`CUT_BABBLE`, recognizers.babble_end): its
answer is worked out then, while the chatter the VAD still hears goes on
(`TwoPassUtterance`).

In a quiet room the first pass also gives its second opinion on Whisper's few best
sentences (each decoded alone on the same audio: `TwoPass.second_scores`), an input of the
fused confidence; and a reading both passes agree on is not taken for table talk, unless
the talk says more than a vote.

When Whisper's reading is not taken and the first pass read another player, one whose name
Whisper cannot write (several of its tokens), the first pass's reading counts if it was sure
enough (`TwoPass.first_kept`, round 15: the first pass hears such a name by its
pronunciation). Talk that says more than a vote is never a vote (`TwoPass.said_more`).

A vote about to be counted for a player is not, when Whisper writes there a common first
name that sounds like nobody at the table (`TwoPass._unlisted`: a vote for someone the
table does not have; or, failing that, its own transcript ends with one, round 25): the
sentence with that name names no player, and the narrator says it knows no one by that
name; so is a vote about to be asked about a player (`TwoPass._asked`). A vote barely sure
of a player Whisper writes nothing like there is asked again (`TwoPass._unlike`; where
Whisper decides alone, "barely" is wider: UNLIKE_MARGIN_ALONE). In a quiet room, a reading
of a seat number that Whisper's own transcript holds no number of is asked again,
whichever pass read it (`TwoPass._seat_unwritten`: "Siobhan" heard as "seat one", written
"she won").

At a table told to say a player's seat and name together (Grammar.pairs), a reading of
such a pair is not asked again for a number Whisper's transcript garbled, and in babble
a pair said alone counts `PAIR_CAREFUL` surer than the careful weights, fitted on names,
would say (round 32); in babble, a seat read alone is asked again when the pair of the
seat its lost "-teen" makes alike fits the audio better than its own ("I vote for number
nineteen Emma" read "i vote for number nine", Oisin's: `PAIR_RIVALS`, round 33).

`last_path` says which decided ("first", "checked", "backup", "first-kept", or "unlisted"
for such a vote), for the bench's figures.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from local_voice.grammar import Grammar
from local_voice.recognizers import (
    SAMPLE_RATE,
    Recognized,
    Recognizer,
    Utterance,
    babble_end,
    frame_rms,
    talker_span,
)
from local_voice.whisper import Candidate, Reading, WhisperRecognizer, _meaning


def _logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, x))))


NOISY_SNR = 32.0  # as PocketSphinx's Utterance.TRIM_SNR
# No one's voice stands out of the noise (a fan, a hiss: the loud frames within this of
# the quiet ones), and the first pass found no words in it: nothing was said to the
# narrator, and Whisper is not asked to read a vote into it. Round 27: the bench's 388
# votes in babble measure 15.6-20.5 dB (least, median); 2 s of white noise 1.4 dB, which
# Whisper, once the first pass measured it, read "ben" through Hush at 0.31
NO_TALKER_SNR = 6.0


def noisy(features: dict[str, Any]) -> bool:
    """Other people talking: the first pass measured the babble (its snr)."""
    snr = features.get("snr")
    return snr is not None and float(snr) < NOISY_SNR


def fusion_inputs(features: dict[str, Any]) -> list[float]:
    """The inputs of the fused confidence, in the order of `TwoPass.WEIGHTS`."""
    first = features.get("first_confidence")
    babble = 1.0 if noisy(features) else 0.0
    return [
        _logit(float(features.get("w_share", 0.0))),
        min(20.0, float(features.get("w_margin", 0.0))),
        1.0 if features.get("passes_agree") else 0.0,
        0.0 if first is None else float(first),
        1.0 if first is None else 0.0,  # no first pass (another language)
        max(-20.0, min(25.0, float(features.get("w_best", 0.0)))) / 10.0,
        min(5.0, float(features.get("w_outside", 0.0))),
        babble,  # other people talking (the first pass's snr): margins mean less
        babble * min(20.0, float(features.get("w_margin", 0.0))),
        # the first pass's second opinion (second_scores): how much better it fits the
        # reading than its best rival meaning, per frame (0 when it had no say)
        max(-10.0, min(10.0, float(features.get("ps_margin", 0.0)))),
        # read with care: the share of the hearings (once and at each other speed) whose
        # own best meant what their average's best means (1 when heard once). Round 14:
        # in babble the best sentence was right in 95 of 108 reads where all three agreed,
        # 16 of 45 where two did, 8 of 26 where one or none did
        float(features.get("w_speed_agree", 1.0)),
    ]


@dataclass
class TwoPass:
    """A first pass and a Whisper back-up behind one Recognizer interface."""

    first: Recognizer | None
    backup: WhisperRecognizer | None
    name: str = "two-pass"
    last_path: str = ""
    last_features: dict[str, Any] = field(default_factory=dict)
    _warmed: set[tuple[str, tuple[str, ...]]] = field(default_factory=set, repr=False)
    # the narrator's threshold: a vote less sure than this is asked again (the box's
    # recognizer.confidence; 0.5 is `wolfvillage hear`'s contract)
    ask_below: float = 0.5
    # the babble filter Whisper hears a vote said in babble through (local_voice.hush;
    # None: the raw audio, as before round 26)
    hush: Any = field(default=None, repr=False)
    # The back-up runs when the first pass is less sure than RUN_BELOW; an answer it is
    # surer of is never second-guessed, so that path costs nothing more. Between
    # CHECK_ABOVE and RUN_BELOW Whisper only checks the first pass for what its grammar
    # cannot hear: a seat number said alone (not in PocketSphinx's grammar: "three" was
    # read as "henry", 0.77) and talk outside the grammar ("Seersha" as "shoot jack",
    # 0.73); the first pass's answer stands otherwise ("checked"). Under CHECK_ABOVE the
    # fused confidence decides. Round 6 (bench/fit_voice_confidence.py --fusion, held out
    # by voice): this keeps wrong votes under 1 in 50 in every English condition
    # (respelled names 1.7 %), where round 5's single 0.7 let 3.3 % through, for about
    # the same share right in a quiet room; a band that trusts Whisper's reading over the
    # first pass's there (the fused confidence deciding every disagreement) cost 3-4
    # points of clean votes
    RUN_BELOW: ClassVar[float] = 0.8
    CHECK_ABOVE: ClassVar[float] = 0.7
    # ... and only where Whisper's best sentence means what the first pass read
    # (CHECK_AGREE): a first pass between CHECK_ABOVE and RUN_BELOW that Whisper reads
    # otherwise goes to the fused confidence (and the first pass's kept reading,
    # FIRST_WEIGHTS). Round 27, the bench's quiet English conditions on both halves
    # (voice_accuracy.py --conditions talk-absent,clean,respelled,enrolled,talk --step 2
    # [--offset 1]): votes for a name the table does not have counted 23 + 31 -> 22 +
    # 23 of 170 + 170 ("vote for Grace" checked as Lucy at 0.78, "I'm voting for Oisin"
    # as Sam at 0.74), respelled wrong 1 + 4 -> 1 + 2 of 60 + 60, clean right 173 + 180
    # -> 173 + 179 of 194 + 194. Round 6's band had let Whisper's reading decide every
    # disagreement there, at 3-4 points of clean votes; since round 15 the first pass's
    # reading can still be kept. False: the answer stands unless Whisper heard what the
    # first pass cannot (a bare seat number, an unwritten seat, a name carried off)
    CHECK_AGREE: ClassVar[bool] = True
    # outside the grammar (table talk): Whisper's own transcript beats the grammar's best
    # sentence by more than OUTSIDE log units per token, and that sentence itself has
    # little support from the audio (its score under OUTSIDE_BEST). Table talk by the
    # test voices: 2.8-5.5 per token and -4.1 to -10.5; votes mostly under 1.6, and those
    # above (names Whisper cannot spell) mostly over -3 (docs/voice.md, round 5). Round
    # 10 scores the end of text (whisper_decoder): every score rose, votes' by 5.6-8.7
    # (median 7.8), table talk's to -6.5 to 0.3; at 1.0 the rule throws out 23 of the 24
    # talk lines and 4 of 194 clean votes (8 at 2.0, 12 at 4.3)
    OUTSIDE: ClassVar[float] = 2.5
    OUTSIDE_BEST: ClassVar[float] = 1.0
    # base in the other languages: votes by espeak-ng voices that Whisper transcribes
    # badly ("Carmen" as "cartman") often look outside, yet one sentence is clearly best
    OUTSIDE_MARGIN: ClassVar[float] = 4.0
    # ... unless the audio hardly supports that sentence at all: round 10's dumps, the
    # votes so kept have a best score of -1.3 to -0.4; a Piper "the weather is lovely
    # today" read as "Ana" with a margin of 4.5 had -8.8 (its synthesis varies by run)
    OUTSIDE_MARGIN_BEST: ClassVar[float] = -4.0
    # ... and talk that says more than a vote is outside whatever else holds, even when
    # both passes read the same vote in it: Whisper's transcript beats the best sentence
    # by more than SAID_MORE per token and is SAID_MORE_LETTERS letters longer. Round 15,
    # the bench's other half of table talk (lines the fit never saw): "pass me the crisps
    # please" read as "pass" by both passes (the word is in it: the sentence "Pass" is
    # well supported), "can we go around the table one more time" as "henry" by both,
    # "pass me the crisps please" as "grace please": three of 24 lines counted as votes.
    # On both halves' dumps (48 lines of English table talk, 48 in the other languages)
    # this takes 46 and 22 lines out (10 English ones that round 5's rule left in), and
    # of the 801 votes whose best sentence was right two that were asked again anyway
    # ("I pass" in babble, heard as "i pass make so sick"; "Henry" as "then we both
    # find"). 10 letters would let "ask me the christs please", read as "grace
    # please", through; 3.0 keeps names Whisper splits up ("Tamsin" as "turn was in":
    # 3.4 per token, 3 letters more)
    SAID_MORE: ClassVar[float] = 3.0
    SAID_MORE_LETTERS: ClassVar[int] = 8
    # the same when Whisper decides alone (no first pass: the other languages), where
    # base writes espeak-ng's voices so badly that its own transcript often "beats" the
    # vote that was said: at 2.5, 21 of the 288 votes whose best sentence was right were
    # thrown out. Round 7, held out by voice with table talk in those languages
    # (bench's talk-langs, 96 lines) in the fit: 3.5 gives 194 right votes of 288
    # instead of 180, table talk still 0 of 96 counted
    OUTSIDE_ALONE: ClassVar[float] = 3.5
    # Each group fitted and thresholded on its own (`group`): WEIGHTS for a quiet English
    # room, CAREFUL_WEIGHTS for English in babble (read with care: the scores averaged
    # over three speeds mean something else than one reading's), ALONE_WEIGHTS for
    # Whisper alone (no first pass reading: the other languages).
    # Round 14 (docs/voice.md): refitted on the numbers of Whisper computed in float32
    # (whisper.COMPUTE_TYPE), which are the same on every CPU; round 10's weights were
    # fitted on int8 numbers of an AVX2 machine and took 76 % of clean votes on an AVX-512
    # one. bench/fit_voice_confidence.py --fusion --careful --wrong 0.01 --wrong-careful
    # 0.005 --wrong-alone 0.0075 --l2 100 --l2-careful 10 --l2-alone 10 --ps-top 3 on
    # bench/voice_features.py --whisper tiny.en --step 2 (the five English conditions, the
    # six languages and their table talk). Held out by voice: clean 85.6 / 0, babble 33.0
    # / 0.5, respelled 58.3 / 5.0, enrolled 86.7 / 1.7, table talk 0 of 24; es 87.5 / 0,
    # de 85.4 / 0, fi 91.7 / 0, nl 87.5 / 2.1, pl 89.6 / 2.1, fr 64.6 / 2.1, their talk 0
    # of 48 (the same dumps computed in int8 on this machine: clean 84.5, de 79.2, fi
    # 85.4, pl 81.2, fr 52.1). CAREFUL_WEIGHTS refitted with the speeds' agreement
    # (`w_speed_agree`, the last input), --l2-careful 10 and --wrong-careful 0.005:
    # babble held out 29.9 / 1.0 -> 33.0 / 0.5 (30.9 / 0.5 at 30); the box's babble
    # 33.5 / 1.5 -> 34.5 / 1.5 (at 0.006, 39.7 but 2.6 % wrong: 5 of 194, where the fit
    # saw 1 in its own rows). ALONE_WEIGHTS give it no weight: refitted with
    # it, fr's held-out wrong votes went from 1 to 2 of 48 and pl fell 89.6 -> 85.4. The
    # penalties and budgets were each chosen among 2-4 values on the held-out figures
    # (rounds 10 and 14).
    WEIGHTS: ClassVar[tuple[float, ...]] = (
        0.05418, 0.0507, 0.3295, -0.1498, 0.0, 0.08412, -0.06332, 0.0, 0.0, 0.03877, 0.0, -0.3427)
    CAREFUL_WEIGHTS: ClassVar[tuple[float, ...]] = (
        0.1393, 0.111, 1.194, -0.4043, 0.0, 0.4794, -0.1715, 0.0, 0.111, 0.0, 1.03, -2.854)
    # In babble (CAREFUL_WEIGHTS), a reading of a seat and a name said together, and
    # nothing else (`w_pair_alone`: the table was told to say both, and the two agree)
    # counts this much surer, in log-odds: CAREFUL_WEIGHTS were fitted on votes by name,
    # where a reading as sure as most right pairs is often wrong. Round 32, the bench's
    # babble-paired condition on both halves and two draws of Piper's noise (240 clips):
    # of the 149 readings of a pair read with care, one was wrong ("number eleven Sam"
    # as "number sixteen grace", 0.098, draw 1), and 18 right ones sat under 0.5
    # (0.07-0.49). At 1.5 the pairs from 0.18 up count (16 of them); at 2.0 the wrong
    # one would sit at 0.45; at 3.0 it counts. Not in a quiet room, where the fit's own
    # weights leave 4 right pairs under 0.5 and a wrong one at 0.33 on both draws
    # ("number six Niamh" as "seat eleven sam"); not where Whisper decides alone (its 79
    # pairs read 0.6 and up). The bench's other babble conditions at such a table (draw
    # 0: votes by name, talk, chatter alone; 533 clips) read one pair, right. Not a pair
    # in a carrier: there Whisper scores the pairs of its best players (two in round 32,
    # four since round 33) in its closest carrier only (PAIR_PLAYERS), the right pair is
    # more often not among them,
    # and the bench's "I vote for number nine Oisin" in babble was read "i vote for
    # number fifteen lucy" (0.87) and "... eleven Sam" as "... six niamh" (0.78, counted
    # only with the offset). At a table never told to say both, no reading is a pair.
    PAIR_CAREFUL: ClassVar[float] = 1.5
    # at a table told to say both, in babble, a reading of a seat alone is asked again
    # when the pair of the seat its lost "-teen" makes alike fits better than its own
    # (`WhisperRecognizer.pair_rival`, round 33)
    PAIR_RIVALS: ClassVar[bool] = True
    # ALONE_WEIGHTS refitted in round 16 with the first pass's second opinion in the
    # other languages (`ps_margin`, PocketSphinxRecognizer.scores_lang), UNSAID_ALONE and
    # VOUCH_MARGIN, on both halves of the bench (voice_features.py --step 2 [--offset 1]
    # --conditions es,de,fr,nl,fi,pl,talk-langs; --wrong-alone 0.0075 --l2-alone 10
    # --ps-top 3 --unsaid-alone 0.4 --vouch-margin 3, without w_speed_agree as round 14
    # chose). Held out by voice over both halves, against round 14's recipe on the same
    # dumps: de 83.3 -> 89.6 %, es 86.5 -> 90.6, fi 85.4 -> 85.4, fr 61.5 -> 74.0, nl
    # 83.3 -> 88.5, pl 85.4 -> 88.5; wrong votes 5 -> 5 of 576, table talk 0 of 96
    # either way (docs/voice.md)
    ALONE_WEIGHTS: ClassVar[tuple[float, ...]] = (
        0.2018, 0.1647, 0.0, 0.0, 0.0, 1.677, -0.08797, 0.0, 0.0, 0.2128, 0.0, -0.5487)

    # In babble Whisper reads only the loudest talker's span (recognizers.talker_span:
    # the first pass's trim, with TRIM_PAD frames of 10 ms either side), not the chatter
    # the VAD hands over before and after the vote. Round 13, the bench's 194 babble votes
    # read with care: Whisper's best sentence names the intended player in 119 read
    # whole; trimmed 130 (a pad of 5 frames, the first pass's), 132 (15), 126 (30); 99
    # within 6 dB of the loudest instead of 10, 125 within 14.
    TRIM_BABBLE: ClassVar[bool] = True
    TRIM_PAD: ClassVar[int] = 15
    # ... and the utterance ends where that talker stopped (recognizers.babble_end: the
    # chatter the VAD hands over after the vote is not read), so that the streamed
    # utterance's answer is worked out while the chatter goes on (TwoPassUtterance) and
    # is the same whenever the VAD ends it (round 28)
    CUT_BABBLE: ClassVar[bool] = True
    # ... and through Hush (`hush`: local_voice.hush, a DeepFilterNet3 trained to take
    # down the voices behind the talker), nothing taken down by more than HUSH_LIMIT_DB:
    # it filters the whole utterance, and the talker's span is cut from the filtered
    # audio where the raw audio puts it. Round 26, the bench's 194 + 194 babble votes:
    # right 148 -> 172, wrong 9 -> 5, Whisper's best sentence right 259 -> 273; with no
    # limit 139 right (a fully filtered signal's artefacts), 8 dB 171, 18 dB 169. The
    # first pass and its second opinion hear the raw audio (their confidence was fitted
    # on it)
    HUSH_LIMIT_DB: ClassVar[float | None] = 12.0

    # The first pass's second opinion (second_scores): PocketSphinx scores Whisper's
    # PS_TOP best sentences and its own reading, each decoded alone on the same audio,
    # and how much better it fits the reading than its best rival (`ps_margin`) is an
    # input of the quiet room's confidence. Round 9, held out by voice against the same
    # dump without it: clean 79.4 -> 80.4 % right, respelled 46.7 -> 51.7, enrolled
    # wrong 1.7 -> 0 % (the top 2: clean 79.9 but respelled 3.3 % wrong; the top 8:
    # 80.9, at twice the decodes). In babble PocketSphinx hears too little to help (30.9
    # % either way, but 2.1-2.6 % wrong with it), so only in a quiet room
    # (PS_QUIET_ONLY). Adding its scores to Whisper's (PS_WEIGHT x, a sentence it could
    # not fit PS_FLOOR under the worst) moved the reading itself: the clean best
    # sentences right 88 -> 95 of 114 at 1.2, but babble's fell (104 -> 79 of 189 at
    # 0.8) and held out clean came to 76.8-79.4 %: not taken (0).
    PS_TOP: ClassVar[int] = 3
    PS_WEIGHT: ClassVar[float] = 0.0
    # Where Whisper is alone (another language: no first pass of that language), the
    # bundled en-US model still gives its second opinion, each word said as espeak-ng's
    # voice of that language says it (PocketSphinxRecognizer.scores_lang). Round 16
    # (docs/voice.md): PS_WEIGHT_ALONE x its scores added to Whisper's, and a sentence
    # it fits to less than 1 - UNSAID_ALONE of the speech taken for table talk
    # (left_unsaid). Measured on both halves of the bench: the votes read right left at
    # most 0.23 unsaid on one half; on the other three left 0.42-0.56 (a bare name for
    # "głos na Michał", a seat read as its name), all three asked again anyway; of the
    # 31 lines of table talk the other rules let through, 24 left more than 0.4. Adding
    # its scores to Whisper's (PS_WEIGHT_ALONE 0.3-0.5) read 2-4 more votes right per
    # language but let wrong ones through in French (4.2 % on the half it was not
    # fitted on): not taken (0)
    PS_WEIGHT_ALONE: ClassVar[float] = 0.0
    UNSAID_ALONE: ClassVar[float | None] = 0.4
    # ... and where Whisper's own transcript beats its reading (OUTSIDE_ALONE), the first
    # pass vouches for it when it fits it to all the speech (VOUCH_UNSAID) and prefers it
    # to every rival by VOUCH_MARGIN (`vouches`): on both halves that rule threw out 12
    # votes read right ("vote pour Léa", Whisper writing "mots bude a"), 13 wrong
    # readings and 4 lines of table talk; vouched for: 6 of the 12, 2 of the wrong
    # readings (left to the confidence) and none of the talk. Held out by voice fr 71.9
    # -> 74.0 %, wrong votes 7 -> 5 of 576, table talk 1 -> 0 of 96 (margin 2: the
    # same; 4: fr 72.9)
    VOUCH_MARGIN: ClassVar[float | None] = 3.0
    VOUCH_UNSAID: ClassVar[float] = 0.1
    # ... and where the vote is asked again anyway, the question names the sentence the
    # first pass scores above Whisper's reading, among those it fits to all the speech
    # (VOUCH_UNSAID), not Whisper's (`second_asks`). Round 17, round 16's dumps of both
    # halves, the 40 votes asked again about a vote: Whisper's reading meant the intended
    # one in 9, the second opinion's pick in 18 (19 taking its pick also where it could
    # not score Whisper's reading, but switching 23 questions instead of 16: the bench
    # then asked about Lukas for "Felix", whose own sentence it had no score for)
    SECOND_ASKS: ClassVar[bool] = True
    PS_FLOOR: ClassVar[float] = 1.0
    PS_QUIET_ONLY: ClassVar[bool] = True

    # A vote the fused confidence leaves under `ask_below` is asked again ("Did you say
    # Tadhg?", and the voter's phone shows it to confirm). When the two passes read two
    # different players there, what Whisper itself wrote down (its free transcript)
    # arbitrates which one is asked about: the first pass's player when its name sounds
    # closer to the transcript than Whisper's player's by more than ARBITER_MARGIN
    # (phonetics.sounds_apart, 0-1 per phone). Whisper scores a name it cannot spell
    # badly, yet writes what it hears: "ted" for Tadhg (scored as "Ben"), "sasha" for
    # Saoirse. Round 12, round 10's dumps held out by voice
    # (bench/fit_voice_confidence.py --fusion), the votes the back-up asked about again
    # naming the intended player: clean 22 -> 30 of 37, babble 53 -> 54 of 121,
    # respelled 12 -> 13 of 22, enrolled 7 -> 8 of 11 (at 0.15: 27, 56, 12, 8). Taking
    # the arbiter's player as the answer (the confidence refitted with the sound gap as
    # an input) was measured and not kept: the best sentence named the player more often
    # (clean 86 -> 90 of 104), but the replaced readings were wrong too often (11 of 26)
    # to be accepted, and held out fewer votes were right (clean 78.9 -> 77.8 %,
    # enrolled 81.7 -> 73.3 %). None: no arbiter.
    ARBITER_MARGIN: ClassVar[float | None] = 0.1

    # The first pass's reading kept when Whisper's is not taken (round 15). In a quiet
    # room the two passes fail on different votes: Whisper cannot write a name it never
    # saw written (Tadhg scored as "Ben", Aoife as "Oliver", Saoirse as "Oisin"), where
    # the first pass hears it by its pronunciation (phonetics.py). On round 14's clean
    # dump Whisper's best sentence missed 19 of the 111 votes the back-up read, and the
    # first pass was right in 13 of them. So when the fused confidence leaves Whisper's
    # reading under `ask_below` and the first pass read another player, one whose name
    # Whisper's vocabulary does not hold as one word (FIRST_NAME_TOKENS), that vote is
    # taken if the first pass was sure enough for how far Whisper preferred its own
    # reading: FIRST_WEIGHTS over `first_kept_inputs` (its confidence, and Whisper's best
    # score minus its best for the first pass's vote). Fitted on both halves of the bench
    # (`voice_features.py --step 2 [--offset 1]`) after the fused confidence, with no
    # wrong vote allowed in its training rows: fit_voice_confidence.py --fusion --careful
    # --wrong 0.01 --wrong-careful 0.005 --wrong-alone 0.0075 --l2 100 --l2-careful 10
    # --l2-alone 10 --ps-top 3 --first-kept --wrong-first 0 --l2-first 10. Held out by
    # voice: clean 85.3 -> 88.7 % right (0.5 % wrong either way), enrolled 86.7 -> 87.5 %
    # (1.7 %), respelled 60.8 -> 63.3 % (4.2 -> 5.0 % wrong). Without the name rule it
    # kept Anna/Emma and Lucy readings too: on the half it was not fitted on, 2 of the 5
    # votes it kept were wrong (docs/voice.md, round 15). None: never.
    FIRST_WEIGHTS: ClassVar[tuple[float, ...] | None] = (2.306, -0.1869, -0.2955)
    # ... only for a name Whisper's vocabulary does not hold as one word (at least this
    # many of its tokens: Tadhg, Siobhan, Aoife; Anna, Emma and Lucy are one each)
    FIRST_NAME_TOKENS: ClassVar[int] = 2
    # A vote for a name the table does not have, read as a player's (round 21,
    # docs/voice.md): Whisper, going on from the sentence's carrier, writes there
    # nothing that sounds like that player (`_unlike`: "eefa" for a vote read as
    # Oliver). On both halves of the bench (this machine's dumps, the four clean
    # conditions), of the 83 votes for an absent name that were counted, the first
    # pass's kept reading took 12 and the fused confidence 30; those with nothing
    # closer than UNLIKE (phonetics.sounds_apart, either way round):
    # - kept readings (first_kept): 8 absent votes and 1 respelled name read wrong, but
    #   also 1 clean and 1 enrolled vote read right (at 0.6: 5 absent votes, 1 right);
    #   such a reading is not kept (asked again);
    # - the fused confidence: with it under ask_below + UNLIKE_MARGIN, 9 absent votes
    #   and 1 respelled vote read right (0.05: 9, and a clean vote; 0.02: 7); such a
    #   vote counts UNLIKE_MARGIN less sure (asked again).
    # The checked band is left alone: there 9 absent votes and 9 votes read right
    # (confidence 0.72-0.78) looked alike. None: never.
    UNLIKE: ClassVar[float | None] = 0.5
    UNLIKE_MARGIN: ClassVar[float] = 0.04
    # ... and where Whisper decides alone (another language; round 22): of the votes
    # counted on the fitted half of the six languages' bench (their clean votes, and
    # their votes for a name the table does not have that the names lists did not
    # stop), a margin of 0.15 asks again 12 of 75 absent votes and 3 votes read right
    # (0.1: 7 and 2; 0.2: 14 and 4). On the other half: 10 of 78, and 3 read right.
    UNLIKE_MARGIN_ALONE: ClassVar[float] = 0.15
    # A vote about to be asked again is answered by the name Whisper writes there too,
    # when that is a common first name like no player's (round 22): "¿Has dicho Diego?"
    # to a voter who said Mateo, at a table without Mateo, only leads to "no" and the
    # question again
    UNLISTED_ASKED: ClassVar[bool] = True
    # A vote the fused confidence reads as a seat number ("I'm voting for seat one")
    # that Whisper's own transcript holds no number of ("I'm voting for she won.") is
    # asked again; so is the first pass's reading, checked or kept (round 24,
    # docs/voice.md). In a quiet room only: in babble the transcript misses numbers
    # said ("seat one", "number nine": 3 right votes of the bench's babble asked), and
    # where Whisper decides alone base writes espeak-ng's numbers in the other
    # languages as no number at all ("numéro un" as "l'humeau", round 18)
    UNWRITTEN_SEAT: ClassVar[bool] = True

    # A vote by name about to be counted is asked again when a common first name the
    # table does not have fits it better than its player's name by more than
    # DECOY_MARGIN log units (`_decoyed`, WhisperRecognizer.best_decoy): a vote for
    # someone the table does not have that Whisper read as a player and wrote no name
    # for (`_unlisted`). Round 34, the bench's fitted half in English (voice_decoys.py
    # --top 32): of the 15 such votes counted that Whisper read by name, 11 had a decoy
    # over 2.5 (12 over 2.0, 10 over 3.0), of its 115 clean votes read right none (2
    # over 2.0). Not in babble (no decoys were measured there). In every language
    # (DECOY_LANGS): round 36 measured Whisper base's six languages with the first
    # pass's say (by espeak-ng's phones) and DECOY_AGREED: their absent votes counted
    # 66 -> 19 and 71 -> 24 of 240 a half, for 2 and 4 right votes of 288, but the
    # decoys cost base 70-110 ms a vote then and took the German back-up's answer over
    # its 600 ms budget. Round 37 scores them from the name on, where the read left
    # the distribution (WhisperScorer.tail_log_probs; the same margins to 1e-5), which
    # saves some 25 ms of that, and ships them in every language though they still
    # cost German's answer about 50 ms (median): an absent vote counted is a wrong vote
    # (docs/voice.md, round 37). None: never.
    DECOY_MARGIN: ClassVar[float | None] = 2.5
    DECOY_LANGS: ClassVar[tuple[str, ...]] = ("en", "es", "de", "fr", "nl", "fi", "pl")
    # ... unless the first pass prefers the reading to the decoy's sentence by more than
    # DECOY_VOUCH (`sentence_scores`, per frame): it hears names by how they sound, where
    # Whisper scores a name it cannot spell badly ("Shivawn", read as Siobhan, fits
    # "Shane" 3.8 over). Round 35, the bench's fitted half: of the right votes over the
    # margin, the first pass preferred the reading by 4.3-5.9 in 3 and by -2.6 in one; of
    # the 11 absent votes, by 8.7 in one (decoy "Lauren" for Lucy, said "Oisin") and
    # -4.0 to 1.4 in the others. Where Whisper is alone the en-US model scores by
    # espeak-ng's phones (`_sentence_scorer`). None: the first pass has no say
    DECOY_VOUCH: ClassVar[float | None] = 3.0
    # A decoy under DECOY_MARGIN still asks the vote again when it is over
    # DECOY_AGREED_MARGIN and the first pass prefers the decoy's sentence to the reading
    # by more than DECOY_AGREED: both models hear the name said, not the player's
    # ("äänestän Siiri" read as Eevi: decoy "siiri" 2.0 over in Whisper, 5.7 in the
    # first pass). Round 36, the six languages' fitted half: 2 more of their 64 absent
    # votes asked, no right vote (of its 18 right votes over 1.0 the first pass
    # preferred the decoy by 3.0 at most: "ik stem op Sem"); other half 5 more, none.
    # On round 35's English rows it asks nothing more. None: not under DECOY_MARGIN
    DECOY_AGREED_MARGIN: ClassVar[float | None] = 1.0
    DECOY_AGREED: ClassVar[float] = 4.0

    def __post_init__(self) -> None:
        parts = [p.name for p in (self.first, self.backup) if p is not None]
        self.name = "+".join(parts) or "none"

    # the Recognizer protocol

    def missing_words(self, words: list[str]) -> list[str]:
        if self.backup is not None:
            return []
        return self.first.missing_words(words) if self.first is not None else list(words)

    def first_for(self, lang: str) -> Recognizer | None:
        """The first pass if it has a model for `lang` (PocketSphinx: English only)."""
        first = self.first
        if first is None:
            return None
        model_lang = getattr(first, "lang", "en")
        return first if model_lang in (None, lang) else None

    def prepare(self, grammar: Grammar) -> None:
        """Compile the first pass's search and, in a background thread (once per table
        and language), score the back-up's likeliest sentences on silence."""
        first = self.first_for(grammar.lang)
        prepare = getattr(first, "prepare", None)
        if prepare:
            prepare(grammar)
        # a grammar without players (the lobby) by its sentences: nothing of it is scored
        # on silence, its candidates are only worked out (the lobby's 4,545 commands
        # understood once: 1.5 s before a Spanish box's first answer there, round 39)
        key = (grammar.lang, tuple(grammar.names) or tuple(grammar.templates))
        if self.backup is not None and self.backup.supports(grammar.lang) and \
                key not in self._warmed:
            import threading

            self._warmed.add(key)
            work = self.backup.warm if grammar.names else self.backup.candidates
            threading.Thread(target=work, args=(grammar,), daemon=True,
                             name="whisper-warm").start()

    def recognize(self, pcm: bytes, grammar: Grammar) -> Recognized | None:
        if not pcm:
            return None
        first = self.first_for(grammar.lang)
        cut = self.cut(pcm, grammar.lang)
        if cut is not None:
            pcm = pcm[: cut * Utterance.FRAME]
        heard = first.recognize(pcm, grammar) if first is not None else None
        features = dict(getattr(first, "last_features", {}) or {}) if first else {}
        return self.decide(heard, features, pcm, grammar)

    def cut(self, pcm: bytes, lang: str) -> int | None:
        """Where an utterance of the first pass's language is cut in babble, in 10 ms
        frames (`babble_end`, under CUT_BABBLE); None: it is read whole."""
        if not self.CUT_BABBLE or self.first_for(lang) is None:
            return None
        return babble_end(frame_rms(np.frombuffer(pcm, dtype=np.int16)).tolist())

    def stream(self, grammar: Grammar) -> Any:
        first = self.first_for(grammar.lang)
        stream = getattr(first, "stream", None)
        if stream is not None:
            return TwoPassUtterance(self, stream(grammar), grammar)
        if first is None and self.backup is not None and self.backup.supports(grammar.lang):
            # Whisper alone (another language): nothing to decode while the person
            # speaks, but its reading can start at the VAD's pause hint, as in English
            return TwoPassUtterance(self, _NoFirstPass(), grammar)
        return None

    def decide(self, heard: Recognized | None, first_features: dict[str, Any], pcm: bytes,
               grammar: Grammar) -> Recognized | None:
        """The first pass's answer if it is sure; otherwise Whisper's, fused."""
        self.last_features = dict(first_features)
        sure = heard is not None and heard.confidence >= self.RUN_BELOW
        if sure or self.backup is None or not self.backup.supports(grammar.lang):
            self.last_path = "first"
            return heard
        if heard is None and float(first_features.get("snr", NOISY_SNR)) < NO_TALKER_SNR:
            # nothing stands out of the noise and the first pass found no words in it
            self.last_path = "first"
            return None
        samples = np.frombuffer(pcm, dtype=np.int16)
        # read with care when people talk over the vote, or when Whisper is alone
        babble = noisy(first_features)
        careful = babble or self.first_for(grammar.lang) is None
        heard_samples, hushed = samples, False
        if self.TRIM_BABBLE and babble:
            span = talker_span(samples, self.TRIM_PAD)
            hushed = self.hush is not None
            cleaned = self.hush.enhance(samples, self.HUSH_LIMIT_DB) if hushed else samples
            heard_samples = cleaned[span]
        reading = self.backup.read(heard_samples, grammar,
                                   hints=(heard.text,) if heard else (), careful=careful)
        if reading is None:
            self.last_path = "first"
            return heard
        # how much of the utterance Whisper read (under 1: the loudest talker's span)
        reading.features["w_kept"] = len(heard_samples) / max(len(samples), 1)
        reading.features["w_hushed"] = 1.0 if hushed else 0.0  # through the babble filter
        # both passes reading the same vote is never table talk: on round 9's bench, 8
        # bare names ("Saoirse", "Mark", "Oisin") whose transcript Whisper preferred to
        # every sentence were read alike by both passes, and none of the 24 lines of
        # table talk was
        agreed = heard is not None and _reading_of(heard.text, reading) == _meaning(
            reading.best)
        alone = heard is None
        if alone:
            # Whisper alone (another language): the en-US model's second opinion first,
            # since it can vouch for a reading Whisper's own transcript beats (vouches)
            reading = self.second_opinion(
                reading, self.second_scores(reading, heard, pcm, grammar),
                self.PS_WEIGHT_ALONE)
        if self.said_more(reading.features) or (
                not agreed and self.outside(reading.features, alone=alone) and
                not (alone and self.vouches(reading.features, reading.best.text))):
            # outside the grammar (table talk): nothing was said to the narrator, not even
            # the first pass's unsure reading ("the weather is lovely" as "one is the wolf")
            return self._talk(reading, heard, first_features)
        if alone and self.left_unsaid(reading.features, reading.best.text, tuple(
                c.text for c, _ in reading.scored if _meaning(c) == _meaning(reading.best))):
            # Whisper alone read a vote the first pass finds only a word of (table talk
            # in another language: "je crois que c'est à moi de mélanger" as "manon")
            return self._talk(reading, heard, first_features)
        # the first pass's second opinion, where the fused confidence will decide (a
        # checked answer does not need it: Whisper found nothing the first pass cannot
        # hear; with a PS_WEIGHT the second opinion could change that reading)
        if not alone and (self.PS_WEIGHT or not self._checks(heard, agreed, reading,
                                                             grammar)):
            reading = self.second_opinion(reading, self.second_scores(reading, heard, pcm,
                                                                      grammar))
        agree = heard is not None and _reading_of(heard.text, reading) == _meaning(reading.best)
        features = {**first_features, **reading.features, "passes_agree": agree,
                    "first_confidence": heard.confidence if heard is not None else None,
                    "first_text": heard.text if heard is not None else None}
        self.last_features = features
        if self._checks(heard, agree, reading, grammar) and not self._seat_unwritten(
                heard.text, grammar):
            unknown = self._unlisted(_candidate(reading.scored, heard.text), grammar)
            if unknown is not None:
                return unknown
            self.last_path = "checked"  # Whisper found nothing the first pass cannot hear
            checked = _candidate(reading.scored, heard.text)
            if self._decoyed(checked, reading, pcm, grammar, babble):
                return self._asked(checked, self.ask_below - 0.01, grammar)
            return heard
        self.last_path = "backup"
        confidence = self.confidence(features)
        if confidence < self.ask_below and heard is not None:
            kept = self.first_kept(reading, heard, features)
            if kept is not None and not self._seat_unwritten(heard.text, grammar):
                first = _candidate(reading.scored, heard.text)
                unknown = self._unlisted(first, grammar)
                if unknown is not None:
                    return unknown
                # not kept where Whisper writes nothing like that player there (UNLIKE)
                # nor where a name the table does not have fits better (DECOY_MARGIN)
                if not self._unlike(first, grammar, self.UNLIKE) and not self._decoyed(
                        first, reading, pcm, grammar, babble):
                    # Whisper's reading is not taken, the first pass's is (FIRST_WEIGHTS)
                    self.last_path = "first-kept"
                    return Recognized(heard.text, kept)
            # asked again anyway: about the player whose name sounds like what Whisper
            # wrote, when the passes disagree (arbitrate); the confidence stays
            asked = self.arbitrate(reading, heard.text)
            self.last_features = {**features, **{k: asked.features[k] for k in (
                "sound_gap", "w_arbitrated", "w_alone_text") if k in asked.features}}
            return self._asked(asked.best, confidence, grammar)
        if confidence < self.ask_below and alone:
            # asked again anyway: about the sentence the first pass fits best (second_asks)
            chosen = self.second_asks(reading)
            if chosen is not None:
                self.last_features = {**features, "w_alone_text": reading.best.text,
                                      "ps_asked": chosen.text}
                return self._asked(chosen, confidence, grammar)
        if confidence >= self.ask_below:
            unknown = self._unlisted(reading.best, grammar)
            if unknown is not None:
                return unknown
            # asked again just under the threshold: a seat number nobody said, a name
            # that sounds like one ("Siobhan" as "seat one", "Niamh" as "nine"), most
            # often of someone not at the table; or, told to say both, the voter's seat
            # and name together heard as another player's than the seat alone read: a
            # "-teen" lost in babble ("number nineteen Emma" read "number nine", Oisin).
            # Not in a quiet room, where the "-teen" is heard and the bench's pair rivals
            # were a short name fitting better than a hard one ("number thirteen anna"
            # over "number three xochitl": 2 of 120 read right)
            if self._seat_unwritten(reading.best, grammar) or (
                    self.PAIR_RIVALS and babble and self.backup.pair_rival(
                        reading, grammar) is not None):
                return self._asked(reading.best, min(confidence, self.ask_below) - 0.01,
                                   grammar)
            margin = self.UNLIKE_MARGIN_ALONE if alone else self.UNLIKE_MARGIN
            if confidence < self.ask_below + margin and self._unlike(
                    reading.best, grammar, self.UNLIKE):
                # barely sure, and Whisper writes nothing like that player there: the
                # vote counts that margin less sure, and is asked again
                confidence -= margin
            if confidence >= self.ask_below and self._decoyed(reading.best, reading, pcm,
                                                              grammar, babble):
                return self._asked(reading.best, self.ask_below - 0.01, grammar)
        if confidence < self.ask_below:
            return self._asked(reading.best, confidence, grammar)
        return Recognized(reading.best.text, confidence)

    def _asked(self, cand: Candidate, confidence: float, grammar: Grammar) -> Recognized:
        """A vote to be asked again about `cand` ("Did you say Diego?"), unless Whisper
        writes there a common first name like no player's (`_unlisted`, UNLISTED_ASKED):
        then the voter hears that the table has no one by that name, not a question
        about someone they did not name."""
        unknown = self._unlisted(cand, grammar) if self.UNLISTED_ASKED else None
        return unknown or Recognized(cand.text, confidence)

    def _seat_unwritten(self, said: str | Candidate, grammar: Grammar) -> bool:
        """`seat_unwritten` of the last read's features, under UNWRITTEN_SEAT (kept in
        the features: `seat_unwritten`), for a reading (its text, or Whisper's
        candidate). Not for a seat said with its player's name (`says_pair`): the rule
        is for a name that sounds like a seat ("Siobhan" as "seat one"), and a pair's
        name must agree with its seat. Round 32, at a table told to say both, both
        halves of the bench: the rule asked again 17 of the 120 quiet pairs, all read
        right, Whisper's transcript having garbled the number ("number nine Oisin" as
        "number high noise in"); without it for pairs, the clean votes by name, the
        votes for a name the table does not have and the table talk read vote for vote
        as before."""
        text = said if isinstance(said, str) else said.text
        if not self.UNWRITTEN_SEAT or not seat_unwritten(self.last_features, text,
                                                         grammar.lang):
            return False
        if isinstance(said, Candidate) and self.backup is not None and \
                self.backup.says_pair(said, grammar):
            return False
        self.last_features["seat_unwritten"] = True
        return True

    def _unlike(self, cand: Candidate | None, grammar: Grammar, apart: float | None
                ) -> bool:
        """What Whisper writes where `cand` names its player, going on from the
        sentence's carrier, sounds like none of the ways the table says that player by
        more than `apart` (`WhisperRecognizer.unlike_player`; the features keep it:
        `w_unlike`)."""
        if cand is None or self.backup is None or apart is None:
            return False
        unlike = self.backup.unlike_player(cand, grammar)
        if unlike is None:
            return False
        # in place: `decide`'s own features, which the question asked again keeps
        self.last_features["w_unlike"] = unlike
        return unlike > apart

    def _decoyed(self, cand: Candidate | None, reading: Reading, pcm: bytes,
                 grammar: Grammar, babble: bool) -> bool:
        """A vote for `cand`'s player about to be counted fits a name the table does not
        have better, by more than DECOY_MARGIN: its player's best sentence of the
        reading, scored again with each decoy in the player's place
        (`WhisperRecognizer.best_decoy`), unless the first pass prefers the reading to
        that decoy's sentence by more than DECOY_VOUCH (`sentence_scores`); or by more
        than DECOY_AGREED_MARGIN where the first pass prefers the decoy's sentence by
        more than DECOY_AGREED. The features keep the best decoy, its margin and the
        first pass's preference: `decoy`, `decoy_margin`, `decoy_ps`. Not in babble; in
        DECOY_LANGS only."""
        if self.DECOY_MARGIN is None or babble or cand is None or cand.player is None \
                or self.backup is None or grammar.lang not in self.DECOY_LANGS:
            return False
        best = next((c for c, _ in reading.scored if c.player == cand.player), cand)
        found = self.backup.best_decoy(best, grammar)
        if found is None:
            return False
        name, margin = found
        self.last_features["decoy"] = name
        self.last_features["decoy_margin"] = round(margin, 3)
        if not self.decoy_asks(margin, -math.inf):  # not even were the first pass to agree
            return False
        return self.decoy_asks(margin, self._decoy_preference(best, name, reading, pcm,
                                                              grammar))

    @classmethod
    def decoy_asks(cls, margin: float, preference: float | None) -> bool:
        """The rule `_decoyed` applies to the best decoy's `margin` over the reading
        and the first pass's `preference` for the reading (None: it has no say)."""
        if cls.DECOY_MARGIN is None:
            return False
        if margin <= cls.DECOY_MARGIN:  # only both models together ask it again
            return cls.DECOY_AGREED_MARGIN is not None \
                and margin > cls.DECOY_AGREED_MARGIN \
                and preference is not None and preference < -cls.DECOY_AGREED
        return cls.DECOY_VOUCH is None or preference is None \
            or preference <= cls.DECOY_VOUCH

    def _decoy_preference(self, best: Candidate, name: str, reading: Reading, pcm: bytes,
                          grammar: Grammar) -> float | None:
        """How much the first pass prefers `best`'s sentence to the same with the decoy
        `name` in the player's place (`sentence_scores`, per frame; kept in the features
        as `decoy_ps`); None where it has no say (no first pass scores the language, or
        it cannot fit one of the two)."""
        score = getattr(self._sentence_scorer(grammar.lang), "sentence_scores", None)
        decoy = self.backup.with_decoy(best, name, grammar) if self.backup else None
        if score is None or decoy is None:
            return None
        # the reading's own score, where the second opinion already has it (same audio)
        known = dict(reading.features.get("ps_scores") or {})
        ps = {**score(pcm, [t for t in (best.text, decoy) if t not in known],
                      grammar.lang), **known}
        if best.text not in ps or decoy not in ps:
            return None
        self.last_features["decoy_ps"] = round(ps[best.text] - ps[decoy], 3)
        return ps[best.text] - ps[decoy]

    def _unlisted(self, cand: Candidate | None, grammar: Grammar) -> Recognized | None:
        """The vote about to be counted, or asked about (`_asked`), is for someone the
        table does not have: Whisper writes a common first name there that sounds like
        no player's
        (`WhisperRecognizer.unlisted_name`). Round 20 (docs/voice.md): of the bench's
        clean votes by name played at a table without that player, 29 % to 35 % were
        counted for someone else ("I'm voting for Henry" as Anna, "vote for Jack" as
        Ben). The sentence with that name instead (`Recognized.unknown`, confidence 0)
        names no player, and the narrator says it knows no one by that name before it
        asks again (round 21); the features keep the name (`unlisted`). None: no such
        name was written."""
        if cand is None or self.backup is None:
            return None
        word = self.backup.unlisted_name(cand, grammar,
                                         str(self.last_features.get("w_heard") or ""))
        if word is None:
            return None
        self.last_path = "unlisted"
        self.last_features = {**self.last_features, "unlisted": word}
        return Recognized(self.backup.naming(cand, word, grammar), 0.0, unknown=word)

    def _talk(self, reading: Reading, heard: Recognized | None,
              first_features: dict[str, Any]) -> None:
        """Table talk: nothing was said to the narrator (the features say so: `outside`)."""
        self.last_path = "backup"
        self.last_features = {**first_features, **reading.features, "outside": True,
                              "first_confidence": heard.confidence if heard else None,
                              "first_text": heard.text if heard else None}

    @classmethod
    def left_unsaid(cls, features: dict[str, Any], text: str,
                    same: tuple[str, ...] = ()) -> bool:
        """The first pass, scoring Whisper's reading `text` in another language
        (second_scores), had to call more than UNSAID_ALONE of the speech silence: the
        sentence is a word of what was said, not what was said (table talk). Where it
        could not fit `text` at all, the best fit of the sentences it scored that mean
        the same vote (`same`) says it: round 18, Polish table talk read as "hanna",
        which the first pass could not fit, while "to hanna" left 0.93 unsaid (the
        reading was counted as a vote, 0.56, once "nikt" competed)."""
        unsaid = features.get("ps_unsaid") or {}
        left = unsaid.get(text)
        if left is None:
            left = min((unsaid[t] for t in same if t in unsaid), default=None)
        return cls.UNSAID_ALONE is not None and left is not None and \
            left > cls.UNSAID_ALONE

    @classmethod
    def vouches(cls, features: dict[str, Any], text: str) -> bool:
        """Where Whisper is alone, the first pass fits its reading `text` to all the
        speech (at most VOUCH_UNSAID of it unsaid) and clearly better than any rival
        meaning (`ps_margin` of VOUCH_MARGIN): the reading is not table talk though
        Whisper's own transcript beats it (OUTSIDE_ALONE), as when both passes agree in
        English."""
        if cls.VOUCH_MARGIN is None:
            return False
        unsaid = (features.get("ps_unsaid") or {}).get(text)
        return unsaid is not None and unsaid <= cls.VOUCH_UNSAID and \
            float(features.get("ps_margin", -10.0)) >= cls.VOUCH_MARGIN

    @classmethod
    def second_asks(cls, reading: Reading) -> Candidate | None:
        """Where Whisper is alone and the vote is asked again: the sentence the first
        pass's second opinion scores best among those it fits to all the speech (at most
        VOUCH_UNSAID unsaid), when it scores it above Whisper's reading and it means
        something else."""
        ps = reading.features.get("ps_scores")
        unsaid = reading.features.get("ps_unsaid") or {}
        if not cls.SECOND_ASKS or not isinstance(ps, dict) or reading.best.text not in ps:
            return None  # no opinion on Whisper's own reading: nothing to prefer it to
        fitted = [t for t in ps if unsaid.get(t, 1.0) <= cls.VOUCH_UNSAID]
        if not fitted:
            return None
        text = max(fitted, key=lambda t: ps[t])
        if ps[text] <= ps[reading.best.text]:
            return None
        chosen = _candidate(reading.scored, text)
        if chosen is None or _meaning(chosen) == _meaning(reading.best):
            return None
        return chosen

    def first_kept(self, reading: Reading, heard: Recognized, features: dict[str, Any]
                   ) -> float | None:
        """The confidence of the first pass's reading where Whisper's is not taken and the
        two read different votes (FIRST_WEIGHTS), if it reaches `ask_below`; else None.
        The features gain Whisper's preference for its own reading (`w_first_gap`)."""
        if self.FIRST_WEIGHTS is None or self.group(features) != "quiet" or \
                self.backup is None:
            return None
        gap = first_gap(reading.scored, heard.text, self.backup.scorer.tokens,
                        self.FIRST_NAME_TOKENS)
        if gap is None:
            return None
        features["w_first_gap"] = gap
        inputs = first_kept_inputs(features)
        weights = self.FIRST_WEIGHTS
        kept = _sigmoid(weights[-1] + sum(w * x for w, x in zip(weights[:-1], inputs,
                                                                 strict=True)))
        features["first_kept"] = kept
        return kept if kept >= self.ask_below else None

    def _checks(self, heard: Recognized | None, agree: bool, reading: Reading,
                grammar: Grammar) -> bool:
        """The first pass is fairly sure (CHECK_ABOVE) and Whisper read the same vote
        (CHECK_AGREE; without it, Whisper heard nothing the first pass cannot hear: no seat
        number said alone, no number the first pass read missing (`_unwritten_seat`), no
        name said alone where the first pass read a carrier and another name
        (`_carried_off`)): its answer stands."""
        if self.CHECK_AGREE:
            return heard is not None and heard.confidence >= self.CHECK_ABOVE and agree
        return heard is not None and heard.confidence >= self.CHECK_ABOVE and (
            agree or not (self.backup._bare_number(grammar.lang, reading.best) or
                          (_names_a_player(reading.scored, heard.text) and
                           self.backup._unwritten_seat(grammar.lang, heard.text, str(
                               reading.features.get("w_heard", "")))) or
                          _carried_off(reading.best, heard.text)))

    def second_scores(self, reading: Reading, heard: Recognized | None, pcm: bytes,
                      grammar: Grammar) -> dict[str, float]:
        """The first pass's own score of Whisper's PS_TOP best sentences and of its own
        reading (PocketSphinx decoding the same audio under each sentence alone:
        `sentence_scores`), kept in the reading's features (`ps_scores`) for the fusion,
        the confidence (`ps_margin`) and the bench."""
        first = self._sentence_scorer(grammar.lang)
        if first is self.first_for(grammar.lang) and self.PS_QUIET_ONLY and noisy(
                getattr(first, "last_features", {}) or {}):
            return {}
        score = getattr(first, "sentence_scores", None)
        if score is None or self.PS_TOP <= 0:
            return {}
        texts = list(dict.fromkeys(c.text for c, _ in reading.scored))
        top = texts[: self.PS_TOP]
        if heard is not None and heard.text in texts and heard.text not in top:
            top.append(heard.text)  # the first pass's own reading always has its say
        ps = score(pcm, top, grammar.lang)
        reading.features["ps_scores"] = ps  # type: ignore[assignment]
        reading.features["ps_unsaid"] = dict(getattr(first, "last_unsaid", {}))  # type: ignore[assignment]
        return ps

    def _sentence_scorer(self, lang: str) -> Recognizer | None:
        """The first pass that scores sentences of `lang` (`sentence_scores`): its own
        language's, or where Whisper is alone the en-US model, which says each word as
        espeak-ng's voice of that language does (`scores_lang`)."""
        first = self.first_for(lang)
        if first is None and self.first is not None and getattr(
                self.first, "scores_lang", lambda lang: False)(lang):
            return self.first
        return first

    def second_opinion(self, reading: Reading, ps: dict[str, float],
                       weight: float | None = None) -> Reading:
        """Each candidate's score taken as Whisper's plus PS_WEIGHT x the first pass's
        (`second_scores`; per frame, under the best of them; a sentence it could not fit,
        PS_FLOOR under the worst). The two models err on different clips: on round 7's
        dump at least one pass read the intended player in 106 of the 112 clean votes the
        back-up decided. A weight of 0 leaves Whisper's reading as it is (`weight`:
        PS_WEIGHT by default; the box gives PS_WEIGHT_ALONE where Whisper is alone)."""
        weight = self.PS_WEIGHT if weight is None else weight
        if not ps:
            return reading
        if not weight:
            reading.features["ps_margin"] = ps_margin(reading.scored, ps, reading.best)
            return reading
        fused = fused_scores(reading.scored, ps, weight, self.PS_FLOOR)
        kept = {k: v for k, v in reading.features.items()
                if k in ("w_best", "w_speeds", "w_outside", "w_heard") or k.startswith("ps_")}
        fused_reading = self.backup._reading(fused, str(kept.get("w_heard", "")))
        fused_reading.features.update(kept)
        fused_reading.features["w_alone_text"] = reading.best.text  # type: ignore[assignment]
        fused_reading.features["ps_margin"] = ps_margin(fused_reading.scored, ps,
                                                        fused_reading.best)
        return fused_reading

    def arbitrate(self, reading: Reading, first_text: str) -> Reading:
        """The first pass's player instead of Whisper's when its name sounds clearly more
        like what Whisper itself wrote down (sound_arbiter); the reading's features say
        so either way (`sound_gap`, `w_arbitrated`)."""
        found = sound_arbiter(reading.scored, reading.best, first_text,
                              str(reading.features.get("w_heard", "")), self.ARBITER_MARGIN)
        if found is None:
            return reading
        chosen, gap = found
        if chosen is None:
            reading.features["sound_gap"] = gap
            return reading
        features = {**reading.features, **reading_features(reading.scored, chosen),
                    "sound_gap": gap, "w_arbitrated": 1.0,
                    "w_alone_text": reading.best.text}
        ps = reading.features.get("ps_scores")
        if isinstance(ps, dict) and ps:
            features["ps_margin"] = ps_margin(reading.scored, ps, chosen)
        return Reading(chosen, float(features["w_share"]), features, reading.scored)

    @classmethod
    def outside(cls, features: dict[str, Any], alone: bool | None = None) -> bool:
        """Outside the grammar (see OUTSIDE); a sentence Whisper clearly prefers to every
        other (margin OUTSIDE_MARGIN) is left to the fitted confidence, if the audio
        supports it at all (OUTSIDE_MARGIN_BEST). `alone`: no
        first pass heard anything (default: as the features say)."""
        if alone is None:
            alone = "first_confidence" in features and features["first_confidence"] is None
        limit = cls.OUTSIDE_ALONE if alone else cls.OUTSIDE
        return (features.get("w_outside", 0.0) > limit
                and features.get("w_best", 0.0) < cls.OUTSIDE_BEST
                and (features.get("w_margin", 0.0) < cls.OUTSIDE_MARGIN
                     or features.get("w_best", 0.0) < cls.OUTSIDE_MARGIN_BEST))

    @classmethod
    def said_more(cls, features: dict[str, Any]) -> bool:
        """More was said than any sentence of the grammar (SAID_MORE): table talk, even if
        a vote's words are in it."""
        def letters(text: Any) -> int:
            return sum(ch.isalnum() for ch in str(text or ""))

        return (features.get("w_outside", 0.0) > cls.SAID_MORE and
                letters(features.get("w_heard")) - letters(features.get("w_text"))
                >= cls.SAID_MORE_LETTERS)

    @staticmethod
    def group(features: dict[str, Any]) -> str:
        """Which fitted weights read these features: "alone" (no first pass: another
        language), "careful" (English in babble, read with care: w_speeds) or "quiet"."""
        if features.get("first_confidence") is None:
            return "alone"
        return "careful" if float(features.get("w_speeds", 1.0)) > 1.0 else "quiet"

    def confidence(self, features: dict[str, Any]) -> float:
        group = self.group(features)
        weights = {"alone": self.ALONE_WEIGHTS, "careful": self.CAREFUL_WEIGHTS,
                   "quiet": self.WEIGHTS}[group]
        inputs = fusion_inputs(features)
        pair = self.PAIR_CAREFUL if group == "careful" and features.get("w_pair_alone") \
            else 0.0
        return _sigmoid(weights[-1] + pair + sum(w * x for w, x in zip(weights[:-1], inputs,
                                                                        strict=True)))

    # enrollment

    def enroll(self, player: str, samples: np.ndarray, lang: str = "en") -> None:
        """Give both passes a player's clip of their own name: Whisper's spellings of it
        become pronunciations for the first pass too."""
        spellings: list[str] = []
        if self.backup is not None and self.backup.supports(lang):
            spellings = self.backup.enroll(player, samples, lang)
        first = self.first_for(lang)
        enroll = getattr(first, "enroll", None)
        if enroll is not None:
            enroll(player, samples, lang, spellings)

    def forget(self, player: str) -> None:
        for part in (self.first, self.backup):
            forget = getattr(part, "forget", None)
            if forget is not None:
                forget(player)


def fused_scores(scored: list[tuple[Candidate, float]], ps: dict[str, float],
                 weight: float, floor: float) -> dict[Candidate, float]:
    """Whisper's score of each candidate plus `weight` x PocketSphinx's per-frame score of
    the same sentence under the best one's (0 for the best; `floor` under the worst for a
    sentence it did not score)."""
    if not ps:
        return dict(scored)
    best, worst = max(ps.values()), min(ps.values())
    return {c: v + weight * (ps.get(c.text, worst - floor) - best) for c, v in scored}


def ps_margin(scored: list[tuple[Candidate, float]], ps: dict[str, float],
              best: Candidate) -> float:
    """The first pass's score of the reading's best sentence against the best sentence
    it scored that means something else, per frame: -10 when it could fit no sentence
    of the reading, 10 when it could fit no rival."""
    mine = _meaning(best)
    own = [ps[c.text] for c, _ in scored if c.text in ps and _meaning(c) == mine]
    rivals = [ps[c.text] for c, _ in scored if c.text in ps and _meaning(c) != mine]
    if not own:
        return -10.0
    return max(own) - max(rivals) if rivals else 10.0


def _candidate(scored: list[tuple[Candidate, float]], text: str) -> Candidate | None:
    """The scored sentence whose text is `text` (the first pass's reading is among the
    candidates: it is the read's hint)."""
    return next((c for c, _ in scored if c.text == text), None)


def seat_unwritten(features: dict[str, Any], text: str, lang: str) -> bool:
    """In a quiet room (TwoPass.group), `text` (a reading) names its player by a seat
    number that Whisper's own transcript (`w_heard`) does not hold (TwoPass.UNWRITTEN_SEAT;
    bench/fit_voice_confidence.py asks the same of its rows)."""
    return TwoPass.group(features) == "quiet" and WhisperRecognizer._unwritten_seat(
        lang, text, str(features.get("w_heard") or ""))


def _names_a_player(scored: list[tuple[Candidate, float]], text: str) -> bool:
    """The sentence `text` is one Whisper scored, and it names a player ("no one" says a
    number and names nobody)."""
    return any(c.text == text and c.player is not None for c, _ in scored)


def _carried_off(best: Candidate, first_text: str) -> bool:
    """Whisper read a name said alone and the first pass a longer sentence (a carrier
    and, the passes disagreeing, another name): the grammar's carriers take in the start
    of a name ("Seersha" read as "shoot jack" at 0.73, "Siobhan" as "shoot oliver" at
    0.74, where Whisper read Saoirse and Siobhan)."""
    from local_voice.grammar import words_of

    return best.player is not None and best.text.split() == [
        w.lower() for w in words_of(best.player)] and len(first_text.split()) > len(
            best.text.split())


def first_reading(scored: list[tuple[Candidate, float]], first_text: str
                  ) -> Candidate | None:
    """The candidate the first pass read, when it names a player and means something
    else than Whisper's best sentence (the first of `scored`, best first)."""
    mine = _candidate(scored, first_text)
    if mine is None or mine.player is None or _meaning(mine) == _meaning(scored[0][0]):
        return None
    return mine


def first_gap(scored: list[tuple[Candidate, float]], first_text: str,
              tokens: Callable[[str], list[int]] | None = None, name_tokens: int = 1
              ) -> float | None:
    """How far Whisper's best sentence scored over its best sentence meaning the first
    pass's vote, in log units (at most 20); None without such a vote (first_reading), or
    when its player's name takes fewer than `name_tokens` of Whisper's `tokens` (a name
    Whisper writes as a word of its own: its reading is to be trusted)."""
    mine = first_reading(scored, first_text)
    if mine is None or (tokens is not None and
                        len(tokens(str(mine.player))) < name_tokens):
        return None
    key = _meaning(mine)
    return min(20.0, scored[0][1] - max(v for c, v in scored if _meaning(c) == key))


def first_kept_inputs(features: dict[str, Any]) -> list[float]:
    """The inputs of the first pass's kept reading (TwoPass.FIRST_WEIGHTS): its own
    confidence, and how far Whisper preferred its own reading (`w_first_gap`)."""
    return [float(features.get("first_confidence") or 0.0),
            float(features.get("w_first_gap", 20.0))]


def _names_by_name(cand: Candidate) -> bool:
    """The candidate names its player by the name itself (not a seat number, not a
    spelling learned from a clip): only such readings are compared by sound."""
    if cand.player is None:
        return False
    words = cand.text.casefold().split()
    return all(w in words for w in cand.player.casefold().split())


def sound_arbiter(scored: list[tuple[Candidate, float]], best: Candidate, first_text: str,
                  transcript: str, margin: float | None
                  ) -> tuple[Candidate | None, float] | None:
    """Whether the first pass's reading should replace Whisper's best (TwoPass
    .ARBITER_MARGIN). None when the passes do not read two players by name (they
    agree, or one reads a number, nobody or no vote); otherwise (the first pass's best
    candidate or None, the sound gap): how much closer the first pass's name sounds to
    Whisper's transcript than Whisper's player's (positive: the first pass's)."""
    from local_voice.phonetics import sounds_apart

    if margin is None or not scored or not transcript.strip():
        return None
    mine = _candidate(scored, first_text)
    if mine is None or not _names_by_name(best) or not _names_by_name(mine) or \
            _meaning(mine) == _meaning(best):
        return None
    gap = sounds_apart(transcript, best.player or "") - sounds_apart(transcript,
                                                                     mine.player or "")
    return (mine if gap > margin else None), gap


def reading_features(scored: list[tuple[Candidate, float]], best: Candidate
                     ) -> dict[str, Any]:
    """A reading's share, margin and best score (as WhisperRecognizer._reading gives
    them) with `best` as its best sentence, whatever its score: its meaning's share of the
    probability, its score over the best rival meaning's (negative when a rival scored
    higher)."""
    values = np.array([v for _, v in scored]) / WhisperRecognizer.TEMPERATURE
    probs = np.exp(values - values.max())
    probs /= probs.sum()
    mine = _meaning(best)
    own = max(v for (c, _), v in zip(scored, values, strict=True) if c == best)
    share = float(sum(p for (c, _), p in zip(scored, probs, strict=True)
                      if _meaning(c) == mine))
    rivals = [v for (c, _), v in zip(scored, values, strict=True) if _meaning(c) != mine]
    return {"w_share": share, "w_margin": min(30.0, float(own - max(rivals)))
            if rivals else 30.0, "w_best": float(own), "w_text": best.text}


def _reading_of(text: str, reading: Any) -> str:
    """What the first pass's text means, in the back-up's terms (the same candidate
    text, or its player)."""
    for cand, _ in reading.scored:
        if cand.text == text:
            return _meaning(cand)
    return f"text:{text}"


class _NoFirstPass:
    """The first pass of a language it has no model for: it hears nothing."""

    def feed(self, pcm: bytes) -> None:
        pass

    def settle(self, after: float = 0.0) -> None:
        pass

    def unsettle(self) -> None:
        pass

    def finish(self) -> None:
        return None


class TwoPassUtterance:
    """The first pass streamed while the person speaks; at the pause hint (or the end),
    if it is unsure, Whisper reads the whole utterance: during the VAD's trailing silence
    when the pause hint comes. In babble, where the VAD hears no silence, the answer is
    worked out as soon as the loudest talker has stopped (`babble_end`), while the
    chatter goes on, and kept if the utterance, when the VAD ends it, is cut there too."""

    # Whisper alone wants the VAD's pause hint SETTLE_ALONE seconds after the speech
    # stops, not the VAD's 0.3 (None: the VAD's own): its reading (about 0.7 s on 2 x86
    # cores) takes longer than the trailing silence, and what starts sooner is hidden in
    # that silence, 330 ms instead of 180. Round 17, the French day vote (voice_latency.py
    # --lang fr), end of speech to the answer: p90 747-803 -> 455-678 ms with this alone,
    # 457-470 with the speeds in one batch too. A pause of 0.15-0.3 s inside a vote now
    # costs a reading thrown away (none did on the bench's voices); English, whose first
    # pass concludes at the hint and whose latency targets are met, keeps the VAD's 0.3 s.
    SETTLE_ALONE: ClassVar[float | None] = 0.15
    # In babble the vote is over HOLD_BABBLE frames of 10 ms after the cut (`done`), 0.9 s
    # after the talker's last loud frame in all, when the answer worked out there is one
    # the narrator takes, said with a carrier (`_carried`): at a real table the chatter
    # goes on, and the VAD, which hears it as speech, would end the utterance only when
    # the table pauses, or after `max_seconds` (10 s). An answer it would ask about, or a
    # bare name, waits for the VAD as before: the chatter before a vote is cut now and
    # then (the bench's babble-late: 5 of 97 clips), and is read as nothing, asked about,
    # or a sure bare name or seat (2 of 194 clips, counted wrong). The answer, worked out
    # at the cut in 0.5-0.9 s (2 cores), comes as soon with 0.5 s as with 0.9 s (the VAD's
    # own trailing silence); the longer hold is a talker's longer pause within the vote,
    # where the chatter's level is all the box goes by (voice_latency.py --babble: the end
    # of speech to the answer, p90 800 ms with 20 frames, 383 with 60; from the talker's
    # last sound, 1,767 and 1,718 ms). None: the VAD alone ends it (round 29).
    HOLD_BABBLE: ClassVar[int | None] = 60
    # At most this many answers are worked out while the chatter goes on, each where the
    # cut then was: a cut that keeps moving is the chatter taken for the talker (its
    # peaks within TRIM_DB of them), and each answer thrown away holds up the microphone
    # by a babble reading's 0.5-0.9 s (2 cores). After that, the answer is worked out at
    # the end of the utterance, as before round 28. The bench's votes with 2.5 s of
    # chatter after them (voice_latency.py --babble --chatter 2.5) had up to 3 a vote,
    # and round 28's code answered up to 5.4 s after the end of speech; now 1.4 s, with
    # the talker's span no longer starting in the chatter (round 29).
    SPECULATE_MAX: ClassVar[int] = 2

    def __init__(self, owner: TwoPass, inner: Any, grammar: Grammar):
        self.owner, self.inner, self.grammar = owner, inner, grammar
        self._pcm: list[bytes] = []
        self._result: tuple[Recognized | None] | None = None
        # the babble cut the result was worked out for (None: the utterance whole)
        self._cut: int | None = None
        self._alone = isinstance(inner, _NoFirstPass)
        # how soon it wants the pause hint (Listening.settle_after; None: the VAD's own)
        self.settle_after = self.SETTLE_ALONE if self._alone else None
        self._cuts = owner.CUT_BABBLE and not self._alone and hasattr(inner, "conclude_at")
        self._now: int | None = None  # where the utterance so far is cut (None: nowhere)
        self._speculated = 0  # answers worked out while the chatter went on

    def feed(self, pcm: bytes) -> None:
        self._pcm.append(pcm)
        self.inner.feed(pcm)
        if self._cuts:
            cut = self._now = babble_end(self.inner.energy)
            if cut is not None and cut != self._cut and \
                    self._speculated < self.SPECULATE_MAX:
                # the talker has stopped, the chatter goes on: the answer for the
                # utterance cut there, now (worked out again if they speak again)
                self._speculated += 1
                self._answer_at(cut)

    def done(self) -> bool:
        """In babble, the vote is over though the chatter goes on (HOLD_BABBLE): the
        utterance has been cut at the same place for that long, and the answer worked out
        there is one the narrator takes (a reading of the grammar at least `ask_below`
        sure, not a name the table does not have) and says a name with a carrier
        (`_carried`)."""
        if self.HOLD_BABBLE is None or self._now is None or self._now != self._cut or \
                self._result is None or len(self.inner.energy) < self._now + self.HOLD_BABBLE:
            return False
        answer = self._result[0]
        return answer is not None and answer.unknown is None and \
            answer.confidence >= self.owner.ask_below and self._carried(answer.text)

    def _carried(self, text: str) -> bool:
        """`text` is a sentence of the grammar that says a name with words of its own ("i
        vote for anna", not "anna", "seat one" or "nobody"): the chatter before a vote is
        read as a bare name or number now and then, sure enough to count (the bench's
        babble-late: "anna" at 0.73 and "seat one" at 0.53 before "vote for Siobhan" and
        "I'm voting for Saoirse", 2 of 194 clips, each ended there as a wrong vote), and
        as a carrier only unsure (round 29)."""
        words = text.split()
        for carrier in self.grammar.carriers():
            before, slot, after = carrier.partition("PLAYER")
            head, tail = before.split(), after.split()
            if slot and (head or tail) and len(words) > len(head) + len(tail) and \
                    words[: len(head)] == head and words[len(words) - len(tail):] == tail:
                return True
        return False

    def settle(self, after: float = 0.0) -> None:
        self.inner.settle(after)
        if self._result is None:
            # Whisper alone reads the utterance as it will be at the end of speech: with
            # the `after` seconds of silence the VAD still waits for after its hint.
            # Round 16, the bench's six languages on the live path (voice_accuracy.py
            # --stream --step 2): read without them, 6 fewer votes of 288 were right than
            # read at the end of speech (the first pass's per-frame scores of the second
            # opinion moved); with them, 1 fewer (a Finnish vote at the threshold: 0.4999
            # there, 0.5001 here)
            self._cut = None
            self._result = (self._decide(after if self._alone else 0.0),)

    def unsettle(self) -> None:
        self.inner.unsettle()
        if self._cut is None:
            self._result = None

    def finish(self) -> Recognized | None:
        if self._cuts:
            cut = babble_end(self.inner.energy)
            if cut is not None or self._cut is not None:
                # cut where the answer was worked out, or elsewhere; or cut before and
                # whole after all (the talker spoke again to the end)
                self._answer_at(cut)
        if self._result is None:
            self._result = (self._decide(),)
        return self._result[0]

    def _answer_at(self, cut: int | None) -> None:
        """The answer for the utterance cut at `cut` (None: whole), unless it is the one
        already worked out."""
        if self._result is None or self._cut != cut:
            self._cut = cut
            self._result = (self._decide_at(cut),)

    def _decide_at(self, cut: int | None) -> Recognized | None:
        """The answer for the utterance cut at `cut` frames of 10 ms (None: whole)."""
        heard = self.inner.conclude_at(cut)
        pcm = b"".join(self._pcm)
        return self._owner_decide(heard, pcm if cut is None else pcm[: cut * Utterance.FRAME])

    def _decide(self, silence: float = 0.0) -> Recognized | None:
        heard = self.inner.finish()
        pcm = b"".join(self._pcm) + bytes(2 * int(silence * SAMPLE_RATE))
        return self._owner_decide(heard, pcm)

    def _owner_decide(self, heard: Recognized | None, pcm: bytes) -> Recognized | None:
        first = self.owner.first_for(self.grammar.lang)
        features = dict(getattr(first, "last_features", {}) or {})
        return self.owner.decide(heard, features, pcm, self.grammar)
