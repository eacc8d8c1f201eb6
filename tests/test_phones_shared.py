"""Pass the phones (seed 000): several shared phones, each for the players near it; the
shared phone shows the seer her answer before it is passed on and a werewolf the rest of
the pack. Over real HTTP."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.test_phones_api import Server, Table, roles

NAMES = ["Ana", "Ben", "Cal", "Dan", "Eve", "Fay", "Gil", "Hal"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    srv = Server(tmp_path_factory.mktemp("shared") / "games.db")
    yield srv
    srv.stop()


def pass_table(server: Server, seed_players: list[str] = NAMES) -> Table:
    table = Table(server)
    for name in seed_players:
        table.join(name)
    table.command("preset", "classic")
    table.command("protocol", "phones")
    table.command("option", ["night_mode", "pass_phones"])
    return table


def add_shared(table: Table, serves: list[str] | None) -> tuple[Any, str]:
    r = table.host.post(f"/api/h/{table.host_token}/shared", json={"serves": serves})
    assert r.status_code == 200, r.text
    device = table.server.phone()
    token = r.json()["token"]
    assert r.json()["url"].endswith(f"/s/{token}")
    return device, token


def pick(turn: dict[str, Any]) -> Any:
    target = next(t for t in turn["targets"] if t is not None)
    if turn["verb"] == "witch":
        return {"heal": False, "poison": None}
    return target


def test_several_shared_phones_each_take_the_turns_of_their_own_players(server):
    table = pass_table(server)
    near_a, near_b = NAMES[:4], NAMES[4:]
    phone_a, token_a = add_shared(table, near_a)
    phone_b, token_b = add_shared(table, near_b)
    table.command("start")
    table.heard("ReadyIntent")
    played: dict[str, list[str]] = {"a": [], "b": []}
    for _ in range(len(NAMES)):
        for key, (phone, token, near) in {"a": (phone_a, token_a, near_a),
                                          "b": (phone_b, token_b, near_b)}.items():
            view = phone.get(f"/api/s/{token}").json()
            if view.get("phase") != "night" or view["next"] is None:
                continue
            nxt = view["next"]
            assert nxt in near, (key, nxt)
            # someone else's name does not open their turn on this phone
            for other in NAMES:
                if other != nxt:
                    assert "private" not in phone.get(f"/api/s/{token}",
                                                      params={"player": other}).json()
            mine = phone.get(f"/api/s/{token}", params={"player": nxt}).json()
            r = phone.post(f"/api/s/{token}", json={"player": nxt, "verb": mine["turn"]["verb"],
                                                    "target": pick(mine["turn"])})
            assert r.status_code == 200, r.text
            played[key].append(nxt)
        if table.truth().game.phase != "night":
            break
    # every living player played on the phone near them, in seat order
    assert played["a"] == near_a and played["b"] == near_b
    assert table.truth().game.night == 1 and table.truth().game.phase != "night"


def test_the_seer_sees_her_answer_and_a_werewolf_the_pack_before_passing_on(server):
    table = pass_table(server)
    table.command("start")
    table.heard("ReadyIntent")
    dealt = roles(table)
    pack = sorted(p for p, r in dealt.items() if r == "werewolf")
    base = f"/h/{table.host_token}/pass"
    seen: set[str] = set()
    for _ in range(len(NAMES)):
        view = table.host.get(f"/api/h/{table.host_token}/pass").json()
        nxt = view["next"]
        if nxt is None:
            break
        page = table.host.get(base, params={"player": nxt}).text
        mine = table.host.get(f"/api/h/{table.host_token}/pass", params={"player": nxt}).json()
        turn = mine["turn"]
        if dealt[nxt] == "werewolf":
            # the rest of the pack, on the turn itself
            listed = re.search(r'<ul class="pack">(.*?)</ul>', page, re.S).group(1)
            assert sorted(re.findall(r"<li>([^<]+)</li>", listed)) == sorted(
                p for p in pack if p != nxt)
            seen.add("pack")
        token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
        target = pick(turn)
        form = {"csrf_token": token, "verb": turn["verb"], "player": nxt}
        if turn["verb"] == "witch":
            form["poison"] = ""
        else:
            form["target"] = target  # a pair for cupid: sent as two values
        r = table.host.post(base, data=form)
        assert r.status_code == 200, r.text
        done = re.search(r'<section class="pass-done"(.*?)</section>', r.text, re.S).group(1)
        assert f">{nxt}<" in done and 'id="hide-and-pass"' in done
        if dealt[nxt] == "seer":
            # the seer's answer, on the same phone, before it goes to the next player
            werewolf = dealt[target] == "werewolf"
            answer = f"{target} is a werewolf." if werewolf else f"{target} is not a werewolf."
            assert re.search(rf'class="answer" data-werewolf="{"yes" if werewolf else "no"}">'
                             rf"{re.escape(answer)}<", done), done
            seen.add("seer")
        # the next page shows nothing of this player
        after = table.host.get(base).text
        assert f'data-role="{dealt[nxt]}"' not in after
    assert seen == {"pack", "seer"}


def test_a_shared_phone_is_not_the_hosts_and_belongs_to_one_device(server):
    table = pass_table(server)
    phone, token = add_shared(table, None)
    assert phone.get(f"/s/{token}").status_code == 200
    for path in (f"/api/h/{token}", f"/h/{token}"):
        assert phone.get(path).status_code == 404
    r = phone.post(f"/api/h/{token}/command", json={"command": "start"})
    assert r.status_code == 404
    other = server.phone()
    assert other.get(f"/api/s/{token}").json()["error"] == "other_device"
    # a player's link is not a shared phone
    player_phone, player_token = table.players["Ana"]
    assert player_phone.get(f"/api/s/{player_token}").status_code == 404


def test_a_shared_phone_for_unknown_players_is_refused(server):
    table = pass_table(server)
    for serves in (["Zed"], [], "Ana", [1]):
        r = table.host.post(f"/api/h/{table.host_token}/shared", json={"serves": serves})
        assert r.status_code == 400, serves
