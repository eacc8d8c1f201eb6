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


def test_an_input_overtaken_by_another_process_is_decided_again(tmp_path: Path) -> None:
    a, b = two_relays(tmp_path)
    code, _ = a.create_room("en")
    a.join(code, "Ana")
    game_id = a.game_for_code(code)
    stale = b.session(game_id)
    a.join(code, "Ben")  # the other worker moves the table on
    from narrator import Host

    session, reply = b._feed(stale, Host("join", "Cy"))
    assert reply.accepted
    assert session.narrator.config.players == ["Ana", "Ben", "Cy"]
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
