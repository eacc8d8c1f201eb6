"""Werewords on the phones, over real HTTP (a waitress server on loopback), through the
pages' own forms (CSRF and all) as a browser without script would post them.

The mayor chooses the word and taps tokens on the token pad (a token held back, taken back,
given); the host's set-up form sets the game's options; the host's screen shows the timer
and the token counts, and records the pointing heard aloud; whoops on the mayor's phone.
The game's own page words are checked in every language. (What no page may show: the leak
crawl, tests/test_werewords_phones_leaks.py.)
"""

from __future__ import annotations

import html
import json
import re
import string
from typing import Any

import pytest

from narrator.scripts.werewords import TAKE_BACK_SECONDS
from phones.i18n import TEXT_DIR, page_text
from speech import LANGUAGES
from tests.test_phones_api import Server, Table
from tests.test_werewords_phones_leaks import chrome, shows

NAMES = ["Ana", "Ben", "Cal", "Dee", "Eve"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    srv = Server(tmp_path_factory.mktemp("werewords-phones") / "games.db")
    yield srv
    srv.stop()


def csrf(page: str) -> str:
    return re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)


def text_of(page: str) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)))


class Werewords(Table):
    """A Werewords room over HTTP."""

    def __init__(self, server: Server, protocol: str = "roll_call", **options: Any):
        super().__init__(server)
        for name in NAMES:
            self.join(name)
        self.command("game", "werewords")
        self.command("protocol", protocol)
        for key, value in options.items():
            self.command("option", [key, value])

    def start(self) -> None:
        self.command("start")
        self.heard("ReadyIntent")

    def tick(self, seconds: float) -> Any:
        r = self.host.post(f"/api/h/{self.host_token}/tick", json={"seconds": seconds})
        assert r.status_code == 200, r.text
        return r.json()

    @property
    def mayor(self) -> str:
        return self.host_view()["public"]["mayor"]

    def page(self, name: str) -> str:
        phone, token = self.players[name]
        r = phone.get(f"/p/{token}")
        assert r.status_code == 200, r.text
        return r.text

    def post_form(self, name: str, fields_: dict[str, str]) -> Any:
        """A form of the player's page, posted as the page would (its CSRF token)."""
        phone, token = self.players[name]
        page = self.page(name)
        if "csrf_token" not in page:  # nothing to post on this page: a token of this phone's
            page = phone.get("/").text
        return phone.post(f"/p/{token}/choose", data={"csrf_token": csrf(page), **fields_})

    def host_page(self) -> str:
        r = self.host.get(f"/h/{self.host_token}")
        assert r.status_code == 200, r.text
        return r.text

    def host_form(self, fields_: dict[str, str]) -> Any:
        return self.host.post(f"/h/{self.host_token}/do",
                              data={"csrf_token": csrf(self.host_page()), **fields_})

    def to_the_day(self) -> str:
        """The mayor chooses the word on the page's form; the night's calls pass."""
        self.start()
        mayor = self.mayor
        page = self.page(mayor)
        words = re.findall(r'name="target" value="([^"]+)"', page)
        assert 'data-verb="choose_word"' in page and len(words) == 4
        # a word no page or story line uses for itself ("phone" is a word of the deck and of
        # the story), so that a test can look for it on the host's page
        pages = chrome("en")
        word = next((w for w in words if not shows(pages, w)), words[1])
        r = self.post_form(mayor, {"verb": "choose_word", "target": word})
        assert r.status_code == 303, r.text  # taken: back to the page
        while self.host_view()["phase"] == "night":
            self.tick(self.host_view()["timer"]["left"])
        return word


def test_the_mayor_chooses_the_word_and_taps_tokens_on_the_pad(server):
    table = Werewords(server)
    word = table.to_the_day()
    mayor = table.mayor
    ana = next(n for n in NAMES if n != mayor)
    page = table.page(mayor)
    assert 'class="turn pad"' in page and f'<strong class="magic-word">{word}</strong>' in page
    assert re.findall(r'name="token" value="(\w+)"', page) == ["yes", "no", "maybe",
                                                                 "so_close", "correct"]
    assert set(re.findall(r'name="target" value="([^"]+)"', page)) == set(NAMES) - {mayor}
    # a token tapped: held back, shown on the mayor's phone only, not yet in the counts
    r = table.post_form(mayor, {"verb": "answer", "target": ana, "token": "yes"})
    assert r.status_code == 303
    page = table.page(mayor)
    assert f'data-token="yes" data-to="{ana}"' in page and 'data-verb="take_back"' in page
    assert "(35)" in text_of(page)  # what the pad has left once it is given
    assert table.host_view()["public"]["tokens_given"] == []
    assert "take_back" not in table.page(ana) and "held" not in json.dumps(table.view(ana))
    # the host's page lets the window pass: given, and said aloud
    said = table.tick(TAKE_BACK_SECONDS)["said"]
    assert said == [{"key": "ww_token_yes", "params": {"name": ana}}]
    assert table.host_view()["public"]["tokens_given"] == [{"to": ana, "token": "yes"}]
    host = text_of(table.host_page())
    assert "Tokens left" in host and "Yes / No: 35" in host and f"{ana}: Yes" in host
    assert not shows(host, word)


def test_a_mistaken_tap_is_taken_back_on_the_page_and_never_counted(server):
    table = Werewords(server)
    table.to_the_day()
    mayor = table.mayor
    ben = [n for n in NAMES if n != mayor][1]
    table.post_form(mayor, {"verb": "answer", "target": ben, "token": "correct"})
    assert 'data-token="correct"' in table.page(mayor)
    r = table.post_form(mayor, {"verb": "take_back"})
    assert r.status_code == 303
    assert 'data-verb="take_back"' not in table.page(mayor)
    assert table.tick(30)["said"] == []
    assert table.host_view()["public"]["tokens_given"] == []
    assert table.host_view()["phase"] == "ww_day"
    # too late: nothing to take back, said on the page, nothing changes
    table.post_form(mayor, {"verb": "answer", "target": ben, "token": "no"})
    table.tick(TAKE_BACK_SECONDS)
    r = table.post_form(mayor, {"verb": "take_back"})
    assert r.status_code == 409 and 'data-reason="nothing_to_take_back"' in r.text
    assert table.host_view()["public"]["tokens_given"] == [{"to": ben, "token": "no"}]


def test_only_the_mayor_has_a_pad_and_the_timer_shows_on_every_screen(server):
    table = Werewords(server, day_seconds=180)
    table.to_the_day()
    mayor = table.mayor
    for name in NAMES:
        page = table.page(name)
        assert 'id="ww-clock"' in page and 'data-kind="ww_day"' in page
        assert ('class="turn pad"' in page) == (name == mayor)
        assert f'data-mayor="{mayor}"' in page
    assert 'data-countdown="180"' in table.host_page()
    other = next(n for n in NAMES if n != mayor)
    r = table.post_form(other, {"verb": "answer", "target": mayor, "token": "yes"})
    assert r.status_code == 409 and 'data-reason="not_your_turn"' in r.text


def test_the_host_records_the_pointing_heard_aloud_and_whoops_on_the_mayors_phone(server):
    table = Werewords(server)
    table.to_the_day()
    table.tick(240)  # nobody guessed
    assert table.host_view()["phase"] == "ww_discuss"
    # during the minute of talk nobody may point yet: the host's screen awaits nobody
    assert table.host_view()["waiting"] == {}
    page = table.host_page()
    assert 'value="SkipClockIntent"' in page and 'value="WhoopsIntent"' in page
    # paused, the narrator refuses both: the host's screen offers Resume alone, and still
    # shows the game (the clock, standing still)
    table.command("pause")
    page = table.host_page()
    assert 'value="SkipClockIntent"' not in page and 'value="WhoopsIntent"' not in page
    assert 'id="paused-note"' in page and 'data-command="resume"' in page
    assert 'id="ww-clock"' in page and "data-paused" in page
    table.command("resume")
    r = table.host_form({"kind": "heard", "intent": "SkipClockIntent"})
    assert r.status_code == 303
    view = table.host_view()
    assert view["phase"] == "ww_point"
    first = view["waiting"]["players"][0]
    page = table.host_page()
    assert f"{first} points at" in text_of(page)
    options = re.findall(r'<select id="point-at" name="slot_player">(.*?)</select>', page)[0]
    assert first not in re.findall(r'value="([^"]+)"', options)
    target = next(n for n in NAMES if n != first)
    r = table.host_form({"kind": "heard", "intent": "PointIntent", "slot_player": target})
    assert r.status_code == 303
    assert table.host_view()["public"]["voted"] == [first]
    # the mayor's whoops: the word was guessed after all
    mayor = table.mayor
    assert 'data-verb="whoops"' in table.page(mayor)
    assert 'data-verb="whoops"' not in table.page(next(n for n in NAMES if n != mayor))
    r = table.post_form(mayor, {"verb": "whoops"})
    assert r.status_code == 303
    view = table.host_view()
    assert view["phase"] == "ww_hunt" and view["public"]["ending"] == "guessed"
    assert view["public"]["voted"] == []  # the pointing so far is dropped


def test_the_host_sets_werewords_up_with_the_form(server):
    table = Werewords(server)
    page = table.host_page()
    assert 'name="choice_ww_day"' in page and 'name="opt_ww_beholder"' in page
    assert 'name="clock"' not in page  # no debate clock in this game
    assert "Mayor, Seer, Werewolf, 3 × Villager" in text_of(page)
    fields_ = {"csrf_token": csrf(page), "game": "werewords", "switches": "ww_minion ww_beholder",
               "opt_ww_beholder": "on", "choice_ww_difficulty": "ww_hard",
               "choice_ww_day": "ww_day_6", "choice_ww_words": "ww_offer_3",
               "protocol": "phones", "language": "en"}
    r = table.host.post(f"/h/{table.host_token}/setup", data=fields_)
    assert r.status_code == 303, r.text
    view = table.host_view()
    assert view["table"]["options"] == {"beholder": True, "difficulty": "hard",
                                        "day_seconds": 360, "words_offered": 3}
    assert view["table"]["protocol"] == "phones"
    summary = text_of(table.host_page())
    assert "hard words · a 6-minute day · 3 words offered" in summary
    assert "Beholder" in summary
    # a value the form never offers changes nothing
    before = table.host_view()["table"]
    bad = {**fields_, "csrf_token": csrf(table.host_page()), "choice_ww_day": "ww_day_11"}
    r = table.host.post(f"/h/{table.host_token}/setup", data=bad)
    assert table.host_view()["table"] == before
    table.start()
    game = table.host_view()["public"]
    assert (game["difficulty"], game["day_seconds"]) == ("hard", 360)
    assert game["deck"]["beholder"] == 1


def test_the_game_choice_is_on_the_set_up_form(server):
    table = Table(server)
    for name in NAMES:
        table.join(name)
    page = table.host.get(f"/h/{table.host_token}").text
    r = table.host.post(f"/h/{table.host_token}/setup",
                        data={"csrf_token": csrf(page), "game": "werewords"})
    assert r.status_code == 303
    assert table.host_view()["table"]["game"] == "werewords"


# ---------------------------------------------------------------------- the pages' words


def own(lang: str) -> dict[str, Any]:
    return json.loads((TEXT_DIR / "werewords" / f"{lang}.json").read_text(encoding="utf-8"))


def placeholders(text: str) -> set[str]:
    return {f[1] for f in string.Formatter().parse(text) if f[1]}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_werewords_page_words_in_every_language(lang):
    english, other = own("en"), own(lang)
    assert set(other) == set(english)
    for key, value in english.items():
        if isinstance(value, dict):
            assert set(other[key]) == set(value), (lang, key)
            assert all(other[key][k].strip() for k in value), (lang, key)
        else:
            assert other[key].strip() and placeholders(other[key]) == placeholders(value), (
                lang, key)
    text = page_text(lang)  # merged with the pages' own words: no key given twice
    assert text["phase_ww_day"] == other["phase_ww_day"]
    assert text["roles"]["mayor"] == other["roles"]["mayor"]
    assert text["roles"]["seer"]  # the core's role names are still there


def test_the_werewords_page_words_never_redefine_the_pages_own():
    core = json.loads((TEXT_DIR / "en.json").read_text(encoding="utf-8"))
    for key in own("en"):
        if not isinstance(own("en")[key], dict):
            assert key not in core, key
            assert key.startswith(("ww_", "phase_ww_", "verb_", "reason_")), key


def test_the_set_up_menus_say_what_each_is(server):
    """Werewords' house rules are three menus in one box (the words' difficulty, the day's
    length, the words offered): each has its own visible label, not only the box's legend."""
    table = Werewords(server)
    page = table.host_page()
    for option in ("ww_difficulty", "ww_day", "ww_words"):
        assert f'<label for="opt-{option}">' in page, option
