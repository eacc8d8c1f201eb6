"""One Night's pages in a real browser (issue 13): Debian's Chromium through Playwright, a
real server on a loopback port, every player a browser context of its own (its own cookie:
its own phone) with a mobile viewport.

The card is face down until its owner taps it; the night's choices are made by tapping the
page's own form while the call is open; what the player saw shows at once; the day's
pointing on the phones; the end on every phone. The host's commands and the time a call is
held open go through the host's API (the host's own page is Wolf Village's test's business).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
import requests
import waitress
from playwright.sync_api import Browser, Page, expect, sync_playwright

from phones.web import create_app
from store import open_store
from tests.test_phones_browser import CHROMIUM, CHROMIUM_ARGS, PHONE

WAIT_MS = 8_000
NAMES = ["Ana", "Ben", "Cal"]
DECK = {"werewolf": 2, "seer": 1, "robber": 1, "troublemaker": 1, "villager": 1}

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is needed")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("one-night-browser")
    app = create_app(open_store(f"sqlite:///{folder}/games.db"), SECRET_KEY="test",
                     CALL_PAUSE=2)
    httpd = waitress.create_server(app, host="127.0.0.1", port=0, threads=8)
    port = httpd.socket.getsockname()[1]
    thread = threading.Thread(target=httpd.run, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        httpd.task_dispatcher.shutdown()
        httpd.close()
        thread.join(timeout=5)


@pytest.fixture(scope="module")
def browser(server: str) -> Iterator[Browser]:
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                     args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


class Host:
    def __init__(self, base: str):
        self.base = base
        self.http = requests.Session()
        self.http.headers["X-Wolf-Device"] = "the-host-device"
        r = self.http.post(f"{base}/api/rooms", json={}, timeout=10)
        self.code, self.token = r.json()["code"], r.json()["host_token"]

    def post(self, kind: str, body: dict[str, Any]) -> dict[str, Any]:
        r = self.http.post(f"{self.base}/api/h/{self.token}/{kind}", json=body, timeout=10)
        assert r.status_code == 200, r.text
        return r.json()

    def command(self, command: str, arg: Any = None) -> None:
        self.post("command", {"command": command, "arg": arg})

    def view(self) -> dict[str, Any]:
        return self.http.get(f"{self.base}/api/h/{self.token}", timeout=10).json()


def fresh(page: Page) -> None:
    """The page as the server has it now (app.js would redraw it within a poll)."""
    page.reload()


def test_one_night_on_phones_in_a_browser(browser: Browser, server: str) -> None:
    host = Host(server)
    phones: dict[str, Page] = {}
    for name in NAMES:
        context = browser.new_context(**PHONE)
        context.set_default_timeout(WAIT_MS)
        page = context.new_page()
        page.goto(f"{server}/j/{host.code}")
        page.fill("input[name=name]", name)
        page.click("form button[type=submit]")
        expect(page.locator("p.phase")).to_have_attribute("data-phase", "lobby")
        phones[name] = page
    host.command("game", "one-night")
    host.command("deck", DECK)
    host.command("protocol", "phones")
    host.command("start")

    # the card, face down until tapped (and hidden again by a second tap)
    for page in phones.values():
        fresh(page)
        card = page.locator("details#role-card")
        role = card.locator("span.role")
        expect(card).not_to_have_attribute("open", "")
        expect(role).not_to_be_visible()
        card.locator("summary").click()
        expect(role).to_be_visible()
        assert role.get_attribute("data-role") in DECK
        card.locator("summary").click()
        expect(role).not_to_be_visible()

    host.post("heard", {"intent": "ReadyIntent", "slots": {}})
    chosen: list[str] = []
    for _ in range(40):
        if host.view()["phase"] != "night":
            break
        acted = False
        for page in phones.values():
            fresh(page)
            form = page.locator("form.turn")
            if form.count() == 0:
                expect(page.locator("p.eyes")).to_be_visible()
                continue
            verb = form.get_attribute("data-verb")
            expect(page.locator("p.eyes.open")).to_be_visible()  # their own call
            if verb == "swap":
                boxes = form.locator("input[type=checkbox]")
                boxes.nth(0).check()
                boxes.nth(1).check()
                form.locator("button[type=submit]:not([name])").click()
            else:
                form.locator("input[type=radio]").last.check()  # a player, or a centre pair
                form.locator("button[type=submit]").click()
            expect(page.locator("form.turn")).to_have_count(0)
            chosen.append(verb)
            if verb in ("look", "rob"):
                # what they saw, at once, eyes still open
                expect(page.locator("ul.facts.now li")).to_have_count(
                    2 if page.locator("li[data-fact=looked_center]").count() else 1)
            acted = True
            break
        if not acted:
            timer = host.view().get("timer") or {}
            host.post("tick", {"seconds": max(1, timer.get("left", 1))})
    assert host.view()["phase"] == "debate"
    assert chosen, "no choice was made on a page"
    for page in phones.values():
        fresh(page)
        expect(page.locator("form.turn")).to_have_count(0)  # not before the debate ends
    host.command("skip_clock")
    for i, page in enumerate(phones.values()):
        fresh(page)
        form = page.locator("form.turn[data-verb=vote]")
        expect(form).to_be_visible()
        other = NAMES[(i + 1) % len(NAMES)]
        form.locator(f"label:has-text('{other}') input").check()
        form.locator("button[type=submit]").click()
        if i + 1 < len(NAMES):
            expect(page.locator("p.voted")).to_have_attribute("data-target", other)
    for page in phones.values():
        fresh(page)
        expect(page.locator("section.over.one-night")).to_be_visible()
        expect(page.locator("table.cards td[data-center]")).to_have_count(6)
