# ruff: noqa: F811  (the fixtures of tests/test_skill_lambda.py, imported, are parameters here)
"""The Alexa skill runs whole Werewords games, fed the JSON envelopes Alexa really sends.

As tests/test_skill_lambda.py does for Wolf Village: every request goes through the Lambda
entry point over a SQLite file (or DynamoDB on moto's server), every answer is checked
against Alexa's limits, and the phones (the mayor's word and tokens, the pointing on the
phones) go through `phones.relay` over the same store. Time passes only when the table
sits through a response's silence (`Table.wait`); Alexa then lets it pass at the next
request, so a token the mayor tapped is said at the next request after its take-back window.
"""

from __future__ import annotations

from typing import Any

import pytest

from narrator import Host
from phones.relay import Relay, handle
from speech import line
from store import open_store
from tests.alexa_envelopes import player_slot, slot, static_slot
from tests.test_skill_lambda import (  # noqa: F401  (the fixtures: a still clock, a fresh handler)
    MISHEARD,
    PLAYERS,
    Table,
    dynamo_url,
    fixed_seed,
    fresh_handler,
    said,
    sqlite_url,
    still_clock,
    table,
)

NAMES = PLAYERS[:5]


def choose_werewords(t: Table) -> None:
    """The host's page picks the game (the phones' set-up form sends this host command)."""
    relay = Relay(open_store(t.url))
    assert handle(relay, t.game_id(), Host("game", "werewords")).accepted
    relay.store.close()


def lobby(t: Table) -> None:
    t.launch()
    for name in NAMES:
        t.join(name)
    choose_werewords(t)
    response = t.say("DayTimerIntent", minutes=slot("minutes", "2"))
    # what the host's page did is told first
    assert said(response) == " ".join([line("en", "game_set", {"game": "werewords"}),
                                       line("en", "ww_day_set", {"minutes": 2})])
    response = t.say("WordsDifficultyIntent",
                     difficulty=static_slot("difficulty", "WORD_DIFFICULTY", "hard", "hard"))
    assert said(response) == line("en", "ww_difficulty_hard")


def through_the_night(t: Table) -> list[dict[str, Any]]:
    """"Ready", the mayor's word on the phone, "continue" after each call's silence."""
    answers = [t.say("StartGameIntent"), t.say("ReadyIntent")]
    narrator = t.session().narrator
    mayor = narrator.game.mayor_name
    assert line("en", "ww_mayor", {"name": mayor}) in said(answers[-1])
    assert line("en", "ww_wake_mayor") in said(answers[-1])
    t.tap(mayor, "choose_word", narrator.game.words[0])
    for _ in range(20):
        if t.session().narrator.phase != "night":
            return answers
        t.wait(narrator.call_pause)
        answers.append(t.say("ReadyIntent"))
    raise AssertionError("the night did not end")


def test_a_whole_werewords_game_on_alexa_the_word_guessed(table: Table,
                                                           monkeypatch: pytest.MonkeyPatch):
    fixed_seed(monkeypatch, 3)
    lobby(table)
    answers = through_the_night(table)
    night = " ".join(said(a) for a in answers)
    for key in ("ww_night_falls", "ww_wake_seer", "ww_sleep_seer", "ww_wake_werewolf"):
        assert line("en", key) in night, key
    assert line("en", "ww_day_starts", {"minutes": 2}) in said(answers[-1])
    narrator = table.session().narrator
    game = narrator.game
    mayor = game.mayor_name
    word = game.word
    assert all(word.casefold() not in said(a).casefold() for a in table.sent)
    others = [p for p in game.players if p != mayor]
    wolf = next(p for p, r in game.roles_as_dealt().items() if r == "werewolf")
    seer = next(p for p, r in game.roles_as_dealt().items() if r == "seer")

    # the mayor's tokens on the phone: said at the next request once they are given
    table.tap(mayor, "answer", {"to": others[0], "token": "yes"})
    table.wait(5)
    response = table.say("AMAZON.RepeatIntent")
    assert f"Yes, {others[0]}." in said(response)
    guesser = next(p for p in others if p != wolf)
    table.tap(mayor, "answer", {"to": guesser, "token": "correct"})
    table.wait(5)
    response = table.say("ReadyIntent")
    text = said(response)
    assert f"Correct, {guesser}!" in text and line("en", "ww_guessed", {"name": guesser}) in text
    assert line("en", "ww_werewolf_shows", {"name": wolf}) in text
    assert line("en", "ww_continue_hunt") in text  # after the 15 seconds' silence
    # the 15 seconds pass; "continue": the werewolf is asked by name
    table.wait(15)
    response = table.say("ReadyIntent")
    assert line("en", "ww_ask_seer", {"name": wolf}) in said(response)
    response = table.say("PointIntent", player=player_slot("player", MISHEARD[seer], seer))
    text = said(response)
    assert line("en", "ww_points_at", {"name": wolf, "target": seer}) in text
    assert line("en", "ww_win_werewolves_guessed") in text
    assert line("en", "ww_word_was", {"word": word}) in text
    assert table.session().narrator.phase == "over"
    assert response["response"]["shouldEndSession"] is False  # "new game" may follow


def test_a_whole_werewords_game_on_alexa_time_up_whoops_and_the_final_pointing(
        table: Table, monkeypatch: pytest.MonkeyPatch):
    fixed_seed(monkeypatch, 4)
    lobby(table)
    through_the_night(table)
    # nobody guesses: the day's two minutes pass in the response's silence
    table.wait(120)
    response = table.say("ReadyIntent")
    text = said(response)
    assert line("en", "ww_time_up") in text
    assert line("en", "ww_discuss", {"minutes": 1}) in text
    assert line("en", "ww_continue_discuss") in text
    # "whoops" (the host: the mayor had tapped correct too late) and "whoops" again
    response = table.say("WhoopsIntent")
    assert line("en", "ww_whoops_guessed") in said(response)
    response = table.say("WhoopsIntent")
    assert line("en", "ww_whoops_not_guessed") in said(response)
    table.wait(60)
    response = table.say("ReadyIntent")
    text = said(response)
    assert line("en", "ww_countdown") in text
    game = table.session().narrator.game
    wolf = next(p for p, r in game.roles_as_dealt().items() if r == "werewolf")
    assert line("en", "ww_ask_point", {"name": game.players[0]}) in text
    for name in game.players:
        narrator = table.session().narrator
        assert narrator.listening().player == name
        target = wolf if name != wolf else next(p for p in game.players if p != wolf)
        response = table.say("PointIntent", player=player_slot("player", MISHEARD[target],
                                                                target))
    text = said(response)
    assert line("en", "ww_win_village_not_guessed") in text
    assert line("en", "ww_reveals", {"name": wolf, "role_the": "werewolf"}) in text
    for name in game.players:
        assert name in text


def test_the_mayor_cannot_be_answered_by_voice_and_help_explains_the_day(
        table: Table, monkeypatch: pytest.MonkeyPatch):
    fixed_seed(monkeypatch, 5)
    lobby(table)
    through_the_night(table)
    before = table.log()
    response = table.say("VoteIntent", player=player_slot("player", "anna", "Ana"))
    assert line("en", "ww_day_tokens") in said(response)
    response = table.say("AMAZON.HelpIntent")
    assert line("en", "help_ww_day") in said(response)
    assert table.log() == before
    assert response["response"]["shouldEndSession"] is False


def test_a_werewords_game_on_dynamodb(dynamo_url: str, monkeypatch: pytest.MonkeyPatch):
    fixed_seed(monkeypatch, 3)
    t = Table(dynamo_url)
    lobby(t)
    through_the_night(t)
    t.wait(120)
    assert line("en", "ww_time_up") in said(t.say("ReadyIntent"))
    t.store.close()
