"""Custom decks and set-up documents: everything that breaks the rules is refused with a
clear reason (seed 000, «Tu propio reparto», «De 4 a 20 jugadores», «Toda partida tiene
hombres lobo», the roles table; DESIGN.md «Bad input ... gets a clear error»)."""

from __future__ import annotations

import pytest

from rules import TABLE, SetupError, replay
from rules.replay import start as start_log
from rules.wolf_village import start
from rules.wolf_village.setup import build_setup, validate_deck

UNIQUE_ROLES = ["seer", "doctor", "witch", "hunter", "cupid", "idiot", "cursed", "minion",
                "jester", "fox"]


def names(n: int) -> list[str]:
    return [f"P{i:02d}" for i in range(n)]


def refused(doc: dict) -> str:
    """Replay a set-up that must be refused; return the reason."""
    result = replay(doc)
    assert result["error"] is not None, doc
    assert result["error"]["index"] is None
    assert result["error"]["action"] is None
    assert result["roles"] == {}
    assert result["events"] == []
    assert result["pending"] == []
    assert result["winner"] is None
    with pytest.raises(SetupError):
        start_log(doc)
    reason = result["error"]["reason"]
    assert isinstance(reason, str) and reason
    return reason


def deck_doc(deck: dict, n: int | None = None, **extra) -> dict:
    n = sum(v for v in deck.values() if isinstance(v, int)) if n is None else n
    return {"seed": 1, "deck": deck, "players": names(n), **extra}


# ---------------------------------------------------------------- valid decks


def test_a_valid_custom_deck_is_dealt():
    deck = {"werewolf": 2, "seer": 1, "doctor": 1, "mason": 2, "villager": 3}
    validate_deck(deck, 9)
    setup, _ = build_setup(deck_doc(deck))
    assert sorted(setup.roles) == sorted(r for r, c in deck.items() for _ in range(c))
    assert replay(deck_doc(deck))["error"] is None


def test_a_valid_seated_game():
    doc = {"players": [["Ana", "seer"], ["Ben", "werewolf"], ["Cy", "villager"],
                       ["Di", "villager"]]}
    result = replay(doc)
    assert result["error"] is None
    assert result["roles"] == {"Ana": "seer", "Ben": "werewolf", "Cy": "villager",
                               "Di": "villager"}


def test_custom_deck_has_no_sheriff_by_default():
    game = start(deck_doc({"werewolf": 1, "seer": 1, "villager": 3}))
    assert game.options.sheriff is False


@pytest.mark.parametrize("role", UNIQUE_ROLES)
def test_one_of_each_unique_role_is_fine(role):
    deck = {"werewolf": 2, role: 1, "villager": 5}
    validate_deck(deck, 8)
    assert replay(deck_doc(deck))["error"] is None


def test_every_role_at_once():
    deck = {r: 1 for r in UNIQUE_ROLES} | {"werewolf": 3, "mason": 2, "villager": 5}
    assert sum(deck.values()) == 20
    assert replay(deck_doc(deck))["error"] is None


# ---------------------------------------------------------------- deck size


@pytest.mark.parametrize(("size", "players"), [(5, 6), (7, 6), (4, 20)])
def test_deck_size_must_equal_players(size, players):
    deck = {"werewolf": 1, "seer": 1, "villager": size - 2}
    with pytest.raises(SetupError) as problem:
        validate_deck(deck, players)
    assert f"{size} cards for {players} players" in problem.value.reason
    reason = refused(deck_doc(deck, players))
    assert "cards" in reason and str(players) in reason


def test_seated_players_are_their_own_deck():
    doc = {"players": [["Ana", "seer"], ["Ben", "villager"], ["Cy", "villager"],
                       ["Di", "villager"]]}
    assert "werewolf" in refused(doc)


# ---------------------------------------------------------------- werewolves


@pytest.mark.parametrize("deck", [
    {"seer": 1, "villager": 4},
    {"werewolf": 0, "seer": 1, "villager": 4},
    {"minion": 1, "seer": 1, "villager": 3},
])
def test_at_least_one_werewolf(deck):
    """«Toda partida tiene hombres lobo»."""
    with pytest.raises(SetupError, match="werewolf"):
        validate_deck(deck, 5)
    assert "werewolf" in refused(deck_doc(deck))


def test_too_many_werewolves_win_before_the_first_night():
    deck = {"werewolf": 3, "villager": 3}
    reason = refused(deck_doc(deck))
    assert "werewol" in reason


# ---------------------------------------------------------------- masons


@pytest.mark.parametrize("count", [1, 3, 4])
def test_masons_only_as_a_pair(count):
    """«Los masones vienen en pareja»."""
    deck = {"werewolf": 2, "seer": 1, "mason": count, "villager": 4}
    with pytest.raises(SetupError) as problem:
        validate_deck(deck, sum(deck.values()))
    assert "mason" in problem.value.reason and "pair" in problem.value.reason
    assert "mason" in refused(deck_doc(deck))


def test_a_pair_of_masons_is_fine():
    deck = {"werewolf": 2, "seer": 1, "mason": 2, "villager": 4}
    validate_deck(deck, 9)


# ---------------------------------------------------------------- unique roles


@pytest.mark.parametrize("role", UNIQUE_ROLES)
def test_unique_roles_at_most_once(role):
    deck = {"werewolf": 2, role: 2, "villager": 5}
    with pytest.raises(SetupError) as problem:
        validate_deck(deck, 9)
    assert role in problem.value.reason
    assert role in refused(deck_doc(deck))


@pytest.mark.parametrize("role", ["seer", "witch", "fox"])
def test_unique_roles_at_most_once_when_seated(role):
    doc = {"players": [["A", "werewolf"], ["B", role], ["C", role], ["D", "villager"],
                       ["E", "villager"]]}
    assert role in refused(doc)


# ---------------------------------------------------------------- unknown roles / counts


@pytest.mark.parametrize("role", ["vampire", "Seer", "hombre lobo", "sheriff", ""])
def test_unknown_role(role):
    """The sheriff is «un título, no un rol»: nobody is dealt it."""
    deck = {"werewolf": 1, "villager": 3, role: 1}
    with pytest.raises(SetupError) as problem:
        validate_deck(deck, 5)
    assert "unknown role" in problem.value.reason
    assert "unknown role" in refused(deck_doc(deck, 5))


def test_unknown_role_when_seated():
    doc = {"players": [["A", "werewolf"], ["B", "vampire"], ["C", "villager"],
                       ["D", "villager"]]}
    assert "unknown role" in refused(doc)


@pytest.mark.parametrize("count", [-1, 1.5, "2", None])
def test_counts_must_be_whole_numbers(count):
    deck = {"werewolf": 1, "seer": 1, "villager": count}
    reason = refused(deck_doc(deck, 5))
    assert "villager" in reason


def test_boolean_count_is_not_a_number():
    deck = {"werewolf": True, "seer": 1, "villager": 3}
    assert "werewolf" in refused(deck_doc(deck, 5))


def test_deck_must_be_an_object():
    assert "deck" in refused({"deck": [["werewolf", 1]], "players": names(5)})


def test_preset_and_deck_together_refused():
    doc = {"preset": "basic", "deck": {"werewolf": 1, "villager": 3}, "players": names(4)}
    assert "preset" in refused(doc)


# ---------------------------------------------------------------- number of players


@pytest.mark.parametrize("n", [0, 1, 2, 3, 21, 22, 30])
def test_too_few_or_too_many_players(n):
    """«Wolf Village admite 4 como mínimo y 20 como máximo.»"""
    wolves = max(1, min(4, n // 5))
    deck = {"werewolf": wolves, "villager": max(0, n - wolves)}
    reason = refused(deck_doc(deck, n))
    assert "4 to 20" in reason
    assert str(n) in reason


@pytest.mark.parametrize("n", [4, 20])
def test_four_and_twenty_are_allowed(n):
    wolves = 1 if n == 4 else 4
    deck = {"werewolf": wolves, "seer": 1, "villager": n - wolves - 1}
    assert replay(deck_doc(deck, n))["error"] is None


def test_too_many_seated_players():
    players = [[f"P{i}", "werewolf" if i < 4 else "villager"] for i in range(21)]
    assert "4 to 20" in refused({"players": players})


def test_players_must_be_a_list():
    assert "players" in refused({"preset": "basic", "players": "Ana,Ben,Cy,Di"})
    assert "players" in refused({"preset": "basic"})


def test_seated_player_must_be_a_pair():
    doc = {"players": [["A", "werewolf"], ["B"], ["C", "villager"], ["D", "villager"]]}
    assert "[name, role]" in refused(doc)


# ---------------------------------------------------------------- names


@pytest.mark.parametrize("dup", [["Ana", "Ana"], ["Ana", "ana"], ["Ana", "ANA"]])
def test_duplicate_names(dup):
    players = [*dup, "Ben", "Cy", "Di"]
    reason = refused({"preset": "basic", "players": players})
    assert "two players" in reason
    assert dup[1] in reason


@pytest.mark.parametrize("name", [TABLE, "Table", "TABLE"])
def test_reserved_name_table(name):
    """"table" is the actor for the whole table (revote / spare on a tie)."""
    reason = refused({"preset": "basic", "players": ["Ana", "Ben", "Cy", name]})
    assert "reserved" in reason
    assert name in reason


@pytest.mark.parametrize("name", ["", "   ", " Ana", "Ana ", 7, None])
def test_bad_names(name):
    players = [name, "Ben", "Cy", "Di"]
    assert refused({"preset": "basic", "players": players})


def test_duplicate_names_when_seated():
    doc = {"players": [["Ana", "werewolf"], ["Ana", "seer"], ["C", "villager"],
                       ["D", "villager"]]}
    assert "two players" in refused(doc)


# ---------------------------------------------------------------- options


@pytest.mark.parametrize("key", ["night", "Sheriff", "debate_clock", "reveal_roles"])
def test_unknown_option(key):
    doc = {"preset": "basic", "players": names(5), "options": {key: True}}
    reason = refused(doc)
    assert "unknown option" in reason and key in reason


@pytest.mark.parametrize("key", ["reveal_dead_roles", "doctor_self_protect", "doctor_repeat",
                                 "minion_knows_wolves", "sheriff"])
@pytest.mark.parametrize("value", [1, 0, "yes", "true", None, [True]])
def test_boolean_options_must_be_booleans(key, value):
    doc = {"preset": "basic", "players": names(5), "options": {key: value}}
    reason = refused(doc)
    assert key in reason and "true or false" in reason


@pytest.mark.parametrize("value", ["daytime", "Narrated", "", None, 1, True])
def test_night_mode_must_be_a_known_mode(value):
    doc = {"preset": "basic", "players": names(5), "options": {"night_mode": value}}
    reason = refused(doc)
    assert "night_mode" in reason
    assert "narrated" in reason and "all_at_once" in reason and "pass_phones" in reason


@pytest.mark.parametrize("mode", ["narrated", "all_at_once", "pass_phones"])
def test_night_modes_accepted(mode):
    doc = {"preset": "basic", "players": names(5), "options": {"night_mode": mode}}
    assert replay(doc)["error"] is None
    assert start(doc).options.night_mode == mode


def test_option_defaults():
    """Seed defaults: dead roles revealed («activada por defecto»), the doctor may protect
    himself, may not repeat, the minion knows the wolves; narrated night; no sheriff for a
    custom deck."""
    options = start(deck_doc({"werewolf": 1, "seer": 1, "villager": 3})).options
    assert options.reveal_dead_roles is True
    assert options.doctor_self_protect is True
    assert options.doctor_repeat is False
    assert options.minion_knows_wolves is True
    assert options.sheriff is False
    assert options.night_mode == "narrated"


@pytest.mark.parametrize("options", [["sheriff"], "sheriff", 3])
def test_options_must_be_an_object(options):
    reason = refused({"preset": "basic", "players": names(5), "options": options})
    assert "options" in reason


# ---------------------------------------------------------------- seed and ruleset


@pytest.mark.parametrize("seed", ["7", 1.5, True, None, [1]])
def test_seed_must_be_a_whole_number(seed):
    assert "seed" in refused({"preset": "basic", "seed": seed, "players": names(5)})


def test_unknown_preset_in_a_document():
    reason = refused({"preset": "werewords", "players": names(5)})
    assert "unknown preset" in reason and "werewords" in reason


def test_unknown_ruleset():
    reason = refused({"ruleset": "no-such-game", "preset": "basic", "players": names(5)})
    assert "unknown ruleset" in reason and "no-such-game" in reason


def test_document_must_be_an_object():
    result = replay(["not", "a", "game"])
    assert result["error"]["index"] is None
    assert result["error"]["reason"]


def test_seated_role_must_be_a_name():
    doc = {"players": [["A", "werewolf"], ["B", ["seer"]], ["C", "villager"],
                       ["D", "villager"]]}
    assert refused(doc)
