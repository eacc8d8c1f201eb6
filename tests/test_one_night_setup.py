"""One Night's preparation (seed 001, «2. La preparación»): the count, the deck, the centre,
the suggested deck at every count, the host's own cards, the deal and the options."""

from __future__ import annotations

from collections import Counter

import pytest

from rules import SetupError, replay
from rules.one_night import next_game_doc, rating, start, suggested_deck, validate_deck
from rules.one_night.balance import BALANCED, VILLAGE_FAVOURED, WOLF_FAVOURED, score
from rules.one_night.presets import MAX_PLAYERS, MIN_PLAYERS
from rules.one_night.roles import ROLES


def names(n: int) -> list[str]:
    return [f"P{i}" for i in range(n)]


def setup_error(doc: dict) -> str:
    result = replay({"ruleset": "one-night", **doc})
    assert result["error"] is not None and result["error"]["index"] is None, result["error"]
    assert result["roles"] == {} and result["events"] == [] and result["pending"] == []
    return result["error"]["reason"]


BASE3 = ["werewolf", "werewolf", "seer", "robber", "troublemaker", "villager"]

# ----------------------------------------------------------------------- the count


@pytest.mark.parametrize("n", [3, 12])
def test_from_three_to_twelve_players(n):
    """«Se juega de 3 a 12 jugadores.»"""
    game = start({"ruleset": "one-night", "players": names(n)})
    assert game.players == names(n)


@pytest.mark.parametrize("n", [0, 2, 13, 20])
def test_fewer_than_three_or_more_than_twelve_players_refused(n):
    reason = setup_error({"players": names(n)})
    assert "3 to 12" in reason


def test_player_names_use_the_shared_checks():
    assert "two players" in setup_error({"players": ["Ana", "ana", "Cal"]})
    assert "reserved" in setup_error({"players": ["Ana", "Ben", "table"]})
    assert "spaces" in setup_error({"players": ["Ana", "Ben", " Cal"]})


# ----------------------------------------------------------------------- the deck


def test_deck_holds_three_more_cards_than_players():
    """«El mazo siempre tiene tres cartas más que jugadores.»"""
    with pytest.raises(SetupError, match="needs 6"):
        validate_deck(BASE3[:5], 3)
    with pytest.raises(SetupError, match="needs 6"):
        validate_deck([*BASE3, "villager"], 3)
    assert sorted(validate_deck(BASE3, 3)) == sorted(BASE3)


def test_each_player_gets_one_card_and_the_last_three_lie_in_the_centre():
    """«cada jugador recibe una carta en secreto y las tres últimas quedan boca abajo en el
    centro»"""
    game = start({"ruleset": "one-night", "seed": 11, "players": names(5),
                  "deck": suggested_deck(5)})
    dealt = list(game.roles_as_dealt().values())
    assert len(dealt) == 5 and len(game.center_as_dealt()) == 3
    assert Counter(dealt + game.center_as_dealt()) == Counter(suggested_deck(5))
    assert game.cards() == game.roles_as_dealt() and game.center() == game.center_as_dealt()


def test_at_least_one_werewolf_in_the_deck():
    """«Tiene que haber al menos un lobo en el mazo.»"""
    no_wolf = ["seer", "robber", "troublemaker", "villager", "villager", "villager"]
    with pytest.raises(SetupError, match="at least one werewolf"):
        validate_deck(no_wolf, 3)
    # the mystic wolf is a werewolf («Un Hombre Lobo que además...»)
    validate_deck(["mystic_wolf", *no_wolf[1:]], 3)


def test_deck_check_unknown_card_refused():
    with pytest.raises(SetupError, match="unknown card 'wizard'"):
        validate_deck([*BASE3[:5], "wizard"], 3)
    with pytest.raises(SetupError, match="unknown card"):
        validate_deck([*BASE3[:5], 7], 3)


def test_deck_check_deck_must_be_a_list():
    for bad in ({"werewolf": 2}, "werewolf", None):
        with pytest.raises(SetupError, match="list"):
            validate_deck(bad, 3)


def test_deck_check_one_of_each_special_card():
    """«si hay dos Videntes, alguien miente»: a deck holds one seer, so two seers claimed
    means a liar. The same for every card with a power, the tanner and the hunter."""
    singles = [name for name, role in ROLES.items() if role.max_copies == 1]
    assert set(singles) == set(ROLES) - {"werewolf", "mason", "villager"}
    for card in singles:
        deck = ["werewolf", card, card, "villager", "villager", "villager", "villager"]
        with pytest.raises(SetupError, match=f"one {card} at most"):
            validate_deck(deck, 4)


def test_deck_check_masons_and_villagers_any_number():
    """«mason (any number; usually two)»"""
    for masons in (1, 2, 3, 4):
        deck = ["werewolf", "werewolf", "seer", *["mason"] * masons]
        deck += ["villager"] * (9 - len(deck))
        validate_deck(deck, 6)


def test_deck_check_werewolf_limits():
    """Sensible limits: three werewolf cards (four with the mystic wolf), at most one card
    in three a werewolf, so the village has a game."""
    with pytest.raises(SetupError, match="3 werewolf cards at most"):
        validate_deck(["werewolf"] * 4 + ["villager"] * 11, 12)
    with pytest.raises(SetupError, match="too many"):
        validate_deck(["werewolf"] * 3 + ["villager"] * 3, 3)
    validate_deck(["werewolf"] * 3 + ["mystic_wolf"] + ["villager"] * 11, 12)
    with pytest.raises(SetupError, match="too many"):
        validate_deck(["werewolf"] * 3 + ["mystic_wolf"] + ["villager"] * 7, 8)


# ----------------------------------------------------------------------- suggested decks


@pytest.mark.parametrize("n", range(MIN_PLAYERS, MAX_PLAYERS + 1))
def test_suggested_deck_at_every_count(n):
    """«o deja que el juego proponga una combinación equilibrada»: a deck for the count
    that passes the host's deck check, with a werewolf, and rates balanced."""
    deck = suggested_deck(n)
    assert len(deck) == n + 3
    assert validate_deck(deck, n) == deck  # already in the roles table's order
    assert any(ROLES[c].werewolf for c in deck)
    assert rating(deck) == BALANCED
    assert -3 <= score(deck) <= 0


def test_suggested_deck_the_documented_table():
    """The table in presets.py and docs/rules-one-night.md, count by count."""
    table = {
        3: Counter(BASE3),
        4: Counter(BASE3) + Counter(["insomniac"]),
        5: Counter(BASE3) + Counter(["insomniac", "drunk"]),
        6: Counter(BASE3) + Counter(["insomniac", "drunk", "minion"]),
        7: Counter(BASE3) + Counter(["insomniac", "drunk", "minion", "hunter"]),
        8: Counter(BASE3) + Counter(["insomniac", "drunk", "minion", "hunter", "tanner"]),
    }
    table[9] = table[8] + Counter(["doppelganger"])
    table[10] = table[9] + Counter(["mason", "mason"]) - Counter(["villager"])
    table[11] = table[10] + Counter(["paranormal_investigator"])
    table[12] = table[11] + Counter(["werewolf"])
    for n, cards in table.items():
        assert Counter(suggested_deck(n)) == cards, n


@pytest.mark.parametrize("n", [2, 13, "5", True, None])
def test_suggested_deck_outside_the_counts_refused(n):
    with pytest.raises(SetupError, match="3 to 12"):
        suggested_deck(n)


def test_no_deck_deals_the_suggested_deck():
    game = start({"ruleset": "one-night", "seed": 4, "players": names(7)})
    dealt = [*game.roles_as_dealt().values(), *game.center_as_dealt()]
    assert Counter(dealt) == Counter(suggested_deck(7))
    assert game.deck == suggested_deck(7)


def test_rating_of_a_hosts_own_deck():
    wolfish = ["werewolf", "werewolf", "minion", "tanner", "villager", "villager"]
    assert rating(wolfish) == WOLF_FAVOURED
    village = ["werewolf", "seer", "robber", "troublemaker", "insomniac", "mason", "mason",
               "hunter", "little_girl", "paranormal_investigator"]
    assert rating(village) == VILLAGE_FAVOURED
    assert rating(BASE3) == BALANCED


# ----------------------------------------------------------------------- the deal


def test_host_picks_the_cards_dealt_from_the_seed():
    """«el anfitrión elige los papeles»: names with a deck, dealt from the seed."""
    deck = ["werewolf", "werewolf", "seer", "robber", "troublemaker", "tanner", "hunter"]
    a = start({"ruleset": "one-night", "seed": 1, "players": names(4), "deck": deck})
    b = start({"ruleset": "one-night", "seed": 1, "players": names(4), "deck": deck[::-1]})
    assert Counter([*a.roles_as_dealt().values(), *a.center_as_dealt()]) == Counter(deck)
    # the same cards in any order deal the same from the same seed
    assert (a.roles_as_dealt(), a.center_as_dealt()) == (b.roles_as_dealt(), b.center_as_dealt())
    deals = {tuple(start({"ruleset": "one-night", "seed": s, "players": names(4),
                          "deck": deck}).center_as_dealt()) for s in range(12)}
    assert len(deals) > 1  # the seed does matter


def test_seated_players_with_their_cards_and_the_centre():
    game = start({"ruleset": "one-night",
                  "players": [["Ana", "seer"], ["Ben", "werewolf"], ["Cal", "robber"]],
                  "center": ["villager", "troublemaker", "werewolf"]})
    assert game.roles_as_dealt() == {"Ana": "seer", "Ben": "werewolf", "Cal": "robber"}
    assert game.center_as_dealt() == ["villager", "troublemaker", "werewolf"]
    assert game.deck == ["werewolf", "werewolf", "seer", "robber", "troublemaker", "villager"]


@pytest.mark.parametrize(("doc", "words"), [
    ({"players": [["A", "seer"], ["B", "werewolf"], ["C", "robber"]]}, "center"),
    ({"players": [["A", "seer"], ["B", "werewolf"], ["C", "robber"]],
      "center": ["villager", "werewolf"]}, "center"),
    ({"players": [["A", "seer"], ["B", "werewolf"], ["C", "robber"]],
      "center": ["villager", "werewolf", "seer"]}, "one seer at most"),
    ({"players": [["A", "seer"], ["B", "werewolf"], ["C", "robber"]],
      "center": ["villager", "troublemaker", "werewolf"], "deck": BASE3}, "not a deck"),
    ({"players": [["A", "seer"], "B", ["C", "robber"]],
      "center": ["villager", "troublemaker", "werewolf"]}, "every player"),
    ({"players": [["A", "seer", "x"], ["B", "werewolf"], ["C", "robber"]],
      "center": ["villager", "troublemaker", "werewolf"]}, "[name, card]"),
    ({"players": ["A", "B", "C"], "center": ["villager", "troublemaker", "werewolf"]},
     "center goes with"),
    ({"players": ["A", "B", "C"], "deck": {"werewolf": 2}}, "list"),
    ({"players": ["A", "B", "C"], "preset": "basic"}, "no presets"),
    ({"players": "A B C"}, "players must be a list"),
    ({"players": ["A", "B", "C"], "seed": "3"}, "seed"),
])
def test_set_up_errors_name_the_problem(doc, words):
    assert words in setup_error(doc)


# ----------------------------------------------------------------------- options


@pytest.mark.parametrize("minutes", [2, 3, 4, 5, None])
def test_debate_clock_two_to_five_minutes_or_none(minutes):
    """«un debate libre, normalmente de 3 a 5 minutos»: 2, 3, 4, 5 or no clock."""
    game = start({"ruleset": "one-night", "players": names(3),
                  "options": {"debate_minutes": minutes}})
    assert game.options.debate_minutes == minutes


def test_debate_clock_defaults_to_five_minutes():
    assert start({"ruleset": "one-night", "players": names(3)}).options.debate_minutes == 5


@pytest.mark.parametrize("options", [{"debate_minutes": 1}, {"debate_minutes": 6},
                                     {"debate_minutes": "5"}, {"debate_minutes": True},
                                     {"debate_minutes": 3.0}, {"sheriff": True}, ["x"]])
def test_bad_options_refused(options):
    reason = setup_error({"players": names(3), "options": options})
    assert "option" in reason or "debate_minutes" in reason


def test_play_again_with_the_same_table_and_cards():
    game = start({"ruleset": "one-night", "seed": 1, "players": names(6),
                  "options": {"debate_minutes": 3}})
    again = next_game_doc(game, 2)
    assert again == {"ruleset": "one-night", "seed": 2, "players": names(6),
                     "deck": suggested_deck(6), "options": {"debate_minutes": 3}}
    second = start(again)
    assert second.deck == game.deck


def test_the_fifteen_roles_and_their_sides():
    """Issue 13's roles (ids) and the seed's sides: «el pueblo, los lobos, o el Curtidor,
    que juega solo»; the minion «gana con ellos»; the doppelganger and the investigator
    play for what they become (see the doubtful cases), the village until then."""
    from rules.one_night.roles import side_of

    assert list(ROLES) == ["doppelganger", "werewolf", "mystic_wolf", "minion", "mason",
                           "seer", "paranormal_investigator", "robber", "troublemaker",
                           "drunk", "insomniac", "villager", "tanner", "hunter",
                           "little_girl"]
    assert {r for r in ROLES if side_of(r) == "werewolves"} == {"werewolf", "mystic_wolf",
                                                                 "minion"}
    assert {r for r in ROLES if side_of(r) == "tanner"} == {"tanner"}
    assert {r for r in ROLES if ROLES[r].werewolf} == {"werewolf", "mystic_wolf"}
