"""`wolfvillage serve` with several worker processes: the composition, the per-worker app,
two relays over one SQLite file (what two workers are), and the poll fast path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from narrator.session import TableSession
from phones.relay import Relay
from phones.web import FastPolls, create_app
from store import open_store


def two_relays(tmp_path: Path) -> tuple[Relay, Relay]:
    url = f"sqlite:///{tmp_path / 'games.db'}"
    return Relay(open_store(url)), Relay(open_store(url))


def started_table(a: Relay, b: Relay, players: int = 5) -> tuple[str, str, list[str]]:
    """A room set up through both relays in turn, as phones spread over two workers."""
    code, host = a.create_room("en")
    tokens = [(a if i % 2 else b).join(code, f"P{i}") for i in range(players)]
    for command, arg in (("preset", "basic"), ("protocol", "phones"), ("clock", 0),
                         ("start", None)):
        (b if command == "clock" else a).host_input(host, "host-device", "command",
                                                    {"command": command, "arg": arg})
    a.host_input(host, "host-device", "heard", {"intent": "ReadyIntent", "slots": {}})
    return code, host, tokens


def test_a_relay_catches_up_with_what_another_process_stored(tmp_path: Path) -> None:
    a, b = two_relays(tmp_path)
    code, _, tokens = started_table(a, b)
    game_id = a.game_for_code(code)
    views = {t: b.player_view(t, f"dev-{t}") for t in tokens}  # b caches the table
    for token in tokens:  # every turn taken through a
        view = a.player_view(token, f"dev-{token}")
        turn = view.get("turn")
        if turn and turn.get("targets"):
            a.choose(token, f"dev-{token}", turn["verb"], turn["targets"][0])
    fresh = TableSession.resume(a.store, game_id)
    caught = b.session(game_id)
    assert caught.version == fresh.version > 0
    for token in tokens:
        assert b.player_view(token, f"dev-{token}") == Relay(a.store).player_view(
            token, f"dev-{token}")
    assert views  # b answered before and after


def test_an_input_overtaken_by_another_process_is_decided_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = two_relays(tmp_path)
    code, _ = a.create_room("en")
    a.join(code, "Ana")
    game_id = a.game_for_code(code)
    stale = b.session(game_id)
    current = b.session

    def overtaken(table: str) -> TableSession:
        # the other worker moves the table on between b's check and b's write, once
        session = current(table)
        if session is stale and len(session.narrator.config.players) == 1:
            a.join(code, "Ben")
        return session

    monkeypatch.setattr(b, "session", overtaken)
    b.join(code, "Cy")  # b's append conflicts: it reloads the table and decides again
    assert b.session(game_id) is not stale
    assert b.session(game_id).narrator.config.players == ["Ana", "Ben", "Cy"]
    assert TableSession.resume(a.store, game_id).narrator.config.players == [
        "Ana", "Ben", "Cy"]


def test_the_worker_factory_builds_the_app_from_the_environment(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from wolfvillage.serve import ENV_SETTINGS, make_app

    monkeypatch.setenv("WOLFVILLAGE_SECRET", "test-secret")
    url = f"sqlite:///{tmp_path / 'games.db'}"
    monkeypatch.setenv(ENV_SETTINGS, json.dumps({"store": url, "alexa": False}))
    app = make_app()
    assert "alexa" not in {rule.endpoint for rule in app.url_map.iter_rules()}
    assert app.test_client().post("/api/rooms", json={"lang": "en"}).status_code == 200
    monkeypatch.setenv(ENV_SETTINGS, json.dumps({"store": url, "alexa": True,
                                                 "verify_alexa": False}))
    # no skill id, no Alexa endpoint (it would answer any skill's signed requests)
    assert not any(rule.rule == "/alexa" for rule in make_app().url_map.iter_rules())
    monkeypatch.setenv(ENV_SETTINGS, json.dumps({"store": url, "alexa": True,
                                                 "verify_alexa": False,
                                                 "skill_id": "amzn1.ask.skill.test-id"}))
    assert any(rule.rule == "/alexa" for rule in make_app().url_map.iter_rules())


def test_the_serve_verb_takes_workers_and_threads() -> None:
    from wolfvillage.cli import build_parser

    args = build_parser().parse_args(["serve", "--workers", "2", "--threads", "4"])
    assert (args.workers, args.threads) == (2, 4)
    assert build_parser().parse_args(["serve"]).workers >= 1


def test_the_poll_fast_path_answers_exactly_as_flask(tmp_path: Path) -> None:
    app = create_app(open_store(f"sqlite:///{tmp_path / 'games.db'}"), SECRET_KEY="k",
                     TESTING=True)
    client = app.test_client(use_cookies=False)
    code = client.post("/api/rooms", json={"lang": "en"}).json["code"]
    token = client.post(f"/api/rooms/{code}/join", json={"name": "Ana"}).json["token"]
    fast = app.wsgi_app
    assert isinstance(fast, FastPolls)

    def both(path: str, headers: dict[str, str]) -> list[Any]:
        answers = []
        for wsgi in (fast.wsgi_app, fast):
            app.wsgi_app = wsgi  # type: ignore[method-assign]
            r = client.get(path, headers=headers)
            answers.append((r.status, sorted(r.headers.items()), r.data))
        app.wsgi_app = fast  # type: ignore[method-assign]
        return answers

    mine = {"X-Wolf-Device": "dev-1"}
    host = client.post("/api/rooms", json={"lang": "en"}).json["host_token"]
    for path in (f"/api/h/{host}", f"/api/h/{host}?since=x", f"/api/h/{token}",
                 f"/api/h/{host}/pass"):  # the host screen's polls (a player's link: 404)
        flask, ours = both(path, {"X-Wolf-Device": "dev-host"})
        assert flask == ours, path
    flask, ours = both(f"/api/h/{host}", {"X-Wolf-Device": "dev-host"})
    version = json.loads(ours[2])["version"]
    flask, ours = both(f"/api/h/{host}?since={version}", {"X-Wolf-Device": "dev-host"})
    assert flask == ours and flask[0] == "204 NO CONTENT"
    flask, ours = both(f"/api/p/{token}", mine)
    assert flask == ours and flask[0] == "200 OK"
    version = json.loads(ours[2])["version"]
    for path, headers in [(f"/api/p/{token}?since={version}", mine),
                          (f"/api/p/{token}?since=other", mine),
                          (f"/api/p/{token}", {"X-Wolf-Device": "dev-2"}),
                          (f"/api/p/x{token}", mine),
                          (f"/api/p/{token}", {"Cookie": "wv_device=dev-1"}),
                          (f"/api/p/{token}/", mine)]:
        flask, ours = both(path, headers)
        assert flask == ours, path


def test_the_choice_fast_path_answers_exactly_as_flask(tmp_path: Path) -> None:
    """A phone's choice, through the middleware and through Flask: the same status, headers
    and body; what the middleware must not judge (another origin, not JSON, a body that is
    not an object, no device id) goes to Flask."""
    app = create_app(open_store(f"sqlite:///{tmp_path / 'games.db'}"), SECRET_KEY="k",
                     TESTING=True)
    client = app.test_client(use_cookies=False)
    host_device = {"X-Wolf-Device": "dev-host"}
    room = client.post("/api/rooms", json={"lang": "en"}, headers=host_device).json
    tokens = [client.post(f"/api/rooms/{room['code']}/join", json={"name": f"P{n}"}).json[
        "token"] for n in range(6)]
    for command, arg in (("preset", "basic"), ("protocol", "phones"),
                         ("option", ["night_mode", "all_at_once"]), ("start", None)):
        client.post(f"/api/h/{room['host_token']}/command", headers=host_device,
                    json={"command": command, "arg": arg})
    client.post(f"/api/h/{room['host_token']}/heard", headers=host_device,
                json={"intent": "ReadyIntent"})
    fast = app.wsgi_app
    assert isinstance(fast, FastPolls)

    def answer(wsgi: Any, token: str, device: str, body: Any, **headers: str) -> Any:
        app.wsgi_app = wsgi  # type: ignore[method-assign]
        try:
            kwargs: dict[str, Any] = ({"data": body} if isinstance(body, bytes | str)
                                      else {"json": body})
            r = client.post(f"/api/p/{token}/choice", headers={"X-Wolf-Device": device,
                                                               **headers}, **kwargs)
        finally:
            app.wsgi_app = fast  # type: ignore[method-assign]
        return r.status, sorted(r.headers.items()), r.data

    views = {t: client.get(f"/api/p/{t}", headers={"X-Wolf-Device": f"d{t}"}).json
             for t in tokens}
    turns = [(t, v["turn"]) for t, v in views.items() if v.get("turn")]
    assert len(turns) >= 2
    # refusals (the rules', the link's, the device's) and an accepted choice, both ways
    for token, turn in turns[:1]:
        bad = {"verb": turn["verb"], "target": "Nobody-here"}
        assert answer(fast.wsgi_app, token, f"d{token}", bad) == answer(
            fast, token, f"d{token}", bad)
        assert answer(fast.wsgi_app, token, "other", bad) == answer(fast, token, "other", bad)
        assert answer(fast.wsgi_app, "x" + token, "d", bad) == answer(fast, "x" + token, "d",
                                                                      bad)
    (one, turn_one), (two, turn_two) = turns[:2]
    by_flask = answer(fast.wsgi_app, one, f"d{one}",
                      {"verb": turn_one["verb"], "target": turn_one["targets"][0]})
    by_us = answer(fast, two, f"d{two}",
                   {"verb": turn_two["verb"], "target": turn_two["targets"][0]})
    assert by_flask[0] == by_us[0] == "200 OK"
    assert [h for h in by_flask[1] if h[0] != "Content-Length"] == [
        h for h in by_us[1] if h[0] != "Content-Length"]
    assert json.loads(by_us[2]) == client.get(f"/api/p/{two}",
                                              headers={"X-Wolf-Device": f"d{two}"}).json
    # what goes to Flask: its own answers (403, 415, 400), whichever way it came in
    for body, headers in ((bad, {"Origin": "https://evil.example"}),
                          ("verb=x", {"Content-Type": "application/x-www-form-urlencoded"}),
                          ("[1, 2]", {"Content-Type": "application/json"}),
                          ('{"verb": NaN}', {"Content-Type": "application/json"})):
        assert answer(fast.wsgi_app, one, f"d{one}", body, **headers) == answer(
            fast, one, f"d{one}", body, **headers), (body, headers)


def counted_writes(relay: Relay, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the store's write transactions (each is one commit, one fsync)."""
    store = relay.store
    writes: list[int] = []
    real = store._write

    def counting(op: Any) -> Any:
        writes.append(1)
        return real(op)

    monkeypatch.setattr(store, "_write", counting)
    return writes


def test_a_room_and_a_join_are_one_write_each(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    relay = Relay(open_store(f"sqlite:///{tmp_path / 'games.db'}"))
    writes = counted_writes(relay, monkeypatch)
    code, host = relay.create_room("en")
    # the game, its room code (claimed by this write: see
    # test_two_workers_never_give_out_the_same_room_code) and the host's link
    assert len(writes) == 1
    token = relay.join(code, "Ana")
    assert len(writes) == 2  # the join and the player's link, together
    game_id = relay.game_for_code(code)
    fresh = Relay(relay.store)
    assert fresh.player_view(token, "dev-ana")["me"] == "Ana"
    assert fresh.store.lookup(f"plink:{game_id}:Ana") is not None
    assert fresh.host_view(host, "dev-host")["players"] == ["Ana"]


def test_joins_arriving_together_are_stored_in_one_write(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Twelve phones joining at once: whoever holds the table feeds every waiting join and
    stores them in one transaction; a refused one (a name taken) is refused alone."""
    import threading

    relay = Relay(open_store(f"sqlite:///{tmp_path / 'games.db'}"))
    code, _ = relay.create_room("en")
    game_id = relay.game_for_code(code)
    names = [f"P{n}" for n in range(11)] + ["P3"]
    tokens: dict[int, Any] = {}

    def join(n: int) -> None:
        try:
            tokens[n] = relay.join(code, names[n])
        except Exception as exc:  # the test looks at what it was
            tokens[n] = exc

    writes = counted_writes(relay, monkeypatch)
    threads = [threading.Thread(target=join, args=(n,)) for n in range(len(names))]
    with relay._lock(game_id):  # the table is busy: every join queues behind it
        for t in threads:
            t.start()
        while len(relay._queued.get(game_id, [])) < len(names):
            threading.Event().wait(0.001)
    for t in threads:
        t.join(10)
    assert len(writes) == 1
    refused = [v for v in tokens.values() if not isinstance(v, str)]
    assert len(refused) == 1 and getattr(refused[0], "reason", None) == "name_taken"
    stored = TableSession.resume(relay.store, game_id).narrator.config.players
    assert sorted(stored) == sorted(set(names))
    fresh = Relay(relay.store)
    for n, token in tokens.items():
        if isinstance(token, str):
            assert fresh.player_view(token, f"dev-{n}")["me"] == names[n]


def test_a_write_that_fails_is_answered_as_failed_and_the_table_reloaded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from store import StoreError

    relay = Relay(open_store(f"sqlite:///{tmp_path / 'games.db'}"))
    code, host = relay.create_room("en")
    relay.join(code, "Ana")
    game_id = relay.game_for_code(code)

    def full_disk(*_: Any, **__: Any) -> int:
        raise StoreError("disk full")

    monkeypatch.setattr(relay.store, "extend", full_disk)
    with pytest.raises(StoreError):
        relay.join(code, "Ben")
    monkeypatch.undo()
    # the narrator that took Ben's join unstored is gone: nobody is shown Ben
    assert relay.session(game_id).narrator.config.players == ["Ana"]
    assert relay.host_view(host, "dev-host")["players"] == ["Ana"]
    relay.join(code, "Ben")
    assert relay.session(game_id).narrator.config.players == ["Ana", "Ben"]


def test_a_poll_with_nothing_new_does_not_wait_for_a_busy_table(tmp_path: Path) -> None:
    """A phone polling while its table is being written (another input being fed and
    committed) gets the view of the stored table at once instead of queueing behind the
    commit; a view of a version not yet seen still waits for the table."""
    import threading

    relay = Relay(open_store(f"sqlite:///{tmp_path / 'games.db'}"))
    code, host = relay.create_room("en")
    token = relay.join(code, "Ana")
    game_id = relay.game_for_code(code)
    before = relay.player_view(token, "dev-ana")
    host_before = relay.host_view(host, "dev-host")
    answers: list[Any] = []
    with relay._lock(game_id):  # another thread holds the table (feeding, committing)
        poll = threading.Thread(target=lambda: answers.append(
            (relay.player_view(token, "dev-ana"), relay.host_view(host, "dev-host"))))
        poll.start()
        poll.join(5)
        assert answers == [(before, host_before)]
        Relay(relay.store).join(code, "Ben")  # another process moves the table on
        late = threading.Thread(target=lambda: answers.append(
            relay.player_view(token, "dev-ana")))
        late.start()
        late.join(0.3)
        assert late.is_alive()  # a new version is built under the table's lock
    late.join(5)
    assert answers[-1]["players"] == ["Ana", "Ben"]


def test_a_server_process_quiets_the_garbage_collector(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Full cycle collections over every long-lived object were the slowest 1 % of the
    answers under load (docs/phones-performance.md): a worker freezes what it holds once
    built and collects young objects less often."""
    import gc

    from wolfvillage.serve import ENV_SETTINGS, GC_YOUNG_THRESHOLD, make_app

    monkeypatch.setenv("WOLFVILLAGE_SECRET", "test-secret")
    monkeypatch.setenv(ENV_SETTINGS, json.dumps(
        {"store": f"sqlite:///{tmp_path / 'games.db'}", "alexa": False}))
    threshold = gc.get_threshold()
    try:
        make_app()
        assert gc.get_threshold()[0] == GC_YOUNG_THRESHOLD
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)


def test_two_workers_never_give_out_the_same_room_code(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rooms created at the same time through two relays over one file (two workers),
    with only 16 codes to draw from so that both draw the same free code again and again:
    each room gets a code of its own that leads to its own game, never one the other
    worker bound a moment before."""
    import threading

    import phones.codes

    monkeypatch.setattr(phones.codes, "ALPHABET", "BC")  # 2 letters x 4: 16 codes
    a, b = two_relays(tmp_path)
    made: list[tuple[str, str, Relay]] = []
    start = threading.Barrier(8)

    def create(relay: Relay) -> None:
        start.wait()
        for _ in range(2):
            code, host = relay.create_room("en")
            made.append((code, host, relay))

    threads = [threading.Thread(target=create, args=(r,)) for r in (a, b) * 4]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    codes = [code for code, _, _ in made]
    assert len(codes) == 16 and len(set(codes)) == 16, sorted(codes)
    from phones.links import Link, link_key

    for code, host, relay in made:
        game_id = a.game_for_code(code)
        assert b.game_for_code(code) == game_id
        assert Link.from_text(a.store.lookup(link_key(host))).game_id == game_id
        assert relay.host_view(host, "host-device")["room"] == code
