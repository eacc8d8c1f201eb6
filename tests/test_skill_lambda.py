"""The Alexa skill through its Lambda entry point, fed the JSON envelopes Alexa really sends.

Every request goes through `skill.lambda_function.lambda_handler` (a fresh handler per test
over a temporary SQLite file, or DynamoDB on moto's server on loopback). Every answer is
checked against Alexa's limits: at most 8,000 characters of speech, at most 240 s of audio
(breaks plus a conservative speaking rate), a reprompt whenever the session stays open, an
APL document only for a device that declares a screen. The phones' secret choices go
through `phones.relay` over the same store, as the phone relay (another process) would.
"""

from __future__ import annotations

import json
import logging
import os
import re
import secrets
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import boto3
import pytest

import phones.relay
import skill.lambda_function as lambda_function
import skill.tables
from narrator import Tap
from narrator.session import TableSession
from phones.relay import Relay, handle
from skill.responses import WAIT_PAUSE
from speech import line
from store import open_store
from store.dynamodb_store import create_table
from tests.alexa_envelopes import (
    NO_SCREEN,
    Echo,
    directives,
    dynamic_authority,
    player_slot,
    reprompt,
    resolution,
    slot,
    speech,
    static_authority,
    static_slot,
)

REPO = Path(__file__).resolve().parent.parent
MODEL = json.loads((REPO / "interaction_models" / "en-US.json").read_text())["interactionModel"]
INTENTS = [i["name"] for i in MODEL["languageModel"]["intents"]]
TYPES = {t["name"]: t["values"] for t in MODEL["languageModel"]["types"]}
PLAYERS = ["Ana", "Ben", "Cleo", "Dan", "Eve", "Finn", "Gus", "Hana"]
MISHEARD = {"Ana": "anna", "Ben": "benn", "Cleo": "clio", "Dan": "dann", "Eve": "eva",
            "Finn": "fin", "Gus": "guss", "Hana": "hannah"}
PUBLIC_URL = "https://wolf.example.org"
SPOKEN_CHARS_PER_SECOND = 14.0  # conservative: Alexa speaks ~15 characters a second
WIN_KEYS = ("win_village", "win_werewolves", "win_jester", "win_fox", "win_lovers")
ERROR_TEXT = line("en", "not_understood") + " " + line("en", "say_continue")
SERIALISE_MOTO = os.environ.get("WOLFVILLAGE_TEST_RAW_MOTO") != "1"


# ---------------------------------------------------------------------- checks


def audio_seconds(ssml: str) -> float:
    breaks = sum(float(s) for s in re.findall(r'<break time="([\d.]+)s"/>', ssml))
    text = re.sub(r"<[^>]+>", "", ssml)
    return breaks + len(text) / SPOKEN_CHARS_PER_SECOND


def check_limits(env: dict[str, Any], response: dict[str, Any]) -> None:
    """What every answer must respect, whatever was asked."""
    assert response["version"] == "1.0"
    body = response["response"]
    if env["request"]["type"] == "SessionEndedRequest":
        assert "outputSpeech" not in body  # Alexa ignores (and forbids) speech here
        return
    ssml = speech(response)
    assert ssml.startswith("<speak>") and ssml.endswith("</speak>"), ssml
    assert len(ssml) <= 8000
    assert audio_seconds(ssml) <= 240.0, ssml
    if not body.get("shouldEndSession"):
        assert reprompt(response), ssml
        assert audio_seconds(reprompt(response) or "") <= 90.0
    rendered = directives(response, "Alexa.Presentation.APL.RenderDocument")
    if "Alexa.Presentation.APL" not in env["context"]["System"]["device"]["supportedInterfaces"]:
        assert rendered == []


class Table:
    """An Echo at a table, the store behind the skill, and the phones over that store."""

    def __init__(self, url: str, echo: Echo | None = None) -> None:
        self.url = url
        self.echo = echo or Echo()
        self.store = open_store(url)
        self.sent: list[dict[str, Any]] = []

    def send(self, env: dict[str, Any]) -> dict[str, Any]:
        response = lambda_function.lambda_handler(env, None)
        json.dumps(response)  # what Lambda returns must be plain JSON
        check_limits(env, response)
        assert speech(response) != f"<speak>{ERROR_TEXT}</speak>"
        self.echo.sent(response)
        self.sent.append(response)
        return response

    def launch(self) -> dict[str, Any]:
        return self.send(self.echo.launch())

    def say(self, intent: str, **slots: dict[str, Any]) -> dict[str, Any]:
        return self.send(self.echo.intent(intent, slots or None))

    def wait(self, seconds: float) -> None:
        """The table sits through the response's silence (a night call is held open)."""
        Clock.time += seconds

    def join(self, name: str) -> dict[str, Any]:
        return self.say("JoinIntent", player=player_slot("player", name))

    def lobby(self, names: list[str] = PLAYERS) -> None:
        self.launch()
        for name in names:
            self.join(name)
        self.say("PresetIntent", preset=static_slot("preset", "PRESET", "classic", "classic"))
        self.say("VotingIntent",
                 protocol=static_slot("protocol", "PROTOCOL", "roll call", "roll_call"))

    # --- the truth, read from the store
    def game_id(self) -> str:
        game_id = self.store.lookup(f"alexa:{self.echo.device_id}")
        assert game_id is not None
        return game_id

    def session(self) -> TableSession:
        return TableSession.resume(self.store, self.game_id())

    def log(self) -> list[dict[str, Any]]:
        session = self.session()
        return list(self.store.load(session.game_id).entries)

    def code(self) -> str:
        return json.loads(self.store.lookup(f"alexa-host:{self.game_id()}") or "{}")["code"]

    def tap(self, player: str, verb: str, target: Any) -> None:
        # a phone's choice, through a relay over the same store: the phone relay is another
        # process whose cache the voice does not share (a fresh Relay each time: see
        # test_a_phone_relay_in_another_process_sees_the_votes_taken_by_voice)
        relay = Relay(open_store(self.url))
        reply = handle(relay, self.game_id(), Tap(player, verb, target))
        relay.store.close()
        assert reply.accepted, (player, verb, target, reply.cues)


def said(response: dict[str, Any]) -> str:
    return re.sub(r"<[^>]+>", "", speech(response))


# ---------------------------------------------------------------------- fixtures


class Clock:
    """The skill's wall clock: time passes only when the table lets it (`Table.wait`)."""

    time = 1_000_000.0

    def __call__(self) -> float:
        return Clock.time


@pytest.fixture(autouse=True)
def still_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(skill.tables, "now", Clock())


@pytest.fixture(autouse=True)
def fresh_handler(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("WOLFVILLAGE_PUBLIC_URL", PUBLIC_URL)
    monkeypatch.delenv("WOLFVILLAGE_SKILL_ID", raising=False)
    lambda_function._handler = None
    yield
    lambda_function._handler = None


@pytest.fixture
def sqlite_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    url = f"sqlite:///{tmp_path / 'games.db'}"
    monkeypatch.setenv("WOLFVILLAGE_STORE", url)
    return url


@pytest.fixture
def table(sqlite_url: str) -> Iterator[Table]:
    t = Table(sqlite_url)
    yield t
    t.store.close()


@pytest.fixture
def dynamo_url(aws_env: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """Fake credentials and moto's endpoint for this test only; never a real account."""
    name = f"wolfvillage-{uuid.uuid4().hex[:12]}"
    client = boto3.session.Session().client("dynamodb")
    create_table(client, name)
    client.close()
    url = f"dynamodb://{name}"
    monkeypatch.setenv("WOLFVILLAGE_STORE", url)
    return url


@pytest.fixture(params=["sqlite", "dynamo"])
def any_url(request: pytest.FixtureRequest) -> str:
    return str(request.getfixturevalue(f"{request.param}_url"))


def fixed_seed(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    """New rooms get this seed, so a game's deal (and so its path) is reproducible."""
    monkeypatch.setattr(phones.relay, "secrets", SimpleNamespace(
        randbelow=lambda _n: seed, token_urlsafe=secrets.token_urlsafe))


# ---------------------------------------------------------------------- launch


def test_launch_opens_a_room_spelling_its_code_with_a_card_and_the_qr_screen(table: Table):
    response = table.launch()
    code = table.code()
    assert re.fullmatch(r"[A-Z]{4}", code)
    ssml = speech(response)
    assert f'<say-as interpret-as="spell-out">{code}</say-as>' in ssml
    join_url = f"{PUBLIC_URL}/j/{code}"
    assert join_url in ssml
    body = response["response"]
    assert body["card"]["type"] == "Simple"
    assert join_url in body["card"]["content"] and code in body["card"]["content"]
    assert body["shouldEndSession"] is False
    [apl] = directives(response, "Alexa.Presentation.APL.RenderDocument")
    assert apl["datasources"]["table"]["qr"] == f"{PUBLIC_URL}/qr/{code}.png"
    assert apl["datasources"]["table"]["code"] == " ".join(code)
    # the room is a real relay room: a phone can join it by its code
    Relay(table.store).join(code, "Ana")
    assert table.session().narrator.config.players == ["Ana"]


def test_a_room_that_gave_its_code_back_shows_no_code_on_the_screen(table: Table):
    """Issue 12: a finished or idle room's code goes to the next room that draws it; the
    Echo's screen must then stop showing it (it would lead players into a stranger's room)."""
    table.lobby(PLAYERS[:2])
    code = table.code()
    # another room drew the code after this one gave it back
    table.store.bind(phones.relay.ROOM_KEY.format(code=code), "someone-elses-game")
    response = table.say("AMAZON.HelpIntent")
    for apl in directives(response, "Alexa.Presentation.APL.RenderDocument"):
        assert code not in json.dumps(apl)
    assert code not in speech(response)


def test_a_device_without_a_screen_never_gets_apl(sqlite_url: str):
    t = Table(sqlite_url, Echo(interfaces=dict(NO_SCREEN)))
    t.lobby(PLAYERS[:4])
    assert all(directives(r, "Alexa.Presentation.APL.RenderDocument") == [] for r in t.sent)
    t.store.close()


def test_a_device_with_a_screen_gets_apl(table: Table):
    table.lobby(PLAYERS[:2])
    assert all(directives(r, "Alexa.Presentation.APL.RenderDocument") for r in table.sent)


# ---------------------------------------------------------------------- every intent


def model_slots(intent: str) -> dict[str, dict[str, Any]]:
    """Plausible slots for `intent`, as Alexa would fill them (with resolutions)."""
    spec = next(i for i in MODEL["languageModel"]["intents"] if i["name"] == intent)
    slots: dict[str, dict[str, Any]] = {}
    for n, s in enumerate(spec.get("slots", [])):
        kind = s["type"]
        if kind == "PLAYER_NAME":
            name = PLAYERS[n]
            slots[s["name"]] = player_slot(s["name"], MISHEARD[name], name)
        elif kind == "AMAZON.NUMBER":
            slots[s["name"]] = slot(s["name"], "3")
        else:
            value = TYPES[kind][0]
            slots[s["name"]] = static_slot(s["name"], kind, value["name"]["value"],
                                           value["id"])
    return slots


@pytest.mark.parametrize("intent", INTENTS)
def test_every_intent_of_the_model_gets_a_sensible_answer(
        table: Table, intent: str, caplog: pytest.LogCaptureFixture):
    table.lobby(PLAYERS[:4])
    before = table.log()
    with caplog.at_level(logging.INFO, logger="wolfvillage.skill"):
        response = table.say(intent, **model_slots(intent))
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert said(response).strip()
    if intent in ("AMAZON.StopIntent", "AMAZON.CancelIntent", "AMAZON.NavigateHomeIntent"):
        assert response["response"]["shouldEndSession"] is True
        assert table.log() == before  # the game stays stored for "continue"
    else:
        assert response["response"]["shouldEndSession"] is False


@pytest.mark.parametrize("intent", [i for i in INTENTS if not i.startswith("AMAZON.")])
def test_every_intent_also_answers_in_the_middle_of_a_game(table: Table, intent: str):
    table.lobby()
    table.say("StartGameIntent")
    response = table.say(intent, **model_slots(intent))
    assert said(response).strip()


def test_lobby_intents_map_their_slots_through_the_static_authority(table: Table):
    table.lobby(PLAYERS[:4])
    table.say("PresetIntent",
              preset=static_slot("preset", "PRESET", "standard twelve", "standard12"))
    table.say("OptionIntent",
              option=static_slot("option", "OPTION", "doctor self protection",
                                 "doctor_self_protect"),
              toggle=static_slot("toggle", "TOGGLE", "on", "on"))
    table.say("NightModeIntent",
              night_mode=static_slot("night_mode", "NIGHT_MODE", "pass the phones",
                                     "pass_phones"))
    table.say("ClockIntent", minutes=slot("minutes", "5"))
    response = table.say("PlayTooIntent", player=player_slot("player", "Zoe"))
    assert "Zoe" in said(response)
    config = table.session().narrator.config
    assert config.preset == "standard12"
    assert config.options["doctor_self_protect"] is True
    assert config.options["night_mode"] == "pass_phones"
    assert config.clock == 300
    assert config.host == "Zoe"


# ---------------------------------------------------------------------- entity resolution


def start_to_the_first_vote(table: Table) -> None:
    """Lobby, deal, then a night whose choices are made on the phones, up to the election."""
    table.lobby()
    table.say("StartGameIntent")
    table.say("ReadyIntent")
    play(table, until=lambda n: n.phase in ("election", "vote", "over"))


def test_a_misheard_name_resolved_by_the_dynamic_authority_names_that_player(
        table: Table, monkeypatch: pytest.MonkeyPatch):
    fixed_seed(monkeypatch, 7)
    start_to_the_first_vote(table)
    narrator = table.session().narrator
    assert narrator.phase in ("election", "vote")
    voter = narrator.listening().player
    target = next(n for n in narrator.game.alive_names() if n != voter)
    intent = "ElectIntent" if narrator.phase == "election" else "VoteIntent"
    before = len(table.log())
    # the model's own sample name matches statically; the table's name wins
    heard = slot("player", MISHEARD[target],
                 resolution(static_authority("PLAYER_NAME"), "sam", "Sam"),
                 resolution(dynamic_authority("PLAYER_NAME"), target))
    table.say(intent, player=heard)
    entries = table.log()
    assert len(entries) == before + 1
    assert entries[-1]["slots"] == {"player": target}


def test_a_name_nobody_resolved_is_refused_and_changes_nothing(
        table: Table, monkeypatch: pytest.MonkeyPatch):
    fixed_seed(monkeypatch, 7)
    start_to_the_first_vote(table)
    before = table.log()
    narrator = table.session().narrator
    intent = "ElectIntent" if narrator.phase == "election" else "VoteIntent"
    heard = slot("player", "bartholomew",
                 resolution(static_authority("PLAYER_NAME"), None),
                 resolution(dynamic_authority("PLAYER_NAME"), None))
    response = table.say(intent, player=heard)
    assert "bartholomew" in said(response)
    assert table.log() == before
    assert reprompt(response)


# ---------------------------------------------------------------------- built-ins


def test_help_answers_with_the_phase_help_and_keeps_listening(table: Table):
    table.lobby(PLAYERS[:4])
    response = table.say("AMAZON.HelpIntent")
    assert line("en", "help_lobby") in said(response)
    assert response["response"]["shouldEndSession"] is False


@pytest.mark.parametrize("intent", ["AMAZON.StopIntent", "AMAZON.CancelIntent",
                                    "AMAZON.NavigateHomeIntent"])
def test_stop_cancel_and_home_end_the_session_and_keep_the_game(table: Table, intent: str):
    table.lobby(PLAYERS[:4])
    before = table.log()
    response = table.say(intent)
    assert response["response"]["shouldEndSession"] is True
    assert "reprompt" not in response["response"]
    assert said(response) == line("en", "goodbye")
    assert table.log() == before
    assert table.echo.new  # the next request opens a new session


def test_fallback_says_it_did_not_understand_and_asks_again(table: Table):
    table.lobby()
    table.say("StartGameIntent")
    before = table.log()
    response = table.say("AMAZON.FallbackIntent")
    assert line("en", "not_understood") in said(response)
    assert line("en", "ready_question") in said(response)
    assert table.log() == before


def test_repeat_says_the_current_question_again(table: Table):
    table.lobby()
    table.say("StartGameIntent")
    response = table.say("AMAZON.RepeatIntent")
    assert said(response) == line("en", "ready_question")


def test_pause_and_resume_are_stored_and_pause_holds_the_game(table: Table):
    table.lobby()
    table.say("StartGameIntent")
    response = table.say("AMAZON.PauseIntent")
    assert line("en", "paused") in said(response)
    assert table.session().narrator.paused
    response = table.say("ReadyIntent")
    assert line("en", "is_paused") in said(response)
    assert table.session().narrator.phase == "reveal"
    response = table.say("AMAZON.ResumeIntent")
    assert line("en", "resumed") in said(response)
    assert not table.session().narrator.paused


def test_yes_answers_the_ready_question_and_no_is_refused_kindly(table: Table):
    table.lobby()
    table.say("StartGameIntent")
    response = table.say("AMAZON.NoIntent")
    assert table.session().narrator.phase == "reveal"
    assert reprompt(response)
    response = table.say("AMAZON.YesIntent")
    assert table.session().narrator.phase == "night"
    assert line("en", "night_continue") in said(response)


def test_session_ended_request_is_answered_empty_and_changes_nothing(table: Table):
    table.lobby(PLAYERS[:4])
    before = table.log()
    for reason in ("USER_INITIATED", "EXCEEDED_MAX_REPROMPTS", "ERROR"):
        response = table.send(table.echo.ended(reason))
        assert response["response"] == {} or set(response["response"]) <= {
            "shouldEndSession", "directives"}
    assert table.log() == before


# ---------------------------------------------------------------------- dynamic entities


def test_player_names_are_sent_as_dynamic_entities_only_when_the_roster_changes(
        table: Table):
    table.launch()
    assert directives(table.sent[-1], "Dialog.UpdateDynamicEntities") == []
    response = table.join("Ana")
    [update] = directives(response, "Dialog.UpdateDynamicEntities")
    assert update["updateBehavior"] == "REPLACE"
    [kind] = update["types"]
    assert kind["name"] == "PLAYER_NAME"
    assert [(v["id"], v["name"]["value"]) for v in kind["values"]] == [("Ana", "Ana")]
    response = table.join("Ben")
    [update] = directives(response, "Dialog.UpdateDynamicEntities")
    assert [v["id"] for v in update["types"][0]["values"]] == ["Ana", "Ben"]
    # nothing changed: nothing sent
    for r in (table.say("PresetIntent", preset=static_slot("preset", "PRESET", "basic",
                                                           "basic")),
              table.say("AMAZON.HelpIntent"), table.say("AMAZON.RepeatIntent")):
        assert directives(r, "Dialog.UpdateDynamicEntities") == []
    # a refused join (a taken name) does not change the roster either
    assert directives(table.join("Ana"), "Dialog.UpdateDynamicEntities") == []
    # a new Lambda instance remembers what was sent
    lambda_function._handler = None
    table.echo.new_session()
    assert directives(table.launch(), "Dialog.UpdateDynamicEntities") == []
    assert directives(table.join("Cleo"), "Dialog.UpdateDynamicEntities")


# ---------------------------------------------------------------------- a whole game


def play(table: Table, until: Any, limit: int = 400) -> list[dict[str, Any]]:
    """Play like a table: choices on the phones at night, "continue", votes by voice."""
    answers: list[dict[str, Any]] = []
    for _ in range(limit):
        narrator = table.session().narrator
        if until(narrator):
            return answers
        game = narrator.game
        if narrator.phase in ("reveal", "debate"):
            answers.append(table.say("ReadyIntent"))
        elif narrator.phase == "night":
            # the phones of the role being called (none: a dead role, or one that has
            # answered), then the response's silence, then "Alexa, ask Wolf Village to
            # continue"
            called = [name for name in game.players if "turn" in narrator.player_view(name)]
            if called:
                turn = narrator.player_view(called[0])["turn"]
                targets = turn["targets"]
                table.tap(called[0], turn["verb"], targets[len(table.sent) % len(targets)])
            table.wait(WAIT_PAUSE)
            answers.append(table.say("ReadyIntent"))
        elif narrator.phase == "tie" and game.sheriff is None:
            answers.append(table.say("AMAZON.NoIntent"))
        else:
            listen = narrator.listening()
            assert listen is not None, narrator.phase
            d = game.pending()[0]
            assert d.player == listen.player
            targets = [t for t in game.legal_targets(d.player, d.action)
                       if isinstance(t, str)]
            before = len(table.log())
            if not targets:  # e.g. a badge nobody living can take
                assert "NobodyIntent" in listen.intents
                answers.append(table.say("NobodyIntent"))
            else:
                target = targets[len(table.sent) % len(targets)]
                intent = "ElectIntent" if d.action == "elect" else "VoteIntent"
                answers.append(table.say(intent, player=player_slot(
                    "player", MISHEARD[target], target)))
            assert len(table.log()) == before + 1, said(answers[-1])
    raise AssertionError(f"the game did not get there in {limit} requests")


@pytest.mark.parametrize("seed", [2, 4, 6])
def test_a_whole_game_by_voice_and_phones(table: Table, monkeypatch: pytest.MonkeyPatch,
                                          seed: int):
    whole_game(table, monkeypatch, seed)


def whole_game(table: Table, monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    fixed_seed(monkeypatch, seed)
    table.lobby()
    table.say("ClockIntent", minutes=slot("minutes", "5"))  # longer than a response
    assert table.session().narrator.config.players == PLAYERS
    response = table.say("StartGameIntent")
    assert line("en", "look_at_phone") in said(response)
    response = table.say("ReadyIntent")
    assert line("en", "night_falls") in said(response)
    night_call = said(response)
    # "continue" before any phone has chosen: the call again, nothing stored
    before = table.log()
    again = table.say("ReadyIntent")
    assert table.log() == before
    assert line("en", "night_continue") in said(again)
    assert said(again).split(".")[0] in night_call

    # the first night on the phones, then "continue" tells the morning
    answers = play(table, until=lambda n: n.phase != "night")
    morning = said(answers[-1])
    assert line("en", "good_morning") in morning
    assert "not something" not in morning  # "continue" is not fed to the narrator as well

    # halfway through the day a new session on a new Lambda instance picks the game up
    narrator = table.session().narrator
    if narrator.phase != "over":
        resume_in_a_new_session(table)
        answers = play(table, until=lambda n: n.phase == "over")
    assert table.session().narrator.game.winner is not None
    assert any(line("en", k, {"names": "\x00"}).split("\x00")[0] in said(answers[-1])
               for k in WIN_KEYS), said(answers[-1])
    for name in PLAYERS:
        assert name in said(answers[-1])
    # the finished game keeps the session open for "new game"
    assert answers[-1]["response"]["shouldEndSession"] is False
    response = table.say("NewGameIntent")
    assert table.session().narrator.phase == "lobby"
    assert table.session().narrator.config.players == PLAYERS
    response = table.say("StartGameIntent")
    assert line("en", "look_at_phone") in said(response)


def resume_in_a_new_session(table: Table) -> None:
    before = table.log()
    question = [line("en", c.key, c.params) for c in table.session().narrator.current_prompt()
                if type(c).__name__ == "Say"]
    lambda_function._handler = None
    table.echo.new_session()
    response = table.launch()
    assert table.echo.new is False
    assert said(response).startswith(line("en", "welcome_back"))
    for sentence in question:
        assert sentence in said(response)
    assert table.log() == before
    # the same room: no new game was opened for this device
    assert table.store.lookup(f"alexa:{table.echo.device_id}") == table.game_id()


def test_a_new_session_on_the_same_device_resumes_where_the_game_was(
        any_url: str, monkeypatch: pytest.MonkeyPatch):
    fixed_seed(monkeypatch, 5)
    t = Table(any_url)
    t.lobby()
    game_id = t.game_id()
    t.say("StartGameIntent")
    resume_in_a_new_session(t)
    response = t.say("ReadyIntent")
    assert line("en", "night_continue") in said(response)
    resume_in_a_new_session(t)
    assert t.game_id() == game_id
    t.store.close()


def test_a_whole_game_on_dynamodb(dynamo_url: str, monkeypatch: pytest.MonkeyPatch):
    t = Table(dynamo_url)
    whole_game(t, monkeypatch, 2)
    t.store.close()


def test_a_phone_relay_in_another_process_sees_the_votes_taken_by_voice(
        table: Table, monkeypatch: pytest.MonkeyPatch):
    fixed_seed(monkeypatch, 1)
    start_to_the_first_vote(table)
    phones_ = Relay(open_store(table.url))
    phones_.session(table.game_id())  # the relay has seen the table (it serves its pages)
    play(table, until=lambda n: n.phase in ("night", "over"))
    narrator = table.session().narrator
    # seed 1 deals a game that outlives its first day, so there is a second night to act in
    assert narrator.phase == "night", "the fixed deal should reach the second night"
    d = narrator.game.pending()[0]
    target = narrator.game.legal_targets(d.player, d.action)[0]
    reply = handle(phones_, table.game_id(), Tap(d.player, d.action, target))
    assert reply.accepted, reply.cues


# ---------------------------------------------------------------------- languages


def test_spanish_locale_gets_spanish_speech(sqlite_url: str):
    t = Table(sqlite_url, Echo(locale="es-ES"))
    response = t.launch()
    code = t.code()
    expected = line("es", "welcome", {"url": f"{PUBLIC_URL}/j/{code}", "code": "\x00"})
    assert said(response) == expected.replace("\x00", code)
    assert said(response) != line("en", "welcome", {"url": f"{PUBLIC_URL}/j/{code}",
                                                    "code": code})
    response = t.join("Ana")
    assert said(response) == line("es", "joined", {"name": "Ana", "seat": 1})
    response = t.say("AMAZON.HelpIntent")
    assert line("es", "help_lobby") in said(response)
    response = t.say("AMAZON.StopIntent")
    assert said(response) == line("es", "goodbye")
    assert t.session().narrator.lang == "es"
    t.store.close()
