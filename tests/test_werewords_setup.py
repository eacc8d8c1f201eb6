"""Werewords set-ups (seed 004, «Preparar», «El alcalde», «Juega de nuevo»): the deck, the
deal and the Mayor card, the options, the offered words, play again. Everything that breaks
the rules is refused with a clear reason and starts no game."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from rules import SetupError, replay
from rules.names import name_problem
from rules.replay import start as start_log
from rules.werewords import next_game_doc, start
from rules.werewords.options import Options
from rules.werewords.setup import (
    DEALT,
    LEFT_OF_LAST_MAYOR,
    build_setup,
    deal,
    standard_deck,
)
from tests.test_werewords_rules import FOUR, WORDS, doc, everyone_votes, time_up

NAMES = ["Ana", "Ben", "Cal", "Dee", "Eve", "Fay", "Gus", "Hal", "Ida", "Jo"]


def names(n: int) -> list[str]:
    return NAMES[:n]


def dealt(n: int, seed: int = 0, **extra: Any) -> dict[str, Any]:
    return {"ruleset": "werewords", "seed": seed, "players": names(n), "words": WORDS, **extra}


def refused(d: dict[str, Any]) -> str:
    """A set-up that must be refused: the replay reports it and no game starts."""
    result = replay(d)
    assert result["error"] is not None, d
    assert result["error"]["index"] is None and result["error"]["action"] is None
    assert result["roles"] == {} and result["events"] == [] and result["pending"] == []
    with pytest.raises(SetupError):
        start_log(d)
    return result["error"]["reason"]


def deck_of(game) -> Counter:
    """The cards in play as the game holds them: the secret roles and the Mayor card."""
    return Counter(game.roles_as_dealt().values()) + Counter({"mayor": 1})


def first_shuffle(deck: dict[str, int], n: int, seed: int) -> list[str]:
    """The cards in the order the first shuffle of `seed` deals them (the last: the centre)."""
    order = ["mayor", "seer", "werewolf", "minion", "beholder", "villager"]
    cards = [c for c in order for _ in range(deck.get(c, 0))]
    random.Random(seed).shuffle(cards)
    return cards[: n + 1]


def seed_with_the_mayor_card_in_the_centre(deck: dict[str, int], n: int) -> int:
    return next(s for s in range(1000) if first_shuffle(deck, n, s)[n] == "mayor")


# --------------------------------------------------------------------------- players


@pytest.mark.parametrize("n", range(4, 11))
def test_four_to_ten_players(n):
    game = start(dealt(n))
    assert len(game.players) == n


@pytest.mark.parametrize("n", [0, 3, 11])
def test_fewer_than_four_or_more_than_ten_refused(n):
    assert "4 to 10 players" in refused(dealt(n) if n <= 10 else
                                        {**dealt(10), "players": [*NAMES, "Kai"]})


@pytest.mark.parametrize("name", ["clock", "Clock", "table"])
def test_reserved_names_refused(name):
    """"clock" answers for the day's timer and "table" for the host: nobody may be called so."""
    assert "reserved" in refused({**dealt(4), "players": ["Ana", "Ben", "Cal", name]})
    assert name_problem(name) == "bad_name"


def test_two_players_with_one_name_refused():
    assert "two players" in refused({**dealt(4), "players": ["Ana", "Ben", "ana", "Dee"]})


# --------------------------------------------------------------------------- the deck


@pytest.mark.parametrize("n", range(4, 11))
def test_the_deck_has_one_card_more_than_players(n):
    """«agregue las cartas de Aldeano para que el número total de cartas sea uno más que el
    número de jugadores»"""
    for seed in range(5):
        game = start(dealt(n, seed))
        deck = deck_of(game)
        assert sum(deck.values()) == n + 1
        assert deck["mayor"] == 1 and deck["seer"] == 1
        assert deck["werewolf"] == (2 if n >= 7 else 1)
        assert set(deck) == {"mayor", "seer", "werewolf", "villager"}
        assert dict(game.setup.deck) == dict(deck)


def test_six_players_use_one_mayor_one_seer_one_werewolf_four_villagers():
    """«con seis jugadores, usa 1 carta de Alcalde, 1 Vidente, 1 Hombre Lobo y 4 de Aldeano»"""
    assert standard_deck(6, Options()) == {"mayor": 1, "seer": 1, "werewolf": 1, "villager": 4}


def test_a_second_werewolf_from_seven_players():
    """«Si juegas con 7 o más jugadores, usa una segunda carta de Hombre lobo»"""
    assert standard_deck(6, Options())["werewolf"] == 1
    assert standard_deck(7, Options())["werewolf"] == 2
    assert standard_deck(10, Options())["werewolf"] == 2


@pytest.mark.parametrize("n", range(4, 11))
def test_the_optional_minion_and_beholder_take_a_villagers_place(n):
    """«Otros roles»: the Espectador (beholder) and the Esbirro (minion)."""
    game = start(dealt(n, options={"minion": True, "beholder": True}))
    deck = deck_of(game)
    assert deck["minion"] == 1 and deck["beholder"] == 1
    assert sum(deck.values()) == n + 1
    assert game.options.minion and game.options.beholder
    only = start(dealt(n, options={"beholder": True}))
    assert "minion" not in deck_of(only) and deck_of(only)["beholder"] == 1


def test_a_deck_of_its_own_dealt_from_the_seed():
    deck = {"mayor": 1, "seer": 1, "werewolf": 2, "minion": 1, "villager": 1}
    game = start(dealt(5, deck=deck))
    assert deck_of(game) == Counter(deck)
    assert game.options.minion and not game.options.beholder
    assert game.night_calls() == ["mayor", "seer", "werewolves", "minion"]


@pytest.mark.parametrize(("deck", "why"), [
    ({"mayor": 1, "seer": 1, "werewolf": 1, "villager": 1}, "one more than players"),
    ({"mayor": 2, "seer": 1, "werewolf": 1, "villager": 1}, "exactly one Mayor card"),
    ({"seer": 1, "werewolf": 1, "villager": 3}, "exactly one Mayor card"),
    ({"mayor": 1, "seer": 2, "werewolf": 1, "villager": 1}, "exactly one seer"),
    ({"mayor": 1, "werewolf": 1, "villager": 3}, "exactly one seer"),
    ({"mayor": 1, "seer": 1, "villager": 3}, "one werewolf, or two"),
    ({"mayor": 1, "seer": 1, "werewolf": 3, "villager": 0}, "one werewolf, or two"),
    ({"mayor": 1, "seer": 1, "werewolf": 1, "minion": 2}, "at most one minion"),
    ({"mayor": 1, "seer": 1, "werewolf": 1, "witch": 2}, "unknown card"),
    ({"mayor": 1, "seer": 1, "werewolf": 1, "villager": -2, "beholder": 4}, "whole number"),
    ({"mayor": 1, "seer": 1, "werewolf": True, "villager": 2}, "whole number"),
])
def test_a_deck_that_breaks_the_rules_refused(deck, why):
    assert why in refused(dealt(4, deck=deck))


def test_a_deck_is_an_object():
    assert "deck must map" in refused(dealt(4, deck=["mayor", "seer"]))


def test_the_options_may_not_contradict_a_deck_of_its_own():
    deck = {"mayor": 1, "seer": 1, "werewolf": 1, "villager": 2}
    assert "has no minion" in refused(dealt(4, deck=deck, options={"minion": True}))
    with_minion = {"mayor": 1, "seer": 1, "werewolf": 1, "minion": 1, "villager": 1}
    assert "has minion" in refused(dealt(4, deck=with_minion, options={"minion": False}))
    assert start(dealt(4, deck=with_minion, options={"minion": True})).options.minion


# --------------------------------------------------------------------------- the mayor


def test_the_mayor_card_holder_takes_the_centre_card_as_secret_role():
    """«El jugador con la carta de Alcalde revela su carta, luego toma la carta del centro ...:
    este es el papel secreto del Alcalde»"""
    deck = standard_deck(5, Options())
    checked = 0
    for seed in range(40):
        cards = first_shuffle(deck, 5, seed)
        if cards[5] == "mayor":
            continue
        game = start(dealt(5, seed))
        holder = cards.index("mayor")
        assert game.mayor_name == NAMES[holder]
        expected = cards[:5]
        expected[holder] = cards[5]
        assert list(game.roles_as_dealt().values()) == expected
        assert game.events[0] == {"type": "mayor", "player": NAMES[holder], "how": DEALT}
        checked += 1
    assert checked > 20


def test_first_game_redeals_until_a_player_gets_the_mayor_card():
    """«Si este es el primer juego, baraja las cartas y vuelve a repartirlas a todos los
    jugadores hasta que un jugador obtenga la carta de Alcalde»"""
    deck = standard_deck(4, Options())
    seed = seed_with_the_mayor_card_in_the_centre(deck, 4)
    rng = random.Random(seed)
    roles, mayor, how = deal(deck, 4, rng, None)
    again = random.Random(seed)
    cards = ["mayor", "seer", "werewolf", "villager", "villager"]
    while True:
        again.shuffle(cards)
        if cards[4] != "mayor":
            break
    assert how == DEALT
    assert mayor == cards.index("mayor")
    assert roles[mayor] == cards[4]
    assert Counter(roles) + Counter({"mayor": 1}) == Counter(deck)
    game = start(dealt(4, seed))
    assert game.mayor == mayor and game.setup.mayor_from == DEALT


@pytest.mark.parametrize("last", range(4))
def test_play_again_left_of_the_last_mayor_takes_the_centre_card(last):
    """«Si ningún jugador tiene la carta de Alcalde, el jugador a la izquierda del último
    jugador que fue Alcalde toma la carta del centro (que es la carta de Alcalde)»; the
    players sit in seat order, so the left of the last seat is the first."""
    deck = standard_deck(4, Options())
    seed = seed_with_the_mayor_card_in_the_centre(deck, 4)
    cards = first_shuffle(deck, 4, seed)
    game = start(dealt(4, seed, last_mayor=NAMES[last]))
    assert game.mayor == (last + 1) % 4
    assert game.setup.mayor_from == LEFT_OF_LAST_MAYOR
    assert game.events[0] == {"type": "mayor", "player": NAMES[(last + 1) % 4],
                              "how": "left_of_last_mayor"}
    # they keep the card they were dealt as their secret role
    assert list(game.roles_as_dealt().values()) == cards[:4]


def test_play_again_with_the_mayor_card_dealt_the_holder_is_mayor():
    deck = standard_deck(4, Options())
    seed = next(s for s in range(100) if first_shuffle(deck, 4, s)[4] != "mayor")
    holder = first_shuffle(deck, 4, seed).index("mayor")
    game = start(dealt(4, seed, last_mayor=NAMES[(holder + 2) % 4]))
    assert game.mayor == holder


def test_the_mayor_is_public_the_secret_role_is_not():
    game = start(doc(FOUR, "Cal"))
    assert game.events[0] == {"type": "mayor", "player": "Cal", "how": "seated"}
    assert "villager" not in str(game.events[0])


def test_seated_players_name_the_mayor():
    game = start(doc("Ana:seer Ben:werewolf Cal:villager Dee:villager", "Ben"))
    assert game.mayor_name == "Ben"
    assert game.roles_as_dealt()["Ben"] == "werewolf"


@pytest.mark.parametrize(("change", "why"), [
    ({"mayor": "Zed"}, "the mayor must be one of the players"),
    ({"mayor": None}, "the mayor must be one of the players"),
    ({"players": [["Ana", "seer"], ["Ben", "werewolf"], ["Cal", "mayor"], ["Dee", "villager"]]},
     "cannot be the Mayor card"),
    ({"players": [["Ana", "seer"], ["Ben", "werewolf"], ["Cal", "witch"], ["Dee", "villager"]]},
     "not a Werewords role"),
    ({"players": [["Ana", "seer"], ["Ben", "seer"], ["Cal", "werewolf"], ["Dee", "villager"]]},
     "exactly one seer"),
    ({"players": [["Ana", "seer"], ["Ben", "villager"], ["Cal", "villager"], ["Dee", "villager"]]},
     "one werewolf, or two"),
    ({"players": [["Ana", "seer"], ["Ben", "werewolf"], ["Cal"], ["Dee", "villager"]]},
     "[name, secret role]"),
    ({"players": [["Ana", "seer"], "Ben", ["Cal", "werewolf"], ["Dee", "villager"]]},
     "all names or all"),
    ({"deck": {"mayor": 1, "seer": 1, "werewolf": 1, "villager": 2}}, "seated players already"),
    ({"last_mayor": "Ana"}, "seated players already"),
])
def test_a_seated_table_that_breaks_the_rules_refused(change, why):
    assert why in refused({**doc(FOUR, "Cal"), **change})


def test_seated_players_without_a_mayor_refused():
    d = doc(FOUR, "Cal")
    del d["mayor"]
    assert 'need "mayor"' in refused(d)


def test_a_deal_names_no_mayor():
    assert "a deal decides who is mayor" in refused(dealt(4, mayor="Ana"))


def test_last_mayor_must_be_at_the_table():
    assert "last_mayor must be one of the players" in refused(dealt(4, last_mayor="Zed"))


def test_the_seed_fixes_the_deal():
    a, b = start(dealt(8, 11)), start(dealt(8, 11))
    assert a.roles_as_dealt() == b.roles_as_dealt() and a.mayor == b.mayor
    deals = {tuple(start(dealt(8, s)).roles_as_dealt().values()) for s in range(6)}
    assert len(deals) > 1


@pytest.mark.parametrize("seed", [None, "5", 1.5, True])
def test_a_seed_is_a_whole_number(seed):
    assert "seed must be a whole number" in refused(dealt(4, seed=seed))


def test_unknown_fields_refused():
    """A Wolf Village field in a Werewords game is a mistake worth saying."""
    assert "unknown field 'preset'" in refused(dealt(4, preset="basic"))


def test_the_set_up_is_an_object():
    with pytest.raises(SetupError):
        build_setup(["Ana"])
    assert "players must be a list" in refused({"ruleset": "werewords", "players": "Ana"})


# --------------------------------------------------------------------------- options


def test_the_default_options():
    """The issue: four words offered, a four-minute day; no optional roles; English; easy."""
    options = start(dealt(4)).options
    assert options.to_json() == {"language": "en", "difficulty": "easy", "words_offered": 4,
                                 "day_seconds": 240, "minion": False, "beholder": False}


@pytest.mark.parametrize("language", ["en", "es", "fi", "de", "nl", "fr", "pl"])
def test_the_seven_languages(language):
    assert start(dealt(4, options={"language": language})).options.language == language


@pytest.mark.parametrize("seconds", [120, 241, 600])
def test_the_day_lasts_two_to_ten_minutes(seconds):
    assert start(dealt(4, options={"day_seconds": seconds})).options.day_seconds == seconds


@pytest.mark.parametrize(("options", "why"), [
    ({"language": "it"}, "'language' must be one of en, es, fi, de, nl, fr, pl"),
    ({"language": None}, "'language' must be one of"),
    ({"difficulty": "ridiculous"}, "'difficulty' must be one of easy, medium, hard"),
    ({"words_offered": 0}, "'words_offered' must be from 1 to 10"),
    ({"words_offered": 11}, "'words_offered' must be from 1 to 10"),
    ({"words_offered": "4"}, "'words_offered' must be a whole number"),
    ({"day_seconds": 119}, "'day_seconds' must be from 120 to 600"),
    ({"day_seconds": 601}, "'day_seconds' must be from 120 to 600"),
    ({"day_seconds": 240.0}, "'day_seconds' must be a whole number"),
    ({"day_seconds": True}, "'day_seconds' must be a whole number"),
    ({"minion": "yes"}, "'minion' must be true or false"),
    ({"beholder": 1}, "'beholder' must be true or false"),
    ({"sheriff": True}, "unknown option 'sheriff'"),
])
def test_bad_options_refused(options, why):
    assert why in refused(dealt(4, options=options))


def test_options_are_an_object():
    assert "options must be an object" in refused(dealt(4, options=["minion"]))


# --------------------------------------------------------------------------- the words


def test_fixed_words_are_the_offer():
    game = start(dealt(4, words=["frog", " castle ", "Cafe\u0301"]))
    assert game.words == ("frog", "castle", "Caf\u00e9")  # trimmed, NFC
    assert game.options.words_offered == 3
    assert game.events[2] == {"type": "words_offered", "words": ["frog", "castle", "Caf\u00e9"]}


@pytest.mark.parametrize(("words", "why"), [
    ([], "non-empty list"),
    ("frog", "non-empty list"),
    (["frog", "Frog"], "offered twice"),
    (["frog", ""], "non-empty text"),
    (["frog", 3], "non-empty text"),
])
def test_bad_fixed_words_refused(words, why):
    assert why in refused(dealt(4, words=words))


def test_fixed_words_and_words_offered_must_agree():
    assert "words_offered is 3" in refused(dealt(4, options={"words_offered": 3}))
    assert start(dealt(4, options={"words_offered": 4})).options.words_offered == 4


def test_the_draw_comes_after_the_deal():
    """Fixing the words changes nothing else: the same seed deals the same cards."""
    a = start(dealt(6, 3))
    b = start(dealt(6, 3, words=["sun", "moon"]))
    assert a.roles_as_dealt() == b.roles_as_dealt() and a.mayor == b.mayor


# --------------------------------------------------------------------------- play again


def test_play_again_keeps_the_table_and_remembers_the_mayor():
    """«Juega de nuevo»: the same players and options, a new deal, the last mayor noted."""
    game = start(dealt(6, 1, options={"beholder": True, "day_seconds": 300}))
    time_up(game)
    everyone_votes(game, game.players[0])
    nxt = next_game_doc(game, seed=2)
    assert nxt == {
        "ruleset": "werewords",
        "seed": 2,
        "players": names(6),
        "last_mayor": game.mayor_name,
        "options": {"language": "en", "difficulty": "easy", "words_offered": 4,
                    "day_seconds": 300, "minion": False, "beholder": True},
    }
    again = start({**nxt, "words": WORDS})
    assert again.players == game.players
    assert again.options == game.options
    assert "beholder" in again.roles_as_dealt().values()


def test_play_again_may_change_the_difficulty():
    """«También puede cambiar el nivel de dificultad en esta pantalla»"""
    game = start(dealt(4, 1))
    nxt = next_game_doc(game, seed=9, options={"difficulty": "hard"})
    assert nxt["options"]["difficulty"] == "hard"
    assert start({**nxt, "words": WORDS}).options.difficulty == "hard"


def test_play_again_keeps_a_deck_of_its_own():
    deck = {"mayor": 1, "seer": 1, "werewolf": 2, "minion": 1, "villager": 1}
    game = start(dealt(5, 4, deck=deck))
    nxt = next_game_doc(game, seed=5)
    assert nxt["deck"] == deck
    assert "minion" not in nxt["options"] and "beholder" not in nxt["options"]
    assert deck_of(start({**nxt, "words": WORDS})) == Counter(deck)
    seated = start(doc(FOUR, "Cal"))
    assert next_game_doc(seated, seed=1)["deck"] == {"mayor": 1, "seer": 1, "werewolf": 1,
                                                     "villager": 2}
    assert next_game_doc(seated, seed=1)["last_mayor"] == "Cal"


def test_play_again_the_mayor_card_moves_left_when_it_is_the_centre_card():
    """The whole loop: game one's mayor, then a deal with the Mayor card in the centre."""
    deck = standard_deck(4, Options())
    first = start(dealt(4, 0))
    seed = seed_with_the_mayor_card_in_the_centre(deck, 4)
    second = start({**next_game_doc(first, seed), "words": WORDS})
    assert second.mayor == (first.mayor + 1) % 4
