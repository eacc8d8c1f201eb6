"""One Night on Alexa (issue 13): whole games through the Lambda entry point, fed the JSON
envelopes Alexa really sends, as tests/test_skill_lambda.py does for Wolf Village.

The table picks the game by voice ("let's play One Night", the GAME slot resolved by the
static authority), the night's choices are made on the phones (through a relay over the
same store, as the phone relay in another process would), "continue" lets each call's time
pass, "we are ready to vote" ends the debate, and each player's pointing is said by roll
call (names resolved by the dynamic authority). The skill has no game flow of its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import skill.lambda_function as lambda_function
import skill.tables
from skill.responses import WAIT_PAUSE
from speech import line
from tests.alexa_envelopes import Echo, player_slot, static_slot
from tests.test_skill_lambda import MISHEARD, PUBLIC_URL, Clock, Table, fixed_seed, said

PLAYERS = ["Ana", "Ben", "Cleo", "Dan", "Eve"]


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


def one_night_lobby(table: Table, game: str = "one night", protocol: str = "roll call",
                    protocol_id: str = "roll_call") -> dict[str, Any]:
    table.launch()
    for name in PLAYERS:
        table.join(name)
    response = table.say("GameIntent", game=static_slot("game", "GAME", game, "one-night"))
    table.say("VotingIntent", protocol=static_slot("protocol", "PROTOCOL", protocol,
                                                   protocol_id))
    return response


def play_night(table: Table) -> list[dict[str, Any]]:
    """The called phones choose, then the response's silence, then "continue"."""
    answers = []
    for _ in range(200):
        narrator = table.session().narrator
        if narrator.phase != "night":
            return answers
        called = [p for p in narrator.game.players if "turn" in narrator.player_view(p)]
        if called:
            turn = narrator.player_view(called[0])["turn"]
            targets = turn["targets"]
            table.tap(called[0], turn["verb"], targets[len(table.sent) % len(targets)])
        table.wait(WAIT_PAUSE)
        answers.append(table.say("ReadyIntent"))
    raise AssertionError("the night did not end")


@pytest.mark.parametrize("seed", [3, 8])
def test_a_whole_one_night_game_by_voice_and_phones(sqlite_url: str,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   seed: int) -> None:
    fixed_seed(monkeypatch, seed)
    table = Table(sqlite_url)
    response = one_night_lobby(table)
    assert said(response) == line("en", "game_set", {"game": "one-night"})
    narrator = table.session().narrator
    assert narrator.config.ruleset == "one-night" and narrator.config.protocol == "roll_call"

    response = table.say("StartGameIntent")
    assert line("en", "on_look_at_card") in said(response)
    response = table.say("ReadyIntent")
    assert line("en", "on_night_falls") in said(response)
    first_call = table.session().narrator.game.night_calls()[0]
    assert line("en", f"on_wake_{first_call}") in said(response)

    answers = play_night(table)
    heard = " ".join(said(a) for a in [response, *answers])
    game = table.session().narrator.game
    told = [line("en", f"on_wake_{c}") for c in game.night_calls()]
    assert [t for t in told if t in heard] == told  # every call of the deck, in order
    positions = [heard.index(t) for t in told]
    assert positions == sorted(positions)
    assert line("en", "on_dawn") in said(answers[-1])
    assert table.session().narrator.phase == "debate"

    response = table.say("SkipClockIntent")
    assert line("en", "on_countdown") in said(response)
    assert line("en", "on_ask_point", {"name": PLAYERS[0]}) in said(response)
    for i, voter in enumerate(PLAYERS):
        narrator = table.session().narrator
        assert narrator.listening().player == voter
        target = PLAYERS[(i + 1 + seed % 3) % len(PLAYERS)]
        if target == voter:
            target = PLAYERS[(i + 1) % len(PLAYERS)]
        response = table.say("VoteIntent", player=player_slot("player", MISHEARD[target],
                                                              target))
    end = said(response)
    game = table.session().narrator.game
    assert game.winner is not None and table.session().narrator.phase == "over"
    assert line("en", "on_votes_in") in end
    for side in game.winner or ["nobody"]:
        assert line("en", f"on_win_{side}") in end
    assert line("en", "on_reveal_intro") in end
    for name in PLAYERS:
        assert name in end
    assert response["response"]["shouldEndSession"] is False
    # play again at the same table: the same game and cards, dealt anew
    table.say("NewGameIntent")
    again = table.session().narrator
    assert again.phase == "lobby" and again.config.ruleset == "one-night"
    response = table.say("StartGameIntent")
    assert line("en", "on_look_at_card") in said(response)
    assert table.session().narrator.game.deck == game.deck
    table.store.close()


def test_show_of_hands_is_refused_on_alexa_with_a_clear_line(sqlite_url: str) -> None:
    table = Table(sqlite_url)
    one_night_lobby(table)
    response = table.say("VotingIntent", protocol=static_slot(
        "protocol", "PROTOCOL", "show of hands", "show_of_hands"))
    assert line("en", "on_no_show_of_hands") in said(response)
    assert table.session().narrator.config.protocol == "roll_call"
    table.store.close()


def test_one_night_in_spanish_on_alexa(sqlite_url: str, monkeypatch: pytest.MonkeyPatch
                                      ) -> None:
    fixed_seed(monkeypatch, 4)
    table = Table(sqlite_url, Echo(locale="es-ES"))
    response = one_night_lobby(table, "hombre lobo de una noche", "móviles", "phones")
    assert said(response) == line("es", "game_set", {"game": "one-night"})
    response = table.say("StartGameIntent")
    assert line("es", "on_look_at_card") in said(response)
    response = table.say("ReadyIntent")
    assert line("es", "on_night_falls") in said(response)
    answers = play_night(table)
    assert line("es", "on_dawn") in said(answers[-1])
    response = table.say("SkipClockIntent")
    assert line("es", "on_countdown_phones") in said(response)
    # the ballots on the phones, then "continue" tells the result
    narrator = table.session().narrator
    for i, voter in enumerate(narrator.game.players):
        table.tap(voter, "vote", narrator.game.players[(i + 1) % len(PLAYERS)])
    response = table.say("ReadyIntent")
    assert line("es", "on_nobody_out") in said(response)  # one vote each
    assert line("es", "on_reveal_intro") in said(response)
    table.store.close()
