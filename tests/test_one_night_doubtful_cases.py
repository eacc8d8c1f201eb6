"""Where seed 001 is silent: each case as docs/rules-one-night.md decides it, one test each.

Every decision follows the seed's one principle for the end of the game, «Cuentan las
cartas al final de la noche, no las del principio»: a card counts as what it has turned
into, for whoever holds it; what a player *sees* is always the card as printed.
"""

from __future__ import annotations

import pytest

from rules import SetupError
from rules.one_night import validate_deck
from tests.one_night_helpers import facts, new, of_type, pending, refused, run, vote


def outs(game) -> list[tuple[str, str]]:
    return [(e["player"], e["cause"]) for e in of_type(game, "out")]


# ------------------------------------------------------------------ the minion, no wolves

NO_WOLF_MINION = ("Min:minion Vic:villager Val:villager Sia:seer",
                  "werewolf werewolf villager")


def minion_day():
    game = new(*NO_WOLF_MINION)
    assert facts(game, "Min", "werewolves")[0]["value"] == []  # no thumbs up: none here
    game.apply("Sia", "look", None)
    return game


def test_doubtful_minion_with_no_werewolves_among_the_players_wins_if_another_is_out():
    """He played the werewolf's part and the village took the bait: with no werewolf among
    the players, the minion wins if a player other than a minion is out (and no tanner)."""
    game = minion_day()
    vote(game, Min="Vic", Vic="Min", Val="Vic", Sia="Vic")
    assert game.winner == ["werewolves"] and game.winners == ["Min"]


def test_doubtful_minion_with_no_werewolves_out_alone_nobody_wins():
    """The village loses (somebody is out), and so does a minion who only got himself out."""
    game = minion_day()
    vote(game, Min="Vic", Vic="Min", Val="Min", Sia="Min")
    assert outs(game) == [("Min", "vote")]
    assert game.winner == [] and game.winners == []


def test_doubtful_minion_with_no_werewolves_out_with_another_still_wins():
    game = minion_day()
    vote(game, Min="Vic", Vic="Min", Val="Min", Sia="Vic")
    assert outs(game) == [("Min", "vote"), ("Vic", "vote")]
    assert game.winner == ["werewolves"] and game.winners == ["Min"]


def test_doubtful_minion_with_no_werewolves_and_nobody_out_the_village_wins():
    game = minion_day()
    vote(game, Min="Vic", Vic="Val", Val="Sia", Sia="Min")
    assert game.winner == ["village"] and game.winners == ["Vic", "Val", "Sia"]


# ------------------------------------------------------------------ the doppelganger's copies

DOP_TANNER = ("Dop:doppelganger Tan:tanner Wolf:werewolf Vic:villager Val:villager",
              "villager seer robber")


def tanner_day():
    game = new(*DOP_TANNER)
    run(game, ("Dop", "copy", "Tan"), ("Wolf", "peek_center", None))
    assert game.final_roles()["Dop"] == "tanner"
    return game


def test_doubtful_copied_tanner_is_a_tanner_who_wins_if_out():
    """A copied tanner is a second tanner: each wins alone, if he is the one out."""
    game = tanner_day()
    vote(game, Dop="Vic", Tan="Dop", Wolf="Dop", Vic="Dop", Val="Wolf")
    assert game.winner == ["tanner"] and game.winners == ["Dop"]


def test_doubtful_copied_tanner_two_tanners_out_both_win():
    game = tanner_day()
    vote(game, Dop="Tan", Tan="Dop", Wolf="Dop", Vic="Tan", Val="Wolf")
    assert game.winner == ["tanner"] and game.winners == ["Dop", "Tan"]


def test_doubtful_copied_tanner_out_keeps_the_werewolves_from_winning():
    game = tanner_day()
    vote(game, Dop="Vic", Tan="Dop", Wolf="Dop", Vic="Dop", Val="Tan")
    assert "werewolves" not in game.winner


def test_doubtful_copied_tanner_not_out_the_werewolves_win():
    game = tanner_day()
    vote(game, Dop="Vic", Tan="Vic", Wolf="Vic", Vic="Dop", Val="Wolf")
    assert game.winner == ["werewolves"] and game.winners == ["Wolf"]


DOP_HUNTER = ("Dop:doppelganger Hun:hunter Wolf:werewolf Vic:villager Val:villager",
              "villager seer robber")


def hunter_day():
    game = new(*DOP_HUNTER)
    run(game, ("Dop", "copy", "Hun"), ("Wolf", "peek_center", None))
    return game


def test_doubtful_copied_hunter_takes_the_player_he_voted_for_out_too():
    game = hunter_day()
    vote(game, Dop="Wolf", Hun="Dop", Wolf="Dop", Vic="Dop", Val="Hun")
    assert outs(game) == [("Dop", "vote"), ("Wolf", "hunter")]
    assert game.winner == ["village"]


def test_doubtful_hunter_out_by_a_hunter_takes_his_own_vote_too():
    """Two hunters (one copied): the first takes the second, who takes his own vote."""
    game = hunter_day()
    vote(game, Dop="Hun", Hun="Wolf", Wolf="Dop", Vic="Dop", Val="Dop")
    assert outs(game) == [("Dop", "vote"), ("Hun", "hunter"), ("Wolf", "hunter")]


def test_doubtful_hunter_who_voted_for_a_player_already_out_takes_nobody_more():
    game = hunter_day()
    vote(game, Dop="Hun", Hun="Val", Wolf="Dop", Vic="Hun", Val="Dop")
    # both hunters out by the vote; Dop's vote is already out, Hun's takes Val
    assert outs(game) == [("Dop", "vote"), ("Hun", "vote"), ("Val", "hunter")]


def test_doubtful_copied_minion_sees_the_werewolves_and_wins_with_them():
    game = new("Dop:doppelganger Min:minion Wolf:werewolf Vic:villager Val:villager",
               "villager seer robber")
    run(game, ("Dop", "copy", "Min"), ("Wolf", "peek_center", None))
    assert facts(game, "Dop", "werewolves") == [
        {"call": "minion", "fact": "werewolves", "value": ["Wolf"]}]
    vote(game, Dop="Vic", Min="Vic", Wolf="Vic", Vic="Dop", Val="Dop")
    assert outs(game) == [("Vic", "vote")]
    assert game.winner == ["werewolves"] and game.winners == ["Dop", "Min", "Wolf"]


def test_doubtful_doppelganger_copying_the_doppelganger_is_impossible():
    """A deck holds one doppelganger card, and she never copies her own: there is no
    doppelganger for her to copy."""
    with pytest.raises(SetupError, match="one doppelganger at most"):
        validate_deck(["doppelganger", "doppelganger", "werewolf", "villager", "villager",
                       "villager"], 3)
    game = new(*DOP_HUNTER)
    assert "Dop" not in game.legal_targets("Dop", "copy")
    assert "own card" in refused(game, "Dop", "copy", "Dop")


def test_doubtful_doppelganger_who_copies_the_little_girl_may_peek_too():
    game = new("Dop:doppelganger Lil:little_girl Wolf:werewolf Vic:villager",
               "villager seer villager")
    game.apply("Dop", "copy", "Lil")
    assert game.current_call() == "werewolves"
    assert pending(game) == [("Dop", "peek"), ("Lil", "peek"), ("Wolf", "peek_center")]


def test_doubtful_doppelganger_who_robs_the_robber_the_robber_still_robs():
    """He wakes by the card dealt at the start, holding the doppelganger card now."""
    game = new("Dop:doppelganger Rob:robber Wolf:werewolf Vic:villager",
               "villager seer villager")
    run(game, ("Dop", "copy", "Rob"), ("Dop", "rob", "Rob"), ("Wolf", "peek_center", None))
    assert pending(game) == [("Rob", "rob")]
    game.apply("Rob", "rob", "Wolf")
    assert facts(game, "Rob", "robbed")[0]["value"] == {"player": "Wolf", "role": "werewolf"}
    assert game.final_roles() == {"Dop": "robber", "Rob": "werewolf", "Wolf": "robber",
                                  "Vic": "villager"}


def test_doubtful_uncopied_doppelganger_card_plays_for_the_village():
    """A doppelganger card that lay in the centre copied nothing; the drunk who takes it
    holds a card with no role of its own: it plays for the village, like a villager."""
    table = ("Dru:drunk Wolf:werewolf Vic:villager", "doppelganger seer villager")
    game = new(*table)
    assert game.night_calls()[0] == "doppelganger"  # called, even from the centre
    run(game, ("Wolf", "peek_center", None), ("Dru", "drunk", 0))
    assert game.final_roles()["Dru"] == "doppelganger"
    vote(game, Dru="Wolf", Wolf="Dru", Vic="Wolf")
    assert game.winner == ["village"] and game.winners == ["Dru", "Vic"]


def test_doubtful_robber_who_takes_the_doppelganger_card_sees_only_the_doppelganger():
    """He sees the card as printed, not what it copied; it counts as the copy for him."""
    game = new("Dop:doppelganger Rob:robber Wolf:werewolf Vic:villager",
               "villager seer villager")
    run(game, ("Dop", "copy", "Wolf"), ("Rob", "rob", "Dop"))
    assert facts(game, "Rob", "robbed")[0]["value"] == {"player": "Dop", "role": "doppelganger"}
    assert "werewolf" not in str(facts(game, "Rob"))
    vote(game, Dop="Rob", Rob="Vic", Wolf="Rob", Vic="Rob")
    assert game.winner == ["village"] and game.winners == ["Dop", "Vic"]


# ------------------------------------------------------------------ the investigator

PI = ("Pi:paranormal_investigator Vic:villager Wolf:werewolf Tan:tanner Val:villager",
      "seer villager robber")


def test_doubtful_investigator_turned_werewolf_is_a_werewolf_for_every_win():
    """He «joins that side»: his card counts as a werewolf. Voted out, the village has
    caught a werewolf; he does not win with it."""
    game = new(*PI)
    run(game, ("Wolf", "peek_center", None), ("Pi", "investigate", "Wolf"))
    vote(game, Pi="Vic", Vic="Pi", Wolf="Pi", Tan="Pi", Val="Wolf")
    assert game.winner == ["village"] and game.winners == ["Vic", "Val"]


def test_doubtful_investigator_turned_tanner_wins_if_out():
    game = new(*PI)
    run(game, ("Wolf", "peek_center", None), ("Pi", "investigate", "Tan"))
    vote(game, Pi="Vic", Vic="Pi", Wolf="Pi", Tan="Pi", Val="Wolf")
    assert game.winner == ["tanner"] and game.winners == ["Pi"]


def test_doubtful_investigators_werewolf_goes_with_the_card_he_holds():
    """What he became is on the card in front of him, like the doppelganger's copy: the
    robber who takes it after him is the werewolf now (and only sees the investigator)."""
    game = new("Pi:paranormal_investigator Rob:robber Wolf:werewolf Vic:villager",
               "villager seer villager")
    run(game, ("Wolf", "peek_center", None), ("Pi", "investigate", "Wolf"),
        ("Rob", "rob", "Pi"))
    assert facts(game, "Rob", "robbed")[0]["value"] == {
        "player": "Pi", "role": "paranormal_investigator"}
    assert game.final_roles() == {"Pi": "robber", "Rob": "werewolf", "Wolf": "werewolf",
                                  "Vic": "villager"}
    vote(game, Pi="Rob", Rob="Pi", Wolf="Rob", Vic="Rob")
    assert game.winner == ["village"] and game.winners == ["Pi", "Vic"]


def test_doubtful_investigator_sees_the_doppelganger_card_as_printed_and_goes_on():
    game = new("Dop:doppelganger Pi:paranormal_investigator Wolf:werewolf Vic:villager",
               "villager seer villager")
    run(game, ("Dop", "copy", "Wolf"), ("Pi", "investigate", "Dop"))
    assert facts(game, "Pi", "looked")[0]["value"] == {"player": "Dop", "role": "doppelganger"}
    assert of_type(game, "became") == [] and pending(game) == [("Pi", "investigate")]


def test_doubtful_doppelganger_investigator_turned_werewolf_does_not_wake_with_the_pack():
    """Like the investigator himself (whose turn comes after theirs), she wakes as the role
    she copied, not the one she became: the werewolf stays alone."""
    game = new("Dop:doppelganger Pi:paranormal_investigator Wolf:werewolf Vic:villager",
               "villager seer villager")
    run(game, ("Dop", "copy", "Pi"), ("Dop", "investigate", "Wolf"))
    assert of_type(game, "became") == [{"type": "became", "player": "Dop", "role": "werewolf"}]
    assert game.woken("werewolves") == ["Wolf"]
    assert pending(game) == [("Wolf", "peek_center")]
    assert facts(game, "Wolf", "pack")[0]["value"] == []
    assert game.final_roles()["Dop"] == "werewolf"


# ------------------------------------------------------------------ the vote

QUIET = ("Wolf:werewolf Wolf2:werewolf Vic:villager Val:villager Hun:hunter Tan:tanner",
         "villager villager seer")


def test_doubtful_votes_tied_at_the_top_put_every_tied_player_out():
    """«El jugador o los jugadores con más votos»: two each for three players, all out."""
    game = new(*QUIET)
    vote(game, Wolf="Vic", Wolf2="Vic", Vic="Val", Val="Wolf", Hun="Val", Tan="Wolf")
    assert outs(game) == [("Wolf", "vote"), ("Vic", "vote"), ("Val", "vote")]


def test_doubtful_everybody_with_exactly_one_vote_nobody_is_out():
    game = new(*QUIET)
    vote(game, Wolf="Vic", Vic="Wolf", Wolf2="Val", Val="Wolf2", Hun="Tan", Tan="Hun")
    assert of_type(game, "votes")[0]["counts"] == {p: 1 for p in game.players}
    assert outs(game) == [] and of_type(game, "nobody_out")


def test_doubtful_hunter_voted_out_by_the_card_held_at_the_end():
    """The robbed hunter card goes with its holder; the dealt hunter shoots nobody."""
    game = new("Rob:robber Hun:hunter Wolf:werewolf Wolf2:werewolf Vic:villager",
               "villager villager seer")
    game.apply("Rob", "rob", "Hun")
    vote(game, Rob="Wolf2", Hun="Rob", Wolf="Rob", Wolf2="Vic", Vic="Rob")
    assert outs(game) == [("Rob", "vote"), ("Wolf2", "hunter")]


NO_WOLF = ("Vic:villager Tan:tanner Sia:seer", "werewolf werewolf robber")


def test_doubtful_no_werewolf_among_the_players_and_nobody_out_the_village_wins():
    game = new(*NO_WOLF)
    game.apply("Sia", "look", "Tan")
    vote(game, Vic="Tan", Tan="Sia", Sia="Vic")
    assert game.winner == ["village"] and game.winners == ["Vic", "Sia"]  # not the tanner


def test_doubtful_no_werewolf_among_the_players_the_tanner_out_wins_alone():
    game = new(*NO_WOLF)
    game.apply("Sia", "look", None)
    vote(game, Vic="Tan", Tan="Sia", Sia="Tan")
    assert game.winner == ["tanner"] and game.winners == ["Tan"]


def test_doubtful_nobody_wins():
    """With no werewolf among the players and a villager out, every side loses."""
    game = new(*NO_WOLF)
    game.apply("Sia", "look", None)
    vote(game, Vic="Sia", Tan="Sia", Sia="Vic")
    assert game.winner == [] and game.winners == []
    assert of_type(game, "game_over") == [{"type": "game_over", "winner": [], "winners": []}]
