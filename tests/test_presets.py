"""The five ready set-ups of seed 000, checked against the seed's own tables.

The expected decks below are written out by hand from the seed text («Cuántos hombres lobo
repartir», the Básico and Clásico tables and «Tres repartos más, listos para usar»), never
recomputed with the engine's formulas.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from rules import SetupError, replay
from rules.simulate import random_action
from rules.wolf_village import start
from rules.wolf_village.balance import rating, score
from rules.wolf_village.presets import PRESETS, preset, recommended_wolves

# Spanish card names as the seed writes them -> the engine's role names
ES = {
    "hombres lobo": "werewolf",
    "vidente": "seer",
    "médico": "doctor",
    "bruja": "witch",
    "cazador": "hunter",
    "cupido": "cupid",
    "tonto del pueblo": "idiot",
    "aldeanos": "villager",
}

# «Básico»: | Jugadores | Hombres lobo | Vidente | Médico | Aldeanos |  (– is none)
BASIC_TABLE = """
| 4 | 1 | 1 | – | 2 |
| 5 | 1 | 1 | – | 3 |
| 6 | 1 | 1 | – | 4 |
| 7 | 2 | 1 | 1 | 3 |
| 8 | 2 | 1 | 1 | 4 |
| 9 | 2 | 1 | 1 | 5 |
| 10 | 2 | 1 | 1 | 6 |
| 11 | 3 | 1 | 1 | 6 |
| 12 | 3 | 1 | 1 | 7 |
| 13 | 3 | 1 | 1 | 8 |
| 14 | 3 | 1 | 1 | 9 |
| 15 | 3 | 1 | 1 | 10 |
| 16 | 3 | 1 | 1 | 11 |
| 17 | 4 | 1 | 1 | 11 |
| 18 | 4 | 1 | 1 | 12 |
| 19 | 4 | 1 | 1 | 13 |
| 20 | 4 | 1 | 1 | 14 |
"""

# «Clásico»: | Jugadores | Hombres lobo | Roles especiales | Aldeanos |
CLASSIC_TABLE = """
| 8 | 2 | vidente, bruja, cazador, Cupido | 2 |
| 9 | 2 | vidente, bruja, cazador, Cupido | 3 |
| 10 | 2 | vidente, bruja, cazador, Cupido | 4 |
| 11 | 3 | vidente, bruja, cazador, Cupido, tonto del pueblo | 3 |
| 12 | 3 | vidente, bruja, cazador, Cupido, tonto del pueblo | 4 |
| 13 | 3 | vidente, bruja, cazador, Cupido, tonto del pueblo | 5 |
| 14 | 3 | vidente, bruja, cazador, Cupido, tonto del pueblo | 6 |
| 15 | 3 | vidente, bruja, cazador, Cupido, tonto del pueblo | 7 |
| 16 | 3 | vidente, bruja, cazador, Cupido, tonto del pueblo | 8 |
| 17 | 4 | vidente, médico, bruja, cazador, Cupido, tonto del pueblo | 7 |
| 18 | 4 | vidente, médico, bruja, cazador, Cupido, tonto del pueblo | 8 |
| 19 | 4 | vidente, médico, bruja, cazador, Cupido, tonto del pueblo | 9 |
| 20 | 4 | vidente, médico, bruja, cazador, Cupido, tonto del pueblo | 10 |
"""


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _basic_expected() -> dict[int, dict[str, int]]:
    out = {}
    for line in BASIC_TABLE.strip().splitlines():
        n, wolves, seer, doctor, villagers = _cells(line)
        deck = {"werewolf": int(wolves), "seer": int(seer), "villager": int(villagers)}
        if doctor != "–":
            deck["doctor"] = int(doctor)
        out[int(n)] = deck
    return out


def _classic_expected() -> dict[int, dict[str, int]]:
    out = {}
    for line in CLASSIC_TABLE.strip().splitlines():
        n, wolves, specials, villagers = _cells(line)
        deck = {"werewolf": int(wolves), "villager": int(villagers)}
        for card in specials.split(","):
            deck[ES[card.strip().lower()]] = 1
        out[int(n)] = deck
    return out


BASIC = _basic_expected()
CLASSIC = _classic_expected()

# «Estándar 12 | exactamente 12 | 4 hombres lobo, 4 aldeanos, vidente, bruja, cazador,
# tonto del pueblo y el alguacil»
STANDARD12 = {
    12: {"werewolf": 4, "villager": 4, "seer": 1, "witch": 1, "hunter": 1, "idiot": 1},
}

# «Zorro | 9–20 | vidente, médico (que no puede protegerse a sí mismo), un esbirro que no
# conoce a los hombres lobo y el zorro. Dos masones se suman desde 11 jugadores. Hombres
# lobo: 1 hasta 10 jugadores, 2 hasta 16, 3 desde 17», villagers filling the other seats.
_FOX_BASE = {"seer": 1, "doctor": 1, "minion": 1, "fox": 1}
FOX = {
    9: {**_FOX_BASE, "werewolf": 1, "villager": 4},
    10: {**_FOX_BASE, "werewolf": 1, "villager": 5},
    11: {**_FOX_BASE, "werewolf": 2, "mason": 2, "villager": 3},
    12: {**_FOX_BASE, "werewolf": 2, "mason": 2, "villager": 4},
    13: {**_FOX_BASE, "werewolf": 2, "mason": 2, "villager": 5},
    14: {**_FOX_BASE, "werewolf": 2, "mason": 2, "villager": 6},
    15: {**_FOX_BASE, "werewolf": 2, "mason": 2, "villager": 7},
    16: {**_FOX_BASE, "werewolf": 2, "mason": 2, "villager": 8},
    17: {**_FOX_BASE, "werewolf": 3, "mason": 2, "villager": 8},
    18: {**_FOX_BASE, "werewolf": 3, "mason": 2, "villager": 9},
    19: {**_FOX_BASE, "werewolf": 3, "mason": 2, "villager": 10},
    20: {**_FOX_BASE, "werewolf": 3, "mason": 2, "villager": 11},
}

# «Caos | 9–20 | vidente, médico, cazador, Cupido, esbirro, bufón y el alguacil. La bruja
# se suma desde 11 jugadores, el tonto del pueblo y el maldito desde 12, los masones desde
# 17. Hombres lobo: 1 hasta 10 jugadores, 2 hasta 16, 3 desde 17»
_CHAOS_BASE = {"seer": 1, "doctor": 1, "hunter": 1, "cupid": 1, "minion": 1, "jester": 1}
_W = {"witch": 1}
_WIC = {"witch": 1, "idiot": 1, "cursed": 1}
CHAOS = {
    9: {**_CHAOS_BASE, "werewolf": 1, "villager": 2},
    10: {**_CHAOS_BASE, "werewolf": 1, "villager": 3},
    11: {**_CHAOS_BASE, **_W, "werewolf": 2, "villager": 2},
    12: {**_CHAOS_BASE, **_WIC, "werewolf": 2, "villager": 1},
    13: {**_CHAOS_BASE, **_WIC, "werewolf": 2, "villager": 2},
    14: {**_CHAOS_BASE, **_WIC, "werewolf": 2, "villager": 3},
    15: {**_CHAOS_BASE, **_WIC, "werewolf": 2, "villager": 4},
    16: {**_CHAOS_BASE, **_WIC, "werewolf": 2, "villager": 5},
    17: {**_CHAOS_BASE, **_WIC, "werewolf": 3, "mason": 2, "villager": 3},
    18: {**_CHAOS_BASE, **_WIC, "werewolf": 3, "mason": 2, "villager": 4},
    19: {**_CHAOS_BASE, **_WIC, "werewolf": 3, "mason": 2, "villager": 5},
    20: {**_CHAOS_BASE, **_WIC, "werewolf": 3, "mason": 2, "villager": 6},
}

EXPECTED = {
    "basic": BASIC,
    "classic": CLASSIC,
    "standard12": STANDARD12,
    "fox": FOX,
    "chaos": CHAOS,
}

# «Básico funciona con cualquier número de 4 a 20. Clásico empieza en 8 jugadores, Zorro y
# Caos en 9, y Estándar 12 necesita exactamente 12.»
RANGES = {"basic": (4, 20), "classic": (8, 20), "standard12": (12, 12), "fox": (9, 20),
          "chaos": (9, 20)}

# Which presets elect a sheriff on day 1: Clásico («Cada partida Clásica elige además a un
# alguacil el día 1»), Estándar 12 and Caos («... y el alguacil»); Básico and Zorro do not
# list one.
SHERIFF = {"basic": False, "classic": True, "standard12": True, "fox": False, "chaos": True}

CASES = [(name, n) for name, table in EXPECTED.items() for n in table]


def names(n: int) -> list[str]:
    return [f"P{i:02d}" for i in range(n)]


def _clean(deck: dict[str, int]) -> dict[str, int]:
    return {role: count for role, count in deck.items() if count}


def test_the_tables_themselves_add_up():
    """A guard on the literal data above: every row seats exactly its players."""
    for name, table in EXPECTED.items():
        lo, hi = RANGES[name]
        assert sorted(table) == list(range(lo, hi + 1)), name
        for n, deck in table.items():
            assert sum(deck.values()) == n, (name, n)


def test_every_preset_is_known():
    assert set(PRESETS) == set(EXPECTED)
    for name in EXPECTED:
        assert preset(name) is PRESETS[name]


def test_unknown_preset_refused():
    with pytest.raises(SetupError, match="unknown preset"):
        preset("werewolves-of-millers-hollow")


@pytest.mark.parametrize("name", list(RANGES))
def test_preset_ranges(name):
    lo, hi = RANGES[name]
    assert (PRESETS[name].min_players, PRESETS[name].max_players) == (lo, hi)


@pytest.mark.parametrize(("name", "n"), CASES)
def test_preset_deck_matches_seed_table(name, n):
    assert _clean(PRESETS[name].deck(n)) == EXPECTED[name][n]


@pytest.mark.parametrize(("name", "n"), CASES)
def test_preset_deal_matches_seed_table(name, n):
    """The game actually deals the table's cards, one per player."""
    result = replay({"preset": name, "seed": n * 31 + 7, "players": names(n)})
    assert result["error"] is None
    assert list(result["roles"]) == names(n)
    assert dict(Counter(result["roles"].values())) == EXPECTED[name][n]


@pytest.mark.parametrize("name", list(RANGES))
def test_counts_outside_the_range_are_refused(name):
    lo, hi = RANGES[name]
    for n in [0, 1, 3, lo - 1, hi + 1, 21, 25]:
        if lo <= n <= hi:
            continue
        with pytest.raises(SetupError) as refused:
            PRESETS[name].deck(n)
        assert str(n) in refused.value.reason
        if 4 <= n <= 20:
            # within Wolf Village's 4..20, the set-up document is refused for the preset
            result = replay({"preset": name, "players": names(n)})
            assert result["error"]["index"] is None
            assert name in result["error"]["reason"]
            assert result["roles"] == {}


@pytest.mark.parametrize("name", list(RANGES))
def test_counts_outside_four_to_twenty_refused_in_a_document(name):
    for n in (3, 21):
        result = replay({"preset": name, "players": names(n)})
        assert result["error"] is not None
        assert result["error"]["index"] is None
        assert result["error"]["reason"]


def test_recommended_wolves():
    """«1 para 4 a 6 jugadores, 2 para 7 a 10, 3 para 11 a 16 y 4 para 17 a 20»."""
    expected = {**dict.fromkeys(range(4, 7), 1), **dict.fromkeys(range(7, 11), 2),
                **dict.fromkeys(range(11, 17), 3), **dict.fromkeys(range(17, 21), 4)}
    for n, wolves in expected.items():
        assert recommended_wolves(n) == wolves, n
    # «el que reparte su reparto Básico»
    for n in range(4, 21):
        assert PRESETS["basic"].deck(n)["werewolf"] == expected[n]


def test_eight_players_two_wolves():
    """FAQ: «¿Cuántos hombres lobo para 8 jugadores? Dos.»"""
    assert recommended_wolves(8) == 2


# ---------------------------------------------------------------- sheriff and options


@pytest.mark.parametrize("name", list(RANGES))
def test_sheriff_per_preset(name):
    lo, _ = RANGES[name]
    game = start({"preset": name, "seed": 3, "players": names(lo)})
    assert game.options.sheriff is SHERIFF[name]


@pytest.mark.parametrize("name", list(RANGES))
def test_sheriff_election_on_day_one_only_when_the_preset_has_one(name):
    lo, _ = RANGES[name]
    rng = random.Random(11)
    for seed in range(5):
        game = start({"preset": name, "seed": seed, "players": names(lo)})
        while not any(e["type"] == "day" for e in game.events):
            action = random_action(game, rng)
            assert action is not None
            game.apply(*action)
        if game.winner is not None:
            continue
        verbs = {d.action for d in game.pending()}
        assert verbs == ({"elect"} if SHERIFF[name] else {"vote"}), (name, seed)


@pytest.mark.parametrize("name", list(RANGES))
def test_sheriff_can_be_switched_either_way(name):
    lo, _ = RANGES[name]
    for value in (True, False):
        game = start({"preset": name, "players": names(lo), "options": {"sheriff": value}})
        assert game.options.sheriff is value


def test_fox_preset_options():
    """«médico (que no puede protegerse a sí mismo), un esbirro que no conoce a los
    hombres lobo»."""
    opts = PRESETS["fox"].options
    assert opts.get("doctor_self_protect") is False
    assert opts.get("minion_knows_wolves") is False
    game = start({"preset": "fox", "seed": 1, "players": names(9)})
    assert game.options.doctor_self_protect is False
    assert game.options.minion_knows_wolves is False


@pytest.mark.parametrize("name", ["basic", "classic", "standard12", "chaos"])
def test_other_presets_keep_the_default_doctor_and_minion(name):
    """Defaults: «El médico puede protegerse a sí mismo: activado por defecto», and the
    minion «sabe quiénes son los hombres lobo»."""
    lo, _ = RANGES[name]
    game = start({"preset": name, "seed": 1, "players": names(max(lo, 12))})
    assert game.options.doctor_self_protect is True
    assert game.options.minion_knows_wolves is True
    assert game.options.doctor_repeat is False


def _doctor_turn(doc: dict, rng: random.Random):
    """Play randomly until the doctor is asked to protect; return (game, doctor) or None."""
    game = start(doc)
    doctor = next(p for p, r in game.roles_as_dealt().items() if r == "doctor")
    for _ in range(2000):
        if any(d.player == doctor and d.action == "protect" for d in game.pending()):
            return game, doctor
        action = random_action(game, rng)
        if action is None:
            return None
        game.apply(*action)
    return None


@pytest.mark.parametrize("mode", ["narrated", "all_at_once", "pass_phones"])
def test_fox_doctor_cannot_protect_himself(mode):
    from rules import Refused

    found = _doctor_turn(
        {"preset": "fox", "seed": 5, "players": names(10), "options": {"night_mode": mode}},
        random.Random(0),
    )
    assert found is not None
    game, doctor = found
    assert doctor not in game.legal_targets(doctor, "protect")
    assert game.legal_targets(doctor, "protect")
    before = list(game.events), game.pending()
    with pytest.raises(Refused):
        game.apply(doctor, "protect", doctor)
    assert (game.events, game.pending()) == before


def test_classic_doctor_can_protect_himself():
    found = _doctor_turn({"preset": "classic", "seed": 5, "players": names(17)},
                         random.Random(0))
    assert found is not None
    game, doctor = found
    assert doctor in game.legal_targets(doctor, "protect")
    game.apply(doctor, "protect", doctor)


def test_fox_doctor_self_protect_can_be_switched_back_on():
    found = _doctor_turn(
        {"preset": "fox", "seed": 5, "players": names(10),
         "options": {"doctor_self_protect": True}},
        random.Random(0),
    )
    assert found is not None
    game, doctor = found
    assert doctor in game.legal_targets(doctor, "protect")


# ---------------------------------------------------------------- balance


def test_seed_fixed_weights():
    """«un aldeano vale 1, un hombre lobo −6 y el vidente +7»."""
    assert score({"villager": 1}) == 1
    assert score({"werewolf": 1}) == -6
    assert score({"seer": 1}) == 7
    assert score({"villager": 5}) == 5
    assert score({"werewolf": 2, "seer": 1, "villager": 3}) == -12 + 7 + 3


def test_minion_weighs_like_a_werewolf():
    """«Un esbirro ocupa el lugar de un hombre lobo en la cuenta recomendada»."""
    assert score({"minion": 1}) == score({"werewolf": 1})


@pytest.mark.parametrize("n", range(4, 21))
def test_basic_rates_balanced_at_every_count(n):
    """«El juego lo valora como Equilibrado con cualquier número de 4 a 20.»"""
    assert rating(BASIC[n]) == "balanced"
    assert rating(PRESETS["basic"].deck(n)) == "balanced"


def test_rating_names():
    assert rating({"villager": 40}) == "village-favoured"
    assert rating({"werewolf": 4, "villager": 2}) == "wolf-favoured"
    assert rating({"werewolf": 1, "seer": 1, "villager": 2}) == "balanced"


# ---------------------------------------------------------------- the deal


@pytest.mark.parametrize(("name", "n"), [(name, RANGES[name][1]) for name in RANGES])
def test_deal_is_a_permutation_of_the_deck(name, n):
    for seed in range(20):
        dealt = replay({"preset": name, "seed": seed, "players": names(n)})["roles"]
        assert Counter(dealt.values()) == Counter(EXPECTED[name][n])


@pytest.mark.parametrize("name", list(RANGES))
def test_deal_is_determined_by_the_seed(name):
    n = RANGES[name][1]
    deals = {}
    for seed in range(12):
        first = replay({"preset": name, "seed": seed, "players": names(n)})["roles"]
        again = replay({"preset": name, "seed": seed, "players": names(n)})["roles"]
        assert first == again
        assert start({"preset": name, "seed": seed, "players": names(n)}).roles_as_dealt() \
            == first
        deals[seed] = tuple(first.values())
    # different seeds deal differently somewhere
    assert len(set(deals.values())) > 1
    assert deals[0] != deals[1] or deals[1] != deals[2]


def test_seed_defaults_to_zero():
    doc = {"preset": "classic", "players": names(12)}
    assert replay(doc)["roles"] == replay({**doc, "seed": 0})["roles"]


def test_the_deal_shuffles_across_seats():
    """Over many seeds every seat sometimes gets a werewolf (not a fixed deal)."""
    seen = set()
    for seed in range(200):
        roles = replay({"preset": "basic", "seed": seed, "players": names(8)})["roles"]
        seen |= {p for p, r in roles.items() if r == "werewolf"}
    assert seen == set(names(8))
