"""Werewords narrated (issue 14, seed 004): one test per narration rule, named after it.

Every test drives the real narrator with the inputs a table sends (host commands, what is
said, phone taps, time passing as ticks) and checks what the table hears, what each phone
shows and what reaches the rules. The helpers here also drive the whole games of the
console, phone, box and skill tests (tests/test_werewords_*.py).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from narrator import Clock, Heard, Host, Listen, Narrator, Say, Tap, Tick, Wait
from narrator.cues import Input
from narrator.scripts.werewords import TAKE_BACK_SECONDS, WerewordsScript
from rules.core import CLOCK, TABLE
from rules.werewords import next_game_doc
from rules.werewords import start as start_rules
from speech import line

NAMES = ["Ana", "Ben", "Cal", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jon"]
CALL_PAUSE = 5.0


# ---------------------------------------------------------------------- helpers


def werewords(players: list[str] | None = None, lang: str = "en", seed: int = 1,
              protocol: str = "roll_call", start: bool = True, **options: Any) -> Narrator:
    """A Werewords table, set up through the host's commands (and started)."""
    n = Narrator(lang, seed=seed, call_pause=CALL_PAUSE)
    for name in players or NAMES[:5]:
        assert n.handle(Host("join", name)).accepted
    assert n.handle(Host("game", "werewords")).accepted
    assert n.handle(Host("protocol", protocol)).accepted
    for key, value in options.items():
        assert n.handle(Host("option", [key, value])).accepted, key
    if start:
        assert n.handle(Host("start")).accepted
    return n


def table_where(test: Callable[[Any], bool], **kwargs: Any) -> Narrator:
    """The first seed whose deal passes `test` (the narrator deals; tests choose seeds)."""
    for seed in range(500):
        n = werewords(seed=seed, **kwargs)
        if test(n.game):
            return n
    raise AssertionError("no seed deals that")


def holder(n: Narrator, role: str) -> list[str]:
    return [p for p, r in n.game.roles_as_dealt().items() if r == role]


def not_mayor(n: Narrator) -> list[str]:
    return [p for p in n.game.players if p != n.game.mayor_name]


def said(cues: list[Any], lang: str = "en") -> list[str]:
    return [line(lang, c.key, c.params) for c in cues if isinstance(c, Say)]


def keys(cues: list[Any]) -> list[str]:
    return [c.key for c in cues if isinstance(c, Say)]


def feed(n: Narrator, inp: Input, log: list[Any] | None = None) -> Any:
    reply = n.handle(inp)
    if log is not None:
        log.extend(reply.cues)
    return reply


def through_night(n: Narrator, word: str | None = None, log: list[Any] | None = None) -> None:
    """"Ready", the mayor's choice, and every call's time, up to the day."""
    if n.phase == "reveal":
        assert feed(n, Heard("ReadyIntent"), log).accepted
    mayor = n.game.mayor_name
    assert feed(n, Tap(mayor, "choose_word", word or n.game.words[0]), log).accepted
    while n.phase == "night":
        assert feed(n, Tick(CALL_PAUSE), log).accepted
    assert n.phase == "ww_day"


def give(n: Narrator, to: str, token: str, log: list[Any] | None = None) -> Any:
    """The mayor taps a token, and its take-back window passes."""
    reply = feed(n, Tap(n.game.mayor_name, "answer", {"to": to, "token": token}), log)
    assert reply.accepted, reply.cues
    if n.phase == "ww_day" and n.script.held is not None:
        feed(n, Tick(TAKE_BACK_SECONDS), log)
    return reply


def told(n: Narrator) -> list[str]:
    return keys(n.told)


def next_input(n: Narrator, rng: random.Random, lang_sample: Callable[..., str] | None = None
               ) -> Input | None:
    """What a table does next in a random legal game (None: the game is over). Spoken
    answers are Heard intents; `lang_sample(intent, player)` may turn them into text."""
    game = n.game
    if n.phase == "over":
        return None
    if n.phase == "reveal":
        return Heard("ReadyIntent")
    if n.phase == "night":
        view = n.player_view(game.mayor_name)
        if "turn" in view:
            return Tap(game.mayor_name, "choose_word", rng.choice(view["turn"]["targets"]))
        return Tick(n.timer_due() or CALL_PAUSE)
    if n.phase == "ww_day":
        if n.script.held is not None or rng.random() < 0.25:
            return Tick(max(0.5, min(n.timer_due() or 1.0, rng.choice([1.0, 4.0, 30.0]))))
        targets = n.player_view(game.mayor_name)["turn"]["targets"]
        weights = [{"yes": 6, "no": 6, "maybe": 2, "so_close": 1, "correct": 0.4}[t["token"]]
                   for t in targets]
        return Tap(game.mayor_name, "answer", rng.choices(targets, weights)[0])
    if n.phase in ("ww_hunt", "ww_discuss", "ww_point") and rng.random() < 0.05:
        return Heard("WhoopsIntent") if rng.random() < 0.5 else Tap(
            game.mayor_name, "whoops", None)
    listen = n.listening()
    waiting = [c for c in n.current_prompt() if isinstance(c, Wait)]
    if waiting and waiting[0].players:
        player = waiting[0].players[0]
        turn = n.player_view(player).get("turn")
        if turn:
            return Tap(player, turn["verb"], rng.choice(turn["targets"]))
    if listen is not None and listen.player is not None:
        target = rng.choice(list(listen.names))
        return Heard(rng.choice(["PointIntent", "VoteIntent"]), {"player": target})
    return Tick(n.timer_due() or 1.0)


def play(n: Narrator, seed: int, limit: int = 3000) -> list[Any]:
    """A whole random game from where the table is; returns every cue."""
    rng = random.Random(seed)
    log: list[Any] = []
    for _ in range(limit):
        inp = next_input(n, rng)
        if inp is None:
            return log
        reply = feed(n, inp, log)
        assert reply.accepted, (inp, keys(reply.cues))
    raise AssertionError(f"the game did not end: {told(n)[-10:]}")


# ---------------------------------------------------------------------- set-up


def test_set_up_the_difficulty_the_days_timer_the_optional_roles_and_the_words_offered():
    n = werewords(start=False)
    assert n.config.ruleset == "werewords"
    replies = [n.handle(Host("option", kv)) for kv in (
        ["difficulty", "hard"], ["day_seconds", 300], ["minion", True], ["beholder", True],
        ["words_offered", 6])]
    assert all(r.accepted for r in replies)
    assert [said(r.cues)[0] for r in replies] == [
        "Hard words.", "The day lasts 5 minutes.", "We'll play with the Minion.",
        "We'll play with the Beholder.", "The mayor will choose from 6 words."]
    assert n.handle(Host("start")).accepted
    game = n.game
    assert (game.options.difficulty, game.options.day_seconds) == ("hard", 300)
    assert dict(game.setup.deck)["minion"] == dict(game.setup.deck)["beholder"] == 1
    assert len(game.words) == 6
    assert game.night_calls() == ["mayor", "seer", "werewolves", "minion", "beholder"]


def test_the_days_timer_is_two_to_ten_minutes_four_by_default():
    n = werewords(start=False)
    for bad in (60, 660, 150, "300", True):
        reply = n.handle(Host("option", ["day_seconds", bad]))
        assert not reply.accepted and keys(reply.cues)[0] in ("ww_bad_day",), bad
    assert n.handle(Host("option", ["day_seconds", 120])).accepted
    assert n.handle(Host("option", ["day_seconds", 600])).accepted
    assert werewords().game.options.day_seconds == 240


def test_set_up_by_voice_in_the_lobby():
    n = werewords(start=False)
    for heard, key in (
            (Heard("WordsDifficultyIntent", {"difficulty": "medium"}), "ww_difficulty_medium"),
            (Heard("DayTimerIntent", {"minutes": "3"}), "ww_day_set"),
            (Heard("ClockIntent", {"minutes": 6}), "ww_day_set"),
            (Heard("WordsOfferedIntent", {"count": 3}), "ww_words_offered_set"),
            (Heard("WerewordsRoleIntent", {"ww_role": "beholder"}), "ww_beholder_on"),
            (Heard("WerewordsRoleIntent", {"ww_role": "minion", "toggle": "on"}),
             "ww_minion_on"),
            (Heard("WerewordsNoRoleIntent", {"ww_role": "minion"}), "ww_minion_off")):
        reply = n.handle(heard)
        assert reply.accepted and keys(reply.cues) == [key], heard
    assert n.config.options == {"difficulty": "medium", "day_seconds": 360,
                                "words_offered": 3, "beholder": True, "minion": False}
    assert not n.handle(Heard("DayTimerIntent", {"minutes": 11})).accepted
    for odd in ("²", "٣", "", None, [3], "3.5"):
        assert not n.handle(Heard("DayTimerIntent", {"minutes": odd})).accepted, odd
        assert not n.handle(Heard("WordsOfferedIntent", {"count": odd})).accepted, odd
    assert not n.handle(Heard("WordsDifficultyIntent", {"difficulty": "brutal"})).accepted
    assert n.config.options["day_seconds"] == 360  # refused: nothing changed


def test_set_up_arguments_of_the_wrong_shape_are_refused_and_change_nothing():
    n = werewords(start=False)
    before = n.config.to_json()
    for arg in (["x"], [["x"], True], "difficulty", None, {"difficulty": "hard"},
                ["difficulty", ["hard"]], ["day_seconds", 240.0], ["day_seconds", "240"],
                ["words_offered", True], ["minion", "yes"], ["last_mayor", "Nobody"],
                [{"a": 1}, 2]):
        reply = n.handle(Host("option", arg))
        assert not reply.accepted, arg
    for deck in ({"zzz": 1}, {"villager": "4"}, {"seer": True}, {"seer": -1}, ["seer"], 3):
        assert not n.handle(Host("deck", deck)).accepted, deck
    assert n.config.to_json() == before
    # a deck of the right shape the rules refuse is refused at the deal, with the reason
    assert n.handle(Host("deck", {"mayor": 1, "seer": 1, "villager": 4})).accepted
    reply = n.handle(Host("start"))
    assert not reply.accepted and keys(reply.cues)[0] == "setup_problem"
    assert n.game is None


def test_the_words_come_from_the_tables_language_and_difficulty():
    n = werewords(lang="es", difficulty="medium")
    from rules.werewords.wordlists import word_list

    assert set(n.game.words) <= set(word_list("es", "medium"))
    n = werewords(lang="es", start=False, language="fr")
    assert n.handle(Host("start")).accepted
    assert set(n.game.words) <= set(word_list("fr", "easy"))


def test_four_to_ten_players():
    assert not werewords(NAMES[:3], start=False).handle(Host("start")).accepted
    assert werewords(NAMES[:4]).game is not None
    n = werewords(NAMES[:10], start=False)
    assert not n.handle(Host("join", "Kim")).accepted


# ---------------------------------------------------------------------- the reveal


def test_the_reveal_makes_the_mayor_public_and_keeps_the_secret_role_for_the_night():
    n = werewords()
    mayor = n.game.mayor_name
    public = n.public_view()["game"]
    assert public["mayor"] == mayor and public["phase"] == "night"
    assert public["current_call"] is None  # nobody is called yet
    view = n.player_view(mayor)
    assert view["me"]["mayor"] is True and view["me"]["facts"] == []  # the role: at night
    assert "turn" not in view
    log: list[Any] = []
    feed(n, Heard("ReadyIntent"), log)
    assert keys(log)[:3] == ["ww_mayor", "ww_night_falls", "ww_wake_mayor"]
    assert said(log)[0].startswith(f"{mayor} has the Mayor card.")


# ---------------------------------------------------------------------- the night


def test_the_night_calls_the_deck_in_order_each_for_the_same_time():
    n = werewords(NAMES[:7], minion=True, beholder=True)
    log: list[Any] = []
    feed(n, Heard("ReadyIntent"), log)
    mayor = n.game.mayor_name
    # the mayor answers at once: the call still lasts its time
    feed(n, Tap(mayor, "choose_word", n.game.words[0]), log)
    assert n.script.night.calling == "mayor"
    ticks = 0
    while n.phase == "night":
        feed(n, Tick(1.0), log)
        ticks += 1
    assert ticks == 5 * CALL_PAUSE  # five calls, each held open as long
    calls = [k for k in keys(log) if k.startswith(("ww_wake_", "ww_sleep_"))]
    assert calls == ["ww_wake_mayor", "ww_sleep_mayor", "ww_wake_seer", "ww_sleep_seer",
                     "ww_wake_werewolves", "ww_sleep_werewolves", "ww_wake_minion",
                     "ww_sleep_minion", "ww_wake_beholder", "ww_sleep_beholder"]
    assert keys(log)[-1] == "ww_day_starts"


def test_roles_not_in_the_deck_are_never_called_and_one_werewolf_is_called_as_one():
    log: list[Any] = []
    n = werewords()
    through_night(n, log=log)
    wakes = [k for k in keys(log) if k.startswith("ww_wake_")]
    assert wakes == ["ww_wake_mayor", "ww_wake_seer", "ww_wake_werewolf"]


def test_the_mayors_call_lasts_until_the_word_is_chosen():
    n = werewords()
    feed(n, Heard("ReadyIntent"))
    for _ in range(4):
        assert feed(n, Tick(CALL_PAUSE)).accepted or n.timer is None
    assert n.script.night.calling == "mayor"
    assert "turn" in n.player_view(n.game.mayor_name)
    reply = feed(n, Tap(n.game.mayor_name, "choose_word", n.game.words[2]))
    # the time is long over: the next call starts at once
    assert keys(reply.cues)[:2] == ["ww_sleep_mayor", "ww_wake_seer"]


def test_the_word_is_chosen_only_by_the_mayor_only_while_called_only_among_the_offer():
    n = werewords()
    mayor, other = n.game.mayor_name, not_mayor(n)[0]
    assert not n.handle(Tap(mayor, "choose_word", n.game.words[0])).accepted  # the reveal
    feed(n, Heard("ReadyIntent"))
    assert not n.handle(Tap(other, "choose_word", n.game.words[0])).accepted
    refused = n.handle(Tap(mayor, "choose_word", "zeppelin-not-offered"))
    assert not refused.accepted and n.game.word is None
    assert "turn" not in n.player_view(other)
    assert n.handle(Tap(mayor, "choose_word", n.game.words[1].upper())).accepted
    assert n.game.word == n.game.words[1]
    assert "turn" not in n.player_view(mayor)  # chosen once
    assert not n.handle(Tap(mayor, "choose_word", n.game.words[0])).accepted


def test_each_phone_shows_what_its_player_may_know_once_that_call_has_been_narrated():
    n = table_where(lambda g: g.roles[g.mayor] == "villager", players=NAMES[:7],
                    minion=True, beholder=True)
    roles = n.game.roles_as_dealt()
    by_role = {r: [p for p, x in roles.items() if x == r] for r in set(roles.values())}
    mayor = n.game.mayor_name

    def facts(name: str) -> dict[str, Any]:
        return {f["fact"]: f["value"] for f in n.player_view(name)["me"]["facts"]}

    feed(n, Heard("ReadyIntent"))
    assert set(facts(mayor)) == {"role", "side", "offered_words"}  # the mayor's call
    feed(n, Tap(mayor, "choose_word", n.game.words[0]))
    word = n.game.word
    seer, wolves = by_role["seer"][0], by_role["werewolf"]
    minion, beholder = by_role["minion"][0], by_role["beholder"][0]
    assert facts(mayor)["word"] == word
    for name in [seer, *wolves, minion, beholder]:
        assert "word" not in facts(name) and set(facts(name)) == {"role", "side"}
    calls = {"seer": [seer], "werewolves": wolves, "minion": [minion],
             "beholder": [beholder]}
    shown: list[str] = []
    while n.phase == "night":
        feed(n, Tick(CALL_PAUSE))
        calling = n.script.night.calling
        if calling is not None and calling not in shown:
            shown.append(calling)
            for name in calls[calling]:
                assert set(facts(name)) > {"role", "side"}, (calling, facts(name))
            # the calls still to come show nothing yet
            for later, names in calls.items():
                if later not in shown:
                    assert all(set(facts(x)) == {"role", "side"} for x in names), later
    assert facts(seer)["word"] == word
    assert all(facts(w)["word"] == word and facts(w)["pack"] == [x for x in wolves if x != w]
               for w in wolves)
    assert facts(minion) == {"role": "minion", "side": "werewolves", "werewolves": wolves}
    assert facts(beholder) == {"role": "beholder", "side": "village", "seer": seer}
    for villager in by_role["villager"]:
        if villager != mayor:
            assert set(facts(villager)) == {"role", "side"}


def test_the_shared_screen_never_shows_the_word_before_the_end():
    n = werewords(protocol="phones")
    word_seen: list[bool] = []
    log: list[Any] = []
    rng = random.Random(4)
    while n.phase != "over":
        public = n.public_view()
        word_seen.append(n.game.word is not None and n.game.word.casefold() in str(
            public).casefold())
        inp = next_input(n, rng)
        assert inp is not None
        log.extend(feed(n, inp).cues)
    assert not any(word_seen)
    assert n.public_view()["game"]["word"] == n.game.word
    assert "ww_word_was" in keys(log)


def test_the_night_does_not_show_the_day_before_its_calls_are_over():
    n = werewords()
    feed(n, Heard("ReadyIntent"))
    feed(n, Tap(n.game.mayor_name, "choose_word", n.game.words[0]))
    assert n.game.phase == "day"  # the rules' day starts with the word
    assert n.phase == "night" and n.public_view()["game"]["phase"] == "night"
    assert "turn" not in n.player_view(n.game.mayor_name)  # no token pad yet
    assert not n.handle(Tap(n.game.mayor_name, "answer",
                            {"to": not_mayor(n)[0], "token": "yes"})).accepted
    assert "timer" in n.public_view() and n.public_view()["timer"]["kind"] == "call"


# ---------------------------------------------------------------------- the day


def test_the_day_timer_starts_when_everyone_opens_their_eyes():
    n = werewords(day_seconds=180)
    log: list[Any] = []
    through_night(n, log=log)
    assert keys(log)[-1] == "ww_day_starts"
    assert said(log)[-1].endswith("You have 3 minutes. Go!")
    assert Clock("start", 180, "ww_continue_day") in log
    assert (n.timer, n.timer_kind) == (180, "ww_day")
    view = n.public_view()
    assert view["timer"] == {"kind": "ww_day", "left": 180}
    assert view["game"]["tokens_left"] == {"yes_no": 36, "maybe": 10, "so_close": 1,
                                           "correct": 1}


def test_the_day_timer_warns_at_one_minute_left_and_at_ten_seconds():
    n = werewords(day_seconds=120)
    through_night(n)
    heard = [(round(n.timer or 0), keys(n.handle(Tick(5)).cues)) for _ in range(23)]
    warnings = [(left, k) for left, k in heard if k]
    assert warnings == [(65, ["ww_one_minute_left"]), (15, ["ww_ten_seconds_left"])]
    assert n.timer == 5


def test_a_long_step_of_time_says_only_the_last_warning_and_none_once_time_is_up():
    n = werewords(day_seconds=120)
    through_night(n)
    assert keys(n.handle(Tick(115)).cues) == ["ww_ten_seconds_left"]
    n = werewords(day_seconds=120)
    through_night(n)
    cues = n.handle(Tick(500)).cues
    assert "ww_one_minute_left" not in keys(cues) and "ww_ten_seconds_left" not in keys(cues)
    assert "ww_time_up" in keys(cues)


def test_the_narrators_timer_says_when_it_is_next_due():
    n = werewords(day_seconds=120)
    through_night(n)
    assert n.timer_due() == 60  # the one-minute warning
    n.handle(Tick(61))
    assert n.timer_due() == pytest.approx(49)
    n.handle(Tap(n.game.mayor_name, "answer", {"to": not_mayor(n)[0], "token": "no"}))
    assert n.timer_due() == TAKE_BACK_SECONDS  # the token's window


def test_time_up_reaches_the_rules_as_the_clocks_time_up():
    n = werewords(day_seconds=120)
    through_night(n)
    log: list[Any] = []
    feed(n, Tick(120), log)
    assert n.actions[-1] == [CLOCK, "time_up", None]
    assert n.game.day_end == "time_up" and n.phase == "ww_discuss"
    assert keys(log)[:2] == ["ww_time_up", "ww_discuss"]


def test_tokens_are_said_aloud_with_the_player_who_asked_once_given():
    n = werewords()
    through_night(n)
    ana = not_mayor(n)[0]
    log: list[Any] = []
    reply = feed(n, Tap(n.game.mayor_name, "answer", {"to": ana, "token": "yes"}), log)
    assert said(reply.cues) == []  # held back: nobody hears a token that may be taken back
    feed(n, Tick(TAKE_BACK_SECONDS), log)
    assert said(log) == [f"Yes, {ana}."]
    for token, text in (("no", "No, {}."), ("maybe", "Maybe, {}."),
                        ("so_close", "So close, {}!")):
        log = []
        give(n, ana, token, log)
        assert said(log) == [text.format(ana)]
    assert n.game.tokens_given()[-1] == {"to": ana, "token": "so_close"}
    assert n.public_view()["game"]["tokens_left"] == {"yes_no": 34, "maybe": 9,
                                                      "so_close": 0, "correct": 1}


def test_a_mistaken_token_taken_back_within_the_window_never_reaches_the_rules():
    n = werewords()
    through_night(n)
    mayor, ben = n.game.mayor_name, not_mayor(n)[1]
    before = list(n.actions)
    assert n.handle(Tap(mayor, "answer", {"to": ben, "token": "correct"})).accepted
    assert n.player_view(mayor)["me"]["held"] == {"to": ben, "token": "correct"}
    assert n.public_view()["game"]["tokens_given"] == []  # not public while held
    n.handle(Tick(TAKE_BACK_SECONDS - 1))
    reply = n.handle(Tap(mayor, "take_back"))
    assert reply.accepted and said(reply.cues) == []
    assert n.player_view(mayor)["me"]["held"] is None
    n.handle(Tick(30))
    assert n.actions == before and n.game.tokens_given() == []
    assert n.phase == "ww_day" and n.game.tokens_left()["correct"] == 1


def test_a_token_cannot_be_taken_back_once_its_window_is_over():
    n = werewords()
    through_night(n)
    mayor, ben = n.game.mayor_name, not_mayor(n)[1]
    n.handle(Tap(mayor, "answer", {"to": ben, "token": "no"}))
    n.handle(Tick(TAKE_BACK_SECONDS))
    reply = n.handle(Tap(mayor, "take_back"))
    assert not reply.accepted
    assert reply.cues[0].view["reason"] == "nothing_to_take_back"
    assert n.game.tokens_given() == [{"to": ben, "token": "no"}]


def test_a_second_token_gives_the_first_at_once():
    n = werewords()
    through_night(n)
    mayor, ana, ben = n.game.mayor_name, *not_mayor(n)[:2]
    n.handle(Tap(mayor, "answer", {"to": ana, "token": "yes"}))
    reply = n.handle(Tap(mayor, "answer", {"to": ben, "token": "no"}))
    assert said(reply.cues) == [f"Yes, {ana}."]
    assert n.player_view(mayor)["me"]["held"] == {"to": ben, "token": "no"}


def test_a_token_that_is_not_left_is_refused_on_the_mayors_phone_only():
    n = werewords()
    through_night(n)
    mayor, ana = n.game.mayor_name, not_mayor(n)[0]
    give(n, ana, "so_close")
    reply = n.handle(Tap(mayor, "answer", {"to": ana, "token": "so_close"}))
    assert not reply.accepted and said(reply.cues) == []
    assert reply.cues[0].player == mayor
    # the held one counts: a second so close while the first is held is refused too
    n = werewords()
    through_night(n)
    n.handle(Tap(n.game.mayor_name, "answer", {"to": ana, "token": "so_close"}))
    assert not n.handle(Tap(n.game.mayor_name, "answer",
                            {"to": not_mayor(n)[1], "token": "so_close"})).accepted
    for bad in ({"to": n.game.mayor_name, "token": "yes"}, {"to": ana, "token": "perhaps"},
                "yes", None):
        assert not n.handle(Tap(n.game.mayor_name, "answer", bad)).accepted, bad


def test_only_the_mayor_taps_tokens_and_only_by_day():
    n = werewords()
    ana = not_mayor(n)[0]
    through_night(n)
    reply = n.handle(Tap(ana, "answer", {"to": not_mayor(n)[1], "token": "yes"}))
    assert not reply.accepted and reply.cues[0].view["reason"] == "not_your_turn"
    assert "turn" not in n.player_view(ana)
    pad = n.player_view(n.game.mayor_name)["turn"]
    assert pad["verb"] == "answer"
    assert {t["to"] for t in pad["targets"]} == set(not_mayor(n))
    assert {t["token"] for t in pad["targets"]} == {"yes", "no", "maybe", "so_close",
                                                     "correct"}


def test_a_token_tapped_in_time_is_given_before_time_is_up():
    n = werewords(day_seconds=120)
    through_night(n)
    n.handle(Tick(118))
    ana = not_mayor(n)[0]
    n.handle(Tap(n.game.mayor_name, "answer", {"to": ana, "token": "correct"}))
    log: list[Any] = []
    feed(n, Tick(3), log)
    assert keys(log)[:2] == ["ww_token_correct", "ww_guessed"]
    assert n.game.day_end == "correct" and n.phase == "ww_hunt"
    assert [CLOCK, "time_up", None] not in n.actions


def test_no_more_tokens_ends_the_day():
    n = werewords()
    through_night(n)
    ana = not_mayor(n)[0]
    log: list[Any] = []
    for _ in range(36):
        give(n, ana, "no", log)
    assert n.game.day_end == "no_more_tokens"
    assert keys(log)[-3:] == ["ww_token_no", "ww_no_more_tokens", "ww_discuss"]
    assert n.phase == "ww_discuss" and n.timer_kind == "ww_discuss"
    assert Clock("stop") in log


def test_the_mayor_cannot_speak_by_day():
    n = werewords()
    through_night(n)
    reply = n.handle(Heard("VoteIntent", {"player": not_mayor(n)[0]}))
    assert not reply.accepted and keys(reply.cues) == ["ww_day_tokens"]
    assert n.listening() is None  # the box does not answer the table's questions


# ---------------------------------------------------------------------- word guessed


def guessed(n: Narrator, by: str | None = None) -> list[Any]:
    through_night(n)
    log: list[Any] = []
    give(n, by or not_mayor(n)[0], "correct", log)
    return log


def test_the_word_guessed_the_werewolves_show_themselves_and_have_fifteen_seconds():
    n = werewords()
    wolf = holder(n, "werewolf")[0]
    log = guessed(n)
    assert keys(log) == ["ww_token_correct", "ww_guessed", "ww_werewolf_shows",
                         "ww_hunt_one"]
    assert said(log)[2].startswith("But the werewolf can still win. "
                                   f"{wolf}, you are the werewolf")
    assert Clock("start", 15, "ww_continue_hunt") in log
    assert (n.timer, n.timer_kind) == (15, "ww_hunt")
    assert n.public_view()["game"]["revealed"] == {wolf: "werewolf"}
    assert n.listening() is None  # they talk it over: nobody is asked yet
    reply = n.handle(Tick(15))
    assert keys(reply.cues) == ["ww_hunt_now_one", "ww_ask_seer"]
    assert n.listening().player == wolf
    assert wolf not in n.listening().names


def test_the_seer_hunt_by_phone_is_open_during_the_fifteen_seconds():
    n = werewords(NAMES[:8], protocol="phones")
    wolves = holder(n, "werewolf")
    log = guessed(n, by=next(p for p in not_mayor(n) if p not in wolves))
    assert keys(log)[2:] == ["ww_werewolves_show", "ww_hunt_many", "ww_hunt_phones_many"]
    views = {w: n.player_view(w)["turn"] for w in wolves}
    assert all(v["verb"] == "guess_seer" and set(v["targets"]) == set(n.game.players)
               - set(wolves) for v in views.values())
    others = [p for p in n.game.players if p not in wolves]
    assert all("turn" not in n.player_view(p) for p in others)
    n.handle(Tick(15))
    assert next(c for c in n.current_prompt() if isinstance(c, Wait)).players == tuple(wolves)


def test_the_seer_found_the_werewolves_win():
    n = werewords()
    wolf, seer = holder(n, "werewolf")[0], holder(n, "seer")[0]
    guessed(n)
    log: list[Any] = []
    n.handle(Tick(15))
    feed(n, Heard("PointIntent", {"player": seer}), log)
    assert keys(log)[:2] == ["ww_points_at", "ww_reveals"]
    assert said(log)[0] == f"{wolf} points at {seer}."
    assert n.game.winner == "werewolves" and "ww_win_werewolves_guessed" in keys(log)


def test_the_seer_not_found_the_village_wins_and_two_werewolves_both_point():
    n = table_where(lambda g: g.roles[g.mayor] == "villager", players=NAMES[:8],
                    protocol="phones")
    wolves, seer = holder(n, "werewolf"), holder(n, "seer")[0]
    miss = next(p for p in n.game.players if p not in (*wolves, seer))
    guessed(n)
    n.handle(Tap(wolves[0], "guess_seer", miss))
    assert n.game.winner is None and "turn" not in n.player_view(wolves[0])
    log: list[Any] = []
    feed(n, Tap(wolves[1], "guess_seer", miss), log)
    assert n.game.winner == "village" and "ww_win_village_guessed" in keys(log)


def test_the_werewolves_must_point_aloud_in_roll_call():
    n = werewords()
    wolf = holder(n, "werewolf")[0]
    guessed(n)
    refused = n.handle(Heard("PointIntent", {"player": not_mayor(n)[0]}))
    assert not refused.accepted and keys(refused.cues)[0] == "ww_hunt_talk"
    assert not n.handle(Tap(wolf, "guess_seer", not_mayor(n)[0])).accepted
    n.handle(Heard("ReadyIntent"))  # "we are ready": no need to wait the 15 seconds
    assert n.script.pressed and n.listening().player == wolf


# ---------------------------------------------------------------------- not guessed


def not_guessed(n: Narrator) -> list[Any]:
    through_night(n)
    log: list[Any] = []
    feed(n, Tick(n.game.options.day_seconds), log)
    return log


def test_not_guessed_one_minute_of_discussion_then_the_countdown_to_point():
    n = werewords()
    log = not_guessed(n)
    assert keys(log) == ["ww_time_up", "ww_discuss"]
    assert said(log)[1].startswith("You have 1 minute to talk it over")
    assert (n.timer, n.timer_kind, n.phase) == (60, "ww_discuss", "ww_discuss")
    assert keys(n.handle(Tick(52)).cues) == ["ww_ten_seconds_left"]
    reply = n.handle(Tick(8))
    assert keys(reply.cues) == ["ww_countdown", "ww_point_tell", "ww_ask_point"]
    assert said(reply.cues)[0].endswith("Three, two, one: point!")
    assert n.phase == "ww_point" and n.listening().player == n.game.players[0]


def test_we_are_ready_ends_the_minute_early():
    n = werewords()
    not_guessed(n)
    reply = n.handle(Heard("SkipClockIntent"))
    assert reply.accepted and keys(reply.cues)[0] == "ww_countdown"
    n = werewords()
    not_guessed(n)
    assert n.handle(Host("skip_clock")).accepted and n.phase == "ww_point"


def test_everybody_points_at_a_werewolf_not_themselves_one_by_one_aloud():
    n = werewords()
    not_guessed(n)
    n.handle(Heard("SkipClockIntent"))
    first = n.game.players[0]
    refused = n.handle(Heard("VoteIntent", {"player": first}))
    assert not refused.accepted and keys(refused.cues) == ["cannot", "ww_ask_point"]
    assert not n.handle(Heard("PointIntent", {"player": "Nobody-here"})).accepted
    wolf = holder(n, "werewolf")[0]
    log: list[Any] = []
    for name in n.game.players:
        assert n.listening().player == name
        target = wolf if name != wolf else next(p for p in n.game.players if p != wolf)
        feed(n, Heard("PointIntent", {"player": target}), log)
    assert n.game.winner == "village"
    result = keys(log)[keys(log).index("ww_votes_intro"):]
    assert result[:5] == ["ww_votes_intro", "ww_votes_for", "ww_votes_for",
                          "ww_most_votes_one", "ww_reveals"]
    assert f"{wolf}: 4 votes." in said(log) and f"{wolf} has the most votes." in said(log)
    assert f"{wolf} turns over their card: a Werewolf." in said(log)


def test_everyone_points_on_their_phones():
    n = werewords(protocol="phones")
    not_guessed(n)
    reply = n.handle(Tick(60))
    assert keys(reply.cues) == ["ww_countdown", "ww_point_phones"]
    wait = next(c for c in n.current_prompt() if isinstance(c, Wait))
    assert wait.players == tuple(n.game.players) and wait.verb == "vote"
    names = n.game.players
    for i, name in enumerate(names):
        turn = n.player_view(name)["turn"]
        assert turn["verb"] == "vote" and name not in turn["targets"]
        n.handle(Tap(name, "vote", names[(i + 1) % len(names)]))
    # every player got exactly one vote: the werewolves win
    assert n.game.winner == "werewolves"
    assert "ww_one_vote_each" in told(n)


def test_a_spoken_pointing_can_be_undone():
    n = werewords()
    not_guessed(n)
    n.handle(Heard("SkipClockIntent"))
    first, second = n.game.players[:2]
    n.handle(Heard("PointIntent", {"player": second}))
    assert n.listening().player == second
    reply = n.handle(Heard("UndoIntent"))
    assert reply.accepted and keys(reply.cues) == ["vote_undone", "ww_ask_point"]
    assert n.listening().player == first and n.game.votes == {}


# ---------------------------------------------------------------------- whoops


def test_whoops_by_the_host_turns_a_time_up_into_a_guessed_word():
    n = werewords()
    not_guessed(n)
    log: list[Any] = []
    feed(n, Heard("WhoopsIntent"), log)
    assert keys(log)[:3] == ["ww_whoops_guessed", "ww_werewolf_shows", "ww_hunt_one"]
    assert n.actions[-1] == [TABLE, "whoops", None]
    assert n.phase == "ww_hunt" and n.timer_kind == "ww_hunt"


def test_whoops_by_the_mayor_turns_a_guess_back_into_not_guessed():
    n = werewords(protocol="phones")
    guessed(n)
    mayor = n.game.mayor_name
    assert n.player_view(mayor)["me"]["whoops"] is True
    assert "whoops" not in n.player_view(not_mayor(n)[0])["me"]
    refused = n.handle(Tap(not_mayor(n)[0], "whoops", None))
    assert not refused.accepted
    log: list[Any] = []
    feed(n, Tap(mayor, "whoops", None), log)
    assert keys(log)[:2] == ["ww_whoops_not_guessed", "ww_discuss"]
    assert n.phase == "ww_discuss" and n.timer_kind == "ww_discuss" and n.timer == 60


def test_whoops_during_the_pointing_starts_the_other_ending_from_its_start():
    n = werewords()
    not_guessed(n)
    n.handle(Heard("SkipClockIntent"))
    n.handle(Heard("PointIntent", {"player": n.game.players[1]}))
    n.handle(Heard("WhoopsIntent"))
    assert n.game.votes == {} and n.phase == "ww_hunt"
    n.handle(Heard("WhoopsIntent"))
    assert n.phase == "ww_discuss" and not n.script.discussed


def test_whoops_only_once_the_day_is_over_and_before_the_end():
    n = werewords()
    feed(n, Heard("ReadyIntent"))
    assert keys(n.handle(Heard("WhoopsIntent")).cues)[0] == "ww_no_whoops"
    through_night(n)
    assert keys(n.handle(Heard("WhoopsIntent")).cues)[0] == "ww_no_whoops"
    assert not n.handle(Tap(n.game.mayor_name, "whoops", None)).accepted
    play(n, seed=2)
    assert not n.handle(Heard("WhoopsIntent")).accepted


# ---------------------------------------------------------------------- the end


def test_the_end_tells_the_winner_the_word_and_every_role():
    n = werewords()
    log: list[Any] = []
    through_night(n, word=n.game.words[3], log=log)
    log += play(n, seed=5)
    roles = n.game.roles_as_dealt()
    text = said(log)
    assert f"The magic word was: {n.game.words[3]}." in text
    mayor = n.game.mayor_name
    assert any(t.startswith(f"{mayor}, our mayor, was ") for t in text)
    for name in roles:
        if name != mayor:
            assert any(t.startswith(f"{name} was ") for t in text), name
    wins = [k for k in keys(log) if k.startswith("ww_win_")]
    assert wins == [f"ww_win_{n.game.winner}_{n.game.ending}"]
    assert n.phase == "over" and n.public_view()["game"]["roles"] == roles


def test_the_word_is_never_said_before_the_end():
    for seed in range(6):
        n = werewords(seed=seed, protocol=random.Random(seed).choice(["phones", "roll_call"]))
        log = play(n, seed=seed)
        text = said(log)
        end = keys(log).index("ww_word_was")
        word = n.game.word.casefold()
        assert not any(word in t.casefold() for t in text[:end] if "Mayor card" not in t), (
            seed, word)


def test_play_again_moves_the_mayor_card_as_the_seed_says():
    for seed in range(40):
        n = werewords(seed=seed)
        play(n, seed=seed)
        last = n.game
        expected = start_rules(next_game_doc(last, seed=n.seed + n.games_started,
                                             options={"language": "en"}))
        reply = n.handle(Heard("NewGameIntent"))
        assert reply.accepted and n.phase == "lobby"
        assert n.config.options["last_mayor"] == last.mayor_name
        assert n.handle(Host("start")).accepted
        assert n.game.mayor_name == expected.mayor_name
        assert n.game.roles_as_dealt() == expected.roles_as_dealt()
        if expected.setup.mayor_from == "left_of_last_mayor":
            seats = last.players
            assert n.game.mayor_name == seats[(seats.index(last.mayor_name) + 1) % len(seats)]
            return
    raise AssertionError("no deal put the Mayor card in the centre")


def test_a_table_is_its_log():
    n = werewords(protocol="phones", beholder=True)
    inputs: list[Input] = [*n.lobby_inputs(), Host("start")]
    rng = random.Random(9)
    while n.phase != "over":
        inp = next_input(n, rng)
        assert inp is not None
        if n.handle(inp).accepted:
            inputs.append(inp)
    again = Narrator.restore({"lang": "en", "seed": n.seed, "call_pause": CALL_PAUSE},
                             inputs)
    assert again.told == n.told and again.actions == n.actions
    assert again.public_view() == n.public_view()


@pytest.mark.parametrize("seed", range(12))
def test_random_whole_games_end_and_the_winners_agree_with_the_roles(seed):
    rng = random.Random(seed)
    n = werewords(NAMES[: rng.randint(4, 10)], seed=seed,
                  protocol=rng.choice(["phones", "roll_call"]),
                  minion=rng.random() < 0.5, beholder=rng.random() < 0.5,
                  day_seconds=rng.choice([120, 240]))
    log = play(n, seed)
    game = n.game
    sides = {"village": {"villager", "seer", "beholder"}, "werewolves": {"werewolf",
                                                                         "minion"}}
    assert set(game.winners) == {p for p, r in game.roles_as_dealt().items()
                                 if r in sides[game.winner]}
    assert all(v >= 0 for v in game.tokens_left().values())
    assert keys(log).count("ww_word_was") == 1


def test_the_script_is_registered_for_the_ruleset():
    from narrator.scripts import script_class

    assert script_class("werewords") is WerewordsScript
    assert Listen  # the cues the script emits are the core's


ODD_TARGETS: list[Any] = [None, "", "Nobody", 3, True, [], ["Ana"], {}, {"to": "Ana"},
                          {"to": ["Ana"], "token": "yes"}, {"to": "Ana", "token": None},
                          {"to": "Ana", "token": "yes", "x": 1}, "yes Ana", 1.5]
VERBS = ["choose_word", "answer", "take_back", "whoops", "guess_seer", "vote", "kill", "",
         None]
INTENTS = ["WhoopsIntent", "PointIntent", "VoteIntent", "ReadyIntent", "SkipClockIntent",
           "UndoIntent", "DayTimerIntent", "WordsDifficultyIntent", "AMAZON.HelpIntent",
           "TimeLeftIntent", "NewGameIntent", "AMAZON.FallbackIntent", "Nonsense"]


@pytest.mark.parametrize("seed", range(6))
def test_any_input_at_any_moment_is_answered_and_a_refusal_changes_nothing(seed):
    """Between the steps of a random game, odd inputs from anybody (taps of every verb with
    targets of every shape, intents with odd slots, host commands, odd ticks): each gets an
    answer, and one that is not accepted leaves the table as it was."""
    rng = random.Random(seed)
    n = werewords(seed=seed, protocol=rng.choice(["phones", "roll_call"]))
    names = [*n.game.players, "Nobody", "table", "clock"]
    for _ in range(3000):
        if n.phase == "over":
            break
        odd: Input
        kind = rng.randrange(4)
        if kind == 0:
            odd = Tap(rng.choice(names), rng.choice(VERBS), rng.choice(ODD_TARGETS))
        elif kind == 1:
            odd = Heard(rng.choice(INTENTS), {rng.choice(["player", "minutes", "count",
                                                          "difficulty"]):
                                              rng.choice([*ODD_TARGETS, *names])})
        elif kind == 2:
            odd = Host(rng.choice(["option", "deck", "game", "start", "skip_clock",
                                   "undo_vote", "pause", "resume", "new_game", "seats"]),
                       rng.choice(ODD_TARGETS))
        else:
            odd = Tick(rng.choice([-1.0, 0.0, 0.25, 1e9]))
        before = (list(n.actions), list(n.told), n.phase, n.timer, n.script.held)
        reply = n.handle(odd)
        if not reply.accepted:
            assert (list(n.actions), list(n.told), n.phase, n.timer, n.script.held) == before, (
                odd)
        if n.paused:
            n.handle(Host("resume"))
        inp = next_input(n, rng) if n.phase != "over" else None
        if inp is not None:
            n.handle(inp)
    assert n.phase in ("over", "ww_day", "ww_point", "ww_hunt", "ww_discuss", "night",
                       "reveal", "lobby")
