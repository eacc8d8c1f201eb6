"""narrator/: the conversation from lobby to final reveal, driven by real inputs."""

from __future__ import annotations

import random
from typing import Any

import pytest

from narrator import Clock, Heard, Host, Listen, Narrator, Pause, Say, Show, Tap, Tick, Wait
from narrator.cues import Record
from speech import line

NAMES = ["Ana", "Ben", "Cal", "Dan", "Eve", "Fay", "Gil", "Hal"]


def table(
    deck: dict[str, int] | None = None,
    preset: str = "basic",
    players: list[str] | None = None,
    lang: str = "en",
    seed: int = 1,
    protocol: str = "roll_call",
    clock: int = 180,
    **options: Any,
) -> Narrator:
    n = Narrator(lang, seed=seed, call_pause=12)
    for name in players or NAMES:
        assert n.handle(Host("join", name)).accepted
    if deck:
        assert n.handle(Host("deck", deck)).accepted
    else:
        assert n.handle(Host("preset", preset)).accepted
    assert n.handle(Host("protocol", protocol)).accepted
    assert n.handle(Host("clock", clock)).accepted
    for key, value in options.items():
        assert n.handle(Host("option", [key, value])).accepted
    assert n.handle(Host("start")).accepted
    return n


def said(cues: list[Any], lang: str = "en") -> list[str]:
    return [line(lang, c.key, c.params) for c in cues if isinstance(c, Say)]


def keys(cues: list[Any]) -> list[str]:
    return [c.key for c in cues if isinstance(c, Say)]


def role_of(n: Narrator, role: str) -> list[str]:
    return [p for p in n.game.players if n.game.current_role(p) == role]


def answer(n: Narrator, rng: random.Random, log: list[Any]) -> bool:
    """Answer the current question like a table would; False when nothing is asked."""
    game = n.game
    if n.phase == "reveal":
        log.extend(n.handle(Heard("ReadyIntent")).cues)
        return True
    if n.phase == "debate":
        reply = n.handle(Tick(200)) if n.config.clock else n.handle(Heard("SkipClockIntent"))
        log.extend(reply.cues)
        return True
    pending = game.pending()
    if not pending:
        return False
    if n.phase == "night":
        # a phone shows a choice only while its role is called; otherwise the call is held
        # open for its time, which passes by ticks
        called = [name for name in game.players if "turn" in n.player_view(name)]
        if called:
            name = called[rng.randrange(len(called))]
            turn = n.player_view(name)["turn"]
            reply = n.handle(Tap(name, turn["verb"], rng.choice(turn["targets"])))
        else:
            reply = n.handle(Tick(n.call_pause))
    elif n.phase == "tie" and game.sheriff is None:
        reply = n.handle(Heard(rng.choice(["AMAZON.YesIntent", "AMAZON.NoIntent"])))
    elif n.config.protocol == "phones" and d_is_vote(pending):
        d = pending[0]
        targets = game.legal_targets(d.player, d.action)
        reply = n.handle(Tap(d.player, d.action, rng.choice(targets)))
    elif n.config.protocol == "show_of_hands" and pending[0].player == "table":
        targets = game.legal_targets("table", pending[0].action)
        choice = rng.choice([t for t in targets if not isinstance(t, dict)])
        reply = n.handle(Heard("NobodyIntent") if choice is None
                         else Heard("HandsResultIntent", {"player": choice}))
    else:
        listen = n.listening()
        assert listen is not None, (n.phase, pending)
        d = pending[0]
        targets = [t for t in game.legal_targets(d.player, d.action) if t is not None]
        reply = n.handle(Heard("VoteIntent", {"player": rng.choice(targets)}))
    assert reply.accepted, (n.phase, said(reply.cues))
    log.extend(reply.cues)
    return True


def d_is_vote(pending: list[Any]) -> bool:
    return pending[0].action in ("vote", "elect")


def play_out(n: Narrator, seed: int = 0) -> list[Any]:
    rng = random.Random(seed)
    log: list[Any] = []
    for _ in range(3000):
        if n.phase == "over" or not answer(n, rng, log):
            break
    assert n.phase == "over"
    return log


# ------------------------------------------------------------------ lobby


def test_lobby_join_and_refuse_a_taken_name():
    n = Narrator("en")
    assert n.handle(Host("join", "Ana")).accepted
    reply = n.handle(Host("join", "ana"))
    assert not reply.accepted
    assert keys(reply.cues) == ["name_taken"]


def test_lobby_full_table_refused():
    n = Narrator("en")
    for i in range(20):
        assert n.handle(Host("join", f"P{i}")).accepted
    reply = n.handle(Host("join", "Late"))
    assert not reply.accepted and keys(reply.cues) == ["table_full"]


def test_lobby_host_hears_the_balance_rating():
    n = Narrator("en")
    for name in NAMES:
        n.handle(Host("join", name))
    reply = n.handle(Host("preset", "classic"))
    assert said(reply.cues) == ["Set-up: Classic. It is rated balanced."]


def test_lobby_preset_outside_its_range_is_explained():
    n = Narrator("en")
    for name in NAMES[:5]:
        n.handle(Host("join", name))
    reply = n.handle(Host("preset", "classic"))
    assert said(reply.cues) == ["The Classic set-up is for 8 to 20 players."]
    assert not n.handle(Host("start")).accepted


def test_lobby_too_few_players_cannot_start():
    n = Narrator("en")
    for name in NAMES[:3]:
        n.handle(Host("join", name))
    reply = n.handle(Host("start"))
    assert not reply.accepted and keys(reply.cues) == ["too_few"]


def test_i_play_too_puts_the_host_at_the_table():
    n = Narrator("en")
    assert n.handle(Host("host_plays", "Hostess")).accepted
    assert n.config.host == "Hostess" and "Hostess" in n.config.players


def test_role_reveal_look_at_your_phone():
    n = table()
    assert n.phase == "reveal"
    cards = [c for c in n.handle(Heard("AMAZON.HelpIntent")).cues if isinstance(c, Say)]
    assert cards[0].key == "help_reveal"
    views = {name: n.player_view(name)["me"]["role"] for name in NAMES}
    assert views == n.game.roles_as_dealt()


# ------------------------------------------------------------------ nights


def test_narrated_night_calls_roles_in_the_seeds_order():
    n = table(deck={"werewolf": 2, "seer": 1, "doctor": 1, "witch": 1, "cupid": 1,
                    "villager": 2})
    cues = n.handle(Heard("ReadyIntent")).cues
    assert keys(cues)[:2] == ["night_falls", "wake_cupid"]
    calls: list[str] = []
    rng = random.Random(3)
    log: list[Any] = list(cues)
    while n.game.night == 1 and n.phase == "night":
        answer(n, rng, log)
    calls = [k for k in keys(log) if k.startswith("wake_")]
    assert calls == ["wake_cupid", "wake_werewolf", "wake_seer", "wake_doctor", "wake_witch"]
    assert keys(log).index("sleep_cupid") < keys(log).index("wake_werewolf")


def test_a_role_absent_from_the_game_is_never_called():
    n = table()  # basic with 8: wolves, seer, doctor, villagers; no witch, no cupid
    log = list(n.handle(Heard("ReadyIntent")).cues)
    rng = random.Random(1)
    while n.game.night == 1 and n.phase == "night":
        answer(n, rng, log)
    assert "wake_witch" not in keys(log) and "wake_cupid" not in keys(log)


def _night_two_with_dead_seer(reveal: bool) -> list[Any]:
    deck = {"werewolf": 2, "seer": 1, "doctor": 1, "villager": 4}
    n = table(deck=deck, reveal_dead_roles=reveal)
    n.handle(Heard("ReadyIntent"))
    seer = role_of(n, "seer")[0]
    doctor = role_of(n, "doctor")[0]
    wolves = role_of(n, "werewolf")
    for wolf in wolves:
        when_called(n, wolf, "kill", seer)
    when_called(n, seer, "inspect", wolves[0])
    cues = when_called(n, doctor, "protect", doctor) + until_day(n)
    assert "death_werewolves" in keys(cues)
    # day 1: everyone votes nobody, night 2 falls
    log: list[Any] = []
    n.handle(Tick(200))
    while n.phase == "vote":
        voter = n.listening().player
        log = n.handle(Heard("NobodyIntent")).cues
    assert n.phase == "night"
    rest = list(log)
    rng = random.Random(0)
    while n.game.night == 2 and n.phase == "night":
        answer(n, rng, rest)
    del voter
    return rest


def test_dead_seer_still_called_with_the_same_pause_when_roles_are_secret():
    """«Un rol cuyo jugador ha muerto se llama igualmente cuando el rol de los muertos se
    mantiene en secreto, para que el silencio no delate nada.»"""
    cues = _night_two_with_dead_seer(reveal=False)
    k = keys(cues)
    assert "wake_seer" in k and "sleep_seer" in k
    # every call, the dead seer's and the living roles', is the same wait that names nobody
    calls = [cues[i + 1] for i, c in enumerate(cues)
             if isinstance(c, Say) and c.key.startswith("wake_")]
    assert len(calls) >= 2 and all(c == Wait((), "call", 12) for c in calls)
    assert not any(isinstance(c, Pause) for c in cues)


def test_dead_seer_not_called_when_dead_roles_are_revealed():
    cues = _night_two_with_dead_seer(reveal=True)
    assert "wake_seer" not in keys(cues)


def test_a_call_lasts_its_time_whether_its_role_answers_at_once_or_is_dead():
    """«para que el silencio no delate nada»: a call is held open for `call_pause` seconds
    of ticks, answered at once or not at all (a dead role), before the next one starts."""
    deck = {"werewolf": 2, "seer": 1, "doctor": 1, "villager": 4}
    n = table(deck=deck, reveal_dead_roles=False)
    n.handle(Heard("ReadyIntent"))
    wolves, seer = role_of(n, "werewolf"), role_of(n, "seer")[0]
    doctor = role_of(n, "doctor")[0]
    first = [c.key for c in n.handle(Tap(wolves[0], "kill", seer)).cues if isinstance(c, Say)]
    last = n.handle(Tap(wolves[1], "kill", seer)).cues
    assert first == [] and keys(last) == []  # answered at once: the call is still open
    assert n.handle(Tick(11)).cues == [] and n.timer == 1
    assert keys(n.handle(Tick(1)).cues) == ["sleep_werewolf", "wake_seer"]
    when_called(n, seer, "inspect", wolves[0])
    when_called(n, doctor, "protect", doctor)
    until_day(n)
    # night two: the seer is dead, and is called all the same, for just as long
    for _ in list(n.game.alive_names()):
        if n.phase == "debate":
            n.handle(Tick(200))
        if n.phase == "vote":
            n.handle(Heard("NobodyIntent"))
    assert n.phase == "night" and seer not in n.game.alive_names()
    for wolf in wolves:
        when_called(n, wolf, "kill", doctor)
    n.handle(Tick(12))  # the werewolves' call ends: the dead seer's begins
    assert n.timer == 12 and keys(n.current_prompt()) == ["wake_seer"]
    assert n.handle(Tick(11)).cues == []
    assert keys(n.handle(Tick(1)).cues)[:2] == ["sleep_seer", "wake_doctor"]


def test_a_choice_shows_only_while_its_role_is_called():
    """The seer's choice does not appear (and her tap is refused) while the werewolves'
    call is held open, even once the pack has chosen: the moment a phone lights up must not
    tell how long the calls before it lasted."""
    n = table(deck={"werewolf": 2, "seer": 1, "doctor": 1, "villager": 4})
    n.handle(Heard("ReadyIntent"))
    wolves, seer = role_of(n, "werewolf"), role_of(n, "seer")[0]
    for wolf in wolves:
        assert "turn" in n.player_view(wolf)
        n.handle(Tap(wolf, "kill", seer))
    assert n.game.pending()[0].player == seer  # the rules wait for her already...
    assert "turn" not in n.player_view(seer)  # ...the narrator has not called her yet
    refused = n.handle(Tap(seer, "inspect", wolves[0]))
    assert not refused.accepted and refused.cues[0].view["reason"] == "not_your_turn"
    n.handle(Tick(12))
    assert n.player_view(seer)["turn"]["verb"] == "inspect"


def test_no_choice_while_everyone_looks_at_their_role():
    n = table(deck={"werewolf": 2, "seer": 1, "doctor": 1, "villager": 4})
    assert n.phase == "reveal" and n.game.pending()  # the rules already wait for the pack
    assert all("turn" not in n.player_view(name) for name in NAMES)


def test_the_morning_waits_for_the_last_call_and_its_close_your_eyes():
    """The last role answers at once: the morning is not told (nor shown on any phone)
    until its call has lasted its time, and it gets its own "close your eyes"."""
    n = table(deck={"werewolf": 2, "seer": 1, "doctor": 1, "villager": 4})
    n.handle(Heard("ReadyIntent"))
    wolves, seer = role_of(n, "werewolf"), role_of(n, "seer")[0]
    doctor = role_of(n, "doctor")[0]
    victim = role_of(n, "villager")[0]
    for wolf in wolves:
        when_called(n, wolf, "kill", victim)
    when_called(n, seer, "inspect", wolves[0])
    tapped = when_called(n, doctor, "protect", doctor)
    assert "good_morning" not in keys(tapped)
    assert victim in n.public_view()["game"]["alive"] and n.phase == "night"
    assert "turn" not in n.player_view(doctor)  # her answer is in
    again = n.handle(Tap(doctor, "protect", seer))
    assert not again.accepted  # and cannot be given twice
    cues = until_day(n)
    assert keys(cues)[:3] == ["sleep_doctor", "good_morning", "eyes_open"]
    assert victim not in n.public_view()["game"]["alive"]


def test_morning_the_hunters_role_is_told_with_his_death_before_his_lovers_grief():
    """«¡Alex era el cazador! Con su último aliento, apunta.» comes right after the hunter's
    death, then «Con el corazón roto, Sam sigue a su amor hasta la muerte.», then the shot."""
    deck = {"werewolf": 2, "seer": 1, "cupid": 1, "hunter": 1, "villager": 3}
    n = table(deck=deck, lang="es")
    n.handle(Heard("ReadyIntent"))
    hunter, cupid = role_of(n, "hunter")[0], role_of(n, "cupid")[0]
    lover = role_of(n, "villager")[0]
    when_called(n, cupid, "link", [hunter, lover])
    for wolf in role_of(n, "werewolf"):
        when_called(n, wolf, "kill", hunter)
    when_called(n, role_of(n, "seer")[0], "inspect", lover)
    text = morning(until_day(n), "es")
    assert text[2:6] == [
        f"{hunter} fue víctima de los hombres lobo.",
        f"¡{hunter} era el cazador! Con su último aliento, apunta.",
        f"Con el corazón roto, {lover} sigue a su amor hasta la muerte.",
        "Era un aldeano.",
    ]
    assert said(n.current_prompt(), "es") == [f"{hunter}, ¿a quién disparas?"]


def test_times_up_is_not_followed_by_a_second_time_to_vote():
    for protocol in ("roll_call", "phones"):
        n = table(protocol=protocol)
        play_until(n, lambda n=n: n.phase == "debate")
        cues = n.handle(Tick(180)).cues
        assert keys(cues)[0] == "time_up", protocol
        assert not {"vote_intro", "vote_intro_phones"} & set(keys(cues)), protocol


def test_voting_opens_when_the_debate_ends():
    n = table(protocol="phones")
    play_until(n, lambda: n.phase == "debate")
    voter = n.game.alive_names()[0]
    assert "turn" not in n.player_view(voter)
    refused = n.handle(Tap(voter, "vote", None))
    assert not refused.accepted and refused.cues[0].view["reason"] == "not_now"
    n.handle(Tick(180))
    assert n.player_view(voter)["turn"]["verb"] == "vote"
    assert n.handle(Tap(voter, "vote", None)).accepted
    assert n.player_view(voter)["me"]["vote"] == {"verb": "vote", "target": None}


def test_every_phone_shows_the_story_of_the_morning():
    n = table(deck={"werewolf": 2, "seer": 1, "doctor": 1, "villager": 4})
    victim = role_of(n, "villager")[0]
    _first_night(n, victim)
    for name in NAMES:
        story = [line("en", s["key"], s["params"]) for s in n.player_view(name)["story"]]
        assert f"{victim} was killed by the werewolves." in story
        assert "They were a Villager." in story
    assert n.public_view()["story"] == n.player_view(NAMES[0])["story"]


def test_what_the_table_heard_is_kept_in_order():
    n = table(deck={"werewolf": 2, "seer": 1, "doctor": 1, "villager": 4})
    mark = len(n.told)
    cues = n.handle(Heard("ReadyIntent")).cues
    assert n.told_since(mark) == [c for c in cues if isinstance(c, Say | Pause | Clock)]
    assert not any(isinstance(c, Show) for c in n.told)
    restored = Narrator.restore(n.setup_doc(), [])
    assert restored.told == []


def test_plurals_by_number_in_every_language():
    n = Narrator("en")
    for name in ("Ana", "Ben", "Cal"):
        n.handle(Host("join", name))
    assert said(n.handle(Host("leave", "Ben")).cues) == ["Ben has left. 2 players at the table."]
    assert said(n.handle(Host("leave", "Cal")).cues) == ["Cal has left. 1 player at the table."]
    assert line("pl", "left", {"name": "Ana", "count": 5}).endswith("Przy stole: 5 graczy.")
    assert line("pl", "left", {"name": "Ana", "count": 3}).endswith("Przy stole: 3 gracze.")
    assert line("fi", "debate_clock", {"minutes": 1}) == "Keskustelkaa! Aikaa on 1 minuutti."
    assert said(n.handle(Host("clock", 0)).cues) == ["There will be no debate clock."]


def test_all_at_once_nobody_is_called_everyone_takes_a_secret_turn():
    n = table(night_mode="all_at_once")
    cues = n.handle(Heard("ReadyIntent")).cues
    assert keys(cues) == ["night_falls_secret"]
    waits = [c for c in cues if isinstance(c, Wait)]
    assert set(waits[0].players) == set(NAMES)
    assert not any(k.startswith("wake_") for k in keys(cues))


def test_pass_phones_the_narrator_waits_for_every_turn():
    n = table(night_mode="pass_phones", preset="classic")
    cues = n.handle(Heard("ReadyIntent")).cues
    waits = [c for c in cues if isinstance(c, Wait)]
    assert set(waits[0].players) == set(NAMES)


def test_secret_choice_refusal_stays_on_that_phone():
    n = table()
    n.handle(Heard("ReadyIntent"))
    wolf = role_of(n, "werewolf")[0]
    other = role_of(n, "werewolf")[1]
    reply = n.handle(Tap(wolf, "kill", other))
    assert not reply.accepted
    assert not any(isinstance(c, Say) for c in reply.cues)  # nothing said aloud
    assert reply.cues == [Show(wolf, {"screen": "error",
                                      "reason": reply.cues[0].view["reason"]})]


def test_voice_at_night_is_refused_kindly():
    n = table()
    n.handle(Heard("ReadyIntent"))
    reply = n.handle(Heard("VoteIntent", {"player": "Ana"}))
    assert not reply.accepted and keys(reply.cues)[0] == "night_use_phone"


# ------------------------------------------------------------------ dawn


def when_called(n: Narrator, name: str, verb: str, target: Any) -> list[Any]:
    """Let the calls before it pass (ticks), then `name` chooses on their phone."""
    cues: list[Any] = []
    for _ in range(50):
        if "turn" in n.player_view(name):
            break
        reply = n.handle(Tick(n.call_pause))
        assert reply.accepted
        cues += reply.cues
    reply = n.handle(Tap(name, verb, target))
    assert reply.accepted, reply
    return cues + reply.cues


def until_day(n: Narrator) -> list[Any]:
    """Let the night's last calls run their time: the morning follows."""
    cues: list[Any] = []
    while n.phase == "night":
        reply = n.handle(Tick(n.call_pause))
        assert reply.accepted
        cues += reply.cues
    return cues


def morning(cues: list[Any], lang: str = "en") -> list[str]:
    text = said(cues, lang)
    return text[text.index(line(lang, "good_morning")):]


def _first_night(n: Narrator, victim: str, protect: str | None = None) -> list[Any]:
    n.handle(Heard("ReadyIntent"))
    cues: list[Any] = []
    for wolf in role_of(n, "werewolf"):
        cues += when_called(n, wolf, "kill", victim)
    seer = role_of(n, "seer")
    if seer:
        cues += when_called(n, seer[0], "inspect", role_of(n, "werewolf")[0])
    doctor = role_of(n, "doctor")
    if doctor:
        cues += when_called(n, doctor[0], "protect", protect or doctor[0])
    return cues + until_day(n)


def test_morning_killed_and_role_revealed():
    n = table(deck={"werewolf": 2, "seer": 1, "doctor": 1, "villager": 4})
    victim = role_of(n, "villager")[0]
    cues = _first_night(n, victim)
    assert morning(cues)[:4] == [
        "Good morning, village.",
        "Everyone, open your eyes.",
        f"{victim} was killed by the werewolves.",
        "They were a Villager.",
    ]


def test_morning_spanish_lines_word_for_word():
    n = table(deck={"werewolf": 2, "seer": 1, "doctor": 1, "villager": 4}, lang="es")
    victim = role_of(n, "seer")[0]
    cues = _first_night(n, victim)
    assert morning(cues, "es")[:4] == [
        "Buenos días, aldea.", "Todos, abran los ojos.",
        f"{victim} fue víctima de los hombres lobo.", "Era el vidente.",
    ]


def test_morning_saved_by_the_doctor():
    n = table(deck={"werewolf": 2, "seer": 1, "doctor": 1, "villager": 4}, lang="es")
    victim = role_of(n, "villager")[0]
    cues = _first_night(n, victim, protect=victim)
    assert ("Los hombres lobo atacaron por la noche, pero el médico salvó a su víctima. "
            "Nadie murió.") in said(cues, "es")


def test_morning_dead_roles_secret_except_the_hunter():
    n = table(deck={"werewolf": 2, "seer": 1, "doctor": 1, "hunter": 1, "villager": 3},
              reveal_dead_roles=False)
    hunter = role_of(n, "hunter")[0]
    cues = _first_night(n, hunter)
    text = said(cues)
    assert f"{hunter} was the Hunter! With a last breath, the Hunter takes aim." in text
    assert not any(t.startswith("They were") for t in text)
    listen = n.listening()
    assert listen is not None and listen.player == hunter
    target = role_of(n, "villager")[0]
    shot = n.handle(Heard("VoteIntent", {"player": target}))
    assert shot.accepted and f"{target} fell to the Hunter's arrow." in said(shot.cues)


def test_morning_cursed_bitten_nobody_died():
    n = table(deck={"werewolf": 2, "seer": 1, "cursed": 1, "villager": 4}, lang="es")
    cursed = role_of(n, "cursed")[0]
    n.handle(Heard("ReadyIntent"))
    for wolf in role_of(n, "werewolf"):
        when_called(n, wolf, "kill", cursed)
    cues = when_called(n, role_of(n, "seer")[0], "inspect", cursed) + until_day(n)
    assert ("Nadie murió esta noche. Pero los hombres lobo mordieron al maldito, y ahora es "
            "uno de ellos.") in said(cues, "es")
    assert n.player_view(cursed)["me"]["transformed"] is True


# ------------------------------------------------------------------ day


def test_day_one_sheriff_election_then_debate_clock():
    n = table(preset="classic")
    log = play_until(n, lambda: n.phase == "election")
    assert n.phase == "election"
    assert "election_intro" in keys(n.current_prompt())
    while n.phase == "election":
        voter = n.listening().player
        reply = n.handle(Heard("ElectIntent", {"player": voter}))
        assert reply.accepted
    assert n.phase == "debate"
    assert Clock("start", 180) in reply.cues
    del log


def play_until(n: Narrator, done: Any, seed: int = 0) -> list[Any]:
    rng = random.Random(seed)
    log: list[Any] = []
    for _ in range(500):
        if done() or n.phase == "over":
            break
        answer(n, rng, log)
    return log


def test_debate_clock_runs_on_ticks_and_says_times_up():
    n = table()
    play_until(n, lambda: n.phase == "debate")
    assert n.handle(Tick(60)).accepted
    reply = n.handle(Heard("TimeLeftIntent"))
    assert said(reply.cues) == ["2 minutes and 0 seconds left."]
    cues = n.handle(Tick(120)).cues
    assert "Time's up. It's time to vote." in said(cues)
    assert n.phase == "vote"


def test_pause_stops_the_clock():
    n = table()
    play_until(n, lambda: n.phase == "debate")
    assert n.handle(Host("pause")).accepted
    assert not n.handle(Tick(500)).accepted
    assert n.phase == "debate"
    assert n.handle(Host("resume")).accepted
    n.handle(Tick(180))
    assert n.phase == "vote"


def test_roll_call_asks_each_voter_in_turn():
    n = table()
    play_until(n, lambda: n.phase == "vote")
    asked = []
    while n.phase == "vote":
        voter = n.listening().player
        asked.append(voter)
        n.handle(Heard("NobodyIntent"))
    assert asked == [p for p in NAMES if p in n.game.alive_names() or p in asked]


def test_roll_call_unknown_name_gets_a_reason_and_the_same_question():
    n = table()
    play_until(n, lambda: n.phase == "vote")
    before = n.current_prompt()
    reply = n.handle(Heard("VoteIntent", {"player": "Zed"}))
    assert not reply.accepted
    assert said(reply.cues)[0] == "I don't know anyone called Zed."
    assert reply.cues[1:] == before
    assert n.current_prompt() == before


def test_roll_call_dead_player_refused():
    n = table()
    play_until(n, lambda: n.phase == "vote")
    dead = next(p for p in NAMES if p not in n.game.alive_names())
    reply = n.handle(Heard("VoteIntent", {"player": dead}))
    assert not reply.accepted and keys(reply.cues)[0] == "player_dead"


def test_roll_call_a_vote_recorded_for_a_voter_no_longer_asked_is_refused():
    """The host page's roll-call form carries its voter: if the box heard that vote while
    the host was choosing, the host's pick must not become the next voter's vote."""
    n = table()
    play_until(n, lambda: n.phase == "vote")
    first = n.listening().player
    target = next(p for p in n.game.alive_names() if p != first)
    assert n.handle(Heard("VoteIntent", {"player": target})).accepted  # the box heard it
    second = n.listening().player
    events, before = len(n.game.events), n.current_prompt()
    for stale in (Heard("VoteIntent", {"player": target, "voter": first}),
                  Heard("NobodyIntent", {"voter": first}),
                  Heard("VoteIntent", {"player": target, "voter": "Zed"})):
        reply = n.handle(stale)
        assert not reply.accepted
        assert keys(reply.cues)[0] == "vote_moved_on"
        assert reply.cues[1:] == before and n.listening().player == second
    assert said(n.handle(Heard("NobodyIntent", {"voter": first})).cues)[0] == (
        f"{first}'s vote was already taken.")
    assert len(n.game.events) == events
    # the form for the voter asked now is taken, as their vote
    assert n.handle(Heard("VoteIntent", {"player": target, "voter": second.lower()})).accepted
    assert n.listening() is None or n.listening().player not in (first, second)


def test_undo_the_last_spoken_vote():
    n = table()
    play_until(n, lambda: n.phase == "vote")
    first = n.listening().player
    target = next(p for p in n.game.alive_names() if p != first)
    assert n.handle(Heard("VoteIntent", {"player": target})).accepted
    assert n.listening().player != first
    reply = n.handle(Host("undo_vote"))
    assert reply.accepted and keys(reply.cues)[0] == "vote_undone"
    assert n.listening().player == first


def test_show_of_hands_the_host_reports_the_result():
    n = table(protocol="show_of_hands")
    play_until(n, lambda: n.phase == "vote")
    assert "hands_vote" in keys(n.current_prompt())
    target = n.game.alive_names()[0]
    reply = n.handle(Heard("HandsResultIntent", {"player": target}))
    assert reply.accepted
    assert "The village has decided." in said(reply.cues)


def test_show_of_hands_tie_without_sheriff_revote_or_spare():
    n = table(protocol="show_of_hands")
    play_until(n, lambda: n.phase == "vote")
    a, b = n.game.alive_names()[:2]
    reply = n.handle(Heard("HandsTieIntent", {"player": a, "other": b}))
    assert f"It's a tie between {a} and {b}." in said(reply.cues)
    assert n.phase == "tie"
    reply = n.handle(Heard("AMAZON.NoIntent"))
    assert "The village couldn't agree. Nobody is out today." in said(reply.cues)


def test_votes_on_the_phones():
    n = table(protocol="phones")
    play_until(n, lambda: n.phase == "vote")
    waits = [c for c in n.current_prompt() if isinstance(c, Wait)]
    assert waits and waits[0].verb == "vote"
    voter = waits[0].players[0]
    assert "turn" in n.player_view(voter)
    reply = n.handle(Heard("VoteIntent", {"player": voter}))
    assert not reply.accepted


def test_spoken_vote_refused_when_voting_on_phones_and_vice_versa():
    n = table()
    play_until(n, lambda: n.phase == "vote")
    voter = n.listening().player
    reply = n.handle(Tap(voter, "vote", None))
    assert not reply.accepted


# ------------------------------------------------------------------ whole games


@pytest.mark.parametrize("mode", ["narrated", "all_at_once", "pass_phones"])
@pytest.mark.parametrize("protocol", ["roll_call", "show_of_hands", "phones"])
def test_whole_games_every_night_mode_and_protocol(mode, protocol):
    for seed in range(4):
        n = table(preset="chaos", players=[f"P{i}" for i in range(12)], seed=seed,
                  protocol=protocol, night_mode=mode)
        log = play_out(n, seed)
        assert any(k.startswith("win_") for k in keys(log))
        assert "reveal_intro" in keys(log)


def test_game_over_reveals_every_role_and_the_suspicions():
    n = table(night_mode="all_at_once")
    log = play_out(n, 5)
    k = keys(log)
    assert k.count("reveal_role") == len(NAMES)
    assert "suspicions_intro" in k and "suspicion" in k


def test_restore_from_inputs_rebuilds_the_same_table():
    n = table(preset="classic")
    inputs: list[Any] = []
    original = n.handle

    def recording(inp: Any) -> Any:
        reply = original(inp)
        if reply.accepted:
            inputs.append(inp)
        return reply

    n.handle = recording  # type: ignore[method-assign]
    play_until(n, lambda: n.game.night == 2)
    lobby = [Host("join", p) for p in NAMES] + [Host("preset", "classic"),
                                                Host("protocol", "roll_call"),
                                                Host("clock", 180), Host("start")]
    again = Narrator.restore(n.setup_doc(), lobby + inputs)
    assert again.game.events == n.game.events
    assert again.phase == n.phase
    assert again.current_prompt() == n.current_prompt()


def test_listen_names_are_the_living_players():
    n = table()
    play_until(n, lambda: n.phase == "vote")
    listen = n.listening()
    assert isinstance(listen, Listen)
    assert set(listen.names) == set(n.game.alive_names())


def test_new_log_ids_never_start_with_a_dash():
    """A table's id goes on command lines (`wolfvillage console --game ID`), where a
    leading "-" would be read as an option: one random id in 64 used to start with one."""
    from narrator.session import new_log_id

    ids = {new_log_id() for _ in range(3000)}
    assert len(ids) == 3000
    assert not any(i.startswith("-") for i in ids)


def test_the_host_picks_the_game_and_an_unknown_game_is_refused():
    n = Narrator("en", seed=1)
    reply = n.handle(Host("game", "snakes-and-ladders"))
    assert not reply.accepted and keys(reply.cues) == ["unknown_game"]
    reply = n.handle(Host("game", ["wolf-village"]))
    assert not reply.accepted and keys(reply.cues) == ["unknown_game"]
    reply = n.handle(Host("game", "wolf-village"))
    assert reply.accepted and said(reply.cues) == ["We'll play Wolf Village."]
    assert n.public_view()["table"]["game"] == "wolf-village"


# ------------------------------------------------------------------ numbers and doubts


def test_every_player_has_a_number_said_at_join_and_shown_on_their_phone():
    n = Narrator("en")
    n.handle(Host("join", "Ana"))
    assert said(n.handle(Host("join", "Ben")).cues) == ["Welcome, Ben: you are number 2."]
    assert n.player_view("Ben")["seat"] == 2
    n.handle(Host("seats", ["Ben", "Ana"]))
    assert n.player_view("Ben")["seat"] == 1


def _unsure_vote(n: Narrator) -> tuple[str, str]:
    play_until(n, lambda: n.phase == "vote")
    voter = n.listening().player
    target = next(name for name in n.game.alive_names() if name != voter)
    reply = n.handle(Heard("VoteIntent", {"player": target}, sure=False))
    assert reply.accepted and n.phase == "vote"
    seat = n.game.players.index(target) + 1
    assert said(reply.cues)[-1] == f"Was that number {seat}, {voter}? Say yes or no."
    assert not n.actions or n.actions[-1][1] != "vote"  # not counted yet
    return voter, target


def test_an_unsure_vote_is_confirmed_by_its_number_aloud_or_with_one_tap_once():
    n = table()
    voter, target = _unsure_vote(n)
    view = n.player_view(voter)
    assert view["turn"] == {"verb": "confirm", "targets": ["yes", "no"],
                            "heard": {"target": target,
                                      "seat": n.game.players.index(target) + 1}}
    others = [name for name in NAMES if name != voter]
    assert all(n.player_view(name).get("turn") is None for name in others)
    assert not n.handle(Tap(others[0], "confirm", "yes")).accepted
    assert n.handle(Tap(voter, "confirm", "yes")).accepted
    assert n.actions[-1] == [voter, "vote", target]
    # whichever answered first counted, once: a "yes" aloud now confirms nothing
    assert not n.handle(Heard("AMAZON.YesIntent")).accepted or n.actions[-1][0] != voter


def test_an_unsure_vote_answered_no_asks_the_question_again():
    n = table()
    voter, _ = _unsure_vote(n)
    reply = n.handle(Heard("AMAZON.NoIntent"))
    assert reply.accepted and said(reply.cues) == [f"{voter}, who do you vote for?"]
    assert n.listening().player == voter and "turn" not in n.player_view(voter)


def test_a_new_answer_replaces_the_one_being_confirmed():
    n = table()
    voter, target = _unsure_vote(n)
    other = next(name for name in n.game.alive_names() if name not in (voter, target))
    assert n.handle(Heard("VoteIntent", {"player": other})).accepted
    assert n.actions[-1] == [voter, "vote", other]


def test_a_box_asks_each_player_joining_to_say_their_name():
    n = Narrator("en")
    assert not n.handle(Host("record_name", "Ana")).accepted  # no ears at this table
    assert n.handle(Host("ears", True)).accepted
    cues = n.handle(Host("join", "Ana")).cues
    assert said(cues)[1] == "Ana, please say your name once, the way everyone here says it."
    assert Record("Ana") in cues
    assert Record("Ana") in n.handle(Host("record_name", "ana")).cues  # again, from the host
    assert not any(isinstance(c, Record) for c in n.told)  # not something the table hears
