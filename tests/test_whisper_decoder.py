"""Whisper's decoder in NumPy over a prefix tree of sentences (local_voice.whisper_decoder):
the same scores as CTranslate2's own `Whisper.align`, on the real models and real speech,
for the English tiny.en and the multilingual base, in one tree or in parts."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

from local_voice.voices import EspeakVoice
from local_voice.whisper import WhisperScorer, log_mel, model_dir, tiny_en_dir
from local_voice.whisper_decoder import END_OF_TEXT, TreeDecoder, Trie, read_decoder
from tests.voice_fixtures import padded

NAMES = ["Tamsin", "Siobhan", "Xochitl", "Ignatius", "Aoife", "Niamh", "Saoirse", "Tadhg",
         "Oisin", "Eilidh", "Sam", "Ben", "Anna", "Mark", "Lucy", "Grace", "Oliver", "Henry",
         "Emma", "Jack"]


def _clip(text: str, lang: str, variant: str = "") -> np.ndarray:
    audio = EspeakVoice(lang, variant).synthesize(text).resampled(16000)
    return padded(audio, 0.3, 1.0).samples


def _both(path: Path, samples: np.ndarray, lang: str, texts: list[str], end: bool = True
          ) -> tuple[list[float], list[float]]:
    """Each text scored by `align` (float32, so that no quantisation differs) and by the
    tree, on the same encoder output."""
    align = WhisperScorer(path, compute_type="float32", scoring="align")
    tree = WhisperScorer(path, compute_type="float32", scoring="tree-align")
    encoded = align.encode(samples)
    frames = log_mel(samples, align.n_mels).shape[1]
    return (align.log_probs(encoded, frames, lang, texts, end),
            tree.log_probs(encoded, frames, lang, texts, end))


def test_the_tree_gives_aligns_scores_for_a_vote_in_english():
    samples = _clip("I vote for Oliver", "en", "m7")
    texts = [f"{carrier} {name}" for carrier in ("I vote for", "Vote for", "My vote goes to")
             for name in NAMES] + NAMES + ["Nobody", "Skip", "Seat 3", "I vote for number 12"]
    want, got = _both(tiny_en_dir(), samples, "en", texts)
    assert np.allclose(want, got, atol=2e-3), max(abs(a - b) for a, b in zip(want, got,
                                                                              strict=True))
    # and it is still a reading: in the carrier said, the name said scores best
    assert NAMES[int(np.argmax(got[: len(NAMES)]))] == "Oliver"


def test_the_tree_gives_aligns_scores_for_a_beginning_in_german(tmp_path_factory):
    base = model_dir("base", tmp_path_factory.mktemp("models"))
    samples = _clip("ich stimme für Anna", "de")
    texts = ["ich stimme für", "ich wähle", "meine Stimme geht an", "Stimme für"]
    want, got = _both(base, samples, "de", texts, end=False)
    assert np.allclose(want, got, atol=2e-3)


def test_a_tree_too_big_for_one_part_is_scored_in_parts_alike():
    scorer = WhisperScorer(tiny_en_dir(), compute_type="float32")
    samples = _clip("vote for Grace", "en", "f2")
    encoded = scorer.encode(samples)
    frames = log_mel(samples, scorer.n_mels).shape[1]
    texts = [f"{carrier} {name}" for carrier in ("vote for", "I vote for") for name in NAMES]
    whole = scorer.log_probs(encoded, frames, "en", texts)
    scorer.decoder.MAX_NODES = 40  # a few sentences a part
    parts = scorer.log_probs(encoded, frames, "en", texts)
    assert np.allclose(whole, parts, atol=1e-4)


def test_sentences_share_their_beginning_in_the_trie():
    trie = Trie.of([[1, 2, 3, 10], [1, 2, 3, 11, 12], [1, 2, 4], [1, 2, 3, 10]])
    assert len(trie.token) == 7  # 1 2 3 10 11 12 4: the repeated sentence adds nothing
    assert trie.ends[0] == trie.ends[3]
    mask = trie.ancestry()
    twelve = trie.ends[1][-1]
    # 12 attends to 1 2 3 11 and itself, not to 10 nor 4
    assert sorted(np.flatnonzero(mask[twelve])) == sorted(trie.ends[1])
    assert mask.sum() == sum(d + 1 for d in trie.depth)


def test_the_decoder_reads_only_the_decoders_weights(tmp_path):
    weights = read_decoder(tiny_en_dir() / "model.bin")
    assert weights["embeddings/weight"].shape == (51864, 384)
    assert weights["embeddings/weight"].dtype == np.float32
    assert not any(k.startswith("encoder") for k in weights)
    old = tmp_path / "model.bin"
    old.write_bytes(struct.pack("I", 3) + b"\0" * 16)
    with pytest.raises(ValueError, match="too old"):
        read_decoder(old)


def test_an_unknown_scoring_is_a_clear_error():
    with pytest.raises(ValueError, match="tree, tree-align, align"):
        WhisperScorer(tiny_en_dir(), scoring="fast")


def test_as_align_the_end_of_text_counts_its_floor():
    # align gives the end of text no probability (its softmax is over text tokens): a
    # whole sentence is its beginning plus that floor
    scorer = WhisperScorer(tiny_en_dir(), scoring="tree-align")
    samples = _clip("Nobody", "en")
    encoded = scorer.encode(samples)
    frames = log_mel(samples, scorer.n_mels).shape[1]
    texts = ["Nobody", "I vote for Emma"]
    whole = scorer.log_probs(encoded, frames, "en", texts)
    begun = scorer.log_probs(encoded, frames, "en", texts, end=False)
    assert np.allclose(np.subtract(whole, begun), END_OF_TEXT)
    assert isinstance(scorer.decoder, TreeDecoder)


def test_read_as_the_model_reads_a_name_cut_short_loses_to_the_whole_name():
    # with the end of text scored, a sentence that stops before the audio does is
    # unlikely; with align's floor, the shorter sentence wins for having fewer tokens
    samples = _clip("I vote for Ignatius", "en", "m7")
    texts = ["I vote for Ignatius", "I vote for Ign"]
    scores = {}
    for scoring in ("tree", "tree-align"):
        scorer = WhisperScorer(tiny_en_dir(), scoring=scoring)
        encoded = scorer.encode(samples)
        frames = log_mel(samples, scorer.n_mels).shape[1]
        scores[scoring] = scorer.log_probs(encoded, frames, "en", texts)
    assert scores["tree"][0] > scores["tree"][1]
    assert scores["tree-align"][0] < scores["tree-align"][1]
    assert scores["tree"][0] > END_OF_TEXT  # a real probability, not the floor


def test_silence_scored_in_the_same_tree_as_the_audio_is_scored_alike():
    # sentences not yet scored on silence go into the utterance's tree (one pass of the
    # model): the scores are those of two separate passes
    samples = _clip("my vote goes to Emma", "en", "f3")
    texts = ["My vote goes to Emma", "My vote goes to Anna", "Emma", "Skip"]
    together = WhisperScorer(tiny_en_dir())
    encoded = together.encode(samples)
    frames = log_mel(samples, together.n_mels).shape[1]
    heard, quiet = together.against_silence(encoded, frames, "en", texts)
    apart = WhisperScorer(tiny_en_dir())
    assert np.allclose(heard, apart.log_probs(encoded, frames, "en", texts), atol=1e-4)
    assert np.allclose(quiet, apart.silence_log_probs("en", texts), atol=1e-4)
    # and the silence is remembered: asked again, only the audio is scored
    assert together.against_silence(encoded, frames, "en", texts[:2])[1] == quiet[:2]


def test_audios_encoded_together_and_scored_in_one_tree_score_as_one_by_one():
    """Reading with care hears the utterance at two other speeds (CAREFUL_SPEEDS): both
    are encoded in one batch (`encode_all`; audios of another length in a batch of their
    own) and their sentences scored in one tree (`log_probs_under`). The scores are those
    of encoding and scoring each audio alone, to rounding, on the real base model."""
    from local_voice.whisper import sped_up

    samples = _clip("je vote pour Camille", "fr")

    def four_seconds(audio: np.ndarray) -> np.ndarray:  # as the recogniser pads them
        return np.pad(audio, (0, 4 * 16000 - len(audio)))

    audios = [four_seconds(sped_up(samples, 0.92)), four_seconds(sped_up(samples, 1.08)),
              samples[: len(samples) // 2]]
    texts = ["Je vote pour Camille", "Je vote pour Chloé", "Camille", "Personne"]
    scorer = WhisperScorer(model_dir("base"))
    together = scorer.encode_all(audios)
    assert [frames for _, frames in together] == [log_mel(a, scorer.n_mels).shape[1]
                                                  for a in audios]
    under = scorer.log_probs_under(together, "fr", texts)
    for audio, (encoded, frames), scores in zip(audios, together, under, strict=True):
        alone = scorer.encode(audio)
        # the encoder's outputs (up to 22 in size) differ in a batch by under 1e-4 on an
        # AMD EPYC and 1.8e-4 on an Intel Xeon (another summation order); the scores by
        # under 2e-5
        assert np.allclose(np.asarray(encoded), np.asarray(alone), atol=1e-3)
        assert np.allclose(scores, scorer.log_probs(alone, frames, "fr", texts), atol=1e-3)
    # the sentence said is the best under every audio but the half cut off
    assert all(int(np.argmax(s)) == 0 for s in under[:2]), under
