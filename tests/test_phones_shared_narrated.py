"""A narrated night on shared phones (seed 000): «En Wolf Village es Narrador de voz: habla
el teléfono del anfitrión, y los llamados eligen en su propio teléfono o tocan su elección
en el más cercano si juegan con teléfonos compartidos.» Over real HTTP on loopback."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.test_phones_api import Server, Table, roles

NAMES = ["Ana", "Ben", "Cal", "Dan", "Eve", "Fay", "Gil", "Hal", "Ida", "Jon", "Kim", "Lou"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    srv = Server(tmp_path_factory.mktemp("shared_narrated") / "games.db")
    yield srv
    srv.stop()


class SharedTable(Table):
    """A narrated table with shared phones added by the host; only `own` have their own."""

    def __init__(self, server: Server, count: int, preset: str = "basic",
                 own: tuple[str, ...] = (), phones: int = 2):
        super().__init__(server)
        for name in NAMES[:count]:
            self.join(name)
        self.own = own
        self.command("preset", preset)
        self.command("protocol", "phones")
        self.command("option", ["night_mode", "narrated"])
        self.command("option", ["reveal_dead_roles", False])
        self.shared: list[tuple[Any, str]] = []
        for _ in range(phones):
            r = self.host.post(f"/api/h/{self.host_token}/shared", json={"serves": None})
            assert r.status_code == 200, r.text
            self.shared.append((server.phone(), r.json()["token"]))

    def start(self) -> None:
        self.command("start")
        self.heard("ReadyIntent")

    def shared_view(self, i: int = 0) -> dict[str, Any]:
        phone, token = self.shared[i]
        r = phone.get(f"/api/s/{token}")
        assert r.status_code == 200, r.text
        return r.json()

    def tap(self, call: Any, verb: Any, target: Any, i: int = 0) -> Any:
        phone, token = self.shared[i]
        return phone.post(f"/api/s/{token}", json={"call": call, "verb": verb,
                                                   "target": target})

    def tick(self, seconds: float) -> None:
        r = self.host.post(f"/api/h/{self.host_token}/tick", json={"seconds": seconds})
        assert r.status_code == 200, r.text

    def call_left(self) -> float:
        timer = self.host_view().get("timer") or {}
        return float(timer.get("left", 0)) if timer.get("kind") == "call" else 0.0

    def end_call(self) -> None:
        left = self.call_left()
        if left:
            self.tick(left)


def harmless(table: SharedTable, call: str) -> Any:
    """A legal choice for the call's living player that kills nobody we watch."""
    game = table.truth().game
    living = game.alive_names()
    holders = [p for p in game.players if game.current_role(p) == call]
    others = [p for p in living if p not in holders]
    if call == "werewolf":
        return next(p for p in others if game.current_role(p) == "villager")
    if call == "witch":
        return {"heal": False, "poison": None}
    if call == "cupid":
        return others[:2]
    return others[0]


def first_call(table: SharedTable, call: str) -> dict[str, Any]:
    """Let calls pass (answered harmlessly) until `call` is called; its shared view."""
    for _ in range(10):
        view = table.shared_view()
        if view.get("call") == call:
            return view
        if view.get("call") and not view["answered"]:
            r = table.tap(view["call"], view["turn"]["verb"], harmless(table, view["call"]))
            assert r.status_code == 200, r.text
        table.end_call()
    raise AssertionError(f"{call} was never called")


@pytest.mark.parametrize(("count", "pack_size"), [(8, 2), (12, 3)])
def test_la_manada_toca_una_sola_vez_y_ese_toque_es_la_victima(server, count, pack_size):
    """«Con teléfonos compartidos y Narrador de voz, la manada toca una sola vez en el
    teléfono más cercano, y ese toque es la víctima.» With two and three wolves."""
    table = SharedTable(server, count)
    table.start()
    dealt = roles(table)
    pack = [p for p, r in dealt.items() if r == "werewolf"]
    assert len(pack) == pack_size
    view = first_call(table, "werewolf")
    # every shared phone shows the pack's choice: every living player, nobody's role
    assert view["turn"] == {"verb": "kill", "targets": NAMES[:count]}
    assert table.shared_view(1)["call"] == "werewolf"
    victim = next(p for p in NAMES[:count] if dealt[p] == "villager")
    r = table.tap("werewolf", "kill", victim, i=1)
    assert r.status_code == 200, r.text
    assert sorted(r.json()["learnt"]["pack"]) == sorted(pack)
    game = table.truth().game
    # every living werewolf's kill is that one tap
    assert game.pack_choices() == {wolf: victim for wolf in pack}
    assert game.pack_victim() == victim
    # the rest of the night untapped: the doctor (basic) protects nobody we choose
    for _ in range(10):
        if table.truth().game.phase != "night":
            break
        view = table.shared_view()
        if view.get("call") == "doctor" and not view["answered"]:
            other = next(p for p in NAMES[:count] if p != victim)
            assert table.tap("doctor", "protect", other).status_code == 200
        if view.get("call") == "seer" and not view["answered"]:
            seer = next(p for p, r in dealt.items() if r == "seer")
            target = next(p for p in NAMES[:count] if p != seer)
            assert table.tap("seer", "inspect", target).status_code == 200
        table.end_call()
    game = table.truth().game
    assert game.phase != "night" and not game.alive[game.seat[victim]]


def test_a_second_tap_in_the_same_call_is_refused_and_changes_nothing(server):
    table = SharedTable(server, 8)
    table.start()
    dealt = roles(table)
    first_call(table, "werewolf")
    villagers = [p for p in NAMES[:8] if dealt[p] == "villager"]
    assert table.tap("werewolf", "kill", villagers[0]).status_code == 200
    before = table.log()
    for i in (0, 1):
        r = table.tap("werewolf", "kill", villagers[1], i=i)
        assert r.status_code == 409 and r.json()["error"] == "already_chosen"
        # every shared phone now says the choice is made (and shows no form)
        assert table.shared_view(i)["answered"] is True
    assert table.log() == before
    assert table.truth().game.pack_victim() == villagers[0]


def test_out_of_turn_taps_on_a_shared_phone_are_refused_and_change_nothing(server):
    table = SharedTable(server, 8)
    # before the game: nothing to tap
    r = table.tap("seer", "inspect", "Ana")
    assert r.status_code == 409 and r.json()["error"] == "not_now"
    table.start()
    dealt = roles(table)
    seer = next(p for p, r in dealt.items() if r == "seer")
    target = next(p for p in NAMES[:8] if p != seer)
    view = first_call(table, "werewolf")
    before = table.log()
    for call, verb, target_, error in [
        ("seer", "inspect", target, "not_your_turn"),    # another role's call
        ("werewolf", "inspect", target, "not_your_turn"),  # not the call's verb
        ("werewolf", "kill", "Zed", "bad_target"),       # nobody of the table
        ("werewolf", "kill", None, "bad_target"),
        (None, None, None, "not_your_turn"),
        ({"x": 1}, "kill", "Ana", "not_your_turn"),
    ]:
        r = table.tap(call, verb, target_)
        assert r.status_code == 409, (call, verb, r.text)
        assert r.json() == {"error": error}, (call, verb)
    # a werewolf as the pack's victim: the rules' own check refuses it
    wolf = next(p for p, r in dealt.items() if r == "werewolf")
    r = table.tap("werewolf", "kill", wolf)
    assert r.status_code == 409 and r.json()["error"] == "refused"
    assert table.log() == before
    assert table.shared_view() == view
    # a shared phone's page refuses it with the words of the phone's language
    phone, token = table.shared[0]
    page = phone.get(f"/s/{token}").text
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    r = phone.post(f"/s/{token}", data={"csrf_token": csrf, "call": "seer", "verb": "inspect",
                                        "target": target})
    assert r.status_code == 409 and 'data-reason="not_your_turn"' in r.text
    assert table.log() == before


def test_forged_and_reused_shared_links_are_refused_as_today(server):
    table = SharedTable(server, 8)
    table.start()
    first_call(table, "werewolf")
    before = table.log()
    phone, token = table.shared[0]
    other = server.phone()
    r = other.post(f"/api/s/{token}", json={"call": "werewolf", "verb": "kill",
                                            "target": "Ana"})
    assert r.status_code == 403 and r.json()["error"] == "other_device"
    assert other.get(f"/api/s/{token}").json()["error"] == "other_device"
    for forged in (token[:-2] + "xx", "nope", token + "a"):
        r = phone.post(f"/api/s/{forged}", json={"call": "werewolf", "verb": "kill",
                                                 "target": "Ana"})
        assert r.status_code == 404 and r.json()["error"] == "bad_link"
    # a player's own link is no shared phone
    player_phone, player_token = table.players["Ana"]
    r = player_phone.post(f"/api/s/{player_token}", json={"call": "werewolf", "verb": "kill",
                                                          "target": "Ben"})
    assert r.status_code == 404
    assert table.log() == before


def _play_night_one_killing_the_seer(table: SharedTable, dealt: dict[str, str]) -> str:
    seer = next(p for p, r in dealt.items() if r == "seer")
    first_call(table, "werewolf")
    assert table.tap("werewolf", "kill", seer).status_code == 200
    table.end_call()
    for _ in range(6):
        view = table.shared_view()
        if table.truth().game.phase != "night":
            break
        if view.get("call") == "doctor" and not view["answered"]:
            doctor = next(p for p, r in dealt.items() if r == "doctor")
            other = next(p for p in NAMES[:8] if p not in (seer, doctor))
            assert table.tap("doctor", "protect", other).status_code == 200
        if view.get("call") == "seer" and not view["answered"]:
            target = next(p for p in NAMES[:8] if p != seer)
            assert table.tap("seer", "inspect", target).status_code == 200
        table.end_call()
    game = table.truth().game
    assert not game.alive[game.seat[seer]]
    return seer


def _vote_out_a_villager(table: SharedTable, dealt: dict[str, str]) -> None:
    table.command("skip_clock")
    game = table.truth().game
    villager = next(p for p in game.alive_names() if dealt[p] == "villager")
    for name in game.alive_names():
        r = table.choose(name, "vote", villager)
        assert r.status_code == 200, r.text
    assert table.truth().game.phase == "night"


def _seer_call(table: SharedTable, target: str) -> tuple[dict[str, Any], dict[str, Any],
                                                           list[float]]:
    """The seer's call: the shared view, the tap's answer, and the call's length."""
    view = first_call(table, "seer")
    length = table.call_left()
    r = table.tap("seer", "inspect", target)
    assert r.status_code == 200, r.text
    answer = r.json()
    # the call lasts its whole time after the tap, dead seer or living
    table.tick(length - 1)
    assert table.shared_view()["call"] == "seer"
    table.tick(1)
    assert table.shared_view().get("call") != "seer"
    return view, answer, [length]


def test_a_dead_seers_call_on_a_shared_phone_looks_and_lasts_the_same(server):
    """«Un rol cuyo jugador ha muerto se llama igualmente cuando el rol de los muertos se
    mantiene en secreto, para que el silencio no delate nada.» On a shared phone the dead
    seer's call shows the same choice, takes the same tap with the same kind of answer,
    and lasts as long as the living seer's."""
    table = SharedTable(server, 8)
    table.start()
    dealt = roles(table)
    wolf = next(p for p, r in dealt.items() if r == "werewolf")
    seer = next(p for p, r in dealt.items() if r == "seer")
    # night one's seer, alive: her answer is the rules' own
    first_call(table, "werewolf")
    table.tap("werewolf", "kill", next(p for p in NAMES if dealt[p] == "villager"))
    table.end_call()
    alive_view, alive_answer, alive_length = _seer_call(table, wolf)
    inspections = [e for e in table.truth().game.events if e["type"] == "inspection"]
    assert inspections and inspections[-1]["target"] == wolf and inspections[-1]["werewolf"]
    assert alive_answer["learnt"]["inspections"][0]["werewolf"] is True
    del seer
    # restart on a table whose seer died on night one
    table = SharedTable(server, 8)
    table.start()
    dealt = roles(table)
    wolf = next(p for p, r in dealt.items() if r == "werewolf")
    seer = _play_night_one_killing_the_seer(table, dealt)
    _vote_out_a_villager(table, dealt)
    first_call(table, "werewolf")
    table.tap("werewolf", "kill", next(p for p in table.truth().game.alive_names()
                                       if dealt[p] == "villager"))
    table.end_call()
    log_before = table.log()[1]
    dead_view, dead_answer, dead_length = _seer_call(table, wolf)
    game = table.truth().game
    living = game.alive_names()
    # what the screen shows is built from what everyone knows: the living, the verb
    for view, alive_now in ((alive_view, NAMES[:8]), (dead_view, living)):
        assert {k: v for k, v in view.items() if k != "version"} == {
            "next": None, "phase": "night", "call": "seer", "answered": False,
            "turn": {"verb": "inspect", "targets": alive_now}}
    assert set(alive_answer) == set(dead_answer)
    assert set(alive_answer["learnt"]) == set(dead_answer["learnt"]) == {"inspections"}
    assert dead_answer["learnt"]["inspections"][0]["werewolf"] is True
    assert dead_answer["view"]["answered"] is True
    assert alive_length == dead_length
    # the dead seer's tap changed nothing of the game: no inspection tonight
    assert not [e for e in game.events if e["type"] == "inspection" and e["seer"] == seer
                and game.night == 2 and e is game.events[-1]]
    taps = [e for e in table.log()[1][len(log_before):] if e["type"] == "sharedtap"]
    assert len(taps) == 1


def test_the_seers_answer_is_shown_then_hidden_at_the_next_call(server):
    table = SharedTable(server, 8)
    table.start()
    dealt = roles(table)
    seer = next(p for p, r in dealt.items() if r == "seer")
    target = next(p for p in NAMES[:8] if p != seer)
    werewolf = dealt[target] == "werewolf"
    first_call(table, "werewolf")
    table.tap("werewolf", "kill", next(p for p in NAMES if dealt[p] == "villager"))
    table.end_call()
    first_call(table, "seer")
    phone, token = table.shared[0]
    page = phone.get(f"/s/{token}").text
    assert 'class="shared-call" data-call="seer"' in page and "Seer" in page
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    r = phone.post(f"/s/{token}", data={"csrf_token": csrf, "call": "seer", "verb": "inspect",
                                        "target": target})
    assert r.status_code == 200, r.text
    answer = f"{target} is a werewolf." if werewolf else f"{target} is not a werewolf."
    done = re.search(r'<section class="pass-done shared-done"(.*?)</section>', r.text,
                     re.S).group(1)
    assert answer in done and 'id="hide-and-pass"' in done
    version = re.search(r'data-version="([^"]+)"', r.text).group(1)
    # the other shared phone never shows it; this one's page (after "done") neither
    for i in (0, 1):
        p, tok = table.shared[i]
        for path in (f"/s/{tok}", f"/s/{tok}/part"):
            assert answer not in p.get(path).text
        assert "learnt" not in table.shared_view(i)
    # the phone polls with the version it shows: unchanged while the seer's call lasts
    assert phone.get(f"/api/s/{token}", params={"since": version}).status_code == 204
    table.end_call()
    # the next call: a new version, so the page swaps the answer for the doctor's choice
    nxt = phone.get(f"/api/s/{token}", params={"since": version})
    assert nxt.status_code == 200 and nxt.json()["call"] == "doctor"
    assert answer not in phone.get(f"/s/{token}/part").text


def test_a_player_with_their_own_phone_still_plays_on_it(server):
    table = SharedTable(server, 8)
    table.start()
    dealt = roles(table)
    seer = next(p for p, r in dealt.items() if r == "seer")
    first_call(table, "werewolf")
    table.tap("werewolf", "kill", next(p for p in NAMES if dealt[p] == "villager"))
    table.end_call()
    shared = first_call(table, "seer")
    own = table.view(seer)
    assert own["turn"]["verb"] == "inspect"
    target = next(p for p in NAMES[:8] if p != seer)
    r = table.choose(seer, "inspect", target)
    assert r.status_code == 200, r.text
    assert table.view(seer)["private"]["inspections"][-1]["target"] == target
    # the shared phone shows the same as before: a choice on one's own phone says nothing
    assert table.shared_view() == shared
    # a tap there now changes nothing (the seer has chosen), and answers as any tap
    before = [e for e in table.truth().game.events if e["type"] == "inspection"]
    r = table.tap("seer", "inspect", seer)
    assert r.status_code == 200 and "inspections" in r.json()["learnt"]
    assert [e for e in table.truth().game.events if e["type"] == "inspection"] == before


def test_the_witch_sees_the_victim_on_a_shared_phone(server):
    table = SharedTable(server, 8, preset="classic")
    table.start()
    dealt = roles(table)
    first_call(table, "cupid")
    assert table.tap("cupid", "link", ["Ben", "Ana"]).json()["learnt"]["linked"] == [
        "Ana", "Ben"]
    table.end_call()
    first_call(table, "werewolf")
    victim = next(p for p in NAMES[:8] if dealt[p] == "villager")
    table.tap("werewolf", "kill", victim)
    table.end_call()
    view = first_call(table, "witch")
    assert view["victim"] == victim
    phone, token = table.shared[0]
    page = phone.get(f"/s/{token}").text
    assert victim in page and 'name="heal"' in page
    r = table.tap("witch", "witch", {"heal": True, "poison": None})
    assert r.status_code == 200, r.text
    table.end_call()
    game = table.truth().game
    assert game.phase != "night" and game.alive[game.seat[victim]]


def test_the_set_up_form_offers_and_explains_a_narrated_night_on_shared_phones(server):
    table = SharedTable(server, 8, phones=1)
    page = table.host.get(f"/h/{table.host_token}").text
    assert 'id="night-help"' in page and "taps the nearest shared phone" in page
    assert 'value="narrated" selected' in page
    assert 'id="add-shared"' in page and "With the voice narrator" in page
    table.start()
    first_call(table, "werewolf")
    # the host's own phone is a shared phone too, from its page
    host_page = table.host.get(f"/h/{table.host_token}").text
    assert f'/h/{table.host_token}/pass"' in host_page
    view = table.host.get(f"/api/h/{table.host_token}/pass").json()
    assert view["call"] == "werewolf"
