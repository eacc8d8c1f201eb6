"""One test per rule of Werewords (seed 004): the night, the day and its tokens, the two
endings, whoops, and the mayor's secret role.

Players are seated with their secret roles and a named mayor, as in the replay format, and
the offered words are fixed, so each test reads like the table it describes. Every refusal
also checks that the game is left exactly as it was. The helpers here are shared by the
other test_werewords_* files.
"""

from __future__ import annotations

import pickle
from typing import Any

import pytest

from rules import TABLE, Refused
from rules.core import CLOCK
from rules.werewords import start

WORDS = ["frog", "castle", "rain", "piano"]
WORD = "castle"

FOUR = "Ana:seer Ben:werewolf Cal:villager Dee:villager"
SIX = "Ana:seer Ben:werewolf Cal:villager Dee:villager Eve:minion Fay:beholder"
SEVEN = ("Ana:seer Ben:werewolf Cal:villager Dee:villager Eve:minion Fay:beholder "
         "Gus:werewolf")


# --------------------------------------------------------------------------- helpers


def doc(roles: str, mayor: str, actions: list[Any] | None = None, seed: int = 5,
        words: list[str] | None = None, **options: Any) -> dict[str, Any]:
    """A seated table from 'Name:role Name:role ...' in seat order, with a named mayor."""
    out: dict[str, Any] = {
        "ruleset": "werewords",
        "seed": seed,
        "players": [entry.split(":") for entry in roles.split()],
        "mayor": mayor,
        "words": list(WORDS if words is None else words),
        "options": options,
    }
    if actions is not None:
        out["actions"] = actions
    return out


def new(roles: str = FOUR, mayor: str = "Cal", **options: Any):
    return start(doc(roles, mayor, **options))


def snapshot(game, copy: bool = True) -> dict[str, Any]:
    """Everything the game holds and its public answers, for `==`: with `copy`, a pickled
    copy that a later change cannot reach (cheaper than copy.deepcopy); without, the live
    values, to compare with one taken before."""
    state = {k: pickle.loads(pickle.dumps(v)) if copy else v for k, v in vars(game).items()
             if k not in {"_handlers", "rng", "setup", "options"}}
    state["rng"] = game.rng.getstate()
    state["public"] = ([d.to_json() for d in game.pending()], game.winner, list(game.winners),
                       game.tokens_left(), game.tokens_given(), game.current_call())
    return state


def refused(game, actor: Any, verb: Any, target: Any = None) -> str:
    """Assert the action is refused and changes nothing; return the reason."""
    before = snapshot(game)
    with pytest.raises(Refused) as info:
        game.apply(actor, verb, target)
    assert snapshot(game, copy=False) == before
    assert isinstance(info.value.reason, str) and info.value.reason
    return info.value.reason


def pending(game) -> list[tuple[str, str]]:
    return [(d.player, d.action) for d in game.pending()]


def of_type(game, kind: str) -> list[dict[str, Any]]:
    return [e for e in game.events if e["type"] == kind]


def to_day(game, word: str | None = None):
    """The mayor chooses `word`, by default the second offered (WORD with the usual offer)."""
    game.apply(game.mayor_name, "choose_word", game.words[1] if word is None else word)
    return game


def answer(game, to: str, token: str) -> list[dict[str, Any]]:
    return game.apply(game.mayor_name, "answer", {"to": to, "token": token})


def guessed_by(game, name: str):
    """The word chosen, then guessed by `name`: the seer hunt."""
    to_day(game)
    answer(game, name, "correct")
    return game


def time_up(game):
    """The word chosen, then the day's timer runs out: the final vote."""
    to_day(game)
    game.apply(CLOCK, "time_up", None)
    return game


def everyone_votes(game, target: str, **ballots: str) -> None:
    """Every player points at `target`, except those given their own (and `target` itself,
    who points at the first other player unless given)."""
    for name in list(game.players):
        if name in ballots:
            choice = ballots[name]
        elif name != target:
            choice = target
        else:
            choice = next(p for p in game.players if p != name)
        game.apply(name, "vote", choice)


# --------------------------------------------------------------------------- the night


def test_night_the_mayor_chooses_the_magic_word_among_the_offered_words():
    """«el alcalde elige una palabra mágica de las que se muestran»"""
    game = new()
    assert pending(game) == [("Cal", "choose_word")]
    assert game.legal_targets("Cal", "choose_word") == WORDS
    events = game.apply("Cal", "choose_word", "castle")
    assert events == [{"type": "word_chosen", "word": "castle"}, {"type": "day"}]
    assert game.word == "castle"
    assert game.phase == "day"


def test_a_word_that_was_not_offered_refused():
    game = new()
    reason = refused(game, "Cal", "choose_word", "dragon")
    assert "not one of the offered words" in reason
    refused(game, "Cal", "choose_word", None)
    refused(game, "Cal", "choose_word", ["castle"])


def test_the_word_is_matched_without_case_and_kept_as_offered():
    """A spoken word comes back in lower case; a phone sends the offer's own spelling."""
    game = new(words=["Eiffel Tower", "frog", "rain", "piano"])
    game.apply("Cal", "choose_word", "eiffel tower")
    assert game.word == "Eiffel Tower"


def test_only_the_mayor_chooses_the_word():
    game = new()
    for name in ("Ana", "Ben", "Dee"):
        assert "only the mayor" in refused(game, name, "choose_word", "castle")
        assert game.legal_targets(name, "choose_word") == []


def test_the_word_is_chosen_once():
    game = to_day(new())
    assert "already chosen" in refused(game, "Cal", "choose_word", "frog")


def test_night_calls_in_order_mayor_seer_werewolves():
    """«la aplicación ... le dice al alcalde que se despierte ... A continuación ... al
    Vidente ... Luego ... al hombre lobo»"""
    assert new().night_calls() == ["mayor", "seer", "werewolves"]


def test_night_calls_minion_and_beholder_after_the_werewolves():
    game = new(SIX, "Cal")
    assert game.night_calls() == ["mayor", "seer", "werewolves", "minion", "beholder"]
    only_beholder = new("Ana:seer Ben:werewolf Cal:villager Dee:beholder", "Cal")
    assert only_beholder.night_calls() == ["mayor", "seer", "werewolves", "beholder"]


def test_current_call_is_the_mayor_while_the_word_is_chosen_then_none():
    game = new()
    assert game.current_call() == "mayor"
    to_day(game)
    assert game.current_call() is None


def test_villagers_do_nothing_at_night():
    """«El aldeano no hace nada»: the only decision of the night is the mayor's."""
    game = new(SIX, "Cal")
    assert pending(game) == [("Cal", "choose_word")]
    for name in ("Ana", "Ben", "Dee", "Eve", "Fay"):
        assert "only the mayor" in refused(game, name, "choose_word", "castle")


# --------------------------------------------------------------------------- the day


def test_the_tokens_are_as_in_the_box():
    """«36 fichas Sí / No, 10 tokens Quizás, 1 ficha tan cerca, 1 ficha correcta»"""
    game = new()
    assert game.tokens_left() == {"yes_no": 36, "maybe": 10, "so_close": 1, "correct": 1}


def test_the_mayor_answers_the_player_who_asked_with_a_token():
    """«debe darle a la persona que hizo la pregunta una ficha de respuesta»"""
    game = to_day(new())
    assert pending(game) == [("Cal", "answer"), ("clock", "time_up")]
    assert answer(game, "Ana", "yes") == [{"type": "answer", "to": "Ana", "token": "yes",
                                           "left": 35}]
    assert answer(game, "Ben", "maybe") == [{"type": "answer", "to": "Ben", "token": "maybe",
                                             "left": 9}]
    assert answer(game, "Dee", "so_close") == [{"type": "answer", "to": "Dee",
                                                "token": "so_close", "left": 0}]
    assert game.tokens_given() == [{"to": "Ana", "token": "yes"}, {"to": "Ben", "token": "maybe"},
                                   {"to": "Dee", "token": "so_close"}]
    assert game.tokens_left() == {"yes_no": 35, "maybe": 9, "so_close": 0, "correct": 1}
    assert game.phase == "day"


def test_the_mayor_may_answer_the_same_player_again():
    """«El alcalde no puede ignorar las preguntas ... incluso si se le han hecho previamente»"""
    game = to_day(new())
    for _ in range(3):
        answer(game, "Ana", "no")
    assert game.tokens_left()["yes_no"] == 33


def test_yes_and_no_are_one_supply_of_36():
    game = to_day(new())
    for i in range(35):
        answer(game, "Ana", "yes" if i % 2 else "no")
    assert game.tokens_left()["yes_no"] == 1
    assert game.phase == "day"


def test_the_last_yes_no_token_ends_the_day_no_more_tokens():
    """«cuando se entrega la última ficha Sí / No a un jugador, la Fase del Día termina»"""
    game = to_day(new())
    for _ in range(35):
        answer(game, "Ana", "yes")
    events = answer(game, "Dee", "no")
    assert events == [{"type": "answer", "to": "Dee", "token": "no", "left": 0},
                      {"type": "no_more_tokens"}]
    assert game.phase == "final_vote"
    assert game.day_end == "no_more_tokens"
    assert game.ending == "not_guessed"
    assert pending(game) == [(p, "vote") for p in game.players]


def test_a_maybe_token_that_ran_out_refused():
    game = to_day(new())
    for _ in range(10):
        answer(game, "Ana", "maybe")
    assert game.tokens_left()["maybe"] == 0
    assert "no maybe token left" in refused(game, "Cal", "answer", {"to": "Ana", "token": "maybe"})
    assert {"to": "Ana", "token": "maybe"} not in game.legal_targets("Cal", "answer")
    assert {"to": "Ana", "token": "yes"} in game.legal_targets("Cal", "answer")


def test_the_so_close_token_that_ran_out_refused():
    """«el alcalde podría usar la ficha So Close»: there is one."""
    game = to_day(new())
    answer(game, "Ben", "so_close")
    reason = refused(game, "Cal", "answer", {"to": "Ana", "token": "so_close"})
    assert "no so close token left" in reason


def test_an_answer_before_the_word_is_chosen_refused():
    game = new()
    reason = refused(game, "Cal", "answer", {"to": "Ana", "token": "yes"})
    assert "choose the magic word before answering" in reason
    assert game.legal_targets("Cal", "answer") == []


@pytest.mark.parametrize("end", ["time_up", "correct", "no_more_tokens"])
def test_an_answer_after_the_day_ended_refused(end):
    game = to_day(new())
    if end == "time_up":
        game.apply(CLOCK, "time_up", None)
    elif end == "correct":
        answer(game, "Ana", "correct")
    else:
        for _ in range(36):
            answer(game, "Ana", "yes")
    assert "the day is over" in refused(game, "Cal", "answer", {"to": "Dee", "token": "no"})
    assert game.legal_targets("Cal", "answer") == []


def test_only_the_mayor_answers():
    """«El alcalde no puede hablar; en su lugar, debe darle ... una ficha»: tokens are his."""
    game = to_day(new())
    assert "only the mayor" in refused(game, "Ana", "answer", {"to": "Ben", "token": "yes"})


@pytest.mark.parametrize("target", [
    {"to": "Cal", "token": "yes"},
    {"to": "Nobody", "token": "yes"},
    {"to": "Ana", "token": "perhaps"},
    {"to": "Ana"},
    {"to": "Ana", "token": "yes", "extra": 1},
    "yes",
    None,
])
def test_a_malformed_answer_refused(target):
    game = to_day(new())
    refused(game, "Cal", "answer", target)


def test_the_mayor_answers_the_others_not_themselves():
    game = to_day(new())
    assert "not themselves" in refused(game, "Cal", "answer", {"to": "Cal", "token": "yes"})
    assert all(t["to"] != "Cal" for t in game.legal_targets("Cal", "answer"))


def test_the_timer_running_out_ends_the_day_not_guessed():
    """«Si los jugadores no adivinan la Palabra mágica antes de que acabe el tiempo»"""
    game = to_day(new())
    assert game.legal_targets(CLOCK, "time_up") == [None]
    assert game.apply(CLOCK, "time_up", None) == [{"type": "time_up"}]
    assert game.phase == "final_vote"
    assert game.day_end == "time_up"
    assert game.ending == "not_guessed"


def test_time_up_only_from_the_clock_and_only_by_day():
    game = new()
    assert "not started" in refused(game, CLOCK, "time_up", None)
    to_day(game)
    assert "only the clock" in refused(game, "Cal", "time_up", None)
    assert "only says time_up" in refused(game, CLOCK, "answer", {"to": "Ana", "token": "yes"})
    refused(game, CLOCK, "time_up", "now")
    game.apply(CLOCK, "time_up", None)
    assert "already over" in refused(game, CLOCK, "time_up", None)


def test_the_correct_token_is_the_guess():
    """«el alcalde presiona el botón verde de Corrección ... y luego entrega la ficha de
    Corrección al jugador que adivinó correctamente»"""
    game = to_day(new())
    events = answer(game, "Dee", "correct")
    assert events == [{"type": "answer", "to": "Dee", "token": "correct", "left": 0},
                      {"type": "guessed", "by": "Dee"},
                      {"type": "werewolves_shown", "players": ["Ben"]}]
    assert game.phase == "seer_hunt"
    assert game.players[game.guessed_by] == "Dee"
    assert game.ending == "guessed"


# --------------------------------------------------------------------------- word guessed


def test_guessed_only_the_werewolves_show_themselves():
    """«Después de una suposición correcta, solo el hombre lobo muestra su carta»; the minion
    never shows («nunca revela su carta»)."""
    game = guessed_by(new(SEVEN, "Cal"), "Ana")
    assert of_type(game, "werewolves_shown") == [{"type": "werewolves_shown",
                                                  "players": ["Ben", "Gus"]}]
    assert pending(game) == [("Ben", "guess_seer"), ("Gus", "guess_seer")]


def test_guessed_the_werewolf_finds_the_seer_werewolves_win():
    """«Si el hombre lobo encuentra al vidente, el equipo de hombres lobo gana»"""
    game = guessed_by(new(SIX, "Cal"), "Ana")
    events = game.apply("Ben", "guess_seer", "Ana")
    assert events == [
        {"type": "seer_guess", "werewolf": "Ben", "target": "Ana"},
        {"type": "revealed", "players": ["Ana"]},
        {"type": "game_over", "winner": "werewolves", "winners": ["Ben", "Eve"]},
    ]
    assert game.winner == "werewolves"
    assert game.pending() == []


def test_guessed_the_werewolf_misses_the_seer_village_wins():
    """«Si el hombre lobo no encuentra al vidente, el equipo de la aldea gana»"""
    game = guessed_by(new(SIX, "Cal"), "Ana")
    game.apply("Ben", "guess_seer", "Dee")
    assert game.winner == "village"
    assert game.winners == ["Ana", "Cal", "Dee", "Fay"]
    assert of_type(game, "revealed") == [{"type": "revealed", "players": ["Dee"]}]


def test_guessed_the_beholder_pointed_at_instead_of_the_seer_village_wins():
    """«Si un hombre lobo señala al espectador (y no al vidente) ... la aldea aún gana»"""
    game = guessed_by(new(SIX, "Cal"), "Dee")
    game.apply("Ben", "guess_seer", "Fay")
    assert game.winner == "village"


def test_guessed_two_werewolves_each_point_either_finding_the_seer_is_enough():
    """«cada hombre lobo puede votar por un jugador diferente, y ambos jugadores deben revelar
    sus cartas; si alguno de ellos es el vidente, los hombres lobo ganan»"""
    for first, second in (("Ana", "Dee"), ("Dee", "Ana")):
        game = guessed_by(new(SEVEN, "Cal"), "Dee")
        game.apply("Ben", "guess_seer", first)
        assert game.winner is None, "one werewolf's point is not the end"
        assert pending(game) == [("Gus", "guess_seer")]
        game.apply("Gus", "guess_seer", second)
        assert game.winner == "werewolves"
        assert of_type(game, "revealed") == [{"type": "revealed", "players": ["Ana", "Dee"]}]
        assert game.winners == ["Ben", "Eve", "Gus"]


def test_guessed_two_werewolves_both_miss_village_wins():
    game = guessed_by(new(SEVEN, "Cal"), "Dee")
    game.apply("Gus", "guess_seer", "Fay")
    game.apply("Ben", "guess_seer", "Fay")
    assert game.winner == "village"
    assert of_type(game, "revealed") == [{"type": "revealed", "players": ["Fay"]}]


@pytest.mark.parametrize("name", ["Ana", "Cal", "Dee", "Eve", "Fay"])
def test_a_non_werewolf_guessing_the_seer_refused(name):
    """The minion too: «El Minion no vota con los hombres lobo»."""
    game = guessed_by(new(SIX, "Cal"), "Dee")
    assert "only the werewolves" in refused(game, name, "guess_seer", "Ana")
    assert game.legal_targets(name, "guess_seer") == []


def test_a_werewolf_points_once_and_not_at_a_werewolf():
    game = guessed_by(new(SEVEN, "Cal"), "Dee")
    assert "showed themselves as a werewolf" in refused(game, "Ben", "guess_seer", "Gus")
    assert "showed themselves as a werewolf" in refused(game, "Ben", "guess_seer", "Ben")
    assert "Gus" not in game.legal_targets("Ben", "guess_seer")
    refused(game, "Ben", "guess_seer", "Nobody")
    game.apply("Ben", "guess_seer", "Dee")
    assert "already pointed" in refused(game, "Ben", "guess_seer", "Ana")


def test_the_seer_hunt_waits_for_the_werewolves_the_narrator_keeps_the_15_seconds():
    """«El Hombre Lobo tiene solo 15 segundos ... luego debe señalar a un jugador»: the rules
    never time out the hunt; the clock has nothing to say in it."""
    game = guessed_by(new(), "Ana")
    assert pending(game) == [("Ben", "guess_seer")]
    assert "already over" in refused(game, CLOCK, "time_up", None)


def test_the_seer_guess_only_after_a_correct_guess():
    game = new()
    assert "only after the word is guessed" in refused(game, "Ben", "guess_seer", "Ana")
    to_day(game)
    assert "only after the word is guessed" in refused(game, "Ben", "guess_seer", "Ana")
    game.apply(CLOCK, "time_up", None)
    assert "only after the word is guessed" in refused(game, "Ben", "guess_seer", "Ana")


# --------------------------------------------------------------------------- not guessed


def test_not_guessed_the_most_voted_reveals_a_werewolf_village_wins():
    """«El jugador con más votos debe revelar su tarjeta. Si la mayoría de los jugadores
    apuntan a un hombre lobo, el equipo de la aldea gana»"""
    game = time_up(new(SIX, "Cal"))
    everyone_votes(game, "Ben")
    assert of_type(game, "votes") == [{"type": "votes", "counts": {"Ana": 1, "Ben": 5}}]
    assert of_type(game, "revealed") == [{"type": "revealed", "players": ["Ben"]}]
    assert game.winner == "village"
    assert game.winners == ["Ana", "Cal", "Dee", "Fay"]


def test_not_guessed_the_most_voted_is_no_werewolf_werewolves_win():
    """«Si no lo hacen, el equipo de hombres lobo gana y todos los demás pierden»"""
    game = time_up(new(SIX, "Cal"))
    everyone_votes(game, "Dee")
    assert of_type(game, "revealed") == [{"type": "revealed", "players": ["Dee"]}]
    assert game.winner == "werewolves"
    assert game.winners == ["Ben", "Eve"]


def test_not_guessed_a_tie_for_the_most_all_tied_reveal_a_werewolf_among_them():
    """«Si hay un empate por la mayor cantidad de votos, todos los jugadores empatados revelan
    sus cartas. Si alguno de ellos es un hombre lobo, el equipo de la aldea gana»"""
    game = time_up(new(SIX, "Cal"))
    everyone_votes(game, "Ben", Ana="Dee", Cal="Dee", Dee="Ben", Ben="Dee")
    assert of_type(game, "votes")[0]["counts"] == {"Ben": 3, "Dee": 3}
    assert of_type(game, "revealed") == [{"type": "revealed", "players": ["Ben", "Dee"]}]
    assert game.winner == "village"


def test_not_guessed_a_tie_without_a_werewolf_werewolves_win():
    game = time_up(new(SIX, "Cal"))
    everyone_votes(game, "Dee", Ana="Fay", Cal="Fay", Dee="Fay")
    assert of_type(game, "revealed") == [{"type": "revealed", "players": ["Dee", "Fay"]}]
    assert game.winner == "werewolves"


def test_not_guessed_the_minion_pointed_at_by_the_most_village_wins():
    """«Si la mayoría de los jugadores señalan al Minion cuando no se ha adivinado la Palabra
    mágica, el equipo de la aldea sigue ganando como si hubiera encontrado un hombre lobo»"""
    game = time_up(new(SIX, "Cal"))
    everyone_votes(game, "Eve")
    assert of_type(game, "revealed") == [{"type": "revealed", "players": ["Eve"]}]
    assert game.winner == "village"
    assert game.winners == ["Ana", "Cal", "Dee", "Fay"]


def test_not_guessed_everybody_with_exactly_one_vote_werewolves_win():
    """«Si cada jugador recibe un voto, el equipo de hombres lobo gana», though the tie of
    everybody reveals the werewolf too."""
    game = time_up(new())
    # a ring: each points at the next
    for i, name in enumerate(game.players):
        game.apply(name, "vote", game.players[(i + 1) % 4])
    assert of_type(game, "votes")[0]["counts"] == {"Ana": 1, "Ben": 1, "Cal": 1, "Dee": 1}
    assert of_type(game, "revealed")[0]["players"] == ["Ana", "Ben", "Cal", "Dee"]
    assert game.winner == "werewolves"


def test_not_guessed_two_werewolves_finding_either_is_enough():
    """«los jugadores solo tienen que encontrar uno de los dos hombres lobo para ganar»"""
    for wolf in ("Ben", "Gus"):
        game = time_up(new(SEVEN, "Cal"))
        everyone_votes(game, wolf)
        assert game.winner == "village"


def test_a_vote_for_oneself_refused():
    """«no puedes apuntarte a ti mismo»"""
    game = time_up(new())
    assert "themselves" in refused(game, "Ana", "vote", "Ana")
    assert "Ana" not in game.legal_targets("Ana", "vote")


def test_everybody_points_the_mayor_too():
    """«todos señalan»: the mayor may speak again once the day is over, and points."""
    game = time_up(new())
    assert pending(game) == [("Ana", "vote"), ("Ben", "vote"), ("Cal", "vote"), ("Dee", "vote")]


def test_each_player_points_once_and_at_a_player():
    game = time_up(new())
    refused(game, "Ana", "vote", "Nobody")
    refused(game, "Ana", "vote", None)
    game.apply("Ana", "vote", "Ben")
    assert "already pointed" in refused(game, "Ana", "vote", "Dee")
    assert ("Ana", "vote") not in pending(game)


def test_the_final_vote_only_when_the_word_was_not_guessed():
    game = new()
    assert "only when the word was not guessed" in refused(game, "Ana", "vote", "Ben")
    to_day(game)
    assert "only when the word was not guessed" in refused(game, "Ana", "vote", "Ben")
    answer(game, "Ana", "correct")
    assert "only when the word was not guessed" in refused(game, "Ana", "vote", "Ben")


def test_the_final_vote_waits_for_everybody_the_narrator_keeps_the_minute():
    """«los jugadores tienen un minuto para discutir»: the minute is the narrator's."""
    game = time_up(new())
    for name in ("Ana", "Ben", "Cal"):
        game.apply(name, "vote", "Dee" if name != "Dee" else "Ana")
        assert game.winner is None
    assert pending(game) == [("Dee", "vote")]


# --------------------------------------------------------------------------- the mayor


def test_the_mayor_is_a_werewolf_wins_with_the_werewolves():
    """«Si el alcalde es un hombre lobo ... su condición ganadora es la misma que la de
    cualquier otro jugador de hombre lobo»"""
    game = new("Ana:seer Ben:werewolf Cal:villager Dee:villager", "Ben")
    assert game.side_of("Ben") == "werewolves"
    time_up(game)
    everyone_votes(game, "Cal")
    assert game.winner == "werewolves"
    assert game.winners == ["Ben"]


def test_the_mayor_is_a_werewolf_shows_and_points_after_a_guess():
    game = guessed_by(new("Ana:seer Ben:werewolf Cal:villager Dee:villager", "Ben"), "Cal")
    assert of_type(game, "werewolves_shown")[0]["players"] == ["Ben"]
    assert pending(game) == [("Ben", "guess_seer")]
    game.apply("Ben", "guess_seer", "Ana")
    assert game.winner == "werewolves"


def test_the_mayor_is_the_seer_the_werewolves_must_find_the_mayor():
    """«Si el alcalde es el vidente ... no tiene un Vidente que lo ayude»: the hunt finds the
    seer only by pointing at the mayor."""
    game = guessed_by(new("Ana:villager Ben:werewolf Cal:seer Dee:villager", "Cal"), "Ana")
    assert "Cal" in game.legal_targets("Ben", "guess_seer")
    game.apply("Ben", "guess_seer", "Cal")
    assert game.winner == "werewolves"
    game = guessed_by(new("Ana:villager Ben:werewolf Cal:seer Dee:villager", "Cal"), "Ana")
    game.apply("Ben", "guess_seer", "Ana")
    assert game.winner == "village"
    assert "Cal" in game.winners


def test_the_mayor_is_the_minion_plays_for_the_werewolves():
    """«Si el alcalde es un esbirro, puede mentir como si fuera un hombre lobo»; the minion
    is on the werewolves' side and never shows after a guess."""
    table = "Ana:seer Ben:werewolf Cal:minion Dee:villager Eve:villager"
    game = guessed_by(new(table, "Cal"), "Ana")
    assert of_type(game, "werewolves_shown")[0]["players"] == ["Ben"]
    assert "only the werewolves" in refused(game, "Cal", "guess_seer", "Ana")
    game.apply("Ben", "guess_seer", "Ana")
    assert game.winners == ["Ben", "Cal"]
    # and found by the most in the final vote, the village wins as if it found a werewolf
    game = time_up(new(table, "Cal"))
    everyone_votes(game, "Cal")
    assert game.winner == "village"
    assert game.winners == ["Ana", "Dee", "Eve"]


def test_the_mayor_is_a_villager_nothing_happens():
    """«Si el alcalde es un aldeano, en realidad no pasa nada»: the mayor plays for the village."""
    game = guessed_by(new(), "Ana")
    game.apply("Ben", "guess_seer", "Dee")
    assert game.winner == "village"
    assert game.winners == ["Ana", "Cal", "Dee"]


def test_the_winners_are_every_player_of_the_winning_side():
    game = time_up(new(SEVEN, "Gus"))
    everyone_votes(game, "Cal")
    assert game.winner == "werewolves"
    assert game.winners == ["Ben", "Eve", "Gus"]
    assert game.alive_names() == game.players  # nobody dies in Werewords


# --------------------------------------------------------------------------- whoops


def test_whoops_before_a_correct_guess_is_refused_during_the_day():
    """Whoops swaps the endings; while the day runs the mayor taps correct instead."""
    game = to_day(new())
    assert "has not ended" in refused(game, "Cal", "whoops", None)
    assert "has not ended" in refused(game, TABLE, "whoops", None)
    assert game.legal_targets("Cal", "whoops") == []
    assert game.optional_actions() == []


def test_whoops_after_the_time_ran_out_turns_it_into_a_guess():
    """«recibirás la noticia justo cuando se acaba el tiempo, y el alcalde no tiene tiempo de
    presionar el botón Corregir»"""
    game = time_up(new())
    game.apply("Ana", "vote", "Ben")
    events = game.apply(TABLE, "whoops", None)
    assert events == [{"type": "whoops", "ending": "guessed"},
                      {"type": "werewolves_shown", "players": ["Ben"]}]
    assert game.phase == "seer_hunt"
    assert game.votes == {}, "the pointing starts over"
    assert pending(game) == [("Ben", "guess_seer")]
    game.apply("Ben", "guess_seer", "Ana")
    assert game.winner == "werewolves"


def test_whoops_after_a_correct_guess_turns_it_into_not_guessed():
    """«el alcalde tocó el botón Correcto accidentalmente»"""
    game = guessed_by(new(SEVEN, "Cal"), "Dee")
    game.apply("Ben", "guess_seer", "Ana")
    events = game.apply("Cal", "whoops", None)
    assert events == [{"type": "whoops", "ending": "not_guessed"}]
    assert game.phase == "final_vote"
    assert game.guesses == {} and game.guessed_by is None
    assert pending(game) == [(p, "vote") for p in game.players]
    everyone_votes(game, "Dee")
    assert game.winner == "werewolves"


def test_whoops_again_swaps_back_and_starts_that_ending_over():
    """«esto mostrará la otra condición del juego final de la que se muestra actualmente»"""
    game = guessed_by(new(SEVEN, "Cal"), "Dee")
    game.apply("Ben", "guess_seer", "Dee")
    game.apply(TABLE, "whoops", None)
    game.apply("Ana", "vote", "Ben")
    game.apply("Cal", "whoops", None)
    assert game.phase == "seer_hunt"
    assert pending(game) == [("Ben", "guess_seer"), ("Gus", "guess_seer")]
    assert [e["ending"] for e in of_type(game, "whoops")] == ["not_guessed", "guessed"]


def test_whoops_by_the_host_or_the_mayor_only():
    game = time_up(new())
    assert game.optional_actions()[0].to_json() == {"player": TABLE, "action": "whoops"}
    assert [d.player for d in game.optional_actions()] == [TABLE, "Cal"]
    assert game.legal_targets(TABLE, "whoops") == [None]
    assert game.legal_targets("Cal", "whoops") == [None]
    for name in ("Ana", "Ben", "Dee"):
        assert "only the mayor" in refused(game, name, "whoops", None)
        assert game.legal_targets(name, "whoops") == []
    refused(game, "Cal", "whoops", "guessed")
    assert "only presses whoops" in refused(game, TABLE, "vote", "Ben")


def test_whoops_after_the_final_pointing_is_resolved_refused():
    """«before the final pointing is resolved» (the issue): then the game is over."""
    game = time_up(new())
    everyone_votes(game, "Ben")
    assert "over" in refused(game, TABLE, "whoops", None)
    assert "over" in refused(game, "Cal", "whoops", None)
    assert game.optional_actions() == []


# --------------------------------------------------------------------------- any action


@pytest.mark.parametrize("bad", [
    ["Nobody", "answer", {"to": "Ana", "token": "yes"}],
    ["Cal", "dance", None],
    [None, "answer", None],
    [7, "vote", "Ana"],
    ["Cal", 3, None],
])
def test_bad_actions_refused_and_change_nothing(bad):
    game = to_day(new())
    refused(game, *bad)


def test_after_the_end_every_action_refused():
    game = guessed_by(new(), "Ana")
    game.apply("Ben", "guess_seer", "Dee")
    for bad in (["Cal", "answer", {"to": "Ana", "token": "yes"}], [CLOCK, "time_up", None],
                ["Ana", "vote", "Ben"]):
        assert "over" in refused(game, *bad)
    assert game.pending() == [] and game.legal_targets("Ana", "vote") == []
