"""One Night narrated (issue 13, seed 001): a test for each narration rule, named after it.

Tables are played in-process through the narrator's inputs (the host's commands, what is
heard, the phones' taps, time passing), exactly as the console, the box, the skill and the
phone relay feed it. A deal is chosen by trying the narrator's own seeds until the cards
fall as the test needs (deterministic: the same seed always deals the same cards).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from narrator import Heard, Host, Narrator, Tap, Tick
from narrator.cues import Clock, Listen, Say, Show, Wait
from narrator.session import TableSession
from rules.one_night import night_calls, suggested_deck
from rules.one_night.knowledge import private_knowledge
from store import open_store

NAMES = ["Ana", "Ben", "Cal", "Dan", "Eve", "Fay", "Gil", "Hal", "Ivo", "Jon", "Kim", "Lev"]
PAUSE = 10.0
# a deck with every call that asks something, and no drunk (its swap is not optional)
QUIET = {"werewolf": 2, "seer": 1, "robber": 1, "troublemaker": 1, "insomniac": 1,
         "villager": 1, "minion": 1}


# ---------------------------------------------------------------------- helpers


def lobby(players: int = 5, deck: dict[str, int] | None = None, protocol: str = "phones",
          clock: int = 180, lang: str = "en", seed: int = 0) -> Narrator:
    n = Narrator(lang, seed=seed, call_pause=PAUSE)
    for name in NAMES[:players]:
        assert n.handle(Host("join", name)).accepted
    assert n.handle(Host("game", "one-night")).accepted
    if deck is not None:
        assert n.handle(Host("deck", deck)).accepted
    assert n.handle(Host("protocol", protocol)).accepted
    assert n.handle(Host("clock", clock)).accepted
    return n


def table(players: int = 5, deck: dict[str, int] | None = None, protocol: str = "phones",
          clock: int = 180, lang: str = "en",
          want: Callable[[Any], bool] | None = None) -> Narrator:
    """A dealt table (in the reveal) whose deal satisfies `want`."""
    for seed in range(2000):
        n = lobby(players, deck, protocol, clock, lang, seed)
        assert n.handle(Host("start")).accepted
        if want is None or want(n.game):
            return n
    raise AssertionError("no seed deals that")


def dealt(n: Narrator) -> dict[str, str]:
    return n.game.roles_as_dealt()


def holder(n: Narrator, card: str) -> str:
    return next(p for p, c in dealt(n).items() if c == card)


def in_play(card: str) -> Callable[[Any], bool]:
    return lambda game: card in game.roles_as_dealt().values()


def in_centre(card: str) -> Callable[[Any], bool]:
    return lambda game: card in game.center_as_dealt()


def both(*tests: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda game: all(t(game) for t in tests)


def keys(cues: list[Any]) -> list[str]:
    return [c.key for c in cues if isinstance(c, Say)]


def turn_of(n: Narrator, name: str) -> dict[str, Any] | None:
    return n.player_view(name).get("turn")


def turns(n: Narrator) -> dict[str, dict[str, Any]]:
    return {p: t for p in n.game.players if (t := turn_of(n, p)) is not None}


def ready(n: Narrator) -> list[Any]:
    reply = n.handle(Heard("ReadyIntent"))
    assert reply.accepted
    return reply.cues


Chooser = Callable[[Narrator, str, dict[str, Any]], Any]


def first_choice(n: Narrator, name: str, turn: dict[str, Any]) -> Any:
    """Nothing done where nothing may be (no look, no swap); else the first target."""
    return None if None in turn["targets"] else turn["targets"][0]


def play_night(n: Narrator, choose: Chooser = first_choice, step: float = PAUSE
               ) -> list[tuple[float, str]]:
    """Play the night to the dawn; every called player answers at once. Returns the
    timeline: (seconds since nightfall, line key) for every line the table heard."""
    clock = 0.0
    timeline: list[tuple[float, str]] = []
    for _ in range(5000):
        if n.phase != "night":
            return timeline
        waiting = turns(n)
        if waiting:
            name, turn = next(iter(waiting.items()))
            reply = n.handle(Tap(name, turn["verb"], choose(n, name, turn)))
            assert reply.accepted, (name, turn, reply.cues)
        else:
            reply = n.handle(Tick(step))
            assert reply.accepted
            clock += step
        timeline += [(clock, key) for key in keys(reply.cues)]
    raise AssertionError("the night did not end")


def to_vote(n: Narrator, choose: Chooser = first_choice) -> None:
    if n.phase == "reveal":
        ready(n)
    play_night(n, choose)
    assert n.phase == "debate"
    assert n.handle(Heard("SkipClockIntent")).accepted
    assert n.phase == "vote"


def vote_all(n: Narrator, ballots: dict[str, str]) -> list[Any]:
    """Everybody points, by the table's protocol; the cues of the last ballot."""
    cues: list[Any] = []
    for _ in n.game.players:
        if n.config.protocol == "phones":
            voter = next(p for p in n.game.players if turn_of(n, p))
        else:
            question = n.listening()
            assert question is not None
            voter = question.player
        inp = (Tap(voter, "vote", ballots[voter]) if n.config.protocol == "phones"
               else Heard("VoteIntent", {"player": ballots[voter]}))
        reply = n.handle(inp)
        assert reply.accepted, (voter, reply.cues)
        cues = reply.cues
    assert n.phase == "over"
    return cues


# ---------------------------------------------------------------------- the lobby


def test_the_host_picks_the_cards_or_takes_the_suggested_deck():
    n = lobby(players=6)
    assert n.config.preset == "suggested" and n.config.deck is None
    assert n.script.setup_doc(n.config, 1).get("deck") is None  # the rules' suggested deck
    assert n.handle(Host("start")).accepted
    assert n.game.deck == suggested_deck(6)

    n = lobby(players=4)
    mine = {"werewolf": 1, "mystic_wolf": 1, "seer": 1, "mason": 2, "tanner": 1, "villager": 1}
    reply = n.handle(Host("deck", mine))
    assert reply.accepted
    assert keys(reply.cues) == ["preset_set"]
    assert reply.cues[0].params == {"preset": "custom", "rating": "balanced"}
    assert n.handle(Host("start")).accepted
    assert sorted(n.game.deck) == sorted(c for c, k in mine.items() for _ in range(k))
    # back to the suggested deck
    n = lobby(players=4, deck=mine)
    reply = n.handle(Host("preset", "suggested"))
    assert reply.accepted and n.config.deck is None
    assert reply.cues[0].params["preset"] == "suggested"


def test_the_host_picks_the_suggested_deck_by_voice():
    n = lobby(players=5, deck={"werewolf": 1, "villager": 7})
    reply = n.handle(Heard("PresetIntent", {"preset": "suggested"}))
    assert reply.accepted and n.config.deck is None
    assert keys(n.handle(Heard("PresetIntent", {"preset": "basic"})).cues)[0] == (
        "on_unknown_preset")


@pytest.mark.parametrize("bad", [None, [], {}, {"werewolf": "two"}, {"wizard": 1},
                                 {"werewolf": -1}, {"werewolf": True}, {"seer": 0}])
def test_a_deck_that_is_not_cards_and_counts_is_refused_and_changes_nothing(bad):
    n = lobby(players=5)
    before = n.config.to_json()
    reply = n.handle(Host("deck", bad))
    assert not reply.accepted
    assert keys(reply.cues) == ["on_bad_deck"]
    assert n.config.to_json() == before


def test_a_deck_that_breaks_the_rules_is_refused_at_the_start_with_the_rules_reason():
    n = lobby(players=5, deck={"werewolf": 1, "seer": 2, "villager": 5})
    reply = n.handle(Host("start"))
    assert not reply.accepted and n.game is None
    assert reply.cues[0] == Say("setup_problem",
                                {"reason": "a deck holds one seer at most, not 2"})
    n = lobby(players=5, deck={"werewolf": 1, "villager": 5})
    assert "needs 8" in n.handle(Host("start")).cues[0].params["reason"]


def test_the_balance_rating_follows_the_game():
    n = lobby(players=7)
    assert n.rating() == "balanced"  # every suggested deck rates balanced
    n.handle(Host("deck", {"werewolf": 3, "minion": 1, "mystic_wolf": 1, "villager": 5}))
    assert n.rating() == "wolf-favoured"
    n.handle(Host("deck", {"werewolf": 1, "seer": 1, "mason": 4, "robber": 1,
                           "troublemaker": 1, "insomniac": 1, "hunter": 1}))
    assert n.rating() == "village-favoured"
    # no suggested deck for two players: no rating, and the range is said
    n = Narrator("en")
    for name in NAMES[:2]:
        n.handle(Host("join", name))
    n.handle(Host("game", "one-night"))
    assert n.rating() is None
    reply = n.handle(Host("preset", "suggested"))
    assert reply.cues[0] == Say("preset_range", {"preset": "suggested", "min": 3, "max": 12})


@pytest.mark.parametrize(("clock", "minutes"), [(120, 2), (180, 3), (240, 4), (300, 5),
                                                (0, None)])
def test_the_debate_clock_is_two_three_four_or_five_minutes_or_none(clock, minutes):
    n = table(clock=clock)
    assert n.game.options.debate_minutes == minutes
    ready(n)
    timeline = play_night(n)
    assert n.phase == "debate"
    assert timeline[-1][1] == ("on_debate_clock" if minutes else "on_debate_free")
    if minutes:
        assert n.timer == clock and n.timer_kind == "debate"
        assert Clock("start", clock) in n.current_prompt()
        assert n.handle(Tick(clock - 1)).accepted and n.phase == "debate"
        reply = n.handle(Tick(1))
        assert keys(reply.cues)[:2] == ["on_time_up", "on_countdown_phones"]
        assert Clock("stop") in reply.cues
    else:
        assert n.timer is None
        assert not n.handle(Tick(3600)).accepted  # no clock runs: time changes nothing
    # a clock One Night does not have is refused with its own line
    n = lobby()
    reply = n.handle(Host("clock", 60))
    assert not reply.accepted and keys(reply.cues) == ["on_bad_clock"]
    assert n.handle(Heard("ClockIntent", {"minutes": 4})).accepted and n.config.clock == 240


def test_lets_play_one_night_by_voice():
    n = Narrator("en")
    for name in NAMES[:4]:
        n.handle(Host("join", name))
    reply = n.handle(Heard("GameIntent", {"game": "one-night"}))
    assert reply.accepted and keys(reply.cues) == ["game_set"]
    assert n.config.ruleset == "one-night" and n.config.preset == "suggested"
    assert n.handle(Host("start")).accepted
    assert n.game.deck == suggested_deck(4)
    # an unknown game, and a table too big for One Night, are refused and change nothing
    n = Narrator("en")
    assert keys(n.handle(Heard("GameIntent", {"game": "chess"})).cues)[0] == "unknown_game"
    for name in [*NAMES, "Mia"]:
        n.handle(Host("join", name))
    reply = n.handle(Heard("GameIntent", {"game": "one-night"}))
    assert not reply.accepted and reply.cues[0] == Say("table_full", {"count": 12})
    assert n.config.ruleset == "wolf-village"
    # and back to Wolf Village, with its own set-up
    n = lobby()
    assert n.handle(Heard("GameIntent", {"game": "wolf-village"})).accepted
    assert (n.config.ruleset, n.config.preset) == ("wolf-village", "basic")


def test_show_of_hands_is_refused_with_a_clear_line():
    """The rules want every ballot (the hunter takes his own with him): a show of hands,
    where the table reports only who had the most, cannot give them."""
    n = lobby(protocol="roll_call")
    reply = n.handle(Host("protocol", "show_of_hands"))
    assert not reply.accepted and keys(reply.cues) == ["on_no_show_of_hands"]
    assert n.config.protocol == "roll_call"
    assert not n.handle(Heard("VotingIntent", {"protocol": "show_of_hands"})).accepted
    # a Wolf Village table voting by show of hands that turns to One Night votes by roll call
    n = Narrator("en")
    for name in NAMES[:5]:
        n.handle(Host("join", name))
    n.handle(Host("protocol", "show_of_hands"))
    reply = n.handle(Host("game", "one-night"))
    assert reply.accepted
    assert reply.cues == [Say("game_set", {"game": "one-night"}),
                          Say("protocol_set", {"protocol": "roll_call"})]


# ---------------------------------------------------------------------- the reveal


def test_each_player_sees_their_card_at_the_start_and_nothing_else():
    n = table()
    cues = n.handle(Host("repeat")).cues
    assert keys(cues) == ["ready_question"]
    for name, card in dealt(n).items():
        view = n.player_view(name)
        assert view["phase"] == "reveal"
        assert view["me"]["facts"] == [{"call": None, "fact": "card", "value": card}]
        assert "turn" not in view and "awake" not in view
    assert "on_look_at_card" in [s["key"] for s in n.story()]


# ---------------------------------------------------------------------- the night


def test_the_night_calls_every_role_of_the_deck_in_the_seeds_order():
    deck = {"doppelganger": 1, "werewolf": 1, "mystic_wolf": 1, "minion": 1, "mason": 2,
            "seer": 1, "paranormal_investigator": 1, "robber": 1, "troublemaker": 1,
            "drunk": 1, "insomniac": 1, "villager": 1, "tanner": 1, "hunter": 1}
    n = table(players=12, deck=deck)
    cards = [c for c, k in deck.items() for _ in range(k)]
    calls = night_calls(cards)
    assert calls == ["doppelganger", "werewolves", "mystic_wolf", "minion", "masons", "seer",
                     "paranormal_investigator", "robber", "troublemaker", "drunk",
                     "insomniac", "doppelganger_insomniac"]
    heard = keys(ready(n))
    assert heard[0] == "on_night_falls"
    told = heard[1:] + [key for _, key in play_night(n)]
    expected = [key for call in calls for key in (f"on_wake_{call}", f"on_sleep_{call}")]
    assert told[:len(expected)] == expected
    assert told[len(expected):] == ["on_dawn", "on_debate_clock"]


def test_a_role_whose_card_is_in_the_centre_is_called_with_the_same_time():
    n = table(deck=QUIET, want=both(in_centre("seer"), in_centre("robber")))
    timeline = [(0.0, key) for key in keys(ready(n))] + play_night(n, step=1.0)
    opened = {key[len("on_wake_"):]: t for t, key in timeline if key.startswith("on_wake_")}
    closed = {key[len("on_sleep_"):]: t for t, key in timeline if key.startswith("on_sleep_")}
    assert set(opened) == set(closed) == set(n.game.night_calls())
    assert {call: closed[call] - opened[call] for call in opened} == {
        call: PAUSE for call in opened}
    assert "seer" in opened and "robber" in opened  # called, with their cards in the centre


def test_the_night_sounds_the_same_whatever_lies_in_the_centre():
    """«Se llama a todos los papeles del mazo, aunque su carta esté en el centro: así
    nadie puede adivinar el centro por los silencios»: every deal of one deck, whoever
    holds what, gives the table the same lines at the same seconds, and the same prompts."""
    seen: dict[tuple[str, ...], list[tuple[float, str]]] = {}
    for seed in range(12):
        n = lobby(players=5, deck=QUIET, seed=seed)
        n.handle(Host("start"))
        heard = [(0.0, key) for key in keys(ready(n))]
        centre = tuple(sorted(n.game.center_as_dealt()))
        seen[centre] = heard + play_night(n, step=1.0)
    assert len(seen) >= 4, "deals with different centres"
    assert len({tuple(t) for t in seen.values()}) == 1, seen


def test_a_phone_shows_its_choice_only_while_its_call_is_open():
    n = table(deck=QUIET, want=in_play("seer"))
    seer = holder(n, "seer")
    ready(n)
    # before the seer's call: the rules may already wait for her (calls in the centre
    # pass at once), but her phone shows nothing and a choice is refused
    assert n.game.night_calls().index("seer") > 0
    assert turn_of(n, seer) is None
    reply = n.handle(Tap(seer, "look", [0, 1]))
    assert not reply.accepted
    assert reply.cues == [Show(seer, {"screen": "error", "reason": "not_your_turn"})]
    while n.script.night.calling != "seer":
        waiting = turns(n)
        if waiting:
            name, turn = next(iter(waiting.items()))
            n.handle(Tap(name, turn["verb"], first_choice(n, name, turn)))
        else:
            n.handle(Tick(PAUSE))
        assert n.script.night.calling == "seer" or turn_of(n, seer) is None
    turn = turn_of(n, seer)
    assert turn == {"verb": "look", "as": "seer",
                    "targets": n.game.legal_targets(seer, "look")}
    assert None in turn["targets"] and [0, 1] in turn["targets"]
    assert n.handle(Tap(seer, "look", [0, 1])).accepted
    # what she saw, then nothing more to choose
    view = n.player_view(seer)
    assert "turn" not in view
    assert view["me"]["facts"][-1]["fact"] == "looked_center"
    assert not n.handle(Tap(seer, "look", [1, 2])).accepted


def test_the_call_goes_on_until_its_player_has_chosen():
    n = table(deck=QUIET, want=in_play("robber"))
    robber = holder(n, "robber")
    ready(n)
    while n.script.night.calling != "robber":
        waiting = {p: t for p, t in turns(n).items()}
        if waiting:
            name, turn = next(iter(waiting.items()))
            n.handle(Tap(name, turn["verb"], first_choice(n, name, turn)))
        else:
            n.handle(Tick(PAUSE))
    # the time is up, the robber has not chosen: the call is held open, nothing is said
    assert keys(n.handle(Tick(PAUSE * 3)).cues) == []
    assert n.script.night.calling == "robber" and turn_of(n, robber)
    reply = n.handle(Tap(robber, "rob", None))
    assert keys(reply.cues)[0] == "on_sleep_robber"


def test_a_player_wakes_by_the_card_dealt_at_the_start():
    """«Un jugador se despierta según la carta que recibió al principio»: the robber who
    takes the insomniac's card is not woken as the insomniac; she is, and sees the
    robber's card."""
    n = table(deck=QUIET, want=both(in_play("robber"), in_play("insomniac")))
    robber, insomniac = holder(n, "robber"), holder(n, "insomniac")
    ready(n)

    def rob_the_insomniac(n: Narrator, name: str, turn: dict[str, Any]) -> Any:
        if turn["verb"] == "rob":
            return insomniac
        return first_choice(n, name, turn)

    awake: dict[str, set[str]] = {}
    while n.phase == "night":
        calling = n.script.night.calling
        for name in n.game.players:
            if n.player_view(name).get("awake"):
                awake.setdefault(calling, set()).add(name)
        waiting = turns(n)
        if waiting:
            name, turn = next(iter(waiting.items()))
            n.handle(Tap(name, turn["verb"], rob_the_insomniac(n, name, turn)))
        else:
            n.handle(Tick(PAUSE))
    assert awake["insomniac"] == {insomniac}
    assert awake["robber"] == {robber}
    facts = private_knowledge(n.game, insomniac)["facts"]
    assert {"call": "insomniac", "fact": "own_card", "value": "robber"} in facts


def test_each_phone_shows_a_fact_only_once_its_call_has_been_narrated():
    """The rules record what the minion sees when they pass his call (at once, if the
    calls before it ask nothing); his phone shows it only once the narrator calls him."""
    n = table(deck=QUIET, want=both(in_play("minion"), in_play("werewolf")))
    minion = holder(n, "minion")
    ready(n)
    known = private_knowledge(n.game, minion)["facts"]
    assert any(f["fact"] == "werewolves" for f in known)  # the rules are past his call
    while n.phase == "night":
        shown = n.player_view(minion)["me"]["facts"]
        seen = any(f["fact"] == "werewolves" for f in shown)
        assert seen == ("minion" in n.script.opened), n.script.opened
        waiting = turns(n)
        if waiting:
            name, turn = next(iter(waiting.items()))
            n.handle(Tap(name, turn["verb"], first_choice(n, name, turn)))
        else:
            n.handle(Tick(PAUSE))
    assert any(f["fact"] == "werewolves" for f in n.player_view(minion)["me"]["facts"])


def test_close_your_eyes_when_each_turn_ends():
    n = table(deck=QUIET, want=in_play("seer"))
    seer = holder(n, "seer")
    told = keys(ready(n)) + [key for _, key in play_night(n)]
    for call in n.game.night_calls():
        assert told.index(f"on_sleep_{call}") == told.index(f"on_wake_{call}") + 1
    assert "awake" not in n.player_view(seer)


def test_the_doppelganger_does_a_copied_action_in_her_own_call():
    deck = {"doppelganger": 1, "werewolf": 2, "seer": 1, "robber": 1, "villager": 3}
    n = table(deck=deck, want=both(in_play("doppelganger"), in_play("robber")))
    dopp, robber = holder(n, "doppelganger"), holder(n, "robber")
    ready(n)
    assert n.script.night.calling == "doppelganger"
    assert turn_of(n, dopp)["verb"] == "copy"
    n.handle(Tap(dopp, "copy", robber))
    turn = turn_of(n, dopp)
    assert turn["verb"] == "rob" and turn["as"] == "robber"  # at once, in her own call
    assert n.script.night.calling == "doppelganger"
    n.handle(Tap(dopp, "rob", None))
    assert turn_of(n, dopp) is None


def test_the_little_girl_may_peek_in_the_werewolves_call():
    deck = {"werewolf": 2, "little_girl": 1, "seer": 1, "villager": 4}
    n = table(deck=deck, want=in_play("little_girl"))
    girl = holder(n, "little_girl")
    cues = ready(n)
    assert keys(cues)[-1] == "on_wake_werewolves_girl"
    assert turn_of(n, girl) == {"verb": "peek", "targets": [True, False], "as": "little_girl"}
    n.handle(Tap(girl, "peek", True))
    shown = n.player_view(girl)["me"]["facts"]
    assert shown[-1]["fact"] == "werewolves"


def test_the_rules_reach_the_day_early_but_the_narrator_keeps_its_night():
    """With the calls after the seer's in the centre, the rules are at the day the moment
    she has looked; the table still hears every call, and nobody is asked to vote."""
    deck = {"werewolf": 2, "seer": 1, "robber": 1, "troublemaker": 1, "insomniac": 1,
            "villager": 2}
    n = table(deck=deck, want=both(in_play("seer"), in_centre("robber"),
                                   in_centre("troublemaker"), in_centre("insomniac")))
    seer = holder(n, "seer")
    ready(n)
    while turn_of(n, seer) is None:
        n.handle(Tick(PAUSE))
    reply = n.handle(Tap(seer, "look", None))
    assert n.game.phase == "day"  # the rules' night is over
    assert n.phase == "night" and n.script.night.calling == "seer"
    assert "on_dawn" not in keys(reply.cues)
    for name in n.game.players:
        assert "turn" not in n.player_view(name)  # no vote shows
        assert not n.handle(Tap(name, "vote", NAMES[0] if name != NAMES[0]
                                else NAMES[1])).accepted
    told = [key for _, key in play_night(n)]
    assert told[:7] == ["on_sleep_seer", "on_wake_robber", "on_sleep_robber",
                        "on_wake_troublemaker", "on_sleep_troublemaker",
                        "on_wake_insomniac", "on_sleep_insomniac"]
    assert told[7] == "on_dawn"


# ---------------------------------------------------------------------- the day


def test_no_vote_is_shown_or_taken_before_the_debate_ends():
    n = table(protocol="phones")
    ready(n)
    play_night(n)
    assert n.phase == "debate" and n.game.phase == "day"
    for name in n.game.players:
        assert "turn" not in n.player_view(name)
        other = next(p for p in n.game.players if p != name)
        reply = n.handle(Tap(name, "vote", other))
        assert reply.cues == [Show(name, {"screen": "error", "reason": "not_now"})]
    assert keys(n.handle(Heard("VoteIntent", {"player": "Ana"})).cues)[0] == "debate_now"
    assert n.game.votes == {}


def test_we_are_ready_to_vote_ends_the_debate():
    for ends in (Heard("SkipClockIntent"), Heard("ReadyIntent"), Host("skip_clock")):
        n = table(protocol="roll_call")
        ready(n)
        play_night(n)
        reply = n.handle(ends)
        assert reply.accepted and n.phase == "vote"
        # cut short: no "time's up"
        assert keys(reply.cues) == ["on_countdown", "on_ask_point"]
        assert Clock("stop") in reply.cues and n.timer is None


def test_the_vote_countdown_three_two_one_point():
    from speech import line

    n = table(protocol="roll_call")
    to_vote(n)
    assert "Three, two, one… point!" in line("en", "on_countdown")
    assert "Tres, dos, uno… ¡señalen!" in line("es", "on_countdown")
    story = [s["key"] for s in n.story()]
    assert story[story.index("on_countdown") + 1] == "on_ask_point"


def test_the_roll_call_asks_every_player_in_seat_order():
    n = table(protocol="roll_call")
    to_vote(n)
    asked = []
    for voter in n.game.players:
        question = n.listening()
        assert question.player == voter
        assert question.intents == ("VoteIntent", "NobodyIntent", "SkipIntent")
        assert question.names == tuple(n.game.players)
        asked.append(voter)
        target = next(p for p in n.game.players if p != voter)
        reply = n.handle(Heard("VoteIntent", {"player": target}))
        assert reply.accepted
        if n.phase == "vote":
            nxt = n.game.players[len(asked)]
            assert reply.cues[-2:] == [Say("on_ask_point", {"name": nxt}),
                                       n.listening()]
    assert asked == n.game.players and n.phase == "over"


def test_every_vote_counts_nobody_may_pass_or_point_at_themselves():
    """«cada jugador señala a la vez a otro jugador»: every ballot names another player."""
    n = table(protocol="roll_call")
    to_vote(n)
    voter = n.listening().player
    for said, line_key in ((Heard("NobodyIntent"), "on_vote_someone"),
                           (Heard("SkipIntent"), "on_vote_someone"),
                           (Heard("VoteIntent", {"player": voter}), "on_point_other"),
                           (Heard("VoteIntent", {"player": "Zed"}), "unknown_name")):
        reply = n.handle(said)
        assert not reply.accepted
        assert keys(reply.cues) == [line_key, "on_ask_point"]
        assert n.game.votes == {}
    # on the phones: no null, not oneself (the rules refuse it; nothing changes)
    n = table(protocol="phones")
    to_vote(n)
    name = n.game.players[0]
    assert None not in turn_of(n, name)["targets"] and name not in turn_of(n, name)["targets"]
    assert not n.handle(Tap(name, "vote", None)).accepted
    assert not n.handle(Tap(name, "vote", name)).accepted
    assert n.game.votes == {}


def test_the_vote_on_the_phones():
    n = table(protocol="phones")
    to_vote(n)
    question = n.current_prompt()
    assert question == [Say("on_vote_phones"), Wait(tuple(n.game.players), "vote")]
    for name in n.game.players:
        assert turn_of(n, name)["verb"] == "vote"
    first = n.game.players[0]
    reply = n.handle(Tap(first, "vote", n.game.players[1]))
    assert reply.accepted
    assert keys(reply.cues) == []  # the others are not asked again
    assert turn_of(n, first) is None and n.player_view(first)["me"]["vote"] == "Ben"
    # a spoken vote is refused: this table votes on its phones
    assert keys(n.handle(Heard("VoteIntent", {"player": "Ana"})).cues)[0] == (
        "on_vote_phones")
    # and on a roll-call table a phone's vote is refused
    n = table(protocol="roll_call")
    to_vote(n)
    reply = n.handle(Tap("Ana", "vote", "Ben"))
    assert reply.cues == [Show("Ana", {"screen": "error", "reason": "vote_aloud"})]


def test_a_misheard_spoken_vote_can_be_taken_back_before_the_last_one():
    n = table(protocol="roll_call")
    to_vote(n)
    n.handle(Heard("VoteIntent", {"player": "Ben"}))
    reply = n.handle(Heard("UndoIntent"))
    assert reply.accepted
    assert keys(reply.cues) == ["vote_undone", "on_ask_point"]
    assert reply.cues[0].params == {"name": "Ana"} and n.listening().player == "Ana"
    assert n.game.votes == {}


# ---------------------------------------------------------------------- results


def _quiet_game(want: Callable[[Any], bool], deck: dict[str, int] | None = None,
                players: int = 5) -> Narrator:
    """A table whose night changes no card (nobody swaps), voting by roll call."""
    n = table(players=players, deck=deck or QUIET, protocol="roll_call", want=want)
    to_vote(n)
    assert n.game.cards() == dealt(n)
    return n


def _ballots(n: Narrator, out: list[str]) -> dict[str, str]:
    """Everybody points so that exactly `out` have the most votes (two each)."""
    names = n.game.players
    ballots: dict[str, str] = {}
    voters = [p for p in names]
    for target in out:
        for _ in range(2):
            voter = next(v for v in voters if v != target and v not in ballots)
            ballots[voter] = target
    rest = [p for p in names if p not in out]
    for voter in names:
        if voter not in ballots:
            # spread the rest: one vote each at most, never oneself
            candidates = [p for p in rest if p != voter and list(ballots.values()).count(p) == 0]
            ballots[voter] = candidates[0] if candidates else next(
                p for p in out if p != voter)
    return ballots


def test_the_result_a_player_is_out():
    n = _quiet_game(both(in_play("werewolf"), in_play("seer")))
    wolf = holder(n, "werewolf")
    cues = vote_all(n, _ballots(n, [wolf]))
    told = keys(cues)
    assert told[:2] == ["on_votes_in", "on_votes_for"]
    assert Say("on_out", {"name": wolf}) in cues
    assert "on_win_village" in told  # a werewolf is out


def test_the_result_nobody_is_out():
    """«si nadie tiene más de un voto, nadie queda eliminado»."""
    n = _quiet_game(in_play("werewolf"))
    names = n.game.players
    cues = vote_all(n, {p: names[(i + 1) % len(names)] for i, p in enumerate(names)})
    told = keys(cues)
    assert "on_nobody_out" in told and "on_out" not in told
    assert "on_win_werewolves" in told  # no werewolf out, no tanner out


def test_the_result_the_hunters_shot():
    """«Si el Cazador es eliminado, el jugador al que votó también lo es»."""
    deck = {"werewolf": 2, "hunter": 1, "seer": 1, "villager": 4}
    n = _quiet_game(both(in_play("hunter"), in_play("werewolf")), deck)
    hunter, wolf = holder(n, "hunter"), holder(n, "werewolf")
    ballots = _ballots(n, [hunter])
    ballots[hunter] = wolf
    cues = vote_all(n, ballots)
    assert Say("on_out", {"name": hunter}) in cues
    assert Say("on_hunter_shot", {"name": hunter, "target": wolf}) in cues
    assert "on_win_village" in keys(cues)


def test_the_result_the_tanner_wins():
    deck = {"werewolf": 2, "tanner": 1, "seer": 1, "villager": 4}
    n = _quiet_game(both(in_play("tanner"), in_play("werewolf")), deck)
    tanner = holder(n, "tanner")
    cues = vote_all(n, _ballots(n, [tanner]))
    told = keys(cues)
    assert "on_win_tanner" in told and "on_win_werewolves" not in told
    assert Say("on_winner", {"names": [tanner]}) in cues


def test_the_result_the_werewolves_win():
    n = _quiet_game(both(in_play("werewolf"), in_play("villager")))
    villager = holder(n, "villager")
    cues = vote_all(n, _ballots(n, [villager]))
    told = keys(cues)
    assert "on_win_werewolves" in told
    winners = [p for p, c in dealt(n).items() if c in ("werewolf", "minion")]
    key = "on_winner" if len(winners) == 1 else "on_winners"
    assert Say(key, {"names": winners}) in cues


def test_the_result_nobody_wins():
    """No werewolf among the players, somebody out, no tanner, no minion."""
    deck = {"werewolf": 2, "seer": 1, "robber": 1, "villager": 4}
    n = _quiet_game(lambda g: g.center_as_dealt().count("werewolf") == 2, deck)
    cues = vote_all(n, _ballots(n, [n.game.players[0]]))
    told = keys(cues)
    assert "on_win_nobody" in told
    assert "on_winner" not in told and "on_winners" not in told


def test_the_end_tells_every_card_dealt_and_final_and_the_winners():
    n = table(deck=QUIET, protocol="roll_call",
              want=both(in_play("robber"), in_play("werewolf")))
    robber, wolf = holder(n, "robber"), holder(n, "werewolf")

    def rob_the_wolf(n: Narrator, name: str, turn: dict[str, Any]) -> Any:
        return wolf if turn["verb"] == "rob" else first_choice(n, name, turn)

    to_vote(n, rob_the_wolf)
    cues = vote_all(n, _ballots(n, [wolf]))
    told = keys(cues)
    start = told.index("on_reveal_intro")
    reveal = [c for c in cues if isinstance(c, Say)][start + 1:]
    assert Say("on_reveal_dealt", {"name": robber, "role": "robber"}) in reveal
    assert Say("on_reveal_ended", {"name": robber, "role": "werewolf"}) in reveal
    assert Say("on_reveal_dealt", {"name": wolf, "role": "werewolf"}) in reveal
    assert Say("on_reveal_ended", {"name": wolf, "role": "robber"}) in reveal
    named = {c.params["name"] for c in reveal if "name" in c.params}
    assert named == set(n.game.players)
    centre = [c for c in reveal if c.key.startswith("on_reveal_center")]
    assert [c.params["number"] for c in centre if c.key != "on_reveal_center_ended"] == [1, 2, 3]
    # «Cuentan las cartas al final de la noche»: the dealt werewolf, voted out, holds the
    # robber's card now, and the robber holds the werewolf's: no werewolf is out
    assert n.game.winner == ["werewolves"]
    assert "on_win_werewolves" in told
    names = next(c.params["names"] for c in cues if isinstance(c, Say)
                 and c.key in ("on_winner", "on_winners"))
    assert robber in names and wolf not in names
    # every screen shows it all now
    public = n.public_view()["game"]
    assert public["dealt"] == dealt(n) and public["cards"] == n.game.cards()
    assert public["winners"] == n.game.winners


def test_play_again_at_the_same_table(tmp_path):
    store = open_store(f"sqlite:///{tmp_path}/games.db")
    n = lobby(players=5, deck={"werewolf": 2, "seer": 1, "robber": 1, "villager": 4},
              protocol="roll_call")
    session = TableSession.create(store, "g1", Narrator("en", seed=3, call_pause=PAUSE))
    for inp in n.lobby_inputs():
        assert session.handle(inp).accepted
    session.handle(Host("start"))
    first = session.narrator.game
    to_vote(session.narrator)
    # the rest of the game through the session, so it is stored
    for voter in session.narrator.game.players:
        target = next(p for p in session.narrator.game.players if p != voter)
        assert session.handle(Heard("VoteIntent", {"player": target})).accepted
    assert session.narrator.phase == "over"
    reply = session.handle(Heard("NewGameIntent"))
    assert reply.accepted and keys(reply.cues) == ["new_game"]
    again = session.narrator
    assert again.config.ruleset == "one-night" and again.config.players == NAMES[:5]
    assert again.config.deck == {"werewolf": 2, "seer": 1, "robber": 1, "villager": 4}
    assert again.config.protocol == "roll_call"
    assert session.handle(Host("start")).accepted
    assert again.game.deck == first.deck  # the same cards, dealt anew
    assert again.game.setup.seed != first.setup.seed
    # and it is stored: a restarted process finds the new game where it was
    resumed = TableSession.resume(store, "g1")
    assert resumed.narrator.game.roles_as_dealt() == again.game.roles_as_dealt()
    store.close()


# ---------------------------------------------------------------------- the table's log


def test_a_table_is_its_log_mid_night():
    n = table(deck=QUIET, want=in_play("seer"))
    inputs: list[Any] = [*n.lobby_inputs(), Host("start")]
    seed = n.seed
    fresh = Narrator("en", seed=seed, call_pause=PAUSE)
    for inp in inputs:
        fresh.handle(inp)
    ready(n)
    ready(fresh)
    steps = [Tick(PAUSE), Tick(PAUSE)]
    for inp in steps:
        assert n.handle(inp).accepted == fresh.handle(inp).accepted
    rebuilt = Narrator.restore(fresh.setup_doc(), [*inputs, Heard("ReadyIntent"), *steps])
    for name in n.game.players:
        assert rebuilt.player_view(name) == n.player_view(name)
    assert rebuilt.public_view() == n.public_view()
    assert rebuilt.current_prompt() == n.current_prompt()


def test_help_says_what_to_do_now():
    n = table(protocol="roll_call")
    ready(n)
    assert n.handle(Heard("AMAZON.HelpIntent")).cues[0] == Say("on_help_night")
    play_night(n)
    assert n.handle(Heard("AMAZON.HelpIntent")).cues[0] == Say("help_debate")
    n.handle(Heard("SkipClockIntent"))
    assert n.handle(Heard("AMAZON.HelpIntent")).cues[0] == Say("on_help_vote")


def test_at_night_the_table_is_told_to_use_the_phones():
    n = table()
    ready(n)
    reply = n.handle(Heard("VoteIntent", {"player": "Ana"}))
    assert not reply.accepted and keys(reply.cues)[0] == "night_use_phone"
    assert isinstance(n.current_prompt()[-1], Wait)
    assert not any(isinstance(c, Listen) for c in n.current_prompt())
