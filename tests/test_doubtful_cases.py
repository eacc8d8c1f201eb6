"""Every «Casos dudosos» bullet of seed 000, one test (or a few with the same prefix) each.

The seed is the authority: «Cada caso dudoso de esta página se resuelve como lo resuelve el
juego.» Each docstring quotes the bullet it tests.
"""

from __future__ import annotations

from typing import Any

import pytest

from rules import TABLE, Refused, replay
from tests.game_helpers import (
    deaths,
    everyone_elects,
    everyone_votes,
    new_game,
    of_type,
    pending,
    run,
)

# ---------------------------------------------------------------------------- helpers
















def last_dawn(game: Any) -> int:
    """Index of the last dawn event, to look at one morning only."""
    return max(i for i, e in enumerate(game.events) if e["type"] == "dawn")


NO_POTION = {"heal": False, "poison": None}

# ---------------------------------------------------------------------------- 1. vote tie


def test_caso_dudoso_vote_tie_revote_or_spare_sheriff_decides_table_revotes():
    """«La votación termina en empate. Debatan un poco más y vuelvan a votar, o dejen vivir
    a todos.» Without a sheriff the table chooses: here, vote again."""
    g = new_game([("Wes", "werewolf"), ("Sia", "seer"), ("Val", "villager"),
                  ("Vic", "villager"), ("Viv", "villager")])
    run(g, ("Wes", "kill", "Viv"), ("Sia", "inspect", "Wes"))
    run(g, ("Wes", "vote", "Sia"), ("Sia", "vote", "Wes"), ("Val", "vote", "Wes"),
        ("Vic", "vote", "Sia"))
    assert of_type(g, "tie")[-1]["players"] == ["Wes", "Sia"]
    assert pending(g) == {(TABLE, "revote"), (TABLE, "spare")}
    assert deaths(g) == {"Viv": "werewolves"}
    with pytest.raises(Refused):  # nobody breaks the tie alone without a sheriff
        g.apply("Sia", "break_tie", "Wes")
    mark = len(g.events)
    g.apply(TABLE, "revote", None)
    assert of_type(g, "revote", mark)
    assert pending(g) == {(p, "vote") for p in ("Wes", "Sia", "Val", "Vic")}
    everyone_votes(g, "Wes", Wes="Sia")
    assert deaths(g, mark) == {"Wes": "vote"}
    assert g.winner == "village"


def test_caso_dudoso_vote_tie_revote_or_spare_sheriff_decides_table_spares():
    """«... o dejen vivir a todos: "La aldea no llegó a un acuerdo. Hoy nadie queda
    fuera."» Sparing ends the day with nobody out; the next night begins."""
    g = new_game([("Wes", "werewolf"), ("Sia", "seer"), ("Val", "villager"),
                  ("Vic", "villager"), ("Viv", "villager")])
    run(g, ("Wes", "kill", "Viv"), ("Sia", "inspect", "Wes"))
    run(g, ("Wes", "vote", "Sia"), ("Sia", "vote", "Wes"), ("Val", "vote", "Wes"),
        ("Vic", "vote", "Sia"))
    mark = len(g.events)
    g.apply(TABLE, "spare", None)
    assert of_type(g, "no_elimination", mark)
    assert deaths(g, mark) == {}
    assert g.alive_names() == ["Wes", "Sia", "Val", "Vic"]
    assert of_type(g, "night", mark) == [{"type": "night", "number": 2}]
    assert pending(g) == {("Wes", "kill")}


def test_caso_dudoso_vote_tie_revote_or_spare_sheriff_decides_sheriff_breaks_it():
    """«Con alguacil, el alguacil decide el empate.»"""
    g = new_game([("Wes", "werewolf"), ("Sia", "seer"), ("Val", "villager"),
                  ("Vic", "villager"), ("Viv", "villager")], sheriff=True)
    run(g, ("Wes", "kill", "Viv"), ("Sia", "inspect", "Val"))
    everyone_elects(g, "Sia")
    assert g.sheriff_name() == "Sia"
    # Sia's vote counts double: Wes 2 (Sia) against Val 2 (Wes, Vic): a tie.
    run(g, ("Wes", "vote", "Val"), ("Sia", "vote", "Wes"), ("Val", "vote", None),
        ("Vic", "vote", "Val"))
    assert of_type(g, "tie")[-1]["players"] == ["Wes", "Val"]
    assert pending(g) == {("Sia", "break_tie")}
    assert sorted(g.legal_targets("Sia", "break_tie")) == ["Val", "Wes"]
    for refused in ((TABLE, "revote", None), (TABLE, "spare", None),
                    ("Sia", "break_tie", "Vic"), ("Val", "break_tie", "Wes")):
        with pytest.raises(Refused):
            g.apply(*refused)
    g.apply("Sia", "break_tie", "Wes")
    assert deaths(g)["Wes"] == "vote"
    assert g.winner == "village"


# ---------------------------------------------------------------------------- 2. pack split

PACK_TABLE = [("Wa", "werewolf"), ("Wb", "werewolf"), ("Wc", "werewolf"), ("Ana", "villager"),
              ("Bo", "villager"), ("Cy", "villager"), ("Di", "villager"), ("Ed", "villager"),
              ("Flo", "villager"), ("Gus", "villager")]


@pytest.mark.parametrize("seed", range(12))
def test_caso_dudoso_wolves_disagree_plurality_random_tiebreak_most_wolves_win(seed):
    """«Los hombres lobo no se ponen de acuerdo. La víctima es el jugador que eligieron más
    lobos.»"""
    g = new_game(PACK_TABLE, seed=seed)
    run(g, ("Wa", "kill", "Bo"), ("Wb", "kill", "Ana"), ("Wc", "kill", "Ana"))
    assert g.pack_victim() == "Ana"
    assert deaths(g) == {"Ana": "werewolves"}


def test_caso_dudoso_wolves_disagree_plurality_random_tiebreak():
    """«Si dos o más empatan con más votos, el azar elige a uno de ellos.» Chance picks
    among the tied only, both can come out, and one seed always gives the same victim."""
    victims = set()
    for seed in range(30):
        g = new_game(PACK_TABLE, seed=seed)
        run(g, ("Wa", "kill", "Ana"), ("Wb", "kill", "Bo"), ("Wc", "kill", "Cy"))
        victims.add(g.pack_victim())
        assert deaths(g) == {g.pack_victim(): "werewolves"}
        doc = {"seed": seed, "players": [list(p) for p in PACK_TABLE],
               "actions": [["Wa", "kill", "Ana"], ["Wb", "kill", "Bo"], ["Wc", "kill", "Cy"]]}
        again = replay(doc)
        assert again["error"] is None
        picked = next(e for e in again["events"] if e["type"] == "pack_victim")
        assert picked["player"] == g.pack_victim()
    assert victims == {"Ana", "Bo", "Cy"}


# ---------------------------------------------------------------------------- 3. dead chooser


def test_caso_dudoso_dies_at_night_after_choosing_choice_still_counts_seer_sees():
    """«Un jugador muere por la noche después de haber elegido. Su elección cuenta
    igualmente, porque todo ocurre al amanecer. Un vidente muerto esta noche sigue
    viendo ...»"""
    g = new_game([("Wes", "werewolf"), ("Sia", "seer"), ("Val", "villager"),
                  ("Vic", "villager"), ("Viv", "villager")])
    run(g, ("Wes", "kill", "Sia"))
    assert pending(g) == {("Sia", "inspect")}  # the victim still takes her turn
    run(g, ("Sia", "inspect", "Wes"))
    assert of_type(g, "inspection") == [
        {"type": "inspection", "seer": "Sia", "target": "Wes", "werewolf": True}
    ]
    assert deaths(g) == {"Sia": "werewolves"}


def test_caso_dudoso_dies_at_night_after_choosing_choice_still_counts_witch_poisons():
    """«... una bruja muerta esta noche sigue envenenando ...»"""
    g = new_game([("Wa", "werewolf"), ("Wb", "werewolf"), ("Bru", "witch"),
                  ("Val", "villager"), ("Vic", "villager"), ("Viv", "villager"),
                  ("Vo", "villager")])
    run(g, ("Wa", "kill", "Bru"), ("Wb", "kill", "Bru"))
    assert pending(g) == {("Bru", "witch")}
    run(g, ("Bru", "witch", {"heal": False, "poison": "Wb"}))
    assert deaths(g) == {"Bru": "werewolves", "Wb": "poison"}


def test_caso_dudoso_dies_at_night_after_choosing_choice_still_counts_seer_kills_fox():
    """«... y la mirada de un vidente al zorro sigue matando al zorro.»"""
    g = new_game([("Wes", "werewolf"), ("Sia", "seer"), ("Zor", "fox"),
                  ("Val", "villager"), ("Vic", "villager"), ("Viv", "villager")])
    run(g, ("Wes", "kill", "Sia"), ("Sia", "inspect", "Zor"))
    assert of_type(g, "inspection")[0]["werewolf"] is False
    assert deaths(g) == {"Sia": "werewolves", "Zor": "vanished"}


@pytest.mark.parametrize("mode", ["all_at_once", "pass_phones"])
def test_caso_dudoso_dies_at_night_after_choosing_choice_still_counts_secret_turns(mode):
    """«Su elección cuenta igualmente, porque todo ocurre al amanecer.» With secret turns the
    seer may even choose after the pack: her look at the fox still kills him, and the witch
    (the pack's victim) still poisons."""
    g = new_game([("Wes", "werewolf"), ("Sia", "seer"), ("Bru", "witch"), ("Zor", "fox"),
                  ("Val", "villager"), ("Vic", "villager"), ("Viv", "villager")],
                 night_mode=mode)
    run(g, ("Wes", "kill", "Sia"))
    if mode == "all_at_once":
        assert ("Bru", "witch") in pending(g)
    run(g, ("Bru", "witch", {"heal": False, "poison": "Val"}), ("Sia", "inspect", "Zor"))
    for d in g.pending():
        assert d.action == "suspect"
        g.apply(d.player, "suspect", "Wes")
    assert deaths(g) == {"Sia": "werewolves", "Val": "poison", "Zor": "vanished"}
    assert g.winner is None


# ---------------------------------------------------------------------------- 4. double save


def test_caso_dudoso_doctor_and_witch_save_same_victim():
    """«El médico y la bruja salvan a la misma víctima. La víctima vive y la mañana se lo
    atribuye al médico. La poción curativa de la bruja se gasta igualmente.»"""
    g = new_game([("Wes", "werewolf"), ("Doc", "doctor"), ("Bru", "witch"),
                  ("Val", "villager"), ("Vic", "villager"), ("Viv", "villager")])
    run(g, ("Wes", "kill", "Val"), ("Doc", "protect", "Val"),
        ("Bru", "witch", {"heal": True, "poison": None}))
    assert of_type(g, "saved") == [{"type": "saved", "player": "Val", "by": "doctor"}]
    assert deaths(g) == {}
    assert "Val" in g.alive_names()
    # the healing potion is gone: night 2 offers her no heal
    everyone_votes(g, None)
    run(g, ("Wes", "kill", "Vic"), ("Doc", "protect", "Doc"))
    assert pending(g) == {("Bru", "witch")}
    assert all(t["heal"] is False for t in g.legal_targets("Bru", "witch"))
    with pytest.raises(Refused):
        g.apply("Bru", "witch", {"heal": True, "poison": None})
    run(g, ("Bru", "witch", NO_POTION))
    assert deaths(g, last_dawn(g)) == {"Vic": "werewolves"}


# ---------------------------------------------------------------------------- 5. protection


def test_caso_dudoso_protection_stops_only_the_bite_bite_is_stopped():
    """«Qué detiene la protección del médico. Solo el mordisco de los hombres lobo.»"""
    g = new_game([("Wes", "werewolf"), ("Doc", "doctor"), ("Val", "villager"),
                  ("Vic", "villager"), ("Viv", "villager")])
    run(g, ("Wes", "kill", "Val"), ("Doc", "protect", "Val"))
    assert of_type(g, "saved") == [{"type": "saved", "player": "Val", "by": "doctor"}]
    assert deaths(g) == {}


def test_caso_dudoso_protection_stops_only_the_bite_not_the_poison():
    """«No detiene el veneno de la bruja ...»"""
    g = new_game([("Wes", "werewolf"), ("Doc", "doctor"), ("Bru", "witch"),
                  ("Val", "villager"), ("Vic", "villager"), ("Viv", "villager")])
    run(g, ("Wes", "kill", "Vic"), ("Doc", "protect", "Val"),
        ("Bru", "witch", {"heal": False, "poison": "Val"}))
    assert deaths(g) == {"Vic": "werewolves", "Val": "poison"}
    assert not of_type(g, "saved")


def test_caso_dudoso_protection_stops_only_the_bite_not_the_hunter():
    """«No detiene ... el disparo del cazador ...»"""
    g = new_game([("Wes", "werewolf"), ("Doc", "doctor"), ("Caz", "hunter"),
                  ("Val", "villager"), ("Vic", "villager"), ("Viv", "villager")])
    run(g, ("Wes", "kill", "Caz"), ("Doc", "protect", "Val"))
    assert pending(g) == {("Caz", "shoot")}
    run(g, ("Caz", "shoot", "Val"))
    assert deaths(g) == {"Caz": "werewolves", "Val": "hunter"}


def test_caso_dudoso_protection_stops_only_the_bite_not_grief():
    """«No detiene ... una muerte de pena ...»"""
    g = new_game([("Wes", "werewolf"), ("Cup", "cupid"), ("Doc", "doctor"),
                  ("Val", "villager"), ("Vic", "villager"), ("Viv", "villager")])
    run(g, ("Cup", "link", ["Val", "Vic"]), ("Wes", "kill", "Val"), ("Doc", "protect", "Vic"))
    assert deaths(g) == {"Val": "werewolves", "Vic": "grief"}


def test_caso_dudoso_protection_stops_only_the_bite_not_the_seer_on_the_fox():
    """«No detiene ... la mirada del vidente al zorro.»"""
    g = new_game([("Wes", "werewolf"), ("Sia", "seer"), ("Doc", "doctor"), ("Zor", "fox"),
                  ("Val", "villager"), ("Vic", "villager")])
    run(g, ("Wes", "kill", "Val"), ("Sia", "inspect", "Zor"), ("Doc", "protect", "Zor"))
    assert deaths(g) == {"Val": "werewolves", "Zor": "vanished"}


# ---------------------------------------------------------------------------- 6. cursed


def test_caso_dudoso_cursed_protected_nothing_happens():
    """«Los hombres lobo atacan al maldito, pero el médico lo protege. Gana la protección:
    nadie muere y nadie se transforma.»"""
    g = new_game([("Wes", "werewolf"), ("Doc", "doctor"), ("Mal", "cursed"),
                  ("Val", "villager"), ("Vic", "villager"), ("Viv", "villager")])
    run(g, ("Wes", "kill", "Mal"), ("Doc", "protect", "Mal"))
    assert deaths(g) == {}
    assert not of_type(g, "transformed")
    assert of_type(g, "saved") == [{"type": "saved", "player": "Mal", "by": "doctor"}]
    assert g.current_role("Mal") == "cursed"
    everyone_votes(g, None)
    assert pending(g) == {("Wes", "kill")}
    assert g.legal_targets("Wes", "kill").count("Mal") == 1  # still prey, not pack


def test_caso_dudoso_cursed_protected_nothing_happens_witch_heal_too():
    """«Si los hombres lobo lo atacan de noche y nadie lo protege ni lo cura, no muere: se
    convierte en hombre lobo» — the witch's cure stops the turning as well."""
    g = new_game([("Wes", "werewolf"), ("Bru", "witch"), ("Mal", "cursed"),
                  ("Val", "villager"), ("Vic", "villager"), ("Viv", "villager")])
    run(g, ("Wes", "kill", "Mal"), ("Bru", "witch", {"heal": True, "poison": None}))
    assert deaths(g) == {}
    assert not of_type(g, "transformed")
    assert g.current_role("Mal") == "cursed"


# ---------------------------------------------------------------------------- 7. hunter


def test_caso_dudoso_hunter_dies_of_grief_or_poison_still_shoots_grief():
    """«El cazador muere de pena o envenenado. Dispara igualmente. Cualquier muerte
    cuenta.»"""
    g = new_game([("Wes", "werewolf"), ("Cup", "cupid"), ("Caz", "hunter"),
                  ("Val", "villager"), ("Vic", "villager"), ("Viv", "villager")])
    run(g, ("Cup", "link", ["Caz", "Val"]), ("Wes", "kill", "Val"))
    assert deaths(g) == {"Val": "werewolves", "Caz": "grief"}
    assert pending(g) == {("Caz", "shoot")}
    run(g, ("Caz", "shoot", "Wes"))
    assert deaths(g)["Wes"] == "hunter"
    assert g.winner == "village"


def test_caso_dudoso_hunter_dies_of_grief_or_poison_still_shoots_poison():
    """«El cazador muere de pena o envenenado. Dispara igualmente.»"""
    g = new_game([("Wes", "werewolf"), ("Bru", "witch"), ("Caz", "hunter"),
                  ("Val", "villager"), ("Vic", "villager"), ("Viv", "villager")])
    run(g, ("Wes", "kill", "Val"), ("Bru", "witch", {"heal": False, "poison": "Caz"}))
    assert deaths(g) == {"Val": "werewolves", "Caz": "poison"}
    assert pending(g) == {("Caz", "shoot")}
    assert "Caz" not in g.legal_targets("Caz", "shoot")
    run(g, ("Caz", "shoot", "Vic"))
    assert deaths(g)["Vic"] == "hunter"
    assert g.winner is None
    assert of_type(g, "day") == [{"type": "day", "number": 1}]


# ---------------------------------------------------------------------------- 8. shot vs win


def test_caso_dudoso_hunter_shot_before_win_check():
    """«El disparo del cazador y el final de la partida. El disparo va primero. El juego
    comprueba si hay ganador solo después del disparo.» The vote leaves one wolf against
    one villager (the wolves' parity), but the hunter's shot at the wolf comes first."""
    g = new_game([("Wes", "werewolf"), ("Caz", "hunter"), ("Val", "villager"),
                  ("Vic", "villager")])
    run(g, ("Wes", "kill", "Val"))
    everyone_votes(g, "Caz", Caz="Wes")
    assert g.alive_names() == ["Wes", "Vic"]
    assert g.winner is None
    assert not of_type(g, "game_over")
    assert pending(g) == {("Caz", "shoot")}
    run(g, ("Caz", "shoot", "Wes"))
    assert g.winner == "village"
    assert of_type(g, "game_over") == [
        {"type": "game_over", "winner": "village", "winners": ["Caz", "Val", "Vic"]}
    ]


def test_caso_dudoso_hunter_shot_before_win_check_at_dawn():
    """«El juego comprueba si hay ganador solo después del disparo.» A hunter killed at
    night leaves the wolves at parity; his shot settles the morning first."""
    g = new_game([("Wes", "werewolf"), ("Caz", "hunter"), ("Val", "villager"),
                  ("Vic", "villager")])
    run(g, ("Wes", "kill", "Caz"))
    assert g.winner is None
    assert not of_type(g, "day")
    assert pending(g) == {("Caz", "shoot")}
    run(g, ("Caz", "shoot", "Wes"))
    assert g.winner == "village"
    assert not of_type(g, "day")


def test_caso_dudoso_hunter_shot_before_win_check_shot_can_hand_the_win():
    """«El disparo va primero.» Shooting the last villager gives the wolves their parity."""
    g = new_game([("Wes", "werewolf"), ("Caz", "hunter"), ("Val", "villager"),
                  ("Vic", "villager"), ("Viv", "villager")])
    run(g, ("Wes", "kill", "Val"))
    everyone_votes(g, "Caz", Caz="Wes")
    assert g.winner is None
    run(g, ("Caz", "shoot", "Vic"))
    assert g.alive_names() == ["Wes", "Viv"]
    assert g.winner == "werewolves"


# ---------------------------------------------------------------------------- 9. witch victim


def test_caso_dudoso_witch_is_victim_heals_self_cannot_poison_self():
    """«La bruja es la víctima. Puede curarse a sí misma. No puede envenenarse a sí
    misma.»"""
    g = new_game([("Wes", "werewolf"), ("Bru", "witch"), ("Val", "villager"),
                  ("Vic", "villager"), ("Viv", "villager")])
    run(g, ("Wes", "kill", "Bru"))
    assert pending(g) == {("Bru", "witch")}
    assert all(t["poison"] != "Bru" for t in g.legal_targets("Bru", "witch"))
    assert {"heal": True, "poison": None} in g.legal_targets("Bru", "witch")
    for attempt in ({"heal": False, "poison": "Bru"}, {"heal": True, "poison": "Bru"}):
        with pytest.raises(Refused):
            g.apply("Bru", "witch", attempt)
    assert pending(g) == {("Bru", "witch")}  # refused: nothing changed
    run(g, ("Bru", "witch", {"heal": True, "poison": None}))
    assert of_type(g, "saved") == [{"type": "saved", "player": "Bru", "by": "witch"}]
    assert deaths(g) == {}


# ---------------------------------------------------------------------------- 10. lovers


def test_caso_dudoso_opposite_lovers_village_cannot_win_while_lover_wolf_lives():
    """«Enamorados de bandos opuestos. Un hombre lobo enamorado de un aldeano juega solo por
    los enamorados. Mientras ese lobo viva, el pueblo no puede ganar ...»"""
    g = new_game([("Cup", "cupid"), ("Wa", "werewolf"), ("Wb", "werewolf"),
                  ("Val", "villager"), ("Vic", "villager"), ("Viv", "villager"),
                  ("Vo", "villager")])
    run(g, ("Cup", "link", ["Wb", "Val"]), ("Wa", "kill", "Vic"), ("Wb", "kill", "Vic"))
    assert g.lovers_mixed() is True
    everyone_votes(g, "Wa", Wa="Viv")
    assert deaths(g)["Wa"] == "vote"
    # the only wolf left is Wb, in love with Val: no village win
    assert g.winner is None
    assert not of_type(g, "game_over")
    assert pending(g) == {("Wb", "kill")}


def test_caso_dudoso_opposite_lovers_pack_does_not_count_him():
    """«... y la manada no lo cuenta como uno de los suyos.» Wa, Wb (in love with Val) and Val
    are left: counted as the pack, two wolves against one would win; the pack is only Wa."""
    g = new_game([("Cup", "cupid"), ("Wa", "werewolf"), ("Wb", "werewolf"),
                  ("Val", "villager"), ("Vic", "villager")])
    run(g, ("Cup", "link", ["Wb", "Val"]), ("Wa", "kill", "Cup"), ("Wb", "kill", "Cup"))
    assert g.winner is None
    everyone_votes(g, "Vic", Vic="Wa")
    assert g.alive_names() == ["Wa", "Wb", "Val"]
    assert g.winner is None
    assert of_type(g, "night")[-1] == {"type": "night", "number": 2}


# ---------------------------------------------------------------------------- 11. idiot sheriff


def test_caso_dudoso_idiot_is_sheriff():
    """«El tonto del pueblo es el alguacil. Cuando la votación le perdona la vida, pierde su
    voto, así que pasa la placa o la tira.»"""
    g = new_game([("Wes", "werewolf"), ("Ton", "idiot"), ("Sia", "seer"),
                  ("Val", "villager"), ("Vic", "villager"), ("Viv", "villager")], sheriff=True)
    run(g, ("Wes", "kill", "Viv"), ("Sia", "inspect", "Val"))
    everyone_elects(g, "Ton")
    assert g.sheriff_name() == "Ton"
    mark = len(g.events)
    everyone_votes(g, "Ton")
    assert of_type(g, "spared", mark) == [{"type": "spared", "player": "Ton"}]
    assert "Ton" in g.alive_names()
    assert pending(g) == {("Ton", "pass_badge")}
    targets = g.legal_targets("Ton", "pass_badge")
    assert None in targets and "Ton" not in targets
    run(g, ("Ton", "pass_badge", "Val"))
    assert g.sheriff_name() == "Val"
    assert of_type(g, "sheriff", mark) == [{"type": "sheriff", "player": "Val", "how": "badge"}]
    # night 2, then day 2: the spared idiot no longer votes
    run(g, ("Wes", "kill", "Vic"), ("Sia", "inspect", "Wes"))
    assert pending(g) == {("Wes", "vote"), ("Sia", "vote"), ("Val", "vote")}
    with pytest.raises(Refused):
        g.apply("Ton", "vote", "Wes")


def test_caso_dudoso_idiot_is_sheriff_throws_the_badge():
    """«... así que pasa la placa o la tira.»"""
    g = new_game([("Wes", "werewolf"), ("Ton", "idiot"), ("Val", "villager"),
                  ("Vic", "villager"), ("Viv", "villager")], sheriff=True)
    run(g, ("Wes", "kill", "Viv"))
    everyone_elects(g, "Ton")
    everyone_votes(g, "Ton")
    run(g, ("Ton", "pass_badge", None))
    assert g.sheriff_name() is None
    assert of_type(g, "sheriff")[-1] == {"type": "sheriff", "player": None, "how": "badge"}
    assert of_type(g, "night")[-1] == {"type": "night", "number": 2}


def test_caso_dudoso_idiot_is_sheriff_badge_never_goes_to_a_spared_idiot():
    """«Tampoco se le puede dar la placa a un tonto ya perdonado.»"""
    g = new_game([("Wes", "werewolf"), ("Ton", "idiot"), ("Sia", "seer"),
                  ("Val", "villager"), ("Vic", "villager"), ("Viv", "villager")], sheriff=True)
    run(g, ("Wes", "kill", "Viv"), ("Sia", "inspect", "Val"))
    everyone_elects(g, "Sia")
    everyone_votes(g, "Ton")
    assert of_type(g, "spared") == [{"type": "spared", "player": "Ton"}]
    run(g, ("Wes", "kill", "Sia"), ("Sia", "inspect", "Vic"))
    assert pending(g) == {("Sia", "pass_badge")}
    assert "Ton" not in g.legal_targets("Sia", "pass_badge")
    with pytest.raises(Refused):
        g.apply("Sia", "pass_badge", "Ton")
    assert g.sheriff_name() is None and pending(g) == {("Sia", "pass_badge")}
    run(g, ("Sia", "pass_badge", "Vic"))
    assert g.sheriff_name() == "Vic"


# ---------------------------------------------------------------------------- 12. cursed lover


def test_caso_dudoso_cursed_lover_bitten_becomes_mixed():
    """«Un enamorado maldito es mordido. El bando de los enamorados se cuenta ahora a partir
    de sus roles. Así, un maldito enamorado de un aldeano pasa a ser, una vez mordido, un
    enamorado de bando distinto.»"""
    g = new_game([("Cup", "cupid"), ("Wes", "werewolf"), ("Mal", "cursed"),
                  ("Val", "villager"), ("Vic", "villager"), ("Viv", "villager")])
    run(g, ("Cup", "link", ["Mal", "Val"]))
    assert g.lovers_mixed() is False
    run(g, ("Wes", "kill", "Mal"))
    assert of_type(g, "transformed") == [{"type": "transformed", "player": "Mal"}]
    assert g.current_role("Mal") == "werewolf"
    assert g.lovers_mixed() is True
    # the mixed lover wolf now keeps the village from winning when the pack falls
    everyone_votes(g, "Wes", Wes="Vic")
    assert deaths(g) == {"Wes": "vote"}
    assert g.winner is None
    assert pending(g) == {("Mal", "kill")}


def test_caso_dudoso_cursed_lover_bitten_becomes_mixed_and_back():
    """«El bando de los enamorados se cuenta ahora a partir de sus roles.» A cursed in love
    with a werewolf is of another side until bitten; then both are wolves."""
    g = new_game([("Cup", "cupid"), ("Wes", "werewolf"), ("Mal", "cursed"),
                  ("Val", "villager"), ("Vic", "villager"), ("Viv", "villager")])
    run(g, ("Cup", "link", ["Mal", "Wes"]))
    assert g.lovers_mixed() is True
    run(g, ("Wes", "kill", "Mal"))
    assert g.current_role("Mal") == "werewolf"
    assert g.lovers_mixed() is False


# ---------------------------------------------------------------------------- 13. solo in love


def test_caso_dudoso_jester_or_fox_in_love_jester_voted_out_does_not_win():
    """«Un bufón o un zorro enamorado. Un enamorado de bando distinto al de su pareja juega
    solo por la victoria de los enamorados. Un bufón enamorado que es expulsado no gana
    ...»"""
    g = new_game([("Cup", "cupid"), ("Wes", "werewolf"), ("Buf", "jester"),
                  ("Val", "villager"), ("Vic", "villager"), ("Viv", "villager")])
    run(g, ("Cup", "link", ["Buf", "Val"]))
    assert g.lovers_mixed() is True
    run(g, ("Wes", "kill", "Vic"))
    everyone_votes(g, "Buf")
    assert deaths(g) == {"Vic": "werewolves", "Buf": "vote", "Val": "grief"}
    assert g.winner is None
    assert not of_type(g, "game_over")
    assert pending(g) == {("Wes", "kill")}


def test_caso_dudoso_jester_or_fox_in_love_fox_does_not_take_the_win():
    """«... y un zorro enamorado no se queda con la victoria.»"""
    g = new_game([("Cup", "cupid"), ("Wes", "werewolf"), ("Zor", "fox"),
                  ("Val", "villager"), ("Vic", "villager")])
    run(g, ("Cup", "link", ["Zor", "Val"]), ("Wes", "kill", "Cup"))
    assert g.lovers_mixed() is True
    everyone_votes(g, "Wes", Wes="Vic")
    assert g.alive_names() == ["Zor", "Val", "Vic"]
    assert g.winner == "village"
    # neither lover wins with the village: they play only for the lovers' win
    assert g.winners == ["Cup", "Vic"]


def test_caso_dudoso_jester_or_fox_in_love_same_side_partner_still_mixed():
    """«Un bufón o un zorro enamorado siempre es de un bando distinto al de su pareja»
    (Cupido), even when the partner is the other solo role."""
    g = new_game([("Cup", "cupid"), ("Wes", "werewolf"), ("Zor", "fox"), ("Buf", "jester"),
                  ("Val", "villager"), ("Vic", "villager")])
    run(g, ("Cup", "link", ["Zor", "Buf"]))
    assert g.lovers_mixed() is True


# ---------------------------------------------------------------------------- 14. save + death


def test_caso_dudoso_doctor_saves_while_another_dies():
    """«El médico salva a alguien en una noche en que murió otro jugador. La mañana no dice
    "Nadie murió". Dice solo: "Los hombres lobo atacaron de noche, pero su víctima no
    murió."» The morning holds both the save and the other death."""
    g = new_game([("Wes", "werewolf"), ("Doc", "doctor"), ("Bru", "witch"),
                  ("Val", "villager"), ("Vic", "villager"), ("Viv", "villager")])
    run(g, ("Wes", "kill", "Val"), ("Doc", "protect", "Val"),
        ("Bru", "witch", {"heal": False, "poison": "Vic"}))
    morning = g.events[last_dawn(g):]
    kinds = [e["type"] for e in morning]
    assert kinds[:3] == ["dawn", "saved", "death"]
    assert morning[1] == {"type": "saved", "player": "Val", "by": "doctor"}
    assert morning[2] == {"type": "death", "player": "Vic", "cause": "poison"}
    assert "Val" in g.alive_names()


def test_caso_dudoso_doctor_saves_while_another_dies_fox_vanishes():
    """«El médico salva a alguien en una noche en que murió otro jugador.» Another death
    here is the fox the seer looked at."""
    g = new_game([("Wes", "werewolf"), ("Sia", "seer"), ("Doc", "doctor"), ("Zor", "fox"),
                  ("Val", "villager"), ("Vic", "villager")])
    run(g, ("Wes", "kill", "Val"), ("Sia", "inspect", "Zor"), ("Doc", "protect", "Val"))
    morning = g.events[last_dawn(g):]
    assert {"type": "saved", "player": "Val", "by": "doctor"} in morning
    assert deaths(g) == {"Zor": "vanished"}


# ---------------------------------------------------------------------------- 15. jester night


def test_caso_dudoso_jester_dies_at_night_loses():
    """«El bufón muere de noche. El bufón simplemente pierde. Solo una votación del pueblo
    hace ganar al bufón.»"""
    g = new_game([("Wes", "werewolf"), ("Buf", "jester"), ("Val", "villager"),
                  ("Vic", "villager"), ("Viv", "villager")])
    run(g, ("Wes", "kill", "Buf"))
    assert deaths(g) == {"Buf": "werewolves"}
    assert g.winner is None
    everyone_votes(g, "Wes", Wes="Val")
    assert g.winner == "village"
    assert "Buf" not in g.winners


def test_caso_dudoso_jester_dies_at_night_loses_poisoned():
    """«El bufón simplemente pierde.» (the witch's poison is a night death too)"""
    g = new_game([("Wes", "werewolf"), ("Bru", "witch"), ("Buf", "jester"),
                  ("Val", "villager"), ("Vic", "villager"), ("Viv", "villager")])
    run(g, ("Wes", "kill", "Val"), ("Bru", "witch", {"heal": False, "poison": "Buf"}))
    assert deaths(g) == {"Val": "werewolves", "Buf": "poison"}
    assert g.winner is None
    assert pending(g) == {(p, "vote") for p in ("Wes", "Bru", "Vic", "Viv")}


def test_caso_dudoso_jester_dies_at_night_loses_hunter_shot():
    """«Solo una votación del pueblo hace ganar al bufón.» (Bufón: «Si el bufón muere de
    cualquier otra forma, de noche o por la flecha del cazador, pierde.»)"""
    g = new_game([("Wes", "werewolf"), ("Caz", "hunter"), ("Buf", "jester"),
                  ("Val", "villager"), ("Vic", "villager"), ("Viv", "villager")])
    run(g, ("Wes", "kill", "Caz"), ("Caz", "shoot", "Buf"))
    assert deaths(g) == {"Caz": "werewolves", "Buf": "hunter"}
    assert g.winner is None
    assert not of_type(g, "game_over")


# ---------------------------------------------------------------------------- 16. 2 v 2


def test_caso_dudoso_two_wolves_two_villagers():
    """«Quedan dos lobos y dos aldeanos. Ganan los hombres lobo: basta con ser tantos como
    los demás.»"""
    g = new_game([("Wa", "werewolf"), ("Wb", "werewolf"), ("Val", "villager"),
                  ("Vic", "villager"), ("Viv", "villager")])
    run(g, ("Wa", "kill", "Viv"), ("Wb", "kill", "Viv"))
    assert g.alive_names() == ["Wa", "Wb", "Val", "Vic"]
    assert g.winner == "werewolves"
    assert g.winners == ["Wa", "Wb"]
    assert not of_type(g, "day")
    assert g.pending() == []


def test_caso_dudoso_two_wolves_two_villagers_after_a_vote():
    """«Quedan dos lobos y dos aldeanos. Ganan los hombres lobo.»"""
    g = new_game([("Wa", "werewolf"), ("Wb", "werewolf"), ("Val", "villager"),
                  ("Vic", "villager"), ("Viv", "villager"), ("Vo", "villager")])
    run(g, ("Wa", "kill", "Vo"), ("Wb", "kill", "Vo"))
    assert g.winner is None
    everyone_votes(g, "Viv")
    assert g.alive_names() == ["Wa", "Wb", "Val", "Vic"]
    assert g.winner == "werewolves"


# ---------------------------------------------------------------------------- 17. counting


def test_caso_dudoso_minion_and_fox_count_as_others():
    """«El esbirro, el zorro y la cuenta. Ambos cuentan como "todos los demás" cuando el
    juego compara a los hombres lobo con el resto.» One wolf with the minion and the fox
    left is one against two: no win yet."""
    g = new_game([("Wes", "werewolf"), ("Esb", "minion"), ("Zor", "fox"),
                  ("Val", "villager"), ("Vic", "villager")])
    run(g, ("Wes", "kill", "Val"))
    everyone_votes(g, "Vic", Vic="Wes")
    assert g.alive_names() == ["Wes", "Esb", "Zor"]
    assert g.winner is None
    assert pending(g) == {("Wes", "kill")}
    # the fox shrugs off the bite; the day's vote takes him and leaves 1 against 1
    run(g, ("Wes", "kill", "Zor"))
    assert of_type(g, "unharmed") == [{"type": "unharmed", "player": "Zor"}]
    assert g.winner is None
    everyone_votes(g, "Zor")
    assert g.alive_names() == ["Wes", "Esb"]
    assert g.winner == "werewolves"
    assert g.winners == ["Wes", "Esb"]


def test_caso_dudoso_minion_and_fox_count_as_others_minion_alone_with_wolves():
    """«El esbirro ... cuenta como "todos los demás"»: one wolf and one minion against two
    villagers is one against three, so no win."""
    g = new_game([("Wes", "werewolf"), ("Esb", "minion"), ("Val", "villager"),
                  ("Vic", "villager"), ("Viv", "villager")])
    run(g, ("Wes", "kill", "Viv"))
    assert g.alive_names() == ["Wes", "Esb", "Val", "Vic"]
    assert g.winner is None
    everyone_votes(g, "Val", Val="Wes", Vic="Wes")  # Wes 2 (Val, Vic) vs Val 2: a tie
    g.apply(TABLE, "spare", None)
    assert g.winner is None
