"""One test per rule of One Night (seed 001 and issue 13): the night's calls and their
order, each role's turn, the day's vote, the hunter, the winners, and the refusals.

Players are named after the card they are dealt; every refusal also checks that the game
is left exactly as it was (tests/one_night_helpers.py).
"""

from __future__ import annotations

import pytest

from rules import Decision
from rules.one_night import night_calls
from rules.one_night.roles import ROLES
from tests.one_night_helpers import (
    doc,
    facts,
    new,
    of_type,
    pending,
    refused,
    replay_refuses,
    run,
    vote,
)

EVERY_CALL = ["doppelganger", "werewolves", "mystic_wolf", "minion", "masons", "seer",
              "paranormal_investigator", "robber", "troublemaker", "drunk", "insomniac",
              "doppelganger_insomniac"]

TWELVE = ("Dop:doppelganger Wolf:werewolf Myst:mystic_wolf Min:minion Mas:mason Sia:seer "
          "Pi:paranormal_investigator Rob:robber Tia:troublemaker Dru:drunk Ins:insomniac "
          "Vic:villager")
TWELVE_CENTER = "mason tanner hunter"

# every card with a night action among the players (the doppelganger's copies)
TEN = ("Dop:doppelganger Rob:robber Tia:troublemaker Dru:drunk Wolf:werewolf "
       "Myst:mystic_wolf Pi:paranormal_investigator Min:minion Mas:mason Ins:insomniac")
TEN_CENTER = "villager villager mason"

# a night that asks nothing: two werewolves, the seer in the centre
QUIET = "Wolf:werewolf Wolf2:werewolf Vic:villager Val:villager Hun:hunter Tan:tanner"
QUIET_CENTER = "villager villager seer"


def calls_seen(game, *actions) -> list[str | None]:
    """The current call before each action and after the last."""
    seen = [game.current_call()]
    for action in actions:
        game.apply(*action)
        seen.append(game.current_call())
    return seen


# =========================================================================== the night


def test_night_calls_every_role_in_the_seeds_order():
    """«El narrador llama a los papeles uno a uno, siempre en el mismo orden»: doppelganger,
    werewolves, mystic wolf, minion, masons, seer, investigator, robber, troublemaker,
    drunk, insomniac (and the doppelganger's insomniac look after the insomniac)."""
    game = new(TWELVE, TWELVE_CENTER)
    assert game.night_calls() == EVERY_CALL
    seen = calls_seen(game, ("Dop", "copy", "Vic"), ("Myst", "look", None),
                      ("Sia", "look", None), ("Pi", "investigate", None), ("Rob", "rob", None),
                      ("Tia", "swap", None), ("Dru", "drunk", 0))
    assert seen == ["doppelganger", "mystic_wolf", "seer", "paranormal_investigator",
                    "robber", "troublemaker", "drunk", None]
    assert game.phase == "day"


def test_every_role_in_the_deck_is_called_even_with_its_card_in_the_centre():
    """«Se llama a todos los papeles del mazo, aunque su carta esté en el centro: así nadie
    puede adivinar el centro por los silencios.» The call is there; it asks nothing."""
    game = new("Wolf:werewolf Sia:seer Vic:villager", "robber troublemaker villager")
    assert game.night_calls() == ["werewolves", "seer", "robber", "troublemaker"]
    assert calls_seen(game, ("Wolf", "peek_center", None), ("Sia", "look", None)) == [
        "werewolves", "seer", None]
    assert game.phase == "day"


def test_night_calls_come_from_the_deck_alone():
    """The calls are public: the same deck, dealt any way, has the same calls."""
    deck = ["doppelganger", "werewolf", "werewolf", "seer", "robber", "insomniac", "villager"]
    calls = {tuple(new_deal(deck, seed).night_calls()) for seed in range(20)}
    assert calls == {("doppelganger", "werewolves", "seer", "robber", "insomniac",
                      "doppelganger_insomniac")}
    assert night_calls(deck) == list(calls.pop())


def new_deal(deck, seed):
    from rules.one_night import start

    return start({"ruleset": "one-night", "seed": seed, "players": ["A", "B", "C", "D"],
                  "deck": deck})


def test_doppelganger_insomniac_call_only_with_both_cards():
    assert night_calls(["doppelganger", "insomniac", "werewolf"])[-1] == "doppelganger_insomniac"
    assert "doppelganger_insomniac" not in night_calls(["doppelganger", "werewolf"])
    assert "doppelganger_insomniac" not in night_calls(["insomniac", "werewolf"])


def test_a_call_whose_card_is_in_the_centre_has_no_decision():
    game = new("Wolf:werewolf Wolf2:werewolf Vic:villager", "seer robber villager")
    # werewolves (two: no look), seer and robber in the centre: nothing is asked at all
    assert game.phase == "day"
    assert pending(game) == [("Wolf", "vote"), ("Wolf2", "vote"), ("Vic", "vote")]


def test_only_the_players_woken_by_the_call_have_decisions():
    game = new(TWELVE, TWELVE_CENTER)
    assert game.pending() == [Decision("Dop", "copy")]
    game.apply("Dop", "copy", "Vic")
    assert game.current_call() == "mystic_wolf" and pending(game) == [("Myst", "look")]
    game.apply("Myst", "look", "Vic")
    assert game.current_call() == "seer" and pending(game) == [("Sia", "look")]


def test_a_player_wakes_by_the_card_dealt_at_the_start():
    """«Un jugador se despierta según la carta que recibió al principio.» The troublemaker
    swaps the drunk and the insomniac: the drunk still drinks, the insomniac still looks
    (and sees the card she holds now)."""
    game = new("Tia:troublemaker Dru:drunk Ins:insomniac Wolf:werewolf",
               "villager seer werewolf")
    run(game, ("Wolf", "peek_center", None), ("Tia", "swap", ["Dru", "Ins"]))
    assert game.current_call() == "drunk" and pending(game) == [("Dru", "drunk")]
    game.apply("Dru", "drunk", 0)  # gives away the insomniac card he was holding
    assert game.cards()["Dru"] == "villager" and game.center()[0] == "insomniac"
    assert facts(game, "Ins", "own_card") == [
        {"call": "insomniac", "fact": "own_card", "value": "drunk"}]
    assert game.woken("insomniac") == ["Ins"]


# --------------------------------------------------------------------------- doppelganger


def test_doppelganger_copies_another_players_card_and_becomes_that_role():
    """«Al comienzo de la noche, copia la carta de otro jugador y se convierte en ese papel.»"""
    game = new(TEN, TEN_CENTER)
    assert game.legal_targets("Dop", "copy") == [p for p in game.players if p != "Dop"]
    assert "own card" in refused(game, "Dop", "copy", "Dop")
    assert "a name" in refused(game, "Dop", "copy", None)
    game.apply("Dop", "copy", "Min")
    assert of_type(game, "copied") == [
        {"type": "copied", "player": "Dop", "target": "Min", "role": "minion"}]
    assert facts(game, "Dop", "copied") == [
        {"call": "doppelganger", "fact": "copied", "value": {"player": "Min", "role": "minion"}}]
    assert game.final_roles()["Dop"] == "minion"
    assert game.cards()["Dop"] == "doppelganger"  # the card itself still shows the doppelganger


@pytest.mark.parametrize(("copied", "verb", "target", "event"), [
    ("Rob", "rob", "Wolf", "swapped"),
    ("Tia", "swap", ["Wolf", "Min"], "swapped"),
    ("Dru", "drunk", 1, "swapped"),
    ("Myst", "look", "Wolf", "looked"),
    ("Pi", "investigate", "Wolf", "looked"),
])
def test_doppelganger_does_a_copied_night_action_at_once(copied, verb, target, event):
    """A copied role with a night action (robber, troublemaker, drunk, mystic wolf,
    investigator; the seer below) is done at once, in the doppelganger's turn."""
    game = new(TEN, TEN_CENTER)
    game.apply("Dop", "copy", copied)
    assert game.current_call() == "doppelganger"
    assert pending(game) == [("Dop", verb)]
    game.apply("Dop", verb, target)
    assert of_type(game, event)[0]["by" if event == "swapped" else "player"] == "Dop"
    assert game.current_call() != "doppelganger"


def test_doppelganger_who_copies_the_seer_looks_at_once():
    game = new("Dop:doppelganger Sia:seer Wolf:werewolf Vic:villager",
               "robber troublemaker drunk")
    game.apply("Dop", "copy", "Sia")
    assert pending(game) == [("Dop", "look")] and game.current_call() == "doppelganger"
    assert [0, 2] in game.legal_targets("Dop", "look")  # the seer's look, centre included
    game.apply("Dop", "look", [0, 2])
    assert of_type(game, "looked")[-1] == {"type": "looked", "player": "Dop",
                                           "center": [0, 2], "roles": ["robber", "drunk"]}
    # the seer herself still wakes in her own call
    run(game, ("Wolf", "peek_center", None))
    assert pending(game) == [("Sia", "look")]


def test_doppelganger_who_copies_a_werewolf_wakes_with_the_werewolves():
    game = new("Dop:doppelganger Sia:seer Wolf:werewolf Vic:villager",
               "robber troublemaker drunk")
    game.apply("Dop", "copy", "Wolf")
    assert game.woken("werewolves") == ["Dop", "Wolf"]
    # two werewolves now: nobody is alone, nobody looks at the centre
    assert game.current_call() == "seer"
    assert facts(game, "Dop", "pack")[0]["value"] == ["Wolf"]
    assert facts(game, "Wolf", "pack")[0]["value"] == ["Dop"]


def test_doppelganger_who_copies_the_mystic_wolf_looks_at_once_and_wakes_with_the_werewolves():
    game = new(TEN, TEN_CENTER)
    run(game, ("Dop", "copy", "Myst"), ("Dop", "look", "Rob"))
    assert game.woken("werewolves") == ["Dop", "Wolf", "Myst"]
    assert facts(game, "Dop", "pack")[0] == {"call": "werewolves", "fact": "pack",
                                             "value": ["Wolf", "Myst"]}
    # her look is done: only the real mystic wolf looks in the mystic wolf's call
    assert game.current_call() == "mystic_wolf" and pending(game) == [("Myst", "look")]


def test_doppelganger_who_copies_the_minion_sees_the_werewolves():
    game = new(TEN, TEN_CENTER)
    run(game, ("Dop", "copy", "Min"), ("Myst", "look", None))
    for minion in ("Min", "Dop"):
        assert facts(game, minion, "werewolves") == [
            {"call": "minion", "fact": "werewolves", "value": ["Wolf", "Myst"]}]


def test_doppelganger_who_copies_a_mason_wakes_with_the_masons():
    game = new(TEN, TEN_CENTER)
    run(game, ("Dop", "copy", "Mas"), ("Myst", "look", None))
    assert facts(game, "Mas", "masons")[0]["value"] == ["Dop"]
    assert facts(game, "Dop", "masons")[0] == {"call": "masons", "fact": "masons",
                                               "value": ["Mas"]}


def test_doppelganger_who_copies_the_insomniac_looks_at_her_card_after_the_insomniac():
    game = new(TEN, TEN_CENTER)
    run(game, ("Dop", "copy", "Ins"), ("Myst", "look", None), ("Pi", "investigate", None),
        ("Rob", "rob", "Dop"), ("Tia", "swap", None), ("Dru", "drunk", 0))
    assert facts(game, "Ins", "own_card") == [
        {"call": "insomniac", "fact": "own_card", "value": "insomniac"}]
    assert facts(game, "Dop", "own_card") == [
        {"call": "doppelganger_insomniac", "fact": "own_card", "value": "robber"}]
    looks = [e for e in of_type(game, "looked") if e["player"] == e.get("target")]
    assert [e["player"] for e in looks] == ["Rob", "Ins", "Dop"]  # the insomniac's first


def test_doppelganger_card_counts_as_the_copied_role_for_whoever_holds_it():
    """«At the end the doppelganger card counts as the role it copied, for whoever holds
    it.» She copies the werewolf; the troublemaker gives her card to the villager, who is
    voted out: the village has caught a werewolf."""
    game = new("Dop:doppelganger Wolf:werewolf Tia:troublemaker Vic:villager",
               "villager seer villager")
    run(game, ("Dop", "copy", "Wolf"), ("Tia", "swap", ["Dop", "Vic"]))
    assert game.cards()["Vic"] == "doppelganger"
    assert game.final_roles()["Vic"] == "werewolf"
    vote(game, Dop="Vic", Wolf="Vic", Tia="Vic", Vic="Dop")
    assert game.winner == ["village"]
    assert game.winners == ["Dop", "Tia"]  # Dop holds the villager card now


# --------------------------------------------------------------------------- werewolves


def test_werewolves_open_their_eyes_together_and_see_each_other():
    """«Abre los ojos con los demás lobos.»"""
    game = new("Wolf:werewolf Wolf2:werewolf Sia:seer Vic:villager",
               "villager robber villager")
    assert game.woken("werewolves") == ["Wolf", "Wolf2"]
    assert facts(game, "Wolf", "pack") == [
        {"call": "werewolves", "fact": "pack", "value": ["Wolf2"]}]
    assert facts(game, "Wolf2", "pack")[0]["value"] == ["Wolf"]
    assert facts(game, "Sia", "pack") == []
    # two of them: nobody may look at the centre, the werewolves' call asks nothing
    assert game.current_call() == "seer"
    assert "nothing to do now" in refused(game, "Wolf", "peek_center", 0)


def test_lone_werewolf_may_look_at_one_centre_card():
    """«Si estás solo, puedes mirar una carta del centro.»"""
    game = new("Wolf:werewolf Sia:seer Vic:villager", "villager robber werewolf")
    assert game.current_call() == "werewolves"
    assert pending(game) == [("Wolf", "peek_center")]
    assert game.legal_targets("Wolf", "peek_center") == [None, 0, 1, 2]
    assert facts(game, "Wolf", "pack")[0]["value"] == []  # alone
    game.apply("Wolf", "peek_center", 2)
    assert of_type(game, "looked") == [
        {"type": "looked", "player": "Wolf", "center": [2], "roles": ["werewolf"]}]
    assert facts(game, "Wolf", "looked_center") == [
        {"call": "werewolves", "fact": "looked_center",
         "value": [{"center": 2, "role": "werewolf"}]}]


def test_lone_werewolf_may_not_look():
    game = new("Wolf:werewolf Sia:seer Vic:villager", "villager robber werewolf")
    game.apply("Wolf", "peek_center", None)
    assert of_type(game, "looked") == [] and game.current_call() == "seer"


def test_lone_werewolf_is_the_only_werewolf_among_the_players_mystic_wolf_included():
    """The mystic wolf is a werewolf («Un Hombre Lobo que además...»): alone among the
    players, she looks at the centre in the werewolves' call, then at a player in hers."""
    game = new("Myst:mystic_wolf Sia:seer Vic:villager", "werewolf robber villager")
    assert pending(game) == [("Myst", "peek_center")]
    game.apply("Myst", "peek_center", 0)
    assert game.current_call() == "mystic_wolf" and pending(game) == [("Myst", "look")]


# --------------------------------------------------------------------------- mystic wolf


def test_mystic_wolf_may_also_look_at_another_players_card():
    """«Un Hombre Lobo que además puede mirar la carta de otro jugador.»"""
    game = new("Wolf:werewolf Myst:mystic_wolf Sia:seer Vic:villager",
               "villager robber villager")
    assert game.current_call() == "mystic_wolf"
    assert game.legal_targets("Myst", "look") == [None, "Wolf", "Sia", "Vic"]
    assert "own card" in refused(game, "Myst", "look", "Myst")
    assert "a name" in refused(game, "Myst", "look", [0, 1])  # players only, not the centre
    game.apply("Myst", "look", "Sia")
    assert of_type(game, "looked") == [
        {"type": "looked", "player": "Myst", "target": "Sia", "role": "seer"}]
    assert facts(game, "Myst", "looked")[0]["call"] == "mystic_wolf"


# --------------------------------------------------------------------------- little girl


def test_little_girl_may_peek_during_the_werewolves_turn():
    """«La Niña no tiene turno propio: puede entreabrir los ojos durante el de los lobos.»
    Her phone then shows who the werewolves are; they do not learn that she peeked."""
    game = new("Lil:little_girl Wolf:werewolf Wolf2:werewolf Vic:villager",
               "seer villager villager")
    assert "little_girl" not in " ".join(game.night_calls())  # no call of her own
    assert game.current_call() == "werewolves" and pending(game) == [("Lil", "peek")]
    assert game.legal_targets("Lil", "peek") == [True, False]
    assert "true" in refused(game, "Lil", "peek", 1)
    wolves_knew = (facts(game, "Wolf"), facts(game, "Wolf2"))
    game.apply("Lil", "peek", True)
    assert of_type(game, "peeked") == [{"type": "peeked", "player": "Lil"}]
    assert facts(game, "Lil", "werewolves") == [
        {"call": "werewolves", "fact": "werewolves", "value": ["Wolf", "Wolf2"]}]
    assert (facts(game, "Wolf"), facts(game, "Wolf2")) == wolves_knew


def test_little_girl_who_keeps_her_eyes_shut_sees_nothing():
    game = new("Lil:little_girl Wolf:werewolf Vic:villager", "seer villager werewolf")
    assert pending(game) == [("Lil", "peek"), ("Wolf", "peek_center")]
    run(game, ("Lil", "peek", False), ("Wolf", "peek_center", None))
    assert facts(game, "Lil", "werewolves") == [] and of_type(game, "peeked") == []


# --------------------------------------------------------------------------- minion


def test_minion_sees_the_werewolves_they_do_not_see_him():
    """«Esbirro — Descubre quiénes son los lobos.»"""
    game = new("Min:minion Wolf:werewolf Wolf2:werewolf Vic:villager",
               "seer villager villager")
    assert facts(game, "Min", "werewolves") == [
        {"call": "minion", "fact": "werewolves", "value": ["Wolf", "Wolf2"]}]
    assert all("Min" not in str(facts(game, w)) for w in ("Wolf", "Wolf2"))
    assert game.phase == "day"  # the minion only looks: his call asks nothing


# --------------------------------------------------------------------------- masons


def test_masons_wake_together_and_recognise_each_other():
    """«Los Masones se despiertan juntos y se reconocen.»"""
    game = new("Mas:mason Mas2:mason Wolf:werewolf Vic:villager", "villager seer villager")
    assert facts(game, "Mas", "masons") == []  # not before their call
    game.apply("Wolf", "peek_center", None)
    assert facts(game, "Mas", "masons") == [
        {"call": "masons", "fact": "masons", "value": ["Mas2"]}]
    assert facts(game, "Mas2", "masons")[0]["value"] == ["Mas"]


def test_a_mason_alone_learns_that_the_other_is_in_the_centre():
    game = new("Mas:mason Wolf:werewolf Vic:villager", "mason seer villager")
    game.apply("Wolf", "peek_center", None)
    assert facts(game, "Mas", "masons")[0]["value"] == []


# --------------------------------------------------------------------------- seer

SEER = ("Sia:seer Wolf:werewolf Vic:villager", "robber troublemaker villager")


def test_seer_looks_at_another_players_card():
    """«Vidente — Mira la carta de un jugador, o dos cartas del centro.»"""
    game = new(*SEER)
    game.apply("Wolf", "peek_center", None)
    game.apply("Sia", "look", "Wolf")
    assert of_type(game, "looked") == [
        {"type": "looked", "player": "Sia", "target": "Wolf", "role": "werewolf"}]
    assert facts(game, "Sia", "looked") == [
        {"call": "seer", "fact": "looked", "value": {"player": "Wolf", "role": "werewolf"}}]


def test_seer_or_two_centre_cards():
    game = new(*SEER)
    game.apply("Wolf", "peek_center", None)
    targets = game.legal_targets("Sia", "look")
    assert targets == [None, "Wolf", "Vic", [0, 1], [0, 2], [1, 0], [1, 2], [2, 0], [2, 1]]
    assert "different" in refused(game, "Sia", "look", [1, 1])
    assert "0, 1 and 2" in refused(game, "Sia", "look", [0, 3])
    assert "two centre cards" in refused(game, "Sia", "look", [0])
    assert "two centre cards" in refused(game, "Sia", "look", [0, 1, 2])
    game.apply("Sia", "look", [2, 0])
    assert facts(game, "Sia", "looked_center")[0]["value"] == [
        {"center": 2, "role": "villager"}, {"center": 0, "role": "robber"}]


def test_seer_may_look_at_nothing():
    game = new(*SEER)
    run(game, ("Wolf", "peek_center", None), ("Sia", "look", None))
    assert of_type(game, "looked") == [] and facts(game, "Sia", "looked") == []


def test_seer_sees_a_card_as_it_stands_after_the_doppelgangers_robbery():
    game = new("Dop:doppelganger Rob:robber Sia:seer Wolf:werewolf",
               "villager villager troublemaker")
    run(game, ("Dop", "copy", "Rob"), ("Dop", "rob", "Wolf"), ("Wolf", "peek_center", None),
        ("Sia", "look", "Dop"))
    assert facts(game, "Sia", "looked")[0]["value"] == {"player": "Dop", "role": "werewolf"}


# --------------------------------------------------------------------------- investigator

PI = ("Pi:paranormal_investigator Vic:villager Wolf:werewolf Tan:tanner Val:villager",
      "seer villager robber")


def test_investigator_looks_at_up_to_two_cards_one_after_the_other():
    """«Cazador de Fantasmas — Mira hasta dos cartas.»"""
    game = new(*PI)
    game.apply("Wolf", "peek_center", None)
    game.apply("Pi", "investigate", "Vic")
    assert pending(game) == [("Pi", "investigate")]  # one more, still his call
    assert game.legal_targets("Pi", "investigate") == [None, "Wolf", "Tan", "Val"]
    assert "already looked at Vic" in refused(game, "Pi", "investigate", "Vic")
    game.apply("Pi", "investigate", "Val")
    assert game.phase == "day"  # two looks: his turn is over
    assert [f["value"]["player"] for f in facts(game, "Pi", "looked")] == ["Vic", "Val"]
    assert of_type(game, "became") == []
    assert "already investigated" in refused(game, "Pi", "investigate", "Wolf")


def test_investigator_may_stop_after_one_look_or_look_at_none():
    game = new(*PI)
    run(game, ("Wolf", "peek_center", None), ("Pi", "investigate", "Vic"),
        ("Pi", "investigate", None))
    assert game.phase == "day" and len(facts(game, "Pi", "looked")) == 1
    game = new(*PI)
    run(game, ("Wolf", "peek_center", None), ("Pi", "investigate", None))
    assert game.phase == "day" and facts(game, "Pi", "looked") == []


def test_investigator_cannot_look_at_his_own_card():
    game = new(*PI)
    game.apply("Wolf", "peek_center", None)
    assert "own card" in refused(game, "Pi", "investigate", "Pi")


@pytest.mark.parametrize(("seen", "role"), [("Wolf", "werewolf"), ("Tan", "tanner")])
def test_investigator_who_finds_a_werewolf_or_the_tanner_joins_that_side(seen, role):
    """«¿Encuentra un lobo o al Curtidor? Se une a ese bando.» He becomes that role and
    looks no further."""
    game = new(*PI)
    run(game, ("Wolf", "peek_center", None), ("Pi", "investigate", seen))
    assert of_type(game, "became") == [{"type": "became", "player": "Pi", "role": role}]
    assert facts(game, "Pi", "became") == [
        {"call": "paranormal_investigator", "fact": "became", "value": role}]
    assert game.phase == "day"  # no second look
    assert game.final_roles()["Pi"] == role
    assert game.cards()["Pi"] == "paranormal_investigator"


def test_investigator_joins_the_side_on_his_second_look_too():
    game = new(*PI)
    run(game, ("Wolf", "peek_center", None), ("Pi", "investigate", "Val"),
        ("Pi", "investigate", "Tan"))
    assert game.final_roles()["Pi"] == "tanner"


# --------------------------------------------------------------------------- robber

ROBBER = ("Rob:robber Wolf:werewolf Vic:villager", "seer villager troublemaker")


def test_robber_swaps_his_card_with_another_players_and_sees_his_new_card():
    """«Ladrón — Intercambia su carta con la de un jugador y descubre su nueva identidad.»"""
    game = new(*ROBBER)
    game.apply("Wolf", "peek_center", None)
    assert game.legal_targets("Rob", "rob") == [None, "Wolf", "Vic"]
    assert "own card" in refused(game, "Rob", "rob", "Rob")
    game.apply("Rob", "rob", "Wolf")
    assert game.cards() == {"Rob": "werewolf", "Wolf": "robber", "Vic": "villager"}
    assert of_type(game, "swapped") == [{"type": "swapped", "by": "Rob",
                                         "players": ["Rob", "Wolf"]}]
    assert of_type(game, "looked")[-1] == {"type": "looked", "player": "Rob",
                                           "target": "Rob", "role": "werewolf"}
    assert facts(game, "Rob", "robbed") == [
        {"call": "robber", "fact": "robbed", "value": {"player": "Wolf", "role": "werewolf"}}]
    # the robbed werewolf is not told
    assert [f["fact"] for f in facts(game, "Wolf")] == ["card", "pack"]


def test_robber_may_rob_nobody():
    game = new(*ROBBER)
    run(game, ("Wolf", "peek_center", None), ("Rob", "rob", None))
    assert game.cards() == game.roles_as_dealt() and of_type(game, "swapped") == []


# --------------------------------------------------------------------------- troublemaker

TROUBLE = ("Tia:troublemaker Wolf:werewolf Vic:villager Val:villager",
           "seer villager robber")


def test_troublemaker_swaps_two_other_players_cards_without_looking():
    """«Alborotadora — Intercambia las cartas de otros dos jugadores sin mirarlas.»"""
    game = new(*TROUBLE)
    game.apply("Wolf", "peek_center", None)
    targets = game.legal_targets("Tia", "swap")
    assert targets[0] is None and ["Wolf", "Vic"] in targets and ["Vic", "Wolf"] in targets
    assert len(targets) == 1 + 3 * 2 and not any("Tia" in t for t in targets[1:])
    assert "own card" in refused(game, "Tia", "swap", ["Tia", "Vic"])
    assert "different" in refused(game, "Tia", "swap", ["Vic", "Vic"])
    assert "[A, B]" in refused(game, "Tia", "swap", "Vic")
    game.apply("Tia", "swap", ["Wolf", "Vic"])
    assert game.cards() == {"Tia": "troublemaker", "Wolf": "villager", "Vic": "werewolf",
                            "Val": "villager"}
    assert of_type(game, "swapped") == [{"type": "swapped", "by": "Tia",
                                         "players": ["Wolf", "Vic"]}]
    assert facts(game, "Tia", "swapped") == [
        {"call": "troublemaker", "fact": "swapped", "value": ["Wolf", "Vic"]}]
    assert of_type(game, "looked") == []  # without looking


def test_troublemaker_may_swap_nobody():
    game = new(*TROUBLE)
    run(game, ("Wolf", "peek_center", None), ("Tia", "swap", None))
    assert game.cards() == game.roles_as_dealt()


# --------------------------------------------------------------------------- drunk

DRUNK = ("Dru:drunk Wolf:werewolf Vic:villager", "seer villager robber")


def test_drunk_swaps_his_card_with_a_centre_card_without_looking():
    """«Borracho — Intercambia su carta con una del centro, sin mirarla.»"""
    game = new(*DRUNK)
    game.apply("Wolf", "peek_center", None)
    assert game.legal_targets("Dru", "drunk") == [0, 1, 2]
    game.apply("Dru", "drunk", 2)
    assert game.cards()["Dru"] == "robber" and game.center() == ["seer", "villager", "drunk"]
    assert of_type(game, "swapped") == [{"type": "swapped", "by": "Dru", "players": ["Dru"],
                                         "center": 2}]
    assert facts(game, "Dru", "took_center") == [
        {"call": "drunk", "fact": "took_center", "value": 2}]
    assert "robber" not in str(facts(game, "Dru"))  # he never sees it


def test_drunk_must_take_a_centre_card():
    """The drunk's swap is not optional (issue 13: «0, 1 or 2 (not optional)»)."""
    game = new(*DRUNK)
    game.apply("Wolf", "peek_center", None)
    assert "must take" in refused(game, "Dru", "drunk", None)
    assert "0, 1 and 2" in refused(game, "Dru", "drunk", 3)
    assert "a number" in refused(game, "Dru", "drunk", True)
    assert "a number" in refused(game, "Dru", "drunk", "1")


# --------------------------------------------------------------------------- insomniac


def test_insomniac_wakes_last_and_looks_at_her_card():
    """«Insomne — Se despierta la última y mira su carta.» After every swap of the night."""
    game = new("Rob:robber Ins:insomniac Wolf:werewolf", "seer villager villager")
    assert game.night_calls()[-1] == "insomniac"
    run(game, ("Wolf", "peek_center", None))
    assert facts(game, "Ins", "own_card") == []  # not before her call
    game.apply("Rob", "rob", "Ins")
    assert facts(game, "Ins", "own_card") == [
        {"call": "insomniac", "fact": "own_card", "value": "robber"}]
    assert game.phase == "day"  # she only looks: her call asks nothing


def test_villagers_tanner_and_hunter_sleep_all_night():
    """«Los Aldeanos, el Curtidor y el Cazador duermen toda la noche.»"""
    game = new("Vic:villager Tan:tanner Hun:hunter Wolf:werewolf", "seer villager robber")
    asked = set()
    while game.phase == "night":
        decision = game.pending()[0]
        asked.add(decision.player)
        game.apply(decision.player, decision.action, None)
    assert asked == {"Wolf"}
    for sleeper in ("Vic", "Tan", "Hun"):
        assert [f["fact"] for f in facts(game, sleeper)] == ["card"]
        assert all(sleeper not in game.woken(call) for call in game.night_calls())


# =========================================================================== the day


def test_everybody_points_at_another_player_at_once():
    """«cada jugador señala a la vez a otro jugador»: every player votes, nobody for
    themselves, nobody for nobody, once."""
    game = new(QUIET, QUIET_CENTER)
    assert game.phase == "day" and game.current_call() is None
    assert {d.action for d in game.pending()} == {"vote"}
    assert [d.player for d in game.pending()] == game.players
    assert game.legal_targets("Vic", "vote") == ["Wolf", "Wolf2", "Val", "Hun", "Tan"]
    assert "for themselves" in refused(game, "Vic", "vote", "Vic")
    assert "a name" in refused(game, "Vic", "vote", None)
    game.apply("Vic", "vote", "Wolf")
    assert "already voted" in refused(game, "Vic", "vote", "Val")
    assert of_type(game, "votes") == []  # nothing is counted before everybody has pointed


def test_the_player_with_the_most_votes_is_out():
    """«El jugador o los jugadores con más votos quedan eliminados»"""
    game = new(QUIET, QUIET_CENTER)
    vote(game, Wolf="Vic", Wolf2="Vic", Vic="Wolf", Val="Vic", Hun="Wolf", Tan="Val")
    assert of_type(game, "votes") == [{
        "type": "votes", "counts": {"Wolf": 2, "Vic": 3, "Val": 1},
        "ballots": {"Wolf": "Vic", "Wolf2": "Vic", "Vic": "Wolf", "Val": "Vic",
                    "Hun": "Wolf", "Tan": "Val"}}]
    assert of_type(game, "out") == [{"type": "out", "player": "Vic", "cause": "vote"}]
    assert game.alive_names() == ["Wolf", "Wolf2", "Val", "Hun", "Tan"]
    assert game.pending() == []


def test_the_players_tied_with_the_most_votes_are_all_out():
    game = new(QUIET, QUIET_CENTER)
    vote(game, Wolf="Vic", Wolf2="Vic", Vic="Wolf", Val="Wolf", Hun="Tan", Tan="Hun")
    assert [e["player"] for e in of_type(game, "out")] == ["Wolf", "Vic"]


def test_if_nobody_has_more_than_one_vote_nobody_is_out():
    """«con una excepción: si nadie tiene más de un voto, nadie queda eliminado»"""
    game = new(QUIET, QUIET_CENTER)
    vote(game, Wolf="Wolf2", Wolf2="Vic", Vic="Val", Val="Hun", Hun="Tan", Tan="Wolf")
    assert of_type(game, "out") == [] and of_type(game, "nobody_out") == [
        {"type": "nobody_out"}]
    assert game.alive_names() == game.players


def test_a_hunter_who_is_out_takes_the_player_he_voted_for_out_too():
    """«Si el Cazador es eliminado, el jugador al que votó también lo es.»"""
    game = new(QUIET, QUIET_CENTER)
    vote(game, Wolf="Hun", Wolf2="Hun", Vic="Wolf", Val="Hun", Hun="Wolf2", Tan="Vic")
    assert of_type(game, "out") == [{"type": "out", "player": "Hun", "cause": "vote"},
                                    {"type": "out", "player": "Wolf2", "cause": "hunter"}]
    assert game.winner == ["village"]


def test_the_hunter_is_whoever_holds_the_hunter_card_at_the_end():
    """A hunter «by the card held at the end of the night»: the robber took his card."""
    table = ("Rob:robber Hun:hunter Wolf:werewolf Wolf2:werewolf Vic:villager",
             "villager villager seer")
    game = new(*table)
    game.apply("Rob", "rob", "Hun")
    vote(game, Rob="Wolf", Hun="Rob", Wolf="Rob", Wolf2="Hun", Vic="Hun")
    assert of_type(game, "out") == [{"type": "out", "player": "Rob", "cause": "vote"},
                                    {"type": "out", "player": "Hun", "cause": "vote"},
                                    {"type": "out", "player": "Wolf", "cause": "hunter"}]
    game = new(*table)
    game.apply("Rob", "rob", "Hun")
    vote(game, Rob="Hun", Hun="Wolf", Wolf="Hun", Wolf2="Vic", Vic="Rob")
    # the dealt hunter holds the robber card now: he takes nobody with him
    assert of_type(game, "out") == [{"type": "out", "player": "Hun", "cause": "vote"}]


def test_debate_clock_is_the_hosts_choice_and_public():
    from rules.one_night.knowledge import public_knowledge

    game = new(QUIET, QUIET_CENTER, debate_minutes=3)
    assert public_knowledge(game)["debate_minutes"] == 3


# =========================================================================== who wins

MINION = ("Min:minion Wolf:werewolf Wolf2:werewolf Vic:villager Val:villager",
          "villager villager seer")


def test_winners_by_the_cards_at_the_end_of_the_night_not_the_dealt_ones():
    """«Cuentan las cartas al final de la noche, no las del principio.» The robber takes
    the werewolf's card: voting out the dealt werewolf catches no werewolf."""
    game = new(*ROBBER)
    run(game, ("Wolf", "peek_center", None), ("Rob", "rob", "Wolf"))
    vote(game, Rob="Wolf", Wolf="Rob", Vic="Wolf")
    assert game.winner == ["werewolves"] and game.winners == ["Rob"]
    assert of_type(game, "game_over") == [
        {"type": "game_over", "winner": ["werewolves"], "winners": ["Rob"]}]


def test_village_wins_if_at_least_one_werewolf_is_out():
    """«El pueblo gana si se elimina al menos a un lobo.» Every village card wins, out or
    not."""
    game = new(QUIET, QUIET_CENTER)
    vote(game, Wolf="Vic", Wolf2="Vic", Vic="Wolf", Val="Wolf", Hun="Tan", Tan="Hun")
    assert game.winner == ["village"]
    assert game.winners == ["Vic", "Val", "Hun"]


def test_werewolves_and_minion_win_if_no_werewolf_and_not_the_tanner_is_out():
    """«Los lobos (y el Esbirro) ganan si no se elimina a ningún lobo… y tampoco al
    Curtidor.»"""
    game = new(*MINION)
    vote(game, Min="Vic", Wolf="Vic", Wolf2="Vic", Vic="Wolf", Val="Min")
    assert game.winner == ["werewolves"] and game.winners == ["Min", "Wolf", "Wolf2"]


def test_werewolves_win_when_nobody_is_out():
    game = new(QUIET, QUIET_CENTER)
    vote(game, Wolf="Wolf2", Wolf2="Vic", Vic="Val", Val="Hun", Hun="Tan", Tan="Wolf")
    assert game.winner == ["werewolves"] and game.winners == ["Wolf", "Wolf2"]


def test_minion_wins_with_the_werewolves_even_if_he_is_out():
    """«Gana con ellos, aunque muera.»"""
    game = new(*MINION)
    vote(game, Min="Vic", Wolf="Min", Wolf2="Min", Vic="Min", Val="Min")
    assert game.alive_names() == ["Wolf", "Wolf2", "Vic", "Val"]
    assert game.winner == ["werewolves"] and "Min" in game.winners


def test_tanner_wins_if_he_is_out_and_the_werewolves_cannot():
    """«El Curtidor gana si es eliminado.»"""
    game = new(QUIET, QUIET_CENTER)
    vote(game, Wolf="Tan", Wolf2="Tan", Vic="Tan", Val="Wolf", Hun="Tan", Tan="Vic")
    assert game.winner == ["tanner"] and game.winners == ["Tan"]


def test_tanner_and_village_win_together():
    """Several sides can win at once: the tanner and the village."""
    game = new(QUIET, QUIET_CENTER)
    vote(game, Wolf="Tan", Wolf2="Tan", Vic="Wolf", Val="Wolf", Hun="Vic", Tan="Hun")
    assert game.winner == ["village", "tanner"]
    assert game.winners == ["Vic", "Val", "Hun", "Tan"]


NO_WOLF = ("Vic:villager Val:villager Sia:seer", "werewolf werewolf robber")


def test_with_no_werewolf_among_the_players_the_village_wins_only_if_nobody_is_out():
    """«Si no hay ningún lobo entre los jugadores, el pueblo solo gana si no se elimina a
    nadie.»"""
    game = new(*NO_WOLF)
    assert game.current_call() == "seer"  # the werewolves' call woke nobody
    game.apply("Sia", "look", [0, 1])
    vote(game, Vic="Val", Val="Sia", Sia="Vic")
    assert game.winner == ["village"] and game.winners == ["Vic", "Val", "Sia"]
    game = new(*NO_WOLF)
    game.apply("Sia", "look", None)
    vote(game, Vic="Val", Val="Vic", Sia="Val")
    assert game.winner == [] and game.winners == []  # Val is out: nobody wins


def test_doppelganger_and_investigator_play_for_the_side_of_the_role_they_became():
    """«El Doppelgänger y el Cazador de Fantasmas juegan para el bando del papel en el que
    se convirtieron durante la noche.»"""
    game = new("Dop:doppelganger Wolf:werewolf Vic:villager Val:villager",
               "villager seer villager")
    game.apply("Dop", "copy", "Wolf")
    vote(game, Dop="Vic", Wolf="Vic", Vic="Dop", Val="Vic")
    assert game.winner == ["werewolves"] and game.winners == ["Dop", "Wolf"]
    game = new(*PI)
    run(game, ("Wolf", "peek_center", None), ("Pi", "investigate", "Wolf"))
    vote(game, Pi="Vic", Vic="Pi", Wolf="Vic", Tan="Vic", Val="Pi")
    assert game.winner == ["werewolves"] and game.winners == ["Pi", "Wolf"]


# =========================================================================== refusals


def quiet_night_doc(actions):
    return doc("Sia:seer Wolf:werewolf Rob:robber", "villager troublemaker werewolf",
               actions=actions)


def test_refused_an_action_out_of_the_wake_order():
    """Actions come in the wake order: the robber cannot rob during the seer's call."""
    error = replay_refuses(quiet_night_doc([["Wolf", "peek_center", None]]),
                           ["Rob", "rob", "Wolf"])
    assert error["reason"] == "Rob has nothing to do now"


def test_refused_a_role_that_is_not_in_play():
    error = replay_refuses(quiet_night_doc([["Wolf", "peek_center", None]]),
                           ["Sia", "drunk", 0])
    assert error["reason"] == "there is no drunk in this game"
    game = new("Sia:seer Wolf:werewolf Rob:robber", "villager troublemaker werewolf")
    assert "no paranormal_investigator" in refused(game, "Wolf", "investigate", "Sia")
    assert "no doppelganger" in refused(game, "Wolf", "copy", "Sia")


def test_refused_a_role_whose_card_is_in_the_centre():
    game = new("Sia:seer Wolf:werewolf Rob:robber", "villager troublemaker werewolf")
    run(game, ("Wolf", "peek_center", None), ("Sia", "look", None), ("Rob", "rob", None))
    assert game.phase == "day"  # the troublemaker was called and asked nothing
    assert refused(game, "Sia", "swap", ["Wolf", "Rob"]) == "Sia has nothing to do now"


def test_refused_a_look_at_oneself():
    error = replay_refuses(quiet_night_doc([["Wolf", "peek_center", None]]),
                           ["Sia", "look", "Sia"])
    assert error["reason"] == "Sia cannot look at their own card"


def test_refused_a_centre_card_out_of_range():
    for bad in (3, -1, True, "0", [0]):
        error = replay_refuses(quiet_night_doc([]), ["Wolf", "peek_center", bad])
        assert "centre card" in error["reason"]


def test_refused_a_second_swap():
    game = new(*TROUBLE)
    run(game, ("Wolf", "peek_center", None), ("Tia", "swap", ["Wolf", "Vic"]))
    assert refused(game, "Tia", "swap", ["Vic", "Val"]) == "Tia has already swapped"


def test_refused_a_vote_for_oneself():
    base = quiet_night_doc([["Wolf", "peek_center", None], ["Sia", "look", None],
                            ["Rob", "rob", None]])
    error = replay_refuses(base, ["Sia", "vote", "Sia"])
    assert error["reason"] == "Sia cannot vote for themselves"


def test_refused_a_vote_during_the_night():
    game = new(*SEER)
    assert refused(game, "Vic", "vote", "Wolf") == "the vote comes after the night"


def test_refused_a_wrong_verb_for_the_players_turn():
    game = new(*SEER)
    assert "must peek_center now, not look" in refused(game, "Wolf", "look", "Sia")


def test_refused_unknown_players_verbs_and_actors():
    game = new(*SEER)
    assert "no player called 'Zed'" in refused(game, "Zed", "peek_center", 0)
    assert "unknown action 'fly'" in refused(game, "Wolf", "fly", 0)
    assert "actor" in refused(game, 3, "peek_center", 0)
    game.apply("Wolf", "peek_center", None)
    assert "no player called 'Zed'" in refused(game, "Sia", "look", "Zed")


def test_refused_everything_once_the_game_is_over():
    game = new(QUIET, QUIET_CENTER)
    vote(game, Wolf="Vic", Wolf2="Vic", Vic="Wolf", Val="Vic", Hun="Wolf", Tan="Val")
    assert refused(game, "Vic", "vote", "Wolf") == "the game is over"


def test_refusals_never_say_who_is_awake_or_what_anybody_holds():
    """A refusal goes back to the player who tried (on their phone): it never names the
    player the rules wait for, a card, nor the call the rules are at (they pass a call
    whose card is in the centre at once, before the narrator has made it)."""
    game = new(TWELVE, TWELVE_CENTER)
    game.apply("Dop", "copy", "Vic")
    roles = set(ROLES) - {"drunk"}  # a verb too
    for p in game.players:
        if p == "Myst":
            continue
        for verb, target in (("look", "Vic"), ("rob", "Vic"), ("swap", ["Vic", "Sia"]),
                             ("drunk", 0), ("investigate", "Vic"), ("vote", "Vic"),
                             ("peek_center", 1), ("copy", "Vic")):
            reason = refused(game, p, verb, target)
            assert {q for q in game.players if q in reason} <= {p}, reason
            assert not {r for r in roles if r in reason}, reason
            assert "call" not in reason and "day" not in reason, reason


def test_refusals_by_day_before_the_narrator_says_so_tell_nothing():
    """The rules are at the vote as soon as the last night decision is in; the narrator
    may still be calling the rest of the night. A night action then is refused as at any
    other time a player has nothing to do."""
    game = new("Sia:seer Wolf:werewolf Wolf2:werewolf", "robber troublemaker drunk")
    game.apply("Sia", "look", None)
    assert game.phase == "day"
    assert refused(game, "Wolf", "peek_center", 0) == "Wolf has nothing to do now"
    assert refused(game, "Sia", "look", "Wolf") == "Sia has already looked"


def test_acting_as_says_whose_action_a_decision_is():
    """The doppelganger's second decision is the copied role's; the phone page says which."""
    game = new(TEN, TEN_CENTER)
    assert game.acting_as("Dop") == "doppelganger" and game.acting_as("Rob") is None
    game.apply("Dop", "copy", "Myst")
    assert game.acting_as("Dop") == "mystic_wolf"
    assert game.legal_targets("Dop", "look") == [None, *[p for p in game.players if p != "Dop"]]
    game.apply("Dop", "look", None)
    assert game.acting_as("Dop") is None and game.acting_as("Myst") == "mystic_wolf"
    assert game.acting_as("Nobody") is None
