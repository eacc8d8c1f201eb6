"""One Night on the phones (issue 13), over real HTTP: the host's set-up for the game, each
player's card (face down until tapped), a private page for each action played through the
page's own form (no JavaScript, CSRF and all), what each saw afterwards, "close your eyes"
when the turn ends, and the day's pointing on the phones.

What may not leak is the leak crawl's business (tests/test_one_night_phones_leaks.py);
here each page is checked to show what its player is due, when it is due.
"""

from __future__ import annotations

import json
import re
import secrets
from collections import Counter
from types import SimpleNamespace
from typing import Any

import pytest

import phones.relay
from rules.core import SetupError
from rules.one_night import rating, suggested_deck, validate_deck
from rules.one_night.roles import ROLES
from tests.test_phones_api import Server, Table

NAMES = ["Ana", "Ben", "Cal", "Dan", "Eve", "Fay", "Gil", "Hal", "Ivo"]
FORM = re.compile(
    r'<form method="post" action="([^"]+)" class="turn" data-verb="([^"]+)">(.*?)</form>', re.S)
RADIO = re.compile(r"""<input type="radio" name="target_json" value='([^']*)'""")
CHECKBOX = re.compile(r'<input type="checkbox" name="target_list" value="([^"]*)"')


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    srv = Server(tmp_path_factory.mktemp("one-night-phones") / "games.db", CALL_PAUSE=5.0)
    yield srv
    srv.stop()


@pytest.fixture(autouse=True)
def fixed_deals(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every room of these tests deals from the same seed: each test plays the same game."""
    monkeypatch.setattr(phones.relay, "secrets", SimpleNamespace(
        randbelow=lambda _n: 11, token_urlsafe=secrets.token_urlsafe))


def one_night(server: Server, count: int = 5, deck: dict[str, int] | None = None,
              protocol: str = "phones") -> Table:
    table = Table(server)
    for name in NAMES[:count]:
        table.join(name)
    table.command("game", "one-night")
    if deck is not None:
        table.command("deck", deck)
    table.command("protocol", protocol)
    return table


def page(table: Table, name: str) -> str:
    phone, token = table.players[name]
    r = phone.get(f"/p/{token}")
    assert r.status_code == 200, r.text
    return r.text


def csrf(text: str) -> str:
    return re.search(r'name="csrf_token" value="([^"]+)"', text).group(1)


def post_choice(table: Table, name: str, fields: dict[str, Any]) -> Any:
    """A choice sent by the page's own form."""
    phone, _token = table.players[name]
    text = page(table, name)
    form = FORM.search(text)
    assert form is not None, (name, "no choice on the page")
    return phone.post(form.group(1), data={"csrf_token": csrf(text),
                                           "verb": form.group(2), **fields})


def counts(cards: list[str]) -> dict[str, int]:
    return dict(Counter(cards))


def tick_call(table: Table) -> None:
    timer = table.host_view().get("timer") or {}
    assert timer.get("kind") == "call", timer
    r = table.host.post(f"/api/h/{table.host_token}/tick",
                        json={"seconds": max(1, timer["left"])})
    assert r.status_code == 200, r.text


def called(table: Table) -> list[str]:
    return [n for n in table.players if "turn" in table.view(n)]


# ---------------------------------------------------------------------- the host's set-up


def test_the_host_page_offers_the_game_and_its_set_up(server):
    table = Table(server)
    for name in NAMES[:6]:
        table.join(name)
    setup = table.host_view()["setup"]
    assert setup["games"] == ["wolf-village", "one-night"] and setup["game"] == "wolf-village"
    text = table.host.get(f"/h/{table.host_token}").text
    assert '<select id="game" name="game">' in text and 'value="one-night"' in text
    # the game chosen on the page: its own set-up, votes and clocks
    r = table.host.post(f"/api/h/{table.host_token}/setup",
                        json={"game": "one-night", "protocol": "show_of_hands"})
    assert r.status_code == 200, r.text
    setup = table.host_view()["setup"]
    assert setup["game"] == "one-night" and setup["choice"] == "suggested"
    assert setup["protocols"] == ["roll_call", "phones"]  # every ballot counts
    assert setup["clocks"] == [0, 120, 180, 240, 300]
    assert setup["protocol"] == "roll_call"
    assert setup["deck"] == counts(suggested_deck(6))
    assert setup["rating"] == rating(suggested_deck(6)) == "balanced"
    assert setup["needed"] == 9 and setup["cards"] == 9
    assert setup["presets"] == [{"id": "suggested", "min": 3, "max": 12,
                                 "deck": counts(suggested_deck(6)), "rating": "balanced"}]
    assert [r["id"] for r in setup["roles"]] == list(ROLES)
    text = table.host.get(f"/h/{table.host_token}").text
    for role in ROLES:
        assert f'name="count_{role}"' in text
    assert 'value="240"' in text  # four minutes: One Night's clock
    assert 'value="show_of_hands"' not in text


def test_a_count_per_card_is_checked_with_the_rules_reasons(server):
    table = one_night(server, count=5)
    decks = [
        {"werewolf": 1, "seer": 1, "villager": 4},  # 6 cards for 5 players
        {"seer": 1, "robber": 1, "villager": 6},  # no werewolf
        {"werewolf": 1, "seer": 2, "villager": 5},  # one seer at most
        {"werewolf": 3, "mystic_wolf": 1, "villager": 4},  # too many werewolves
    ]
    for deck in decks:
        r = table.host.post(f"/api/h/{table.host_token}/setup",
                            json={"preset": "custom", "deck": deck})
        assert r.status_code == 200, r.text
        setup = table.host_view()["setup"]
        cards = [c for c, k in deck.items() for _ in range(k)]
        with pytest.raises(SetupError) as expected:
            validate_deck(cards, 5)
        assert setup["choice"] == "custom" and setup["deck"] == deck
        assert setup["problem"] == expected.value.reason
        assert setup["rating"] == rating(cards)
        text = table.host.get(f"/h/{table.host_token}").text
        assert 'id="setup-problem"' in text
        r = table.host.post(f"/api/h/{table.host_token}/command", json={"command": "start"})
        assert r.status_code == 400
    good = {"werewolf": 2, "seer": 1, "robber": 1, "troublemaker": 1, "villager": 3}
    table.host.post(f"/api/h/{table.host_token}/setup", json={"preset": "custom", "deck": good})
    assert table.host_view()["setup"]["problem"] is None
    # and back to the suggested deck
    table.host.post(f"/api/h/{table.host_token}/setup", json={"preset": "suggested"})
    setup = table.host_view()["setup"]
    assert setup["choice"] == "suggested" and setup["deck"] == counts(suggested_deck(5))


def test_the_one_night_set_up_form_works_without_javascript(server):
    table = one_night(server, count=4)
    text = table.host.get(f"/h/{table.host_token}").text
    fields = {"csrf_token": csrf(text), "game": "one-night", "preset": "custom",
              "protocol": "phones", "clock": "240", "language": "en", "switches": ""}
    deck = {"werewolf": 2, "seer": 1, "insomniac": 1, "villager": 3}
    for role in ROLES:
        fields[f"count_{role}"] = str(deck.get(role, 0))
    r = table.host.post(f"/h/{table.host_token}/setup", data=fields)
    assert r.status_code == 303 and "reason" not in r.headers["Location"]
    setup = table.host_view()["setup"]
    assert setup["deck"] == deck and setup["clock"] == 240 and setup["protocol"] == "phones"
    assert setup["problem"] is None


# ---------------------------------------------------------------------- the players' pages


def test_each_card_is_face_down_until_tapped(server):
    table = one_night(server)
    table.command("start")
    truth = table.truth()
    for name, card in truth.game.roles_as_dealt().items():
        text = page(table, name)
        card_block = re.search(r'<details class="card" id="role-card">(.*?)</details>', text, re.S)
        assert card_block is not None, name
        assert f'<span class="role" data-role="{card}">' in card_block.group(1)
        assert text.count('data-role="') == 1  # their own card, and nothing else
        assert '<details class="card" id="role-card" open' not in text
        assert "turn" not in table.view(name)


def test_a_private_page_for_each_action_and_what_was_seen(server):
    """Every call with a choice in a deck, played through each page's form: the choice
    shows only while its call is open, the player sees what they saw, and the page closes
    their eyes when the call ends."""
    deck = {"doppelganger": 1, "werewolf": 1, "seer": 1, "robber": 1, "troublemaker": 1,
            "drunk": 1, "insomniac": 1, "villager": 1}
    table = one_night(server, count=5, deck=deck)
    table.command("start")
    table.heard("ReadyIntent")
    played: list[tuple[str, str]] = []
    for _ in range(80):
        if table.host_view()["phase"] != "night":
            break
        turns = called(table)
        for name in table.players:
            text = page(table, name)
            view = table.view(name)
            # the eyes: open only in their own call, closed otherwise
            if view.get("awake"):
                assert 'class="eyes open"' in text
            else:
                assert 'class="eyes closed"' in text
            assert (FORM.search(text) is not None) == (name in turns), name
        if not turns:
            tick_call(table)
            continue
        name = turns[0]
        turn = table.view(name)["turn"]
        text = page(table, name)
        form = FORM.search(text)
        assert form.group(2) == turn["verb"]
        if turn["verb"] == "swap":
            names = CHECKBOX.findall(form.group(3))
            assert sorted(names) == sorted({n for pair in turn["targets"] if pair for n in pair})
            r = post_choice(table, name, {"target_list_sent": "1",
                                          "target_list": names[:2]})
        else:
            offered = [json.loads(v) for v in RADIO.findall(form.group(3))]
            assert all(t in turn["targets"] for t in offered)
            # every target offered once (a pair of centre cards in one order only)
            expected = [t for t in turn["targets"]
                        if not (isinstance(t, list) and t[0] > t[1])]
            assert offered == expected
            choice = next((t for t in offered if t is not None and t is not False), None)
            if choice is None and offered:
                choice = offered[0]
            r = post_choice(table, name, {"target_json": json.dumps(choice)})
        assert r.status_code == 303, r.text
        played.append((name, turn["verb"]))
        # what they saw is on their page at once; the choice is gone (a doppelganger who
        # copied a role with an action has that action next, in her own call)
        text = page(table, name)
        after = table.view(name).get("turn")
        form = FORM.search(text)
        assert (form is not None) == (after is not None)
        if after is not None:
            assert turn["verb"] == "copy" and form.group(2) == after["verb"] != "copy"
        seen = [f for f in table.view(name)["private"]["facts"] if f["fact"] != "card"]
        if seen:
            assert f'data-fact="{seen[-1]["fact"]}"' in text
    else:
        raise AssertionError("the night did not end")
    # every card with a choice that was dealt to a player had its page, and was played
    verb_of = {"doppelganger": "copy", "seer": "look", "robber": "rob",
               "troublemaker": "swap", "drunk": "drunk"}
    due = {verb_of[c] for c in table.truth().game.roles_as_dealt().values() if c in verb_of}
    assert due and due <= {verb for _, verb in played}
    # by day, every phone shows what its player saw, and no choice until the debate ends
    for name in table.players:
        assert FORM.search(page(table, name)) is None
        assert 'class="eyes' not in page(table, name)


def test_the_day_vote_on_the_phones_pages(server):
    table = one_night(server, count=4)
    table.command("start")
    table.heard("ReadyIntent")
    for _ in range(60):
        if table.host_view()["phase"] != "night":
            break
        turns = called(table)
        if turns:
            turn = table.view(turns[0])["turn"]
            target = None if None in turn["targets"] else turn["targets"][0]
            assert table.choose(turns[0], turn["verb"], target).status_code == 200
        else:
            tick_call(table)
    assert table.host_view()["phase"] == "debate"
    for name in table.players:
        assert FORM.search(page(table, name)) is None
    table.command("skip_clock")
    names = list(table.players)
    for i, name in enumerate(names):
        text = page(table, name)
        form = FORM.search(text)
        assert form is not None and form.group(2) == "vote"
        offered = [json.loads(v) for v in RADIO.findall(form.group(3))]
        assert name not in offered and None not in offered
        assert sorted(offered) == sorted(n for n in names if n != name)
        target = names[(i + 1) % len(names)]
        r = post_choice(table, name, {"target_json": json.dumps(target)})
        assert r.status_code == 303
        if i + 1 < len(names):
            text = page(table, name)
            assert f'class="voted" data-target="{target}"' in text
    # the end on every page: every card dealt and at dawn, the centre, the winners
    truth = table.truth()
    assert truth.phase == "over"
    for name in names:
        text = page(table, name)
        assert 'class="over one-night"' in text
        for player, card in truth.game.cards().items():
            assert f'<td data-player="{player}" data-role="{card}">' in text
        for i, card in enumerate(truth.game.center()):
            assert f'<td data-center="{i}" data-role="{card}">' in text
    host = table.host.get(f"/h/{table.host_token}").text
    assert 'class="over one-night"' in host


def test_a_bad_target_from_a_form_is_refused_and_changes_nothing(server):
    table = one_night(server, count=4)
    table.command("start")
    table.heard("ReadyIntent")
    for _ in range(40):
        turns = called(table)
        if turns:
            break
        tick_call(table)
    name = turns[0]
    before = table.log()
    for bad in ("{not json", json.dumps("Nobody"), json.dumps([7, 8])):
        r = post_choice(table, name, {"target_json": bad})
        assert r.status_code in (400, 409), r.status_code
        assert 'data-reason="' in r.text
        assert table.log() == before


# ---------------------------------------------------------------------- the pages' words


def test_the_pages_words_for_one_night_are_in_every_language():
    import string
    from pathlib import Path

    from phones.i18n import TEXT_DIR, page_text
    from speech import LANGUAGES

    def placeholders(text: str) -> set[str]:
        return {f[1] for f in string.Formatter().parse(text) if f[1]}

    def own(lang: str) -> dict[str, str]:
        return json.loads((TEXT_DIR / "one_night" / f"{lang}.json").read_text("utf-8"))

    english = own("en")
    assert all(key.startswith("on_") for key in english)
    for lang in LANGUAGES:
        other = own(lang)
        assert set(other) == set(english), (lang, set(english) ^ set(other))
        for key, text in english.items():
            assert other[key].strip() and placeholders(other[key]) == placeholders(text), (
                lang, key)
        merged = page_text(lang)
        assert all(merged[key] == other[key] for key in other)
    # every word a One Night template asks for is there, a card's help for every card
    templates = Path(__file__).resolve().parents[1] / "phones" / "templates"
    used = set()
    for path in templates.glob("_*one_night.html"):
        used |= set(re.findall(r"\bt\.(on_\w+)", path.read_text("utf-8")))
    assert used and used <= set(english), used - set(english)
    assert {f"on_help_{card}" for card in ROLES} <= set(english)
    assert {f"on_verb_look_{role}" for role in ("seer", "mystic_wolf")} <= set(english)
