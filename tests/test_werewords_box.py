"""The offline narrator box runs a whole Werewords game, with real audio and no mocks.

The real `Box` loop over the real phone relay and store, as tests/test_box.py does for Wolf
Village: its mouth is Piper writing WAV files, its ears the table saying its answers with
Piper and espeak-ng voices, through the real VAD, PocketSphinx and the matcher. The mayor
chooses the word and taps the tokens on the phone (through the relay); the box says every
token aloud, keeps the day's timer and its warnings on the time it lets pass, and hears
"ready", "whoops", "we are ready" and every pointing by voice.
"""

from __future__ import annotations

import itertools
import random
from pathlib import Path
from typing import Any

import pytest

from local_voice.box import YES_NO, Box
from local_voice.recognizers import PocketSphinxRecognizer
from local_voice.voices import Audio
from narrator import Host, Listen
from phones.relay import Relay, handle
from phones.web import create_app
from speech import line
from store import open_store
from tests.test_box import WavMouth
from tests.voice_fixtures import SPEAKERS, is_valid_wav, speech

NAMES = ["Ana", "Ben", "Tamsin", "Cal", "Dora"]
MAX_STEPS = 2500


@pytest.fixture(scope="module")
def speech_dir(shared_speech: Path) -> Path:
    return shared_speech


@pytest.fixture(scope="module")
def voice_cache(shared_voice_cache: Path) -> Path:
    return shared_voice_cache


@pytest.fixture(scope="module")
def recognizer() -> PocketSphinxRecognizer:
    return PocketSphinxRecognizer()


class Table:
    """The players around the box: what they say when the narrator asks."""

    def __init__(self, relay: Relay, game_id: str, mouth: WavMouth, folder: Path):
        self.relay, self.game_id, self.mouth, self.folder = relay, game_id, mouth, folder
        self.rng = random.Random(3)
        self.said: list[tuple[str, str | None, str | None]] = []  # (text, asked, meant)
        self.whoops_said = False
        self.turn = 0

    def narrator(self) -> Any:
        return self.relay.session(self.game_id).narrator

    def utterance(self, listen: Listen, timeout: float) -> Audio | None:
        last = self.mouth.texts[-1] if self.mouth.texts else ""
        if listen.intents == YES_NO and last.startswith("Did you say"):
            meant = self.said[-1][2] or self.said[-1][0]
            return self.voice("yes" if meant.casefold() in last.casefold() else "no")
        n = self.narrator()
        meant = None
        if n.phase == "lobby":
            text = "start the game"
        elif n.phase == "reveal":
            text = "ready"
        elif n.phase == "ww_discuss" and not self.whoops_said:
            # the mayor tapped correct too late: the host's "whoops" turns it into a guess
            self.whoops_said = True
            text = "whoops"
        elif n.phase == "ww_discuss":
            text = "we are ready"
        elif listen.player is not None:
            meant = self.rng.choice(sorted(listen.names))
            text = self.rng.choice(["I point at {}", "{}", "{} is the seer"]).format(meant)
        else:
            return None
        self.said.append((text, listen.player, meant))
        return self.voice(text)

    def voice(self, text: str) -> Audio:
        speaker = SPEAKERS[self.turn % len(SPEAKERS)]
        self.turn += 1
        return speech(self.folder, text, speaker)


def mayor_phone(relay: Relay, game_id: str, links: dict[str, str], given: list[Any]) -> None:
    """The mayor's phone: the first word offered, then three tokens, one at a time."""
    n = relay.session(game_id).narrator
    mayor = n.game.mayor_name
    view = relay.player_view(links[mayor], f"device-{mayor}")
    turn = view.get("turn")
    if not turn or (view.get("private") or {}).get("held"):
        return
    if turn["verb"] == "choose_word":
        relay.choose(links[mayor], f"device-{mayor}", "choose_word", turn["targets"][0])
    elif turn["verb"] == "answer" and len(given) < 3:
        others = [p for p in n.game.players if p != mayor]
        target = {"to": others[len(given)], "token": ["yes", "no", "maybe"][len(given)]}
        relay.choose(links[mayor], f"device-{mayor}", "answer", target)
        given.append(target)


def test_a_whole_werewords_game_by_voice_on_the_box(tmp_path, voice_cache, speech_dir,
                                                     recognizer):
    store = open_store(f"sqlite:///{tmp_path / 'games.db'}")
    app = create_app(store, CALL_PAUSE=2.0)
    relay: Relay = app.extensions["wolfvillage_relay"]
    code, _host = relay.create_room("en")
    game_id = store.lookup(f"room:{code}")
    links = {name: relay.join(code, name) for name in NAMES}
    # the host's set-up (the host's page would send these)
    for command in (Host("game", "werewords"), Host("option", ["day_seconds", 120])):
        assert handle(relay, game_id, command).accepted
    mouth = WavMouth(tmp_path / "spoken", voice_cache, list(NAMES))
    ears = Table(relay, game_id, mouth, speech_dir)
    # time passes for the box only when it looks at its clock (while a timer runs)
    box = Box(relay, game_id, ears, mouth, recognizer, "en",
              clock=itertools.count(0.0, 1.0).__next__)
    given: list[Any] = []
    for _ in range(MAX_STEPS):
        narrator = relay.session(game_id).narrator
        if narrator.phase == "over":
            box.catch_up()
            break
        if narrator.phase in ("night", "ww_day"):
            box.catch_up()
            mayor_phone(relay, game_id, links, given)
        box.step()
    else:
        pytest.fail(f"the game did not end: {mouth.texts[-8:]}")

    texts = mouth.texts
    game = relay.session(game_id).narrator.game
    mayor = game.mayor_name
    others = [p for p in game.players if p != mayor]
    assert line("en", "ww_night_falls") in texts
    assert line("en", "ww_wake_mayor") in texts and line("en", "ww_wake_seer") in texts
    # the tokens were said aloud, with the player who asked, in the order they were given
    spoken_tokens = [t for t in texts if t in (f"Yes, {others[0]}.", f"No, {others[1]}.",
                                                 f"Maybe, {others[2]}.")]
    assert spoken_tokens == [f"Yes, {others[0]}.", f"No, {others[1]}.", f"Maybe, {others[2]}."]
    assert texts.index("One minute left!") < texts.index("Ten seconds!") < texts.index(
        line("en", "ww_time_up"))
    assert line("en", "ww_whoops_guessed") in texts  # "whoops" was heard
    assert game.ending == "guessed" and game.winner is not None
    assert any(t.startswith("The magic word was: ") for t in texts)
    # every pointing the log holds is what its player meant
    stored = relay.store.load(game_id).entries
    heard = [e for e in stored if e.get("type") == "heard"]
    pointed = [e for e in heard if e["intent"] in ("PointIntent", "VoteIntent")]
    meant = [(asked, target) for _, asked, target in ears.said if target is not None]
    assert pointed and [(e["speaker"], e["slots"]["player"]) for e in pointed] == meant[
        -len(pointed):]
    assert {e["intent"] for e in heard} >= {"StartGameIntent", "ReadyIntent", "WhoopsIntent"}
    assert box.spoken == box.session().version  # everything was told
    written = [path for text, path in mouth.files if text]
    assert written and all(is_valid_wav(path, min_seconds=0.2) for path in written)
