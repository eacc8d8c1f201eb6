"""One Night on the offline box: a whole game with real audio and no mocks (issue 13).

The real `Box` loop runs over the real phone relay and store, as in tests/test_box.py for
Wolf Village. Its mouth is Piper writing every sentence to a WAV file; its ears are the
table, answering the narrator's question aloud with Piper and espeak-ng voices (with noise
and silence around it at times): "let's play One Night", "start the game", "ready", "we
are ready to vote", then each player's pointing by roll call ("I point at Ana", "Ana",
"number three"). That audio goes through the real VAD, PocketSphinx and the matcher into
the narrator. The night's secret choices come through the relay, as phones send them. The
box has no game flow of its own: it runs One Night through the same cues.
"""

from __future__ import annotations

import itertools
import random
from pathlib import Path
from typing import Any

import pytest

from local_voice.box import Box
from local_voice.recognizers import PocketSphinxRecognizer
from local_voice.voices import Audio
from narrator import Listen
from phones.relay import Relay
from phones.web import create_app
from speech import line
from speech.understanding import NUMBER_WORDS
from store import open_store
from tests.test_box import Said, TableEars, WavMouth, drive_phones, is_valid_wav

MAX_STEPS = 500
POINTED = ("VoteIntent",)


@pytest.fixture(scope="module")
def recognizer() -> PocketSphinxRecognizer:
    return PocketSphinxRecognizer()


class OneNightTable(TableEars):
    """The players around the box, playing One Night."""

    def decide(self, listen: Listen) -> tuple[str, str, str | None, tuple[str, ...]]:
        n = self.narrator()
        rng = self.rng
        if n.phase == "lobby":
            if n.config.ruleset != "one-night":
                return "let's play one night", "intent", None, ("GameIntent",)
            return "start the game", "intent", None, ("StartGameIntent",)
        if n.phase == "reveal":
            return "ready", "intent", None, ("ReadyIntent", "AMAZON.YesIntent")
        if n.phase == "debate":
            return "we are ready to vote", "intent", None, ("SkipClockIntent", "ReadyIntent")
        voter = listen.player
        assert n.phase == "vote" and voter is not None, (n.phase, listen)
        target = rng.choice([p for p in n.game.players if p != voter])
        seat = n.game.players.index(target) + 1
        said = rng.choice(["I point at {}", "{}", "I'm pointing at {}", "I vote for {}"]
                          ).format(target)
        if rng.random() < 0.15:
            said = f"number {NUMBER_WORDS['en'][seat]}"
        return said, "name", target, POINTED


def test_a_whole_one_night_game_by_voice(tmp_path: Path, recognizer: Any, shared_voice_cache: Path,
                                         shared_speech: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'games.db'}")
    app = create_app(store, CALL_PAUSE=0.5)
    relay: Relay = app.extensions["wolfvillage_relay"]
    code, _host = relay.create_room("en")
    game_id = store.lookup(f"room:{code}")
    names = ["Ana", "Ben", "Tamsin", "Cal", "Dora"]
    links = {name: relay.join(code, name) for name in names}
    mouth = WavMouth(tmp_path / "spoken", shared_voice_cache, list(names))
    ears = OneNightTable(relay, game_id, mouth, shared_speech, seed=13)
    box = Box(relay, game_id, ears, mouth, recognizer, "en",
              clock=itertools.count(0.0, 0.25).__next__)
    rng = random.Random(14)
    seen_phases: list[str] = []
    for _ in range(MAX_STEPS):
        narrator = relay.session(game_id).narrator
        if not seen_phases or seen_phases[-1] != narrator.phase:
            seen_phases.append(narrator.phase)
        if narrator.phase == "over":
            box.catch_up()
            break
        if narrator.phase != "lobby" and narrator.listening() is None:
            box.catch_up()
            drive_phones(relay, game_id, links, rng)
        box.step()
    else:
        pytest.fail(f"the game did not end in {MAX_STEPS} steps: {mouth.texts[-8:]}")

    narrator = relay.session(game_id).narrator
    assert narrator.config.ruleset == "one-night" and narrator.phase == "over"
    assert seen_phases == ["lobby", "reveal", "night", "debate", "vote", "over"]
    texts = mouth.texts
    game = narrator.game
    # the whole night was told, every call of the deck in the seed's order, then the day
    assert line("en", "on_look_at_card") in texts
    assert line("en", "on_night_falls") in texts
    calls = [t for t in texts if t in {line("en", f"on_wake_{c}") for c in game.night_calls()}]
    assert calls == [line("en", f"on_wake_{c}") for c in game.night_calls()]
    for call in game.night_calls():
        assert line("en", f"on_sleep_{call}") in texts
    assert line("en", "on_dawn") in texts
    assert line("en", "on_countdown") in texts
    for name in names:
        assert line("en", "on_ask_point", {"name": name}) in texts
    assert line("en", "on_reveal_intro") in texts
    for side in game.winner or ["nobody"]:
        assert line("en", f"on_win_{side}") in texts
    assert box.spoken == box.session().version  # everything was told
    written = [path for text, path in mouth.files if text]
    assert written and all(is_valid_wav(path, min_seconds=0.2) for path in written)
    assert int(abs(Audio.from_wav(written[0].read_bytes()).samples.astype(int)).max()) > 1000

    # every ballot counted is the one its player gave (an answer the box was unsure of
    # counts only once "Was that number ...?" was answered yes), and every player's is there
    stored = relay.store.load(game_id)
    said_at: dict[int, Said] = {said.version: said for said in ears.said}
    heard = [(said_at[v], e) for v, e in enumerate(stored.entries) if e.get("type") == "heard"]
    ballots = {}
    for k, (said, entry) in enumerate(heard):
        if entry["intent"] != "VoteIntent":
            continue
        confirmed = k + 1 < len(heard) and heard[k + 1][1]["intent"] == "AMAZON.YesIntent"
        if not (entry.get("sure", True) or confirmed):
            continue
        assert said.kind == "name" and entry["slots"]["player"] == said.target, (said, entry)
        assert entry["speaker"] == said.speaker
        ballots[said.speaker] = said.target
    assert ballots == {game.players[v]: game.players[t] for v, t in game.votes.items()}
    assert sorted(ballots) == sorted(names)
