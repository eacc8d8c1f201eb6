"""The host moves to another device with a one-time code shown on the old one.

Over real HTTP (each device its own session and device id), and at the relay for the
code's age (a clock is an input, never a sleep).
"""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

import pytest

from phones import handover
from phones.relay import Relay, RelayError
from store import open_store
from tests.test_phones_api import Server, Table


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    srv = Server(tmp_path_factory.mktemp("handover") / "games.db")
    yield srv
    srv.stop()


def offer(table: Table) -> str:
    r = table.host.post(f"/api/h/{table.host_token}/handover", json={})
    assert r.status_code == 200, r.text
    code = r.json()["code"]
    assert re.fullmatch(r"[A-Z]{4}-[A-Z]{4}", code), code
    assert r.json()["url"].endswith(f"/host?room={table.code}")
    return code


def take(server: Server, room: str, code: str) -> tuple[Any, Any]:
    device = server.phone()
    return device, device.post("/api/host", json={"room": room, "code": code})


def test_the_new_device_takes_over_and_the_old_one_loses_host_rights(server):
    table = Table(server)
    for name in ("Ana", "Ben", "Cal", "Dan"):
        table.join(name)
    code = offer(table)
    new, r = take(server, table.code.lower(), code.lower().replace("-", " "))
    assert r.status_code == 200, r.text
    token = r.json()["host_token"]
    # the new device hosts: its view, and its commands
    view = new.get(f"/api/h/{token}").json()
    assert view["host"] is True and view["players"] == ["Ana", "Ben", "Cal", "Dan"]
    assert new.post(f"/api/h/{token}/command", json={"command": "clock", "arg": 0}
                    ).status_code == 200
    # the old device's link is dead, on its page and on the API
    r = table.host.get(f"/api/h/{table.host_token}")
    assert r.status_code == 404 and r.json()["error"] == "bad_link"
    r = table.host.post(f"/api/h/{table.host_token}/command", json={"command": "start"})
    assert r.status_code == 404
    page = table.host.get(f"/h/{table.host_token}")
    assert page.status_code == 404 and 'href="/host"' in page.text
    # the new link is this device's alone
    other = server.phone()
    assert other.get(f"/api/h/{token}").json()["error"] == "other_device"
    # the players' links are untouched
    assert table.view("Ana")["me"] == "Ana"


def test_a_code_works_once(server):
    table = Table(server)
    code = offer(table)
    _, first = take(server, table.code, code)
    assert first.status_code == 200
    _, again = take(server, table.code, code)
    assert again.status_code == 404 and again.json()["error"] == "bad_handover"


def test_a_wrong_or_another_rooms_code_is_refused_and_changes_nothing(server):
    table = Table(server)
    other = Table(server)
    code = offer(table)
    other_code = offer(other)
    before = table.snapshot()
    for room, typed in ((table.code, "BCDF-GHJK"), (table.code, other_code),
                        (other.code, code), (table.code, "short"), (table.code, ""),
                        (table.code, None), (table.code, 12345678)):
        _, r = take(server, room, typed)
        assert r.status_code == 404 and r.json()["error"] == "bad_handover", (room, typed)
    _, r = take(server, "ZZZZ", code)
    assert r.status_code == 404 and r.json()["error"] == "unknown_room"
    assert table.snapshot() == before
    # the right code still works after the wrong ones
    _, r = take(server, table.code, code)
    assert r.status_code == 200


def test_a_new_code_voids_the_last(server):
    table = Table(server)
    first = offer(table)
    second = offer(table)
    _, r = take(server, table.code, first)
    assert r.status_code == 404
    _, r = take(server, table.code, second)
    assert r.status_code == 200


def test_a_host_who_plays_moves_with_their_seat(server):
    table = Table(server, host_name="Hana")
    for name in ("Ana", "Ben", "Cal"):
        table.join(name)
    code = offer(table)
    new, r = take(server, table.code, code)
    token = r.json()["host_token"]
    view = new.get(f"/api/p/{token}").json()
    assert view["me"] == "Hana" and view["host"] is True
    # the moved link is the one the table knows for Hana: re-issuing it kills it
    r = new.post(f"/api/h/{token}/reissue", json={"player": "Ana"})
    assert r.status_code == 200
    # the old device can do nothing
    assert table.host.get(f"/api/p/{table.host_token}").status_code == 404


def test_of_two_devices_typing_the_code_at_once_one_gets_the_table(server):
    table = Table(server)
    code = offer(table)
    results: list[int] = []
    barrier = threading.Barrier(6)

    def attempt() -> None:
        device = server.phone()
        barrier.wait()
        results.append(device.post("/api/host", json={"room": table.code, "code": code}
                                   ).status_code)

    threads = [threading.Thread(target=attempt) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == [200] + [404] * 5


def test_the_pages_work_without_javascript(server):
    table = Table(server)
    page = table.host.get(f"/h/{table.host_token}").text
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    r = table.host.post(f"/h/{table.host_token}/handover", data={"csrf_token": token})
    assert r.status_code == 200
    code = re.search(r'id="handover-code" data-code="([A-Z-]+)"', r.text).group(1)
    assert 'id="handover-qr"' in r.text and 'src="data:image/svg+xml' in r.text
    new = server.phone()
    form = new.get(f"/host?room={table.code}").text
    assert f'value="{table.code}"' in form
    token = re.search(r'name="csrf_token" value="([^"]+)"', form).group(1)
    r = new.post("/host", data={"csrf_token": token, "room": table.code, "code": "WRONGCOD"})
    assert r.status_code == 404 and 'data-reason="bad_handover"' in r.text
    r = new.post("/host", data={"csrf_token": token, "room": table.code, "code": code})
    assert r.status_code == 303 and re.search(r"/h/[A-Za-z0-9_\-]{16,}$", r.headers["Location"])
    assert new.get(r.headers["Location"]).status_code == 200
    assert table.host.get(f"/h/{table.host_token}").status_code == 404


def test_a_code_is_good_for_ten_minutes(tmp_path: Path):
    store = open_store(f"sqlite:///{tmp_path}/games.db")
    relay = Relay(store)
    room, token = relay.create_room()
    now = 1_000_000.0
    code = handover.offer(relay, token, "old", clock=lambda: now)
    with pytest.raises(RelayError) as refused:
        handover.take_over(relay, room, code, "new", clock=lambda: now + 601)
    assert refused.value.reason == "bad_handover"
    assert relay.host_view(token, "old")["room"] == room  # the old device still hosts
    fresh = handover.offer(relay, token, "old", clock=lambda: now)
    moved = handover.take_over(relay, room, fresh, "new", clock=lambda: now + 599)
    assert relay.host_view(moved, "new")["room"] == room
    store.close()


def test_guessing_hand_over_codes_is_rate_limited(tmp_path: Path):
    srv = Server(tmp_path / "games.db", ROOM_GUESS_LIMIT="5 per minute")
    try:
        table = Table(srv)
        device = srv.phone()
        statuses = [device.post("/api/host", json={"room": table.code, "code": "BCDFGHJK"}
                                ).status_code for _ in range(7)]
        assert statuses[:5] == [404] * 5 and statuses[5:] == [429, 429]
    finally:
        srv.stop()
