"""One Night's pages in a real browser (issue 13): Debian's Chromium through Playwright, a
real server on a loopback port, the host's phone narrating (no box, no Echo) and every player
a browser context of its own (its own cookie: its own phone) at a small phone's width.

The card is face down until its owner taps it; the night's choices are made by tapping the
page's own form while the call is open (the page redraws itself when the call comes); what
the player saw shows at once; the day's pointing on the phones; the end on every phone. The
host's page makes the set-up and starts; the time a call is held open passes through the
host's API (the host page's own ticks are held back). In English and in Spanish, with a
screenshot of every page per phase (`on-<lang>-*.png`, WOLFVILLAGE_SCREENSHOTS).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from local_voice.voices import line_voice
from phones.i18n import TEXT_DIR
from phones.web import create_app
from store import open_store
from tests import test_phones_table_browser as table
from tests.test_phones_browser import CHROMIUM, Server, catch_up, host_press, host_save, serve
from tests.test_werewords_phones_browser import Pictures, fits, join, open_room

NAMES = ["Ana", "Ben", "Cal"]


def own_text(lang: str) -> dict[str, Any]:
    return json.loads((TEXT_DIR / "one_night" / f"{lang}.json").read_text(encoding="utf-8"))

DECK = {"werewolf": 2, "seer": 1, "robber": 1, "troublemaker": 1, "villager": 1}

# the table test's browser and screenshot folder
browser, shots = table.browser, table.shots


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("one-night-browser")
    # a call stays open two seconds of ticks after its choice (what was seen shows at once)
    app = create_app(open_store(f"sqlite:///{folder}/games.db"), SECRET_KEY="test",
                     POLL_SECONDS=0.4,
                     CALL_PAUSE=2, VOICE_FACTORY=line_voice)
    with serve(app, threads=16) as running:
        yield running

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is needed")


@pytest.mark.parametrize("lang", ["en", "es"])
def test_one_night_on_phones_in_a_browser(browser: Browser, server: Server, shots: Path,
                                          lang: str) -> None:
    pictures = Pictures(shots, f"on-{lang}")
    host = open_room(browser, server, lang)
    phones: dict[str, Page] = {name: join(browser, host, name, lang) for name in NAMES}
    host_save(host.host, "game", "one-night")
    host.api("command", {"command": "deck", "arg": DECK})
    host_save(host.host, "protocol", "phones")
    expect(host.host.locator("#live #setup-summary")).to_be_visible()
    pictures.take(host.host, "host", "setup", "#setup-summary")
    pictures.take(phones["Ana"], "player", "lobby")
    host_press(host.host, "start")

    # the card, face down until tapped (and hidden again by a second tap)
    dealt: list[str | None] = []
    for i, page in enumerate(phones.values()):
        card = page.locator("details#role-card")
        role = card.locator("span.role")
        expect(card).to_be_visible()
        expect(card).not_to_have_attribute("open", "")
        expect(role).not_to_be_visible()
        if i == 0:
            pictures.take(page, "player", "card-down")
        card.locator("summary").click()
        expect(role).to_be_visible()
        dealt.append(role.get_attribute("data-role"))
        assert dealt[-1] in DECK
        if i == 0:
            pictures.take(page, "player", "card-up", "#role-card")
        card.locator("summary").click()
        expect(role).not_to_be_visible()
    pictures.take(host.host, "host", "reveal")

    host_press(host.host, "ReadyIntent")
    chosen: list[str] = []
    for _ in range(40):
        if host.view()["phase"] != "night":
            break
        acted = False
        for page in phones.values():
            catch_up(page)  # the page as the server has it now, redrawn by itself
            form = page.locator("#live form.turn")
            if form.count() == 0:
                expect(page.locator("#live p.eyes")).to_be_visible()
                eyes = "awake" if page.locator("#live p.eyes.open").count() else "asleep"
                pictures.take(page, "player", f"night-{eyes}")
                continue
            verb = form.get_attribute("data-verb")
            expect(page.locator("#live p.eyes.open")).to_be_visible()  # their own call
            pictures.take(page, "player", "night-call", "#live p.eyes")
            pictures.take(host.host, "host", "night")
            if verb == "swap":
                boxes = form.locator("input[type=checkbox]")
                boxes.nth(0).check()
                boxes.nth(1).check()
                form.locator("button[type=submit]:not([name])").click()
            else:
                form.locator("input[type=radio]").last.check()  # a player, or a centre pair
                form.locator("button[type=submit]").click()
            expect(page.locator("#live form.turn")).to_have_count(0)
            chosen.append(verb)
            if verb in ("look", "rob"):
                # what they saw, at once, eyes still open
                expect(page.locator("#live ul.facts.now li")).to_have_count(
                    2 if page.locator("li[data-fact=looked_center]").count() else 1)
                pictures.take(page, "player", "night-saw", "#live ul.facts.now")
            acted = True
            break
        if not acted:
            timer = host.view().get("timer") or {}
            host.tick(max(1, timer.get("left", 1)))
    assert host.view()["phase"] == "debate"
    # a seer, robber, troublemaker or lone werewolf among the players chose on the page
    choosers = {"seer", "robber", "troublemaker"} & set(dealt) or dealt.count("werewolf") == 1
    assert bool(chosen) == bool(choosers), (dealt, chosen)
    for page in phones.values():
        expect(page.locator("#live p.phase")).to_have_attribute("data-phase", "debate")
        expect(page.locator("#live form.turn")).to_have_count(0)  # not before the debate ends
    said = own_text(lang)
    for page in phones.values():  # the debate is the players' talk
        expect(page.locator("#live p.waiting")).to_have_text(said["on_wait_debate"])
    # the host's page (a shared screen) shows no card before the end
    expect(host.host.locator("#live [data-role]")).to_have_count(0)
    expect(host.host.locator("#role-card")).to_have_count(0)
    pictures.take(phones["Ana"], "player", "day")
    pictures.take(host.host, "host", "day")
    host_press(host.host, "skip_clock")
    for i, (name, page) in enumerate(phones.items()):
        form = page.locator("#live form.turn[data-verb=vote]")
        expect(form).to_be_visible()
        if i == 0:
            pictures.take(page, "player", "vote", "#live form.turn")
        other = NAMES[(i + 1) % len(NAMES)]
        assert name not in form.locator("input[name=target]").evaluate_all(
            "l => l.map(i => i.value)")
        form.locator(f"label:has-text('{other}') input").check()
        form.locator("button[type=submit]").click()
        if i + 1 < len(NAMES):
            expect(page.locator("#live p.voted")).to_have_attribute("data-target", other)
    for page in [host.host, *phones.values()]:
        expect(page.locator("#live section.over.one-night")).to_be_visible()
        expect(page.locator("#live table.cards td[data-center]")).to_have_count(6)
        # no doppelganger: no "counts as" column (five do not fit a small phone)
        expect(page.locator("#live table.cards")).to_have_attribute("data-columns", "4")
        inside = page.evaluate("""() => document.querySelector('#live table.cards')
            .getBoundingClientRect().right <= document.querySelector('#live section.over')
            .getBoundingClientRect().right""")
        assert inside, "the end's table overflows its box"
        heads = page.locator("#live table.cards tr").first.locator("th")
        expect(heads.last).to_have_text(said["on_votes"])
        fits(page)
    pictures.take(phones["Ana"], "player", "over", "#live section.over")
    pictures.take(host.host, "host", "over", "#live section.over")
