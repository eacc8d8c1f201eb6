"""What each Werewords player may know (seed 004, «Fase nocturna», «Otros roles»), each night
fact tagged with the call it is learned in, and the word in nothing a player may not see."""

from __future__ import annotations

import json
import random
from typing import Any

from rules.core import CLOCK
from rules.werewords import start
from rules.werewords.knowledge import (
    fact_value,
    private_knowledge,
    public_knowledge,
    shown_after,
)
from tests.test_werewords_rules import (
    SEVEN,
    SIX,
    answer,
    doc,
    everyone_votes,
    guessed_by,
    time_up,
    to_day,
)

# Words no name, role, key or reason contains, so finding one in a view is a leak.
SECRET_WORDS = ["xylophone", "zeppelin", "quokka", "marzipan"]
WORD = "zeppelin"


def new(roles: str = SIX, mayor: str = "Cal"):
    return start(doc(roles, mayor, words=SECRET_WORDS))


def facts(game, name: str) -> list[tuple[str | None, str, Any]]:
    return [(f["call"], f["fact"], f["value"]) for f in private_knowledge(game, name)["facts"]]


def text(view: dict[str, Any]) -> str:
    return json.dumps(view, ensure_ascii=False).casefold()


def leaks(view: dict[str, Any]) -> list[str]:
    return [w for w in SECRET_WORDS if w in text(view)]


# --------------------------------------------------------------------------- each role


def test_the_mayor_sees_the_secret_role_and_the_offered_words_in_the_mayor_call():
    """«le dice al alcalde que se despierte y toque su papel secreto ... elige una palabra
    mágica de las que se muestran ... La palabra mágica se muestra al alcalde»"""
    game = new()
    assert facts(game, "Cal") == [("mayor", "role", "villager"), ("mayor", "side", "village"),
                                  ("mayor", "offered_words", SECRET_WORDS)]
    assert private_knowledge(game, "Cal")["mayor"] is True
    game.apply("Cal", "choose_word", WORD)
    assert ("mayor", "word", WORD) in facts(game, "Cal")


def test_the_seer_sees_the_word_in_the_seer_call():
    """«La Vidente ve la Palabra Mágica»"""
    game = new()
    assert facts(game, "Ana") == [(None, "role", "seer"), (None, "side", "village")]
    to_day(game, WORD)
    assert facts(game, "Ana")[-1] == ("seer", "word", WORD)


def test_the_werewolves_see_the_word_and_each_other():
    """«El hombre lobo ve la palabra mágica»; «la aplicación permite a cada hombre lobo ...
    ver quién es el otro hombre lobo»"""
    game = start(doc(SEVEN, "Cal", words=SECRET_WORDS))
    assert ("werewolves", "pack", ["Gus"]) in facts(game, "Ben")
    assert ("werewolves", "pack", ["Ben"]) in facts(game, "Gus")
    assert not leaks(private_knowledge(game, "Ben"))
    to_day(game, WORD)
    assert ("werewolves", "word", WORD) in facts(game, "Ben")
    assert ("werewolves", "word", WORD) in facts(game, "Gus")


def test_a_lone_werewolf_has_no_pack():
    game = to_day(new(), WORD)
    assert ("werewolves", "pack", []) in facts(game, "Ben")


def test_the_minion_sees_the_werewolves_not_the_word():
    """«permite que el Minion vea al hombre lobo, pero no le muestra la palabra mágica»"""
    game = to_day(start(doc(SEVEN, "Cal", words=SECRET_WORDS)), WORD)
    assert facts(game, "Eve") == [(None, "role", "minion"), (None, "side", "werewolves"),
                                  ("minion", "werewolves", ["Ben", "Gus"])]
    assert not leaks(private_knowledge(game, "Eve"))


def test_the_beholder_sees_the_seer_not_the_word():
    """«permite al espectador ver al vidente, pero no le muestra la palabra mágica»"""
    game = to_day(new(), WORD)
    assert facts(game, "Fay") == [(None, "role", "beholder"), (None, "side", "village"),
                                  ("beholder", "seer", "Ana")]
    assert not leaks(private_knowledge(game, "Fay"))


def test_villagers_see_nothing():
    """«No ven la palabra, no se despiertan»"""
    game = to_day(new(), WORD)
    assert facts(game, "Dee") == [(None, "role", "villager"), (None, "side", "village")]


def test_the_mayor_who_is_the_seer_learns_the_word_in_both_calls():
    game = to_day(new("Ana:villager Ben:werewolf Cal:seer Dee:villager", "Cal"), WORD)
    assert ("mayor", "word", WORD) in facts(game, "Cal")
    assert ("seer", "word", WORD) in facts(game, "Cal")


def test_the_beholder_sees_the_mayor_who_is_the_seer():
    game = new("Ana:villager Ben:werewolf Cal:seer Dee:beholder", "Cal")
    assert ("beholder", "seer", "Cal") in facts(game, "Dee")


def test_the_mayor_who_is_a_werewolf_or_the_minion_learns_it_in_the_mayor_call():
    wolf = to_day(new("Ana:seer Ben:villager Cal:werewolf Dee:villager", "Cal"), WORD)
    assert facts(wolf, "Cal")[:2] == [("mayor", "role", "werewolf"),
                                      ("mayor", "side", "werewolves")]
    assert ("werewolves", "word", WORD) in facts(wolf, "Cal")
    minion = new("Ana:seer Ben:werewolf Cal:minion Dee:villager", "Cal")
    assert facts(minion, "Cal")[:2] == [("mayor", "role", "minion"),
                                        ("mayor", "side", "werewolves")]
    assert ("minion", "werewolves", ["Ben"]) in facts(minion, "Cal")


# --------------------------------------------------------------------------- by call


def test_a_fact_is_shown_only_once_its_call_was_narrated():
    game = to_day(start(doc(SEVEN, "Cal", words=SECRET_WORDS)), WORD)
    mayor = private_knowledge(game, "Cal")
    assert shown_after(mayor, [])["facts"] == []  # the mayor's role is the centre card's
    assert fact_value(shown_after(mayor, ["mayor"]), "role") == "villager"
    seer = private_knowledge(game, "Ana")
    assert fact_value(shown_after(seer, ["mayor"]), "word") is None
    assert fact_value(shown_after(seer, ["mayor"]), "role") == "seer"  # seen at the deal
    assert fact_value(shown_after(seer, ["mayor", "seer"]), "word") == WORD
    wolf = private_knowledge(game, "Ben")
    assert fact_value(shown_after(wolf, ["mayor", "seer"]), "pack") is None
    assert fact_value(shown_after(wolf, game.night_calls()), "pack") == ["Gus"]
    minion = private_knowledge(game, "Eve")
    assert fact_value(shown_after(minion, ["mayor", "seer", "werewolves"]), "werewolves") is None
    assert fact_value(shown_after(minion, game.night_calls()), "werewolves") == ["Ben", "Gus"]
    beholder = private_knowledge(game, "Fay")
    assert fact_value(shown_after(beholder, ["mayor", "seer", "werewolves", "minion"]),
                      "seer") is None
    assert fact_value(shown_after(beholder, game.night_calls()), "seer") == "Ana"


def test_every_call_of_a_fact_is_one_of_tonights_calls():
    game = to_day(start(doc(SEVEN, "Cal", words=SECRET_WORDS)), WORD)
    calls = set(game.night_calls())
    for name in game.players:
        for call, _, _ in facts(game, name):
            assert call is None or call in calls


# --------------------------------------------------------------------------- public


def test_public_knowledge_of_the_day():
    game = to_day(new(), WORD)
    answer(game, "Ana", "yes")
    answer(game, "Dee", "maybe")
    public = public_knowledge(game)
    assert public["mayor"] == "Cal"
    assert public["phase"] == "day"
    assert public["tokens_given"] == [{"to": "Ana", "token": "yes"},
                                      {"to": "Dee", "token": "maybe"}]
    assert public["tokens_left"] == {"yes_no": 35, "maybe": 9, "so_close": 1, "correct": 1}
    assert public["night_calls"] == ["mayor", "seer", "werewolves", "minion", "beholder"]
    assert public["deck"] == {"mayor": 1, "seer": 1, "werewolf": 1, "minion": 1,
                              "beholder": 1, "villager": 2}
    assert public["day_seconds"] == 240
    assert public["word"] is None and public["roles"] == {} and public["winner"] is None
    assert public["revealed"] == {}


def test_public_knowledge_of_the_seer_hunt_and_its_end():
    game = guessed_by(start(doc(SEVEN, "Cal", words=SECRET_WORDS)), "Dee")
    public = public_knowledge(game)
    assert public["phase"] == "seer_hunt"
    assert public["ending"] == "guessed" and public["guessed_by"] == "Dee"
    assert public["werewolves_shown"] == ["Ben", "Gus"]
    assert public["revealed"] == {"Ben": "werewolf", "Gus": "werewolf"}
    assert "Eve" not in public["revealed"], "the minion never shows"
    game.apply("Ben", "guess_seer", "Fay")
    assert public_knowledge(game)["seer_guesses"] == {"Ben": "Fay"}
    game.apply("Gus", "guess_seer", "Dee")
    public = public_knowledge(game)
    assert public["revealed"] == {"Ben": "werewolf", "Gus": "werewolf", "Dee": "villager",
                                  "Fay": "beholder"}
    assert public["word"] == WORD
    assert public["roles"] == game.roles_as_dealt()
    assert public["winner"] == "village"
    assert public["winners"] == ["Ana", "Cal", "Dee", "Fay"]


def test_public_knowledge_of_the_final_vote():
    game = time_up(new())
    game.apply("Ana", "vote", "Ben")
    public = public_knowledge(game)
    assert public["phase"] == "final_vote" and public["day_end"] == "time_up"
    assert public["voted"] == ["Ana"]
    assert public["votes"] is None, "whom each pointed at is shown when everybody has"
    assert private_knowledge(game, "Ana")["vote"] == "Ben"
    assert private_knowledge(game, "Dee")["vote"] is None
    for name in ("Ben", "Cal", "Dee", "Eve", "Fay"):
        game.apply(name, "vote", "Ben" if name != "Ben" else "Ana")
    public = public_knowledge(game)
    assert public["votes"] == {"Ana": 1, "Ben": 5}
    assert public["revealed"] == {"Ben": "werewolf"}
    assert public["word"] == WORD


# --------------------------------------------------------------------------- the word


def may_see_the_word(game, name: str) -> bool:
    role = game.roles_as_dealt()[name]
    return name == game.mayor_name or role in ("seer", "werewolf")


def check_no_leak(game) -> None:
    """The word (and the offer) only in the views of the mayor, the seer, the werewolves,
    and in public once the game is over."""
    public = public_knowledge(game)
    if game.winner is None:
        assert not leaks(public), public
    else:
        assert WORD in text(public)
    for name in game.players:
        view = private_knowledge(game, name)
        if name == game.mayor_name:
            continue
        found = leaks(view)
        if may_see_the_word(game, name):
            assert set(found) <= {WORD}, (name, found)
        else:
            assert not found, (name, view)
        # and never the other offered words: only the mayor saw the offer
        assert set(found) <= {WORD}


def test_the_word_is_in_no_view_that_may_not_show_it_through_whole_games():
    tables = [(SIX, "Cal"), (SEVEN, "Eve"), (SEVEN, "Fay"), (SIX, "Ana"), (SIX, "Ben")]
    rng = random.Random(4)
    for roles, mayor in tables:
        for ending in ("guessed", "not_guessed", "no_more_tokens", "whoops"):
            game = new(roles, mayor)
            check_no_leak(game)
            game.apply(mayor, "choose_word", WORD)
            check_no_leak(game)
            others = [p for p in game.players if p != mayor]
            for _ in range(5):
                answer(game, rng.choice(others), rng.choice(["yes", "no", "maybe"]))
                check_no_leak(game)
            if ending == "guessed":
                answer(game, others[0], "correct")
            elif ending == "no_more_tokens":
                while game.phase == "day":
                    answer(game, rng.choice(others), "no")
            else:
                game.apply(CLOCK, "time_up", None)
            if ending == "whoops":
                game.apply("table", "whoops", None)
            check_no_leak(game)
            if game.phase == "seer_hunt":
                for d in game.pending():
                    game.apply(d.player, "guess_seer", game.legal_targets(d.player,
                                                                         "guess_seer")[0])
            else:
                everyone_votes(game, others[1])
            check_no_leak(game)
            assert game.winner is not None


def test_the_word_is_in_no_refusal_a_non_mayor_can_cause():
    """A refusal's reason reaches whoever tried; only the mayor's may name the offer."""
    from rules import Refused

    game = new()
    reasons = []
    for actor, verb, target in [("Ana", "choose_word", WORD), ("Dee", "choose_word", "quokka"),
                                ("Ben", "answer", {"to": "Ana", "token": "yes"}),
                                ("Eve", "vote", "Ben"), ("Fay", "guess_seer", "Ana"),
                                ("Dee", "whoops", None)]:
        try:
            game.apply(actor, verb, target)
        except Refused as refusal:
            reasons.append(refusal.reason)
    assert len(reasons) == 6
    blob = " ".join(reasons).casefold()
    assert not [w for w in SECRET_WORDS if w in blob], reasons
