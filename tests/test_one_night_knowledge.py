"""What each One Night player may know, and what the table knows (rules/one_night/knowledge.py).

Each fact learned at night is tagged with its call, so a screen shows it only once the
narrator has made that call; nothing a player may not know is ever in their knowledge.
"""

from __future__ import annotations

from rules.one_night import start
from rules.one_night.knowledge import (
    fact_values,
    private_knowledge,
    public_knowledge,
    shown_after,
)
from tests.one_night_helpers import facts, new, run, vote

TWELVE = ("Dop:doppelganger Wolf:werewolf Myst:mystic_wolf Min:minion Mas:mason Sia:seer "
          "Pi:paranormal_investigator Rob:robber Tia:troublemaker Dru:drunk Ins:insomniac "
          "Lil:little_girl")
TWELVE_CENTER = "mason tanner hunter"


def whole_night():
    """A night in which every role acts."""
    game = new(TWELVE, TWELVE_CENTER)
    run(game, ("Dop", "copy", "Ins"), ("Lil", "peek", True), ("Myst", "look", "Sia"),
        ("Sia", "look", [0, 1]), ("Pi", "investigate", "Mas"), ("Pi", "investigate", "Myst"),
        ("Rob", "rob", "Wolf"), ("Tia", "swap", ["Min", "Mas"]), ("Dru", "drunk", 2))
    assert game.phase == "day"
    return game


def test_a_player_starts_knowing_only_the_card_dealt():
    """«Cada jugador descubre su carta con una animación, la memoriza y cierra los ojos.»"""
    game = new(TWELVE, TWELVE_CENTER)
    for name, card in game.roles_as_dealt().items():
        if name in ("Wolf", "Myst", "Lil"):
            continue  # the werewolves' call comes right after the doppelganger's
        assert private_knowledge(game, name) == {
            "player": name, "facts": [{"call": None, "fact": "card", "value": card}],
            "vote": None}


def test_every_fact_learned_at_night_is_tagged_with_its_call():
    game = whole_night()
    tagged = {name: [(f["call"], f["fact"]) for f in facts(game, name)]
              for name in game.players}
    assert tagged == {
        "Dop": [(None, "card"), ("doppelganger", "copied"),
                ("doppelganger_insomniac", "own_card")],
        "Wolf": [(None, "card"), ("werewolves", "pack")],
        "Myst": [(None, "card"), ("werewolves", "pack"), ("mystic_wolf", "looked")],
        "Min": [(None, "card"), ("minion", "werewolves")],
        "Mas": [(None, "card"), ("masons", "masons")],
        "Sia": [(None, "card"), ("seer", "looked_center")],
        "Pi": [(None, "card"), ("paranormal_investigator", "looked"),
               ("paranormal_investigator", "looked"), ("paranormal_investigator", "became")],
        "Rob": [(None, "card"), ("robber", "robbed")],
        "Tia": [(None, "card"), ("troublemaker", "swapped")],
        "Dru": [(None, "card"), ("drunk", "took_center")],
        "Ins": [(None, "card"), ("insomniac", "own_card")],
        "Lil": [(None, "card"), ("werewolves", "werewolves")],
    }
    assert fact_values(private_knowledge(game, "Wolf"), "pack") == [["Myst"]]
    assert fact_values(private_knowledge(game, "Lil"), "werewolves") == [["Wolf", "Myst"]]
    assert fact_values(private_knowledge(game, "Min"), "werewolves") == [["Wolf", "Myst"]]
    assert fact_values(private_knowledge(game, "Ins"), "own_card") == ["insomniac"]
    assert fact_values(private_knowledge(game, "Pi"), "became") == ["mystic_wolf"]


def test_shown_after_keeps_only_the_deal_and_the_calls_narrated():
    game = whole_night()
    known = private_knowledge(game, "Myst")
    assert [f["fact"] for f in shown_after(known, [])["facts"]] == ["card"]
    assert [f["fact"] for f in shown_after(known, ["doppelganger", "werewolves"])["facts"]] == [
        "card", "pack"]
    assert shown_after(known, game.night_calls()) == known


def test_a_swap_a_player_did_not_see_changes_nothing_they_know():
    """Never their own card after a swap they did not see: the troublemaker's victims, the
    robbed player and the drunk learn nothing of their new cards."""
    game = new("Tia:troublemaker Rob:robber Dru:drunk Wolf:werewolf Vic:villager",
               "seer villager villager")
    game.apply("Wolf", "peek_center", None)
    before = {p: private_knowledge(game, p) for p in ("Wolf", "Vic")}
    run(game, ("Rob", "rob", "Wolf"), ("Tia", "swap", ["Wolf", "Vic"]), ("Dru", "drunk", 0))
    assert {p: private_knowledge(game, p) for p in ("Wolf", "Vic")} == before
    assert fact_values(private_knowledge(game, "Vic"), "card") == ["villager"]
    assert game.cards()["Vic"] == "robber"  # what he holds, and does not know
    assert fact_values(private_knowledge(game, "Dru"), "took_center") == [0]
    assert "seer" not in str(private_knowledge(game, "Dru"))


def test_nobody_knows_a_centre_card_they_did_not_see():
    game = whole_night()
    for name in game.players:
        looked = [f for f in facts(game, name) if f["fact"] == "looked_center"]
        if name != "Sia":
            assert looked == [], name
    # the seer saw centre cards 0 and 1, never the 2 the drunk took later
    assert fact_values(private_knowledge(game, "Sia"), "looked_center") == [
        [{"center": 0, "role": "mason"}, {"center": 1, "role": "tanner"}]]


def test_werewolves_never_learn_the_minion_or_the_little_girl():
    game = whole_night()
    for wolf in ("Wolf", "Myst"):
        text = str(private_knowledge(game, wolf))
        assert "Min" not in text and "Lil" not in text


def test_knowledge_is_a_copy_the_game_does_not_change():
    game = whole_night()
    known = private_knowledge(game, "Wolf")
    known["facts"][1]["value"].append("Sia")
    assert fact_values(private_knowledge(game, "Wolf"), "pack") == [["Myst"]]
    public = public_knowledge(game)
    public["deck"].clear()
    assert public_knowledge(game)["deck"]


def test_own_vote_is_private_until_the_vote_is_resolved():
    game = new("Wolf:werewolf Wolf2:werewolf Vic:villager", "seer villager villager")
    game.apply("Vic", "vote", "Wolf")
    assert private_knowledge(game, "Vic")["vote"] == "Wolf"
    public = public_knowledge(game)
    assert public["voted"] == ["Vic"]  # who has pointed, never at whom
    assert public["votes"] is None and public["counts"] is None
    assert "Wolf" not in str({k: public[k] for k in ("voted", "votes", "counts", "out")})


# ------------------------------------------------------------------------ public knowledge


def test_public_knowledge_before_the_end_tells_no_card():
    """The roles in play are public (the deck), never who holds which: two deals of the
    same deck look the same to the table, even where the rules already are in the night
    (which depends on the cards in the centre)."""
    doc = {"ruleset": "one-night", "players": [f"P{i}" for i in range(9)]}
    views = set()
    deals = set()
    for seed in range(30):
        game = start({**doc, "seed": seed})
        deals.add(tuple(game.roles_as_dealt().values()))
        views.add(repr(public_knowledge(game)))
    assert len(deals) > 1 and len(views) == 1
    starts = {start({**doc, "seed": seed}).current_call() for seed in range(30)}
    assert len(starts) > 1  # the doppelganger's call asks nothing when her card is centred


def test_public_deck_lists_the_roles_in_play_in_the_tables_order():
    game = new("Rob:robber Wolf:werewolf Sia:seer", "villager werewolf troublemaker")
    assert public_knowledge(game)["deck"] == [
        "werewolf", "werewolf", "seer", "robber", "troublemaker", "villager"]
    assert public_knowledge(game)["night_calls"] == ["werewolves", "seer", "robber",
                                                     "troublemaker"]


def test_public_knowledge_once_the_vote_is_resolved_and_at_the_end():
    """At the end every card, dealt and final, what each counts as, who voted for whom and
    the winners."""
    game = new("Rob:robber Wolf:werewolf Vic:villager", "seer villager troublemaker")
    run(game, ("Wolf", "peek_center", 1), ("Rob", "rob", "Wolf"))
    before = public_knowledge(game)
    assert before["dealt"] is None and before["cards"] is None and before["winner"] is None
    vote(game, Rob="Wolf", Wolf="Rob", Vic="Wolf")
    public = public_knowledge(game)
    assert public["over"] is True and before["over"] is False
    assert public["votes"] == {"Rob": "Wolf", "Wolf": "Rob", "Vic": "Wolf"}
    assert public["counts"] == {"Rob": 1, "Wolf": 2}
    assert public["out"] == [{"player": "Wolf", "cause": "vote"}]
    assert public["dealt"] == {"Rob": "robber", "Wolf": "werewolf", "Vic": "villager"}
    assert public["center_dealt"] == ["seer", "villager", "troublemaker"]
    assert public["cards"] == {"Rob": "werewolf", "Wolf": "robber", "Vic": "villager"}
    assert public["center"] == ["seer", "villager", "troublemaker"]
    assert public["counts_as"] == public["cards"]
    assert public["winner"] == ["werewolves"] and public["winners"] == ["Rob"]


def test_public_knowledge_at_the_end_shows_what_the_doppelganger_became():
    game = new("Dop:doppelganger Wolf:werewolf Vic:villager", "seer villager villager")
    game.apply("Dop", "copy", "Wolf")
    vote(game, Dop="Vic", Wolf="Vic", Vic="Dop")
    public = public_knowledge(game)
    assert public["cards"]["Dop"] == "doppelganger"
    assert public["counts_as"]["Dop"] == "werewolf"


def test_woken_names_the_players_a_call_wakes():
    game = whole_night()
    assert game.woken("werewolves") == ["Wolf", "Myst", "Lil"]
    assert game.woken("masons") == ["Mas"]
    assert game.woken("insomniac") == ["Ins"]
    assert game.woken("doppelganger_insomniac") == ["Dop"]
    assert game.woken("seer") == ["Sia"]
