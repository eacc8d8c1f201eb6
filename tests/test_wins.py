"""Win conditions of seed 000 («Cómo se gana» and the roles' own wins).

«El juego comprueba si hay ganador después de cada mañana y de cada votación, cuando ya se
han resuelto todas las muertes, los disparos y la placa. Si se dan dos victorias a la vez,
va primero la del bufón, luego la de los enamorados y después la del pueblo o los hombres
lobo. Un zorro vivo se lleva esta última.»
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
















def assert_over(game: Any, winner: str, winners: list[str]) -> None:
    """The game ended once, with this winner, and nothing is pending any more."""
    assert game.winner == winner
    assert game.winners == winners
    assert of_type(game, "game_over") == [
        {"type": "game_over", "winner": winner, "winners": winners}
    ]
    assert game.events[-1]["type"] == "game_over"
    assert game.pending() == []


def assert_not_over(game: Any) -> None:
    assert game.winner is None
    assert game.winners == []
    assert not of_type(game, "game_over")
    assert game.pending() != []


# ---------------------------------------------------------------------------- the village


def test_village_wins_when_the_last_werewolf_is_voted_out():
    """«El pueblo gana cuando muere el último hombre lobo.» Every village player wins, dead
    or alive, in seat order: Cupid and a pair of village lovers with them."""
    g = new_game([("Cup", "cupid"), ("Wa", "werewolf"), ("Wb", "werewolf"), ("Sia", "seer"),
                  ("Val", "villager"), ("Vic", "villager"), ("Viv", "villager")])
    run(g, ("Cup", "link", ["Val", "Vic"]), ("Wa", "kill", "Viv"), ("Wb", "kill", "Viv"),
        ("Sia", "inspect", "Wa"))
    assert g.lovers_mixed() is False
    everyone_votes(g, "Wa", Wa="Sia", Wb="Sia")
    assert deaths(g)["Wa"] == "vote"
    assert_not_over(g)  # one wolf is still alive
    run(g, ("Wb", "kill", "Cup"), ("Sia", "inspect", "Wb"))
    assert_not_over(g)
    everyone_votes(g, "Wb", Wb="Sia")
    assert_over(g, "village", ["Cup", "Sia", "Val", "Vic", "Viv"])
    assert of_type(g, "night")[-1]["number"] == 2  # no night after the winning vote


def test_village_wins_at_dawn_and_no_day_follows():
    """«El juego comprueba si hay ganador después de cada mañana»: the witch's poison kills
    the last wolf; the game ends at the morning, before any day."""
    g = new_game([("Wes", "werewolf"), ("Bru", "witch"), ("Val", "villager"),
                  ("Vic", "villager"), ("Viv", "villager")])
    run(g, ("Wes", "kill", "Val"), ("Bru", "witch", {"heal": False, "poison": "Wes"}))
    assert deaths(g) == {"Val": "werewolves", "Wes": "poison"}
    assert not of_type(g, "day")
    assert_over(g, "village", ["Bru", "Val", "Vic", "Viv"])


def test_village_wins_with_the_minion_alive():
    """«El pueblo gana cuando muere el último hombre lobo, esté vivo o no el esbirro.» The
    minion plays for the wolves and loses with them."""
    g = new_game([("Wes", "werewolf"), ("Esb", "minion"), ("Val", "villager"),
                  ("Vic", "villager"), ("Viv", "villager")])
    run(g, ("Wes", "kill", "Viv"))
    everyone_votes(g, "Wes", Wes="Val")
    assert "Esb" in g.alive_names()
    assert_over(g, "village", ["Val", "Vic", "Viv"])


def test_village_wins_with_the_minion_dead():
    """«... esté vivo o no el esbirro.»"""
    g = new_game([("Wes", "werewolf"), ("Esb", "minion"), ("Val", "villager"),
                  ("Vic", "villager"), ("Viv", "villager")])
    run(g, ("Wes", "kill", "Esb"))
    assert deaths(g) == {"Esb": "werewolves"}
    everyone_votes(g, "Wes", Wes="Val")
    assert_over(g, "village", ["Val", "Vic", "Viv"])


def test_village_lovers_of_one_side_win_with_the_village():
    """«Los enamorados del mismo bando siguen jugando con su equipo.» Two village lovers as
    the last two alive are a village win, not a lovers' win."""
    g = new_game([("Cup", "cupid"), ("Wes", "werewolf"), ("Val", "villager"),
                  ("Vic", "villager")])
    run(g, ("Cup", "link", ["Val", "Vic"]), ("Wes", "kill", "Cup"))
    everyone_votes(g, "Wes", Wes="Val")
    assert g.alive_names() == ["Val", "Vic"]
    assert_over(g, "village", ["Cup", "Val", "Vic"])


def test_village_wins_once_the_mixed_lover_wolf_is_gone():
    """«Mientras ese lobo viva, el pueblo no puede ganar»; when he dies (his partner dies of
    grief) the village wins, and neither mixed lover is among its winners."""
    g = new_game([("Cup", "cupid"), ("Wa", "werewolf"), ("Wb", "werewolf"),
                  ("Val", "villager"), ("Vic", "villager"), ("Viv", "villager"),
                  ("Vo", "villager")])
    run(g, ("Cup", "link", ["Wb", "Val"]), ("Wa", "kill", "Vic"), ("Wb", "kill", "Vic"))
    everyone_votes(g, "Wa", Wa="Vo")
    assert_not_over(g)
    run(g, ("Wb", "kill", "Viv"))
    assert_not_over(g)
    everyone_votes(g, "Wb", Wb="Vo")
    assert deaths(g)["Val"] == "grief"
    assert_over(g, "village", ["Cup", "Vic", "Viv", "Vo"])


def test_cupid_who_is_a_mixed_lover_does_not_win_with_the_village():
    """«Cupido juega para el pueblo, salvo que sea uno de dos enamorados de bandos distintos;
    entonces juega solo por los enamorados.»"""
    g = new_game([("Cup", "cupid"), ("Wes", "werewolf"), ("Zor", "fox"),
                  ("Val", "villager"), ("Vic", "villager")])
    run(g, ("Cup", "link", ["Cup", "Zor"]), ("Wes", "kill", "Val"))
    assert g.lovers_mixed() is True
    everyone_votes(g, "Wes", Wes="Vic")
    assert g.alive_names() == ["Cup", "Zor", "Vic"]
    assert_over(g, "village", ["Val", "Vic"])


# ---------------------------------------------------------------------------- the wolves


def test_wolves_win_at_parity_after_a_vote():
    """«Los hombres lobo ganan cuando son tantos como los demás»: one wolf against one."""
    g = new_game([("Wes", "werewolf"), ("Val", "villager"), ("Vic", "villager"),
                  ("Viv", "villager")])
    run(g, ("Wes", "kill", "Viv"))
    assert_not_over(g)
    everyone_votes(g, "Vic", Vic="Wes")
    assert g.alive_names() == ["Wes", "Val"]
    assert_over(g, "werewolves", ["Wes"])
    assert of_type(g, "night")[-1]["number"] == 1  # no night follows the final vote


def test_wolves_win_when_they_are_more():
    """«... tantos como los demás, o más.» A bite and a poison leave two wolves against one."""
    g = new_game([("Wa", "werewolf"), ("Wb", "werewolf"), ("Bru", "witch"),
                  ("Val", "villager"), ("Vic", "villager")])
    run(g, ("Wa", "kill", "Val"), ("Wb", "kill", "Val"),
        ("Bru", "witch", {"heal": False, "poison": "Vic"}))
    assert g.alive_names() == ["Wa", "Wb", "Bru"]
    assert not of_type(g, "day")
    assert_over(g, "werewolves", ["Wa", "Wb"])


def test_wolves_do_not_win_below_parity():
    """«Los hombres lobo ganan cuando son tantos como los demás»: one against two is not yet."""
    g = new_game([("Wes", "werewolf"), ("Val", "villager"), ("Vic", "villager"),
                  ("Viv", "villager")])
    run(g, ("Wes", "kill", "Viv"))
    assert g.alive_names() == ["Wes", "Val", "Vic"]
    assert_not_over(g)
    assert pending(g) == {("Wes", "vote"), ("Val", "vote"), ("Vic", "vote")}


def test_wolves_winners_include_the_minion_and_the_transformed_cursed():
    """«El esbirro ... gana cuando ellos ganan»; the bitten cursed «juega con la manada
    desde entonces». The wolves win whole; the villagers lose."""
    g = new_game([("Wes", "werewolf"), ("Esb", "minion"), ("Mal", "cursed"),
                  ("Val", "villager"), ("Vic", "villager"), ("Viv", "villager"),
                  ("Vo", "villager")])
    run(g, ("Wes", "kill", "Mal"))
    assert of_type(g, "transformed") == [{"type": "transformed", "player": "Mal"}]
    everyone_votes(g, "Vo", Vo="Wes")
    run(g, ("Wes", "kill", "Viv"), ("Mal", "kill", "Viv"))
    # two wolves (Wes, Mal) against Esb, Val, Vic: the minion counts with the others
    assert_not_over(g)
    everyone_votes(g, "Vic", Vic="Wes")
    assert g.alive_names() == ["Wes", "Esb", "Mal", "Val"]
    assert_over(g, "werewolves", ["Wes", "Esb", "Mal"])


def test_wolves_winners_leave_out_a_wolf_in_mixed_love():
    """«Un hombre lobo enamorado de un aldeano juega solo por los enamorados ... y la manada
    no lo cuenta como uno de los suyos.» Pack Wa, Wb against Wc, Val (lovers): parity, but
    Wc and Val are not among the winners."""
    g = new_game([("Cup", "cupid"), ("Wa", "werewolf"), ("Wb", "werewolf"),
                  ("Wc", "werewolf"), ("Val", "villager"), ("Vic", "villager"),
                  ("Viv", "villager"), ("Vo", "villager")])
    run(g, ("Cup", "link", ["Wc", "Val"]), ("Wa", "kill", "Cup"), ("Wb", "kill", "Cup"),
        ("Wc", "kill", "Cup"))
    everyone_votes(g, "Vo", Vo="Wa")
    run(g, ("Wa", "kill", "Viv"), ("Wb", "kill", "Viv"), ("Wc", "kill", "Viv"))
    assert_not_over(g)
    everyone_votes(g, "Vic", Vic="Wa")
    assert g.alive_names() == ["Wa", "Wb", "Wc", "Val"]
    assert_over(g, "werewolves", ["Wa", "Wb"])


# ---------------------------------------------------------------------------- the jester


def test_jester_voted_out_wins_alone():
    """«El bufón gana si el pueblo lo expulsa.» «el bufón gana solo ..., la partida termina
    y todos los demás pierden»."""
    g = new_game([("Wes", "werewolf"), ("Buf", "jester"), ("Val", "villager"),
                  ("Vic", "villager"), ("Viv", "villager")])
    run(g, ("Wes", "kill", "Viv"))
    everyone_votes(g, "Buf", Buf="Wes")
    assert deaths(g)["Buf"] == "vote"
    assert_over(g, "jester", ["Buf"])


def test_jester_expelled_by_the_sheriffs_tie_break_wins():
    """«Si el pueblo lo expulsa de día, el bufón gana solo»; the sheriff deciding a tie is
    still the village's vote."""
    g = new_game([("Wes", "werewolf"), ("Buf", "jester"), ("Val", "villager"),
                  ("Vic", "villager"), ("Viv", "villager")], sheriff=True)
    run(g, ("Wes", "kill", "Viv"))
    everyone_elects(g, "Val")
    # Buf 2 (Wes, Buf) against Wes 2 (Val, the sheriff, counts double): a tie
    run(g, ("Wes", "vote", "Buf"), ("Buf", "vote", "Buf"), ("Val", "vote", "Wes"),
        ("Vic", "vote", None))
    assert pending(g) == {("Val", "break_tie")}
    run(g, ("Val", "break_tie", "Buf"))
    assert_over(g, "jester", ["Buf"])


def test_jester_shot_by_the_hunter_after_a_vote_loses():
    """«Si el bufón muere de cualquier otra forma, de noche o por la flecha del cazador,
    pierde.»"""
    g = new_game([("Wes", "werewolf"), ("Caz", "hunter"), ("Buf", "jester"),
                  ("Val", "villager"), ("Vic", "villager"), ("Viv", "villager")])
    run(g, ("Wes", "kill", "Viv"))
    everyone_votes(g, "Caz", Caz="Wes")
    run(g, ("Caz", "shoot", "Buf"))
    assert deaths(g) == {"Viv": "werewolves", "Caz": "vote", "Buf": "hunter"}
    assert_not_over(g)


def test_jester_killed_at_night_loses_and_the_game_goes_on():
    """«Si el bufón muere de cualquier otra forma, de noche ..., pierde.»"""
    g = new_game([("Wes", "werewolf"), ("Buf", "jester"), ("Val", "villager"),
                  ("Vic", "villager"), ("Viv", "villager")])
    run(g, ("Wes", "kill", "Buf"))
    assert_not_over(g)
    everyone_votes(g, "Val")
    run(g, ("Wes", "kill", "Vic"))
    assert g.alive_names() == ["Wes", "Viv"]
    assert_over(g, "werewolves", ["Wes"])


# ---------------------------------------------------------------------------- the fox


def test_fox_alive_takes_the_village_win():
    """«El zorro se queda con la victoria si sigue vivo cuando ganarían el pueblo o los
    hombres lobo.» «¡Gana el zorro!»"""
    g = new_game([("Wes", "werewolf"), ("Zor", "fox"), ("Val", "villager"),
                  ("Vic", "villager"), ("Viv", "villager")])
    run(g, ("Wes", "kill", "Viv"))
    everyone_votes(g, "Wes", Wes="Val")
    assert_over(g, "fox", ["Zor"])


def test_fox_alive_takes_the_wolves_win():
    """«... cuando ganarían el pueblo o los hombres lobo.» One wolf against the fox: the
    wolves' parity, and the living fox takes it."""
    g = new_game([("Wes", "werewolf"), ("Zor", "fox"), ("Val", "villager"),
                  ("Vic", "villager")])
    run(g, ("Wes", "kill", "Val"))
    everyone_votes(g, "Vic", Vic="Wes")
    assert g.alive_names() == ["Wes", "Zor"]
    assert_over(g, "fox", ["Zor"])


def test_fox_survives_the_bite_and_takes_the_win_at_dawn():
    """«Los hombres lobo no pueden matarlo: su mordisco no le hace nada.» The poison kills
    the last wolf the same night: the fox, alive, takes the village's win."""
    g = new_game([("Wes", "werewolf"), ("Bru", "witch"), ("Zor", "fox"),
                  ("Val", "villager"), ("Vic", "villager")])
    run(g, ("Wes", "kill", "Zor"), ("Bru", "witch", {"heal": False, "poison": "Wes"}))
    assert of_type(g, "unharmed") == [{"type": "unharmed", "player": "Zor"}]
    assert deaths(g) == {"Wes": "poison"}
    assert_over(g, "fox", ["Zor"])


def test_fox_who_vanishes_the_same_night_takes_nothing():
    """«cuando ya se han resuelto todas las muertes»: the poison kills the last wolf and the
    seer's look makes the fox vanish at the same dawn; the village wins, not the fox."""
    g = new_game([("Wes", "werewolf"), ("Sia", "seer"), ("Bru", "witch"), ("Zor", "fox"),
                  ("Val", "villager"), ("Vic", "villager")])
    run(g, ("Wes", "kill", "Val"), ("Sia", "inspect", "Zor"),
        ("Bru", "witch", {"heal": False, "poison": "Wes"}))
    assert deaths(g) == {"Val": "werewolves", "Wes": "poison", "Zor": "vanished"}
    assert_over(g, "village", ["Sia", "Bru", "Val", "Vic"])


def test_dead_fox_takes_nothing():
    """«Si el zorro está vivo cuando ganarían ...»: a fox voted out earlier wins nothing."""
    g = new_game([("Wes", "werewolf"), ("Zor", "fox"), ("Val", "villager"),
                  ("Vic", "villager"), ("Viv", "villager"), ("Vo", "villager")])
    run(g, ("Wes", "kill", "Vo"))
    everyone_votes(g, "Zor", Zor="Wes")
    run(g, ("Wes", "kill", "Viv"))
    everyone_votes(g, "Wes", Wes="Val")
    assert_over(g, "village", ["Val", "Vic", "Viv", "Vo"])


def test_fox_in_love_does_not_take_the_wolves_win():
    """«... gana él solo en su lugar (salvo que esté enamorado)»: two wolves against the
    fox and his lover reach parity, and the wolves keep their own win."""
    g = new_game([("Cup", "cupid"), ("Wa", "werewolf"), ("Wb", "werewolf"), ("Zor", "fox"),
                  ("Val", "villager"), ("Vic", "villager"), ("Viv", "villager")])
    run(g, ("Cup", "link", ["Zor", "Val"]), ("Wa", "kill", "Cup"), ("Wb", "kill", "Cup"))
    everyone_votes(g, "Vic", Vic="Wa")
    assert_not_over(g)
    run(g, ("Wa", "kill", "Viv"), ("Wb", "kill", "Viv"))
    assert g.alive_names() == ["Wa", "Wb", "Zor", "Val"]
    assert_over(g, "werewolves", ["Wa", "Wb"])


# ---------------------------------------------------------------------------- the lovers


def test_mixed_lovers_win_as_the_last_two_alive():
    """«Los enamorados de bandos distintos ganan juntos si son los dos últimos con vida.»
    Only the two lovers win: Cupid, who is not one of them, loses."""
    g = new_game([("Cup", "cupid"), ("Wes", "werewolf"), ("Val", "villager"),
                  ("Vic", "villager"), ("Viv", "villager")])
    run(g, ("Cup", "link", ["Wes", "Val"]), ("Wes", "kill", "Cup"))
    everyone_votes(g, "Vic")
    assert_not_over(g)
    run(g, ("Wes", "kill", "Viv"))
    assert g.alive_names() == ["Wes", "Val"]
    assert_over(g, "lovers", ["Wes", "Val"])


def test_mixed_lovers_do_not_win_with_a_third_player_alive():
    """«... si son los dos últimos con vida.»"""
    g = new_game([("Cup", "cupid"), ("Wes", "werewolf"), ("Val", "villager"),
                  ("Vic", "villager"), ("Viv", "villager")])
    run(g, ("Cup", "link", ["Wes", "Val"]), ("Wes", "kill", "Cup"))
    everyone_votes(g, "Vic")
    assert g.alive_names() == ["Wes", "Val", "Viv"]
    assert_not_over(g)


def test_cupid_in_mixed_love_wins_with_the_lovers():
    """«Cupido ... puede elegirse a sí mismo»; as a mixed lover «juega solo por los
    enamorados»."""
    g = new_game([("Cup", "cupid"), ("Wes", "werewolf"), ("Val", "villager"),
                  ("Vic", "villager")])
    run(g, ("Cup", "link", ["Cup", "Wes"]), ("Wes", "kill", "Val"))
    assert g.lovers_mixed() is True
    everyone_votes(g, "Vic")
    assert_over(g, "lovers", ["Cup", "Wes"])


def test_jester_in_love_wins_with_the_lovers():
    """«un bufón o un zorro enamorado juega solo por esa victoria de los enamorados.»"""
    g = new_game([("Cup", "cupid"), ("Wes", "werewolf"), ("Buf", "jester"),
                  ("Val", "villager"), ("Vic", "villager")])
    run(g, ("Cup", "link", ["Buf", "Val"]), ("Wes", "kill", "Cup"))
    everyone_votes(g, None)
    run(g, ("Wes", "kill", "Vic"))
    assert_not_over(g)
    everyone_votes(g, "Wes", Wes="Val")
    assert g.alive_names() == ["Buf", "Val"]
    assert_over(g, "lovers", ["Buf", "Val"])


def test_jester_in_love_does_not_win_with_the_village():
    """«Un enamorado de bando distinto al de su pareja juega solo por la victoria de los
    enamorados»: when the village wins, neither the jester nor his lover is a winner."""
    g = new_game([("Cup", "cupid"), ("Wes", "werewolf"), ("Buf", "jester"),
                  ("Val", "villager"), ("Vic", "villager")])
    run(g, ("Cup", "link", ["Buf", "Val"]), ("Wes", "kill", "Cup"))
    everyone_votes(g, "Wes", Wes="Vic", Vic="Val")
    assert g.alive_names() == ["Buf", "Val", "Vic"]
    assert_over(g, "village", ["Cup", "Vic"])


# ---------------------------------------------------------------------------- priorities


def test_priority_jester_before_the_wolves():
    """«Si se dan dos victorias a la vez, va primero la del bufón»: voting out the jester
    leaves one wolf against one villager, but the jester wins."""
    g = new_game([("Wes", "werewolf"), ("Buf", "jester"), ("Val", "villager"),
                  ("Vic", "villager")])
    run(g, ("Wes", "kill", "Vic"))
    everyone_votes(g, "Buf")
    assert g.alive_names() == ["Wes", "Val"]
    assert_over(g, "jester", ["Buf"])


def test_priority_jester_before_the_lovers():
    """«... va primero la del bufón, luego la de los enamorados»: the jester's expulsion
    leaves the mixed lovers as the last two alive."""
    g = new_game([("Cup", "cupid"), ("Wes", "werewolf"), ("Val", "villager"),
                  ("Buf", "jester"), ("Vic", "villager")])
    run(g, ("Cup", "link", ["Wes", "Val"]), ("Wes", "kill", "Cup"))
    everyone_votes(g, None)
    assert of_type(g, "no_elimination")
    run(g, ("Wes", "kill", "Vic"))
    assert_not_over(g)
    everyone_votes(g, "Buf", Buf="Wes")
    assert g.alive_names() == ["Wes", "Val"]
    assert_over(g, "jester", ["Buf"])


def test_priority_jester_before_the_fox():
    """«Un zorro vivo se lleva esta última» — the fox takes only the village's or the
    wolves' win, never the jester's."""
    g = new_game([("Wes", "werewolf"), ("Zor", "fox"), ("Buf", "jester"),
                  ("Val", "villager"), ("Vic", "villager")])
    run(g, ("Wes", "kill", "Vic"))
    everyone_votes(g, "Buf", Buf="Wes")
    assert_over(g, "jester", ["Buf"])


def test_priority_lovers_before_the_wolves():
    """«... luego la de los enamorados y después la del pueblo o los hombres lobo»: a wolf
    and a villager in love as the last two: a naive count says one against one, but the
    lovers win."""
    g = new_game([("Cup", "cupid"), ("Wa", "werewolf"), ("Wb", "werewolf"),
                  ("Val", "villager"), ("Vic", "villager"), ("Viv", "villager"),
                  ("Vo", "villager")])
    run(g, ("Cup", "link", ["Wb", "Val"]), ("Wa", "kill", "Cup"), ("Wb", "kill", "Cup"))
    everyone_votes(g, "Wa", Wa="Vic")
    run(g, ("Wb", "kill", "Vic"))
    everyone_votes(g, "Viv", Viv="Wb")
    run(g, ("Wb", "kill", "Vo"))
    assert g.alive_names() == ["Wb", "Val"]
    assert_over(g, "lovers", ["Wb", "Val"])


def test_priority_lovers_before_the_village_and_the_fox():
    """«... luego la de los enamorados y después la del pueblo»: the last wolf voted out
    leaves only the fox and the villager in love; the village would win (and a free fox
    would take it), but the lovers' win comes first."""
    g = new_game([("Cup", "cupid"), ("Wes", "werewolf"), ("Zor", "fox"),
                  ("Val", "villager"), ("Vic", "villager")])
    run(g, ("Cup", "link", ["Zor", "Val"]), ("Wes", "kill", "Cup"))
    everyone_votes(g, None)
    run(g, ("Wes", "kill", "Vic"))
    everyone_votes(g, "Wes", Wes="Val")
    assert g.alive_names() == ["Zor", "Val"]
    assert_over(g, "lovers", ["Zor", "Val"])


# ---------------------------------------------------------------------------- when to check


def test_check_waits_for_the_hunters_shot_after_a_vote():
    """«cuando ya se han resuelto todas las muertes, los disparos y la placa»"""
    g = new_game([("Wes", "werewolf"), ("Caz", "hunter"), ("Val", "villager"),
                  ("Vic", "villager")])
    run(g, ("Wes", "kill", "Val"))
    everyone_votes(g, "Caz", Caz="Wes")
    assert g.alive_names() == ["Wes", "Vic"]  # parity, but the shot is not settled
    assert_not_over(g)
    run(g, ("Caz", "shoot", "Wes"))
    assert_over(g, "village", ["Caz", "Val", "Vic"])


def test_check_waits_for_the_badge_after_the_morning():
    """«cuando ya se han resuelto ... la placa»: the dead sheriff passes the badge before
    the wolves' parity is declared."""
    g = new_game([("Wes", "werewolf"), ("Sia", "seer"), ("Val", "villager"),
                  ("Vic", "villager"), ("Viv", "villager")], sheriff=True)
    run(g, ("Wes", "kill", "Viv"), ("Sia", "inspect", "Vic"))
    everyone_elects(g, "Val")
    everyone_votes(g, "Vic", Vic="Wes")
    run(g, ("Wes", "kill", "Val"), ("Sia", "inspect", "Wes"))
    assert g.alive_names() == ["Wes", "Sia"]
    assert pending(g) == {("Val", "pass_badge")}
    assert_not_over(g)
    run(g, ("Val", "pass_badge", "Sia"))
    assert [e["type"] for e in g.events[-2:]] == ["sheriff", "game_over"]
    assert_over(g, "werewolves", ["Wes"])


def test_check_waits_for_shot_then_badge_of_a_hunter_sheriff():
    """«Un cazador muerto dispara, y un alguacil muerto pasa la placa.» Then the check."""
    g = new_game([("Wes", "werewolf"), ("Caz", "hunter"), ("Val", "villager"),
                  ("Vic", "villager"), ("Viv", "villager")], sheriff=True)
    run(g, ("Wes", "kill", "Viv"))
    everyone_elects(g, "Caz")
    everyone_votes(g, None)
    run(g, ("Wes", "kill", "Caz"))
    assert pending(g) == {("Caz", "shoot")}
    run(g, ("Caz", "shoot", "Wes"))
    assert pending(g) == {("Caz", "pass_badge")}  # no wolf left, still not over
    assert_not_over(g)
    run(g, ("Caz", "pass_badge", "Val"))
    assert g.sheriff_name() == "Val"
    assert_over(g, "village", ["Caz", "Val", "Vic", "Viv"])


def test_check_counts_every_grief_death_first():
    """«Cada muerte arrastra consigo al enamorado del muerto.» The vote kills a lover; her
    partner's grief is counted before the check: one wolf against one."""
    g = new_game([("Cup", "cupid"), ("Wes", "werewolf"), ("Val", "villager"),
                  ("Vic", "villager"), ("Viv", "villager")])
    run(g, ("Cup", "link", ["Val", "Vic"]), ("Wes", "kill", "Viv"))
    everyone_votes(g, "Val", Val="Wes")
    assert deaths(g) == {"Viv": "werewolves", "Val": "vote", "Vic": "grief"}
    assert_over(g, "werewolves", ["Wes"])


# ---------------------------------------------------------------------------- after the end


def finished_game() -> Any:
    g = new_game([("Wes", "werewolf"), ("Caz", "hunter"), ("Bru", "witch"),
                  ("Val", "villager"), ("Vic", "villager")], sheriff=True)
    run(g, ("Wes", "kill", "Val"), ("Bru", "witch", {"heal": False, "poison": None}))
    everyone_elects(g, "Vic")
    everyone_votes(g, "Wes", Wes="Vic")
    assert g.winner == "village"
    return g


@pytest.mark.parametrize(
    "action",
    [
        ("Wes", "kill", "Vic"),
        ("Bru", "witch", {"heal": True, "poison": "Wes"}),
        ("Vic", "vote", "Caz"),
        ("Vic", "elect", "Caz"),
        ("Vic", "break_tie", "Caz"),
        ("Vic", "pass_badge", "Caz"),
        ("Caz", "shoot", "Vic"),
        ("Caz", "suspect", "Vic"),
        ("Caz", "link", ["Caz", "Vic"]),
        ("Caz", "inspect", "Vic"),
        ("Caz", "protect", "Vic"),
        (TABLE, "revote", None),
        (TABLE, "spare", None),
        ("Wes", "vote", None),
        ("Nobody", "vote", "Vic"),
    ],
)
def test_after_game_over_every_action_is_refused(action):
    """Once a side has won the game is over: every action is refused and changes nothing."""
    g = finished_game()
    before = list(g.events)
    alive = g.alive_names()
    with pytest.raises(Refused) as refusal:
        g.apply(*action)
    assert refusal.value.reason
    assert g.events == before
    assert g.alive_names() == alive
    assert g.pending() == []
    assert g.winner == "village"


def test_replay_reports_the_win_and_stops_at_an_action_after_the_end():
    """The replay gives winner and winners; an action after game_over is the error."""
    doc = {
        "seed": 3,
        "players": [["Wes", "werewolf"], ["Zor", "fox"], ["Val", "villager"],
                    ["Vic", "villager"], ["Viv", "villager"]],
        "actions": [["Wes", "kill", "Viv"],
                    ["Wes", "vote", "Val"], ["Zor", "vote", "Wes"],
                    ["Val", "vote", "Wes"], ["Vic", "vote", "Wes"]],
    }
    done = replay(doc)
    assert done["error"] is None
    assert done["winner"] == "fox"
    assert done["winners"] == ["Zor"]
    assert done["pending"] == []
    assert done["events"][-1] == {"type": "game_over", "winner": "fox", "winners": ["Zor"]}

    late = replay({**doc, "actions": [*doc["actions"], ["Zor", "vote", "Val"]]})
    assert late["error"] is not None
    assert late["error"]["index"] == len(doc["actions"])
    assert late["winner"] == "fox"
    assert late["events"] == done["events"]
