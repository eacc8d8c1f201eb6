"""The name dialogue of a box that listens, end to end: the real Box over the real phone
relay and an SQLite store, the real recognisers (PocketSphinx and Whisper tiny.en) on
synthesised speech, Piper as the box's voice.

A box with ears tells the narrator so (Host "ears"); each player who joins by phone is
asked aloud to say their name, and the box records the clip, keeps it for the table and
learns it. Later, at the day vote, a vote for that player said the way the table says
the name ("I vote for Seersha" for Saoirse, "I vote for Shivawn" for Siobhan) is counted at
once, for that player, with no question asked.
"""

from __future__ import annotations

import random
from collections.abc import Collection
from pathlib import Path
from typing import Any

import pytest

from local_voice.box import Box, VoiceMouth
from local_voice.enrollment import Voiceprints
from local_voice.hearing import EXPECT, understand_audio
from local_voice.voices import Audio, CachedVoice
from narrator import Heard, Host, Listen, Tick
from phones.relay import Relay, handle
from store import open_store
from tests.voice_fixtures import padded, piper, speech

# name -> how the table (and the player) says it
SAID = {"Siobhan": "Shivawn", "Saoirse": "Seersha"}
TABLE = ["Siobhan", "Ana", "Saoirse", "Ben", "Cal"]
CLIP_VOICE = "en-us+f2"  # the player saying their own name
# someone else voting for them (round 15's box hears en-us+m3's "I vote for Seersha" as
# Saoirse without her clip, 0.61: the first pass's reading of a name Whisper cannot write)
VOTER_VOICE = "en-gb"


@pytest.fixture(scope="module")
def wavs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("names-wavs")


@pytest.fixture(scope="module")
def recognizer() -> Any:
    from local_voice.recognizers import make_recognizer

    return make_recognizer("pocketsphinx", whisper_model="tiny.en")


class Table:
    """The players around the box: each says their own name when the box listens for it
    (Listen with no intents, naming them), and otherwise what is queued next."""

    def __init__(self, wavs: Path):
        self.wavs = wavs
        self.next: list[Audio] = []
        self.asked_names: list[str] = []

    def utterance(self, listen: Listen, timeout: float) -> Audio | None:
        if not listen.intents and listen.player:
            self.asked_names.append(listen.player)
            said = SAID.get(listen.player, listen.player)
            return padded(speech(self.wavs, said, CLIP_VOICE), 0.3, 0.3)
        return self.next.pop(0) if self.next else None


class Spoken:
    """The box's real mouth (Piper through the disk cache); what it says is kept."""

    def __init__(self, cache: Path):
        self.mouth = VoiceMouth(CachedVoice(piper(), cache), lambda audio: None)

    @property
    def texts(self) -> list[str]:
        return self.mouth.log

    def say(self, sentences: list[tuple[str, float]]) -> None:
        self.mouth.say(sentences)


def _to_the_vote(relay: Relay, game_id: str, links: dict[str, str],
                 spare: Collection[str] = tuple(SAID)) -> None:
    """The night through the phones, no one in `spare` chosen (by default the two players
    voted for later); then the day vote."""
    handle(relay, game_id, Heard("StartGameIntent"))
    handle(relay, game_id, Heard("ReadyIntent"))
    rng = random.Random(5)
    for _ in range(200):
        narrator = relay.session(game_id).narrator
        if narrator.phase != "night":
            break
        sent = 0
        for player, token in links.items():
            turn = relay.player_view(token, f"device-{player}").get("turn")
            if not turn or not turn["targets"]:
                continue
            pick = [t for t in turn["targets"] if t not in spare] or turn["targets"]
            relay.choose(token, f"device-{player}", turn["verb"], rng.choice(pick))
            sent += 1
        if not sent and narrator.timer is not None:
            handle(relay, game_id, Tick(narrator.timer))
    handle(relay, game_id, Heard("SkipClockIntent"))
    assert relay.session(game_id).narrator.phase == "vote"


def test_a_name_learned_at_join_is_heard_at_the_vote(tmp_path, wavs, recognizer,
                                                     shared_voice_cache):
    # without the player's clip, "I vote for Seersha" is never a vote for someone else
    # (until round 19 it was asked again, 0.30 by this voice; Whisper now also scores
    # "Sersha", Saoirse as English spells how she is said, and it is right without one)
    seersha = padded(speech(wavs, f"I vote for {SAID['Saoirse']}", VOTER_VOICE), 0.4, 0.4)
    before = understand_audio(seersha, recognizer, "en", TABLE, EXPECT["vote"])
    assert before.player == "Saoirse" or before.confidence < 0.5, before

    store = open_store(f"sqlite:///{tmp_path / 'games.db'}")
    relay = Relay(store, call_pause=0.5)
    code, _ = relay.create_room("en")
    game_id = store.lookup(f"room:{code}")
    table, mouth = Table(wavs), Spoken(shared_voice_cache)
    prints = Voiceprints.for_game(game_id, data_dir=tmp_path / "data")
    box = Box(relay, game_id, table, mouth, recognizer, "en", voiceprints=prints,
              clock=lambda: 0.0)
    try:
        handle(relay, game_id, Host("ears", True))  # what `wolfvillage box` does
        box.spoken = relay.session(game_id).version
        links = {}
        for name in TABLE:  # each joins on their phone; the box asks and records
            links[name] = relay.join(code, name)
            box.catch_up()
        seat = TABLE.index("Siobhan") + 1
        assert f"Welcome, Siobhan: you are number {seat}." in mouth.texts
        assert "Siobhan, please say your name once, the way everyone here says it." in \
            mouth.texts
        assert table.asked_names == TABLE
        assert prints.names() == sorted(TABLE)  # kept for this table, in the data folder
        assert (prints.folder / "Saoirse.wav").is_file()

        _to_the_vote(relay, game_id, links)
        box.spoken = relay.session(game_id).version
        voted: dict[str, str] = {}
        for _ in range(len(TABLE)):
            narrator = relay.session(game_id).narrator
            listen = narrator.listening()
            if narrator.phase != "vote" or listen is None or len(voted) == len(SAID):
                break
            voter = listen.player
            target = next(n for n in SAID if n != voter and n not in voted.values()
                          and n in narrator.game.alive_names())
            table.next.append(padded(speech(wavs, f"I vote for {SAID[target]}",
                                            VOTER_VOICE), 0.4, 0.4))
            box.step()
            heard = box.heard[-1]
            assert heard.player == target and heard.confidence >= 0.5, heard
            # counted at once: no "Was that number ...?" before it
            assert relay.session(game_id).narrator.actions[-1] == [voter, "vote", target]
            box.catch_up()
            assert not any(t.startswith("Was that number") for t in mouth.texts)
            voted[voter] = target
        assert sorted(voted.values()) == sorted(SAID)
    finally:
        for name in TABLE:
            box.forget_name(name)
        store.close()
