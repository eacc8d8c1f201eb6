"""The phone relay's refusals and safety, over real HTTP on a loopback port.

Every refusal is checked to change nothing: the stored log and every view are compared
before and after. Each "phone" is its own HTTP session with its own device id (the API's
`X-Wolf-Device` header, which the pages accept as well as the cookie).
"""

from __future__ import annotations

import logging
import re
import secrets
import threading
from pathlib import Path
from typing import Any

import pytest
import requests
from waitress import create_server
from werkzeug.serving import make_server

from local_voice.voices import line_voice
from narrator.cues import input_from_json
from narrator.narrator import Narrator
from phones.codes import ALPHABET, LENGTH
from phones.web import create_app
from store import open_store

TOKEN_RE = re.compile(r"^[A-Za-z0-9_\-]+$")
STABLE_REASONS = re.compile(r"^[a-z][a-z_]*$")


# ---------------------------------------------------------------------- the harness


def stop_waitress(httpd: Any, thread: threading.Thread) -> None:
    """Stop a waitress server at once: its loop runs while any channel is open, and the
    phones' kept-alive connections would hold it until the join's timeout (5 s a server:
    about a minute of the suite). Every channel, the listener among them, is closed by the
    loop's own thread (through its trigger), so the loop is never left polling a closed
    socket, and ends."""

    def close_all() -> None:
        for channel in list(httpd._map.values()):
            channel.close()

    try:
        httpd.trigger.pull_trigger(close_all)
    except OSError:
        # the trigger's pipe is already closed: the loop has ended (seen once in a full
        # run, EBADF); what is left open is closed from here
        close_all()
    thread.join(timeout=5)
    httpd.task_dispatcher.shutdown()


class Server:
    """The relay app on a loopback port: waitress (default) or werkzeug's server."""

    def __init__(self, db: Path, kind: str = "waitress", **config: Any):
        self.db = db
        self.url = f"sqlite:///{db}"
        config.setdefault("ROOM_GUESS_LIMIT", "1000 per minute")
        config.setdefault("ROOM_CREATE_LIMIT", "1000 per minute")
        # the voice `wolfvillage serve` gives the host page (phones has none of its own)
        config.setdefault("VOICE_FACTORY", line_voice)
        self.app = create_app(open_store(self.url), SECRET_KEY="test", **config)
        self.kind = kind
        if kind == "waitress":
            # as `wolfvillage serve` runs it (phones/serve.py): the app reads the proxy's
            # headers itself
            self.server = create_server(self.app, host="127.0.0.1", port=0, threads=8,
                                        clear_untrusted_proxy_headers=False)
            self.port = self.server.effective_port
            self.thread = threading.Thread(target=self.server.run, daemon=True)
        else:
            self.server = make_server("127.0.0.1", 0, self.app, threaded=True)
            self.port = self.server.port
            self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.base = f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        if self.kind == "waitress":
            stop_waitress(self.server, self.thread)
        else:
            self.server.shutdown()
            self.server.server_close()
        self.thread.join(timeout=5)

    def phone(self, device: str | None = None) -> Phone:
        return Phone(self, device or secrets.token_urlsafe(16))


class Phone(requests.Session):
    def __init__(self, server: Server, device: str):
        super().__init__()
        self.server = server
        self.device = device
        self.headers["X-Wolf-Device"] = device

    def request(self, method: str, url: str, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        if url.startswith("/"):
            url = self.server.base + url
        kwargs.setdefault("allow_redirects", False)
        kwargs.setdefault("timeout", 10)
        return super().request(method, url, *args, **kwargs)


class Table:
    """A room: the host's phone and token, and every player's phone and token."""

    def __init__(self, server: Server, host_name: str | None = None, lang: str | None = None):
        self.server = server
        self.host = server.phone()
        body: dict[str, Any] = {"host_name": host_name} if host_name else {}
        if lang:
            body["lang"] = lang  # the host's own pages' language
        r = self.host.post("/api/rooms", json=body)
        assert r.status_code == 200, r.text
        self.code: str = r.json()["code"]
        self.host_token: str = r.json()["host_token"]
        self.players: dict[str, tuple[Phone, str]] = {}
        if host_name:
            self.players[host_name] = (self.host, self.host_token)

    def join(self, name: str) -> str:
        phone = self.server.phone()
        r = phone.post(f"/api/rooms/{self.code}/join", json={"name": name})
        assert r.status_code == 200, r.text
        token = r.json()["token"]
        self.players[name] = (phone, token)
        return token

    def command(self, command: str, arg: Any = None) -> Any:
        r = self.host.post(f"/api/h/{self.host_token}/command",
                           json={"command": command, "arg": arg})
        assert r.status_code == 200, r.text
        return r.json()

    def heard(self, intent: str, slots: dict[str, Any] | None = None) -> Any:
        r = self.host.post(f"/api/h/{self.host_token}/heard",
                           json={"intent": intent, "slots": slots or {}})
        assert r.status_code == 200, r.text
        return r.json()

    def host_view(self) -> dict[str, Any]:
        r = self.host.get(f"/api/h/{self.host_token}")
        assert r.status_code == 200, r.text
        return r.json()

    def view(self, name: str) -> dict[str, Any]:
        phone, token = self.players[name]
        r = phone.get(f"/api/p/{token}")
        assert r.status_code == 200, r.text
        return r.json()

    def choose(self, name: str, verb: Any, target: Any) -> Any:
        phone, token = self.players[name]
        return phone.post(f"/api/p/{token}/choice", json={"verb": verb, "target": target})

    # --- the truth, read from the store on its own connection

    def game_id(self) -> str:
        store = open_store(self.server.url)
        try:
            game_id = store.lookup(f"room:{self.code}")
        finally:
            store.close()
        assert game_id
        return game_id

    def log(self) -> tuple[int, list[dict[str, Any]]]:
        store = open_store(self.server.url)
        try:
            stored = store.load(self.game_id())
        finally:
            store.close()
        return stored.version, list(stored.entries)

    def truth(self) -> Narrator:
        store = open_store(self.server.url)
        try:
            stored = store.load(self.game_id())
        finally:
            store.close()
        return Narrator.restore(stored.setup, [input_from_json(e) for e in stored.entries])

    def snapshot(self) -> Any:
        """The stored log and every view: what a refusal must leave untouched."""
        views = {name: self.view(name) for name in self.players}
        return self.log(), self.host_view(), views


def seated(server: Server, count: int, preset: str = "classic",
           night_mode: str = "all_at_once", start: bool = True,
           **options: bool) -> Table:
    table = Table(server)
    for i in range(count):
        table.join(f"P{i}")
    table.command("preset", preset)
    table.command("protocol", "phones")
    table.command("option", ["night_mode", night_mode])
    for key, value in options.items():
        table.command("option", [key, value])
    if start:
        table.command("start")
        table.heard("ReadyIntent")
    return table


def roles(table: Table) -> dict[str, str]:
    game = table.truth().game
    return {name: game.current_role(name) for name in game.players}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    srv = Server(tmp_path_factory.mktemp("relay") / "games.db")
    yield srv
    srv.stop()


def free_code(server: Server) -> str:
    store = open_store(server.url)
    try:
        while True:
            code = "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))
            if store.lookup(f"room:{code}") is None:
                return code
    finally:
        store.close()


# ---------------------------------------------------------------------- room codes


def test_room_codes_are_four_letters_of_the_alphabet_without_vowels(server: Server) -> None:
    assert not set(ALPHABET) & set("AEIOUY")
    assert LENGTH == 4
    codes = {Table(server).code for _ in range(15)}
    assert len(codes) == 15
    for code in codes:
        assert re.fullmatch(f"[{ALPHABET}]{{4}}", code), code


def test_a_wrong_code_is_404_unknown_room_and_changes_nothing(server: Server) -> None:
    table = seated(server, 5, preset="basic", start=False)
    before = table.snapshot()
    phone = server.phone()
    for code in (free_code(server), "AEIO", "BC", "12345", "", "B C D F G"):
        r = phone.post(f"/api/rooms/{code}/join", json={"name": "Zed"})
        assert r.status_code in (404, 405), (code, r.status_code)
        if code:
            assert r.json() == {"error": "unknown_room"}
    r = phone.post(f"/api/rooms/{free_code(server)}/join", json={"name": "Zed"})
    assert r.status_code == 404 and r.json()["error"] == "unknown_room"
    assert table.snapshot() == before


def test_the_code_is_case_and_space_insensitive(server: Server) -> None:
    table = Table(server)
    code = table.code
    spaced = " ".join(code.lower())
    assert server.phone().post(f"/api/rooms/{code.lower()}/join",
                               json={"name": "Lower"}).status_code == 200
    assert server.phone().post(f"/api/rooms/{spaced}/join",
                               json={"name": "Spaced"}).status_code == 200
    assert server.phone().post(f"/api/rooms/{code[:2]}-{code[2:]}/join",
                               json={"name": "Dashed"}).status_code == 200
    # and through the join form
    phone = server.phone()
    page = phone.get("/")
    csrf_token = re.search(r'name="csrf_token" value="([^"]+)"', page.text).group(1)
    r = phone.post("/join", data={"csrf_token": csrf_token, "code": f" {spaced} ",
                                  "name": "Form"})
    assert r.status_code == 303 and "/p/" in r.headers["Location"]
    assert table.host_view()["players"] == ["Lower", "Spaced", "Dashed", "Form"]


# ---------------------------------------------------------------------- joining


def test_a_taken_name_is_409_in_any_case(server: Server) -> None:
    table = seated(server, 5, preset="basic", start=False)
    before = table.snapshot()
    for name in ("P1", "p1", " P1 ", "P1".upper()):
        r = server.phone().post(f"/api/rooms/{table.code}/join", json={"name": name})
        assert r.status_code == 409 and r.json()["error"] == "name_taken", name
    assert table.snapshot() == before


def test_a_full_room_is_409_table_full(server: Server) -> None:
    table = Table(server)
    for i in range(20):
        table.join(f"P{i}")
    before = table.snapshot()
    r = server.phone().post(f"/api/rooms/{table.code}/join", json={"name": "Twentyone"})
    assert r.status_code == 409 and r.json()["error"] == "table_full"
    assert table.snapshot() == before


def test_joining_after_the_start_is_409_game_started(server: Server) -> None:
    table = seated(server, 5, preset="basic")
    before = table.snapshot()
    r = server.phone().post(f"/api/rooms/{table.code}/join", json={"name": "Late"})
    assert r.status_code == 409 and r.json()["error"] == "game_started"
    assert table.snapshot() == before


def test_an_empty_name_is_refused(server: Server) -> None:
    table = seated(server, 4, preset="basic", start=False)
    before = table.snapshot()
    for body in ({"name": ""}, {"name": "   "}, {}, {"name": None}, {"name": 7}):
        r = server.phone().post(f"/api/rooms/{table.code}/join", json=body)
        assert r.status_code == 400 and r.json()["error"] == "bad_name", body
    assert table.snapshot() == before


# ---------------------------------------------------------------------- links


def test_tokens_carry_at_least_128_random_bits(server: Server) -> None:
    table = seated(server, 6, preset="basic", start=False)
    tokens = [table.host_token] + [t for _, t in table.players.values()]
    assert len(set(tokens)) == len(tokens)
    for token in tokens:
        assert TOKEN_RE.match(token)
        # token_urlsafe(n) is ceil(4n/3) characters of 6 bits: 128 bits need 22 or more
        assert len(token) * 6 >= 128 and len(token) >= 22


def test_the_store_never_holds_a_raw_token_or_device(server: Server) -> None:
    table = seated(server, 5, preset="basic")
    secrets_given = [table.host_token, table.host.device]
    for name, (phone, token) in table.players.items():
        table.view(name)  # the device now owns the link
        secrets_given += [token, phone.device]
    raw = b"".join(p.read_bytes() for p in server.db.parent.glob(server.db.name + "*"))
    assert raw
    for secret in secrets_given:
        assert secret.encode() not in raw


def test_the_first_device_owns_the_link(server: Server) -> None:
    table = seated(server, 5, preset="basic")
    phone, token = table.players["P0"]
    assert phone.get(f"/api/p/{token}").status_code == 200
    before = table.snapshot()
    other = server.phone()
    r = other.get(f"/api/p/{token}")
    assert r.status_code == 403 and r.json()["error"] == "other_device"
    for path in (f"/p/{token}", f"/p/{token}/part"):
        page = other.get(path)
        assert page.status_code == 403 and 'data-reason="other_device"' in page.text
    r = other.post(f"/api/p/{token}/choice", json={"verb": "suspect", "target": "P1"})
    assert r.status_code == 403
    # a browser with no device cookie at all is another device too
    bare = requests.get(f"{server.base}/api/p/{token}", timeout=10)
    assert bare.status_code == 403
    # the host's link is owned the same way
    r = other.get(f"/api/h/{table.host_token}")
    assert r.status_code == 403 and r.json()["error"] == "other_device"
    assert table.snapshot() == before


def test_a_forged_or_random_token_is_404_bad_link(server: Server) -> None:
    table = seated(server, 5, preset="basic")
    _, token = table.players["P0"]
    forged = token[:-1] + ("A" if token[-1] != "A" else "B")
    phone = server.phone()
    before = table.snapshot()
    for bad in (forged, secrets.token_urlsafe(24), "x", table.code):
        r = phone.get(f"/api/p/{bad}")
        assert r.status_code == 404 and r.json()["error"] == "bad_link", bad
        assert phone.get(f"/p/{bad}").status_code == 404
        assert phone.get(f"/api/h/{bad}").status_code == 404
    # a player's link is not a host's link
    player_phone, player_token = table.players["P1"]
    r = player_phone.get(f"/api/h/{player_token}")
    assert r.status_code == 404 and r.json()["error"] == "bad_link"
    assert table.snapshot() == before


def test_a_reissued_link_kills_the_old_one_at_once(server: Server) -> None:
    table = seated(server, 5, preset="basic")
    phone, old = table.players["P2"]
    assert phone.get(f"/api/p/{old}").status_code == 200
    r = table.host.post(f"/api/h/{table.host_token}/reissue", json={"player": "P2"})
    assert r.status_code == 200
    new = r.json()["token"]
    assert new != old and len(new) >= 22
    r = phone.get(f"/api/p/{old}")
    assert r.status_code == 404 and r.json()["error"] == "bad_link"
    fresh = server.phone()
    view = fresh.get(f"/api/p/{new}").json()
    assert view["me"] == "P2" and view["private"]["role"]
    # the new link is now that new phone's
    assert phone.get(f"/api/p/{new}").status_code == 403
    # nobody else can re-issue, and an unknown player is refused
    r = phone.post(f"/api/h/{old}/reissue", json={"player": "P2"})
    assert r.status_code == 404
    r = table.host.post(f"/api/h/{table.host_token}/reissue", json={"player": "Nobody"})
    assert r.status_code == 404 and r.json()["error"] == "unknown_player"


def test_a_host_who_plays_keeps_the_host_link_when_reissuing_their_own(server: Server
                                                                        ) -> None:
    table = Table(server, host_name="Hosta")
    for i in range(4):
        table.join(f"P{i}")
    table.command("preset", "basic")
    old = table.host_token
    r = table.host.post(f"/api/h/{old}/reissue", json={"player": "Hosta"})
    assert r.status_code == 200
    new = r.json()["token"]
    assert table.host.get(f"/api/h/{old}").status_code == 404
    other = server.phone()
    view = other.get(f"/api/h/{new}").json()
    assert view["host"] is True and view["me"] == "Hosta"
    table.host, table.host_token = other, new
    table.command("start")
    assert table.host_view()["phase"] == "reveal"


# ---------------------------------------------------------------------- choices


def test_a_choice_out_of_turn_is_409_and_names_nobody(server: Server) -> None:
    table = seated(server, 12, preset="classic", night_mode="narrated")
    cast = roles(table)
    # narrated night 1: only the cupid is called; a wolf taps too early
    wolf = next(n for n, r in cast.items() if r == "werewolf")
    villager = next(n for n, r in cast.items() if r == "villager")
    before = table.snapshot()
    for name, verb, target in ((wolf, "kill", villager), (villager, "kill", wolf),
                               (villager, "vote", wolf), (wolf, "link", [wolf, villager])):
        r = table.choose(name, verb, target)
        assert r.status_code == 409, (name, verb)
        reason = r.json()["error"]
        # the reason is a stable key: never the rules' sentence naming who is awaited
        assert STABLE_REASONS.match(reason), reason
        assert not any(n in r.text for n in cast), r.text
        page = table.players[name][0].post(
            f"/p/{table.players[name][1]}/choose", data={"verb": verb, "target": villager})
        assert page.status_code in (400, 409)
        for found in re.findall(r'data-reason="([^"]*)"', page.text):
            assert STABLE_REASONS.match(found), found
    assert table.snapshot() == before


def test_targets_the_rules_forbid_are_409_and_nothing_is_stored(server: Server) -> None:
    table = seated(server, 12, preset="classic")
    cast = roles(table)
    wolves = [n for n, r in cast.items() if r == "werewolf"]
    seer = next(n for n, r in cast.items() if r == "seer")
    assert len(wolves) >= 2
    before = table.snapshot()
    assert wolves[1] not in table.view(wolves[0])["turn"]["targets"]
    r = table.choose(wolves[0], "kill", wolves[1])
    assert r.status_code == 409
    assert seer not in table.view(seer)["turn"]["targets"]
    r = table.choose(seer, "inspect", seer)
    assert r.status_code == 409
    for name, verb, target in ((seer, "inspect", "Nobody"), (seer, "inspect", None),
                               (seer, "inspect", ["P1"]), (seer, "inspect", {"x": 1}),
                               (seer, "protect", wolves[0]), (seer, None, wolves[0]),
                               (seer, 12, wolves[0])):
        r = table.choose(name, verb, target)
        assert r.status_code == 409, (verb, target, r.text)
        assert STABLE_REASONS.match(r.json()["error"])
    assert table.snapshot() == before


def test_a_double_submission_is_taken_once(server: Server) -> None:
    table = seated(server, 12, preset="classic")
    cast = roles(table)
    seer = next(n for n, r in cast.items() if r == "seer")
    target = table.view(seer)["turn"]["targets"][0]
    version, entries = table.log()
    first = table.choose(seer, "inspect", target)
    assert first.status_code == 200
    after_first = table.snapshot()
    second = table.choose(seer, "inspect", target)
    assert second.status_code == 409
    assert table.snapshot() == after_first
    new_version, new_entries = table.log()
    taps = [e for e in new_entries[len(entries):]]
    assert len(taps) == 1 and taps[0]["player"] == seer and new_version == version + 1


def test_concurrent_double_submissions_are_taken_once(server: Server) -> None:
    table = seated(server, 12, preset="classic")
    cast = roles(table)
    seer = next(n for n, r in cast.items() if r == "seer")
    target = table.view(seer)["turn"]["targets"][0]
    _, entries = table.log()
    results: list[int] = []

    def tap() -> None:
        results.append(table.choose(seer, "inspect", target).status_code)

    threads = [threading.Thread(target=tap) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == [200] + [409] * 5
    _, after = table.log()
    assert len(after) == len(entries) + 1


def test_a_malformed_body_is_400_or_415_and_changes_nothing(server: Server) -> None:
    table = seated(server, 5, preset="basic")
    phone, token = table.players["P0"]
    before = table.snapshot()
    url = f"/api/p/{token}/choice"
    r = phone.post(url, data="verb=suspect&target=P1",
                   headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert r.status_code == 415
    r = phone.post(url, data="not json", headers={"Content-Type": "text/plain"})
    assert r.status_code == 415
    r = phone.post(url, data="{not json", headers={"Content-Type": "application/json"})
    assert r.status_code == 400
    for body in ("[1, 2]", '"text"', "3", "null", ""):
        r = phone.post(url, data=body, headers={"Content-Type": "application/json"})
        assert r.status_code == 400, body
    host_url = f"/api/h/{table.host_token}"
    r = table.host.post(host_url + "/command", data="x", headers={"Content-Type": "text/plain"})
    assert r.status_code == 415
    assert table.host.post(host_url + "/command", json=[1]).status_code == 400
    assert table.host.post(host_url + "/nonsense", json={}).status_code == 404
    for seconds in ("5", None, True, [1]):
        r = table.host.post(host_url + "/tick", json={"seconds": seconds})
        assert r.status_code == 400, seconds
    assert table.snapshot() == before


def finish_night(table: Table) -> None:
    for _ in range(30):
        if table.host_view()["phase"] != "night":
            return
        for name in table.players:
            turn = table.view(name).get("turn")
            if turn:
                target = turn["targets"][0]
                if turn["verb"] == "witch":
                    target = {"heal": False, "poison": None}
                assert table.choose(name, turn["verb"], target).status_code == 200


def test_a_tick_of_nan_or_infinity_does_not_end_the_debate(server: Server) -> None:
    table = seated(server, 6, preset="basic")
    finish_night(table)
    assert table.host_view()["phase"] == "debate"
    before = table.snapshot()
    for literal in ("NaN", "Infinity", "-Infinity"):
        # Python's JSON reader takes these literals; NaN would make the clock "run out"
        r = table.host.post(f"/api/h/{table.host_token}/tick",
                            data=f'{{"seconds": {literal}}}',
                            headers={"Content-Type": "application/json"})
        assert r.status_code == 400, literal
    assert table.snapshot() == before
    assert table.host.post(f"/api/h/{table.host_token}/tick",
                           json={"seconds": 30}).status_code == 200
    assert table.host_view()["phase"] == "debate"


@pytest.mark.parametrize("protocol", ["phones", "roll_call"])
def test_during_the_debate_the_host_waits_for_nobody(server: Server, protocol: str) -> None:
    """The rules wait for the day's votes from dawn on, but the vote opens when the debate
    ends: until then the host's page names nobody it is waiting for."""
    table = seated(server, 6, preset="basic", start=False)
    table.command("protocol", protocol)
    table.command("start")
    table.heard("ReadyIntent")
    finish_night(table)
    host = table.host_view()
    assert host["phase"] == "debate" and "players" not in host["waiting"], host["waiting"]
    table.command("skip_clock")
    host = table.host_view()
    assert host["phase"] == "vote"
    assert sorted(host["waiting"]["players"]) == sorted(table.truth().game.alive_names())


def test_a_running_clock_alone_moves_the_version_every_fifteen_seconds(server: Server
                                                                         ) -> None:
    """A page counts the debate clock down by itself: a second of the clock alone is no news
    (a poll answers 204, and no phone redraws its page every second); the view still says
    the exact time left, and the version moves once the clock has crossed a 15 s step."""
    table = seated(server, 6, preset="basic")
    finish_night(table)
    name = next(iter(table.players))
    phone, token = table.players[name]
    first = table.view(name)
    left = first["timer"]["left"]
    assert first["phase"] == "debate" and left > 30
    table.host.post(f"/api/h/{table.host_token}/tick", json={"seconds": left % 15 + 1})
    crossed = table.view(name)
    assert crossed["timer"]["left"] == left - left % 15 - 1
    assert crossed["version"] != first["version"]
    table.host.post(f"/api/h/{table.host_token}/tick", json={"seconds": 1})
    same = table.view(name)
    assert same["timer"]["left"] == crossed["timer"]["left"] - 1
    assert same["version"] == crossed["version"]
    assert phone.get(f"/api/p/{token}", params={"since": same["version"]}).status_code == 204
    host = table.host_view()
    table.host.post(f"/api/h/{table.host_token}/tick", json={"seconds": 2})
    assert table.host_view()["version"] == host["version"]
    table.host.post(f"/api/h/{table.host_token}/tick", json={"seconds": 15})
    assert table.view(name)["version"] != same["version"]


def test_a_cross_origin_post_is_403_and_changes_nothing(server: Server) -> None:
    table = seated(server, 5, preset="basic")
    phone, token = table.players["P0"]
    target = table.view("P0")["turn"]["targets"][0]
    verb = table.view("P0")["turn"]["verb"]
    before = table.snapshot()
    for origin in ("https://evil.example", "http://127.0.0.1:1", "null"):
        r = phone.post(f"/api/p/{token}/choice", json={"verb": verb, "target": target},
                       headers={"Origin": origin})
        assert r.status_code == 403 and r.json()["error"] == "cross_origin", origin
        r = table.host.post(f"/api/h/{table.host_token}/command",
                            json={"command": "pause"}, headers={"Origin": origin})
        assert r.status_code == 403
        r = server.phone().post(f"/api/rooms/{table.code}/join", json={"name": "Evil"},
                                headers={"Origin": origin})
        assert r.status_code == 403
    assert table.snapshot() == before
    r = phone.post(f"/api/p/{token}/choice", json={"verb": verb, "target": target},
                   headers={"Origin": server.base})
    assert r.status_code == 200


# ---------------------------------------------------------------------- pages


def check_headers(r: Any, private: bool) -> None:
    csp = r.headers.get("Content-Security-Policy", "")
    directives = {d.strip().split(" ")[0]: d.strip() for d in csp.split(";") if d.strip()}
    assert "script-src" in directives, (r.url, csp)
    assert directives["script-src"].split()[1:] == ["'self'"], csp
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    assert r.headers.get("Referrer-Policy") == "no-referrer", r.url
    if private:
        assert "no-store" in r.headers.get("Cache-Control", ""), r.url


def test_every_response_carries_the_security_headers(server: Server) -> None:
    table = seated(server, 5, preset="basic", night_mode="pass_phones")
    phone, token = table.players["P0"]
    ht = table.host_token
    public = ["/", f"/j/{table.code}", f"/qr/{table.code}.svg", "/static/app.js",
              "/static/app.css", "/no/such/page", f"/qr/{free_code(server)}.svg"]
    for path in public:
        check_headers(phone.get(path), private=False)
    private = [(phone, f"/p/{token}"), (phone, f"/p/{token}/part"), (phone, f"/api/p/{token}"),
               (table.host, f"/h/{ht}"), (table.host, f"/h/{ht}/part"),
               (table.host, f"/api/h/{ht}"), (table.host, f"/api/h/{ht}/pass"),
               (table.host, f"/h/{ht}/pass"), (server.phone(), f"/p/{token}"),
               (server.phone(), f"/api/p/{secrets.token_urlsafe(24)}")]
    for who, path in private:
        r = who.get(path)
        check_headers(r, private=True)
    check_headers(phone.post(f"/api/p/{token}/choice", json=[1]), private=True)
    check_headers(phone.post(f"/api/p/{token}/choice", data="x"), private=True)
    check_headers(phone.post("/join", data={"code": table.code, "name": "x"}), private=False)


def test_the_join_form_without_its_csrf_token_is_400(server: Server) -> None:
    table = seated(server, 4, preset="basic", start=False)
    before = table.snapshot()
    phone = server.phone()
    r = phone.post("/join", data={"code": table.code, "name": "Sneaky"})
    assert r.status_code == 400 and 'data-reason="csrf"' in r.text
    r = phone.post("/join", data={"code": table.code, "name": "Sneaky",
                                  "csrf_token": "forged"})
    assert r.status_code == 400
    r = phone.post("/rooms", data={})
    assert r.status_code == 400
    assert table.snapshot() == before
    page = phone.get("/")
    token = re.search(r'name="csrf_token" value="([^"]+)"', page.text).group(1)
    r = phone.post("/join", data={"code": table.code, "name": "Honest", "csrf_token": token})
    assert r.status_code == 303


def test_the_player_choice_form_without_its_csrf_token_is_400(server: Server) -> None:
    table = seated(server, 5, preset="basic")
    phone, token = table.players["P0"]
    view = table.view("P0")
    before = table.snapshot()
    r = phone.post(f"/p/{token}/choose",
                   data={"verb": view["turn"]["verb"], "target": view["turn"]["targets"][0]})
    assert r.status_code == 400
    r = table.host.post(f"/h/{table.host_token}/do", data={"command": "pause"})
    assert r.status_code == 400
    assert table.snapshot() == before


def test_guessing_room_codes_is_rate_limited_with_one_budget_for_every_route(
        tmp_path: Path) -> None:
    """The API, the form and the QR code are doors to the same codes: one budget of wrong
    guesses per address spans them (each had its own before, so three times the rate)."""
    limited = Server(tmp_path / "limited.db", ROOM_GUESS_LIMIT="5 per minute")
    try:
        phone = limited.phone()
        page = phone.get("/")
        csrf_token = re.search(r'name="csrf_token" value="([^"]+)"', page.text).group(1)
        statuses = [phone.post(f"/api/rooms/{free_code(limited)}/join",
                               json={"name": "G"}).status_code for _ in range(2)]
        statuses += [phone.post("/join", data={"csrf_token": csrf_token, "name": "G",
                                               "code": free_code(limited)}).status_code
                     for _ in range(2)]
        statuses.append(phone.get(f"/qr/{free_code(limited)}.svg").status_code)
        assert statuses == [404] * 5
        r = phone.post(f"/api/rooms/{free_code(limited)}/join", json={"name": "G"})
        assert r.status_code == 429 and r.json()["error"] == "too_many"
        assert int(r.headers["Retry-After"]) >= 1
        check_headers(r, private=True)
        r = phone.post("/join", data={"csrf_token": csrf_token, "name": "G",
                                      "code": free_code(limited)})
        assert r.status_code == 429 and 'data-reason="too_many"' in r.text
        assert phone.get(f"/qr/{free_code(limited)}.svg").status_code == 429
    finally:
        limited.stop()


def test_a_bad_tick_on_the_host_form_is_a_clean_refusal(server: Server) -> None:
    table = seated(server, 5, preset="basic")
    page = table.host.get(f"/h/{table.host_token}")
    csrf_token = re.search(r'name="csrf_token" value="([^"]+)"', page.text).group(1)
    before = table.snapshot()
    for seconds in ("abc", "nan", "inf"):
        r = table.host.post(f"/h/{table.host_token}/do",
                            data={"csrf_token": csrf_token, "kind": "tick", "seconds": seconds})
        assert r.status_code == 303, (seconds, r.status_code)
    assert table.snapshot() == before


# ---------------------------------------------------------------------- logs


def test_tokens_never_reach_a_log(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    srv = Server(tmp_path / "logged.db", kind="werkzeug")
    try:
        table = seated(srv, 6, preset="basic")
        tokens = [table.host_token] + [t for _, t in table.players.values()]
        for name, (phone, token) in table.players.items():
            phone.get(f"/p/{token}")
            phone.get(f"/p/{token}/part")
            phone.get(f"/api/p/{token}?since=0")
            view = table.view(name)
            if "turn" in view:
                table.choose(name, view["turn"]["verb"], view["turn"]["targets"][0])
            table.choose(name, "kill", "P0")  # refused: logged as such, maybe
            srv.phone().get(f"/p/{token}")  # another device: refused
        table.host.get(f"/h/{table.host_token}")
        table.host.get(f"/h/{table.host_token}/pass?player=P1")
        page = table.host.get(f"/h/{table.host_token}")
        csrf_token = re.search(r'name="csrf_token" value="([^"]+)"', page.text).group(1)
        table.host.post(f"/h/{table.host_token}/do",
                        data={"csrf_token": csrf_token, "kind": "tick", "seconds": "abc"})
        new = table.host.post(f"/api/h/{table.host_token}/reissue",
                              json={"player": "P1"}).json()["token"]
        tokens.append(new)
        srv.phone().get(f"/p/{new}")
        # what Flask says about a failing request goes to the app's own logger
        srv.app.logger.error("Exception on /p/%s [GET]", tokens[1])
        srv.app.logger.error("Exception on /api/h/%s/pass [GET]", tokens[0])
    finally:
        srv.stop()
    # urllib3 is this test's own client logging what it asked for: not the server's logs
    served = [r for r in caplog.records if not r.name.startswith("urllib3")]
    assert any("/p/" in r.getMessage() for r in served), "nothing was logged"
    assert any(r.name == "werkzeug" for r in served)
    handler = logging.StreamHandler()
    text = "\n".join(handler.format(r) for r in served)
    for token in tokens:
        assert token not in text


# ---------------------------------------------------------------------- restart


def test_a_restarted_server_keeps_links_and_accepted_choices(tmp_path: Path) -> None:
    first = Server(tmp_path / "restart.db")
    table = seated(first, 12, preset="classic", night_mode="all_at_once")
    cast = roles(table)
    # the pack chooses, then a few others: about half the night
    order = sorted(table.players, key=lambda n: cast[n] != "werewolf")
    chosen: dict[str, Any] = {}
    for name in order[:6]:
        turn = table.view(name)["turn"]
        target = turn["targets"][-1]
        assert table.choose(name, turn["verb"], target).status_code == 200
        chosen[name] = target
    log_before = table.log()
    views_before = {name: table.view(name) for name in table.players}
    first.stop()

    second = Server(tmp_path / "restart.db")
    try:
        with pytest.raises(requests.ConnectionError):
            requests.get(first.base + "/", timeout=5)
        table.server = second
        for phone, _ in table.players.values():
            phone.server = second
        table.host.server = second
        assert table.log() == log_before
        for name in table.players:
            assert table.view(name) == views_before[name]
        for name in chosen:
            assert "turn" not in table.view(name)
            r = table.choose(name, "suspect", order[-1])
            assert r.status_code == 409
        pack_view = table.view(order[0])["private"]
        assert pack_view["pack_choices"] == {n: chosen[n] for n in chosen
                                             if cast[n] == "werewolf"}
        # a new device still cannot take a link over after the restart
        assert second.phone().get(f"/api/p/{table.players['P0'][1]}").status_code == 403
        # the rest of the night completes it
        for _ in range(20):
            waiting = [n for n in table.players if "turn" in table.view(n)]
            if not waiting or table.host_view()["phase"] != "night":
                break
            for name in waiting:
                turn = table.view(name)["turn"]
                if turn["verb"] == "witch":
                    target = {"heal": False, "poison": None}
                else:
                    target = turn["targets"][0]
                assert table.choose(name, turn["verb"], target).status_code == 200
        assert table.host_view()["phase"] != "night"
        _, entries = table.log()
        assert entries[: len(log_before[1])] == log_before[1]
        taps = {e["player"]: e["target"] for e in entries if e.get("type") == "tap"}
        for name, target in chosen.items():
            assert taps[name] == target
    finally:
        second.stop()


# ---------------------------------------------------------------------- the QR code


def test_the_qr_code_is_an_svg_of_the_join_page(server: Server) -> None:
    table = Table(server)
    phone = server.phone()
    r = phone.get(f"/qr/{table.code}.svg")
    assert r.status_code == 200
    assert r.headers["Content-Type"].startswith("image/svg+xml")
    assert b"<svg" in r.content
    assert phone.get(f"/qr/{table.code.lower()}.svg").status_code == 200
    assert phone.get(f"/qr/{free_code(server)}.svg").status_code == 404
    assert phone.get("/qr/AEIO.svg").status_code == 404


# ---------------------------------------------------------------------- the pages' poll


def test_the_pages_ask_for_news_as_often_as_the_server_says(server: Server,
                                                           tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    """POLL_SECONDS (or WOLFVILLAGE_POLL_SECONDS) is how often app.js and narrator.js ask
    the server whether the table moved on: 1.5 s unless set; no time is a clear error."""
    table = Table(server)
    page = server.phone().get(f"/j/{table.code}").text
    assert 'data-poll-ms="1500"' in page
    monkeypatch.setenv("WOLFVILLAGE_POLL_SECONDS", "0.5")
    quick = create_app(open_store(f"sqlite:///{tmp_path}/games.db"), SECRET_KEY="test")
    assert 'data-poll-ms="500"' in quick.test_client().get("/").text
    for wrong, said in (("soon", "number of seconds"), ("0", "between"), ("nan", "between")):
        with pytest.raises(ValueError, match=said):
            create_app(open_store(f"sqlite:///{tmp_path}/games.db"), POLL_SECONDS=wrong)
