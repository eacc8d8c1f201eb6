"""The host's pages in a real browser (headless Debian chromium): the set-up form redraws
itself on every change, a custom deck is edited card by card, the host moves to another
device with a one-time code, a re-issued link comes with a QR code that decodes to it, and
the header's icon is an image every phone can draw."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import requests
from playwright.sync_api import Browser, BrowserContext, Page, expect

from local_voice.voices import line_voice
from rules.wolf_village.balance import rating
from rules.wolf_village.presets import PRESETS
from store import open_store
from tests.test_phones_browser import (
    CHROMIUM,
    Server,
    chromium,
    create_room,
    decode_qr,
    host_press,
    host_save,
    join,
    new_phone,
    serve,
    server_version,
    wait_for_version,
)

NAMES = ["Ana", "Ben", "Cal", "Dan", "Eve", "Fay", "Gil", "Hal"]

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is needed")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    from phones.web import create_app

    folder = tmp_path_factory.mktemp("host-browser")
    app = create_app(open_store(f"sqlite:///{folder}/games.db"), SECRET_KEY="test",
                     POLL_SECONDS=0.4,
                     ROOM_GUESS_LIMIT="1000 per minute", VOICE_FACTORY=line_voice)
    with serve(app, threads=8) as running:
        yield running


@pytest.fixture(scope="module")
def browser(server: Server) -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


def seat(server: Server, code: str, names: list[str]) -> None:
    """Players join over the API (their own pages are not what these tests look at)."""
    for name in names:
        r = requests.post(f"{server.url}/api/rooms/{code}/join", json={"name": name},
                          headers={"X-Wolf-Device": f"device-{code}-{name}"}, timeout=10)
        assert r.status_code == 200, r.text


def synced(host: Page) -> None:
    wait_for_version(host, server_version(host))


def summary(host: Page) -> tuple[str, str]:
    choice = host.locator("#setup-summary [data-choice]").get_attribute("data-choice") or ""
    verdict = host.locator("#setup-summary .rating").get_attribute("data-rating") or ""
    return choice, verdict


def test_the_set_up_form_redraws_itself_on_every_change(browser: Browser, server: Server):
    context, host, code = create_room(browser, server)
    try:
        seat(server, code, NAMES)
        host.reload()
        # no Save button per field, and the form's one button is for pages without script
        expect(host.get_by_role("button", name="Save")).to_have_count(0)
        expect(host.locator("#setup button.apply")).to_be_hidden()
        # every preset says what it deals at 8 and its rating, from the rules
        for name, spec in PRESETS.items():
            label = host.locator(f'label.preset[data-preset="{name}"]')
            if spec.min_players <= 8 <= spec.max_players:
                expect(label.locator(".rating")).to_have_attribute(
                    "data-rating", rating(spec.deck(8)))
            else:
                expect(label).to_contain_text(re.compile(rf"for (exactly )?{spec.min_players}"))
        host_save(host, "preset", "classic")
        assert summary(host) == ("classic", rating(PRESETS["classic"].deck(8)))
        # a card switch makes it Custom, at once, and the sheriff's box stays as set
        with host.expect_response(lambda r: r.url.endswith("/setup")):
            host.locator("#opt-sheriff").uncheck()
        synced(host)
        expect(host.locator("#setup-summary [data-choice]")).to_have_attribute(
            "data-choice", "custom")
        expect(host.locator("#opt-sheriff")).not_to_be_checked()
        expect(host.locator('input[name="preset"][value="custom"]')).to_be_checked()
        # the custom deck editor: one more werewolf, one villager fewer
        deck = host.locator("#deck")
        if not deck.evaluate("d => d.open"):
            deck.locator("summary").click()
        wolves = host.locator("#count-werewolf")
        with host.expect_response(lambda r: r.url.endswith("/setup")):
            wolves.fill("3")
            wolves.press("Tab")
        synced(host)
        expect(host.locator(".cards-count")).to_have_attribute("data-cards", "9")
        expect(host.locator("#setup-problem")).to_contain_text("the deck has 9 cards for 8")
        villagers = host.locator("#count-villager")
        with host.expect_response(lambda r: r.url.endswith("/setup")):
            villagers.fill("1")
            villagers.press("Tab")
        synced(host)
        expect(host.locator("#setup-problem")).to_have_count(0)
        more = {**PRESETS["classic"].deck(8), "werewolf": 3, "villager": 1}
        assert summary(host) == ("custom", rating(more))
        # voting, clock and language, each by itself
        host_save(host, "protocol", "phones")
        host_save(host, "clock", "120")
        expect(host.locator("#clock option:checked")).to_have_text("2 minutes")
        # the narrator's language: the host's page keeps the host's own
        host_save(host, "language", "es")
        expect(host.locator("#setup-title")).to_have_text("Set-up")
        # a player taken off the table
        with host.expect_response(lambda r: r.url.endswith("/remove")):
            host.get_by_role("button", name="Remove: Hal").click()
        synced(host)
        expect(host.locator("ol.seats li")).to_have_count(7)
        expect(host.locator('ol.seats li[data-player="Hal"]')).to_have_count(0)
    finally:
        context.close()


def test_the_host_moves_to_another_phone(browser: Browser, server: Server):
    old_context, old, code = create_room(browser, server)
    new_context, new = new_phone(browser)
    try:
        seat(server, code, NAMES[:4])
        old.reload()
        old.locator("details.handover summary").click()
        # the code opens beside the host's page (which goes on narrating)
        with old.context.expect_page() as opened:
            old.get_by_role("button", name="Move hosting to another phone").click()
        shown = opened.value
        handover_code = shown.locator("#handover-code").get_attribute("data-code") or ""
        assert re.fullmatch(r"[A-Z]{4}-[A-Z]{4}", handover_code)
        # the new phone scans the old one's screen, and types the code it shows
        address = decode_qr(shown, "#handover-qr")
        assert address == f"{server.url}/host?room={code}"
        new.goto(address)
        expect(new.get_by_label("Room code")).to_have_value(code)
        new.get_by_label("Hand-over code").fill(handover_code.lower())
        new.get_by_role("button", name="Take over").click()
        expect(new).to_have_url(re.compile(r"/h/[A-Za-z0-9_\-]{16,}$"))
        expect(new.locator("#room-code")).to_have_text(code)
        expect(new.locator("ol.seats li")).to_have_count(4)
        # the old phone is no longer the host's, and is told where to go
        shown.get_by_role("link", name="Back").click()
        old = shown
        expect(old.locator("#reason")).to_have_attribute("data-reason", "bad_link")
        expect(old.get_by_role("link", name="Are you the host, moving to this phone?")
               ).to_be_visible()
    finally:
        old_context.close()
        new_context.close()


def test_a_reissued_link_comes_with_its_qr_code_on_a_page_of_its_own(browser: Browser,
                                                                     server: Server):
    host_context, host, code = create_room(browser, server)
    player = join(browser, f"{server.url}/j/{code}", "Ana")
    try:
        host.reload()
        # players are re-linked once the game is on: start a game of four
        seat(server, code, ["Ben", "Cal", "Dan"])
        host.reload()
        with host.expect_response(lambda r: r.url.endswith("/do")):
            host.locator('#live button[data-command="start"]').click()
        synced(host)
        with host.context.expect_page() as opened:
            host.locator('li[data-player="Ana"] button[data-command="reissue"]').click()
        page = opened.value
        expect(page.locator("h1")).to_contain_text("The new link for Ana")
        url = page.locator("#new-link").get_attribute("href") or ""
        assert decode_qr(page, "#new-link-qr") == url
        # the old link is dead on Ana's phone; the new one opens on a new phone
        player.page.reload()
        expect(player.page.locator("#reason")).to_have_attribute("data-reason", "bad_link")
        phone_context, phone = new_phone(browser)
        phone.goto(url)
        expect(phone.locator("header .me")).to_have_text("Ana")
        phone_context.close()
    finally:
        host_context.close()
        player.context.close()


def test_the_header_icon_is_an_svg_every_phone_draws(browser: Browser, server: Server):
    context, page = new_phone(browser)
    try:
        page.goto(server.url + "/")
        icon = page.locator("header img.icon")
        expect(icon).to_have_attribute("src", re.compile(r"/static/wolf\.svg$"))
        page.wait_for_function("img => img.complete && img.naturalWidth > 0",
                               arg=icon.element_handle())
        assert icon.evaluate("img => img.naturalWidth") > 0
        # no emoji left in the header for a phone without the font
        text = page.locator("header").inner_text()
        assert not re.search("[\U0001F300-\U0001FAFF]", text), text
        r = requests.get(f"{server.url}/static/wolf.svg", timeout=10)
        assert r.status_code == 200 and r.headers["Content-Type"].startswith("image/svg+xml")
    finally:
        context.close()


def test_a_tap_is_not_lost_to_a_redraw(browser: Browser, server: Server):
    """The page redraws its live part when the table moves on; a finger down on a button at
    that moment would see the button replaced under it and the tap lost (a suite run lost
    the host's "skip the debate" that way). While a finger is down the redraw waits."""
    context, host, code = create_room(browser, server)
    try:
        seat(server, code, ["Ana", "Ben"])
        host.reload()
        # the narrator's captions have come (the welcomes): nothing above the button moves
        expect(host.locator("#narrator")).to_have_attribute("data-next", re.compile(r"\d+"))
        remove = host.locator('#live li[data-player="Ana"] button[data-command="remove"]')
        pressed = remove.element_handle()
        box = pressed.bounding_box()
        assert box is not None
        host.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        host.mouse.down()
        seat(server, code, ["Cal"])  # the table moves on: the page has something to redraw
        host.wait_for_timeout(3_500)  # two polls of app.js
        assert pressed.evaluate("b => b.isConnected")
        expect(host.locator('#live li[data-player="Cal"]')).to_have_count(0)
        with host.expect_response(lambda r: r.request.method == "POST" and "remove" in r.url):
            host.mouse.up()
        # the tap counted, and the redraw it held back comes once the finger is up
        expect(host.locator('#live li[data-player="Ana"]')).to_have_count(0)
        expect(host.locator('#live li[data-player="Cal"]')).to_have_count(1)
    finally:
        context.close()


def test_a_page_shown_again_asks_for_news_at_once(browser: Browser, server: Server):
    """A phone unlocked, or its tab shown again, asks the server for news at once instead
    of at its next beat (a hidden page's timers are slowed by the browser). Here the page
    is served with a beat ten minutes long, so only being shown again can redraw it."""
    context, host, code = create_room(browser, server)

    def slow_beat(route: Any) -> None:
        answer = route.fetch()
        body = re.sub(r'data-poll-ms="\d+"', 'data-poll-ms="600000"', answer.text())
        route.fulfill(response=answer, body=body)

    try:
        context.route(re.compile(r"/h/[A-Za-z0-9_\-]+$"), slow_beat)
        host.reload()
        assert host.locator("body").get_attribute("data-poll-ms") == "600000"
        seat(server, code, ["Ana"])
        host.wait_for_timeout(1_500)  # more than the suite's beat (0.4 s): no news yet
        expect(host.locator('#live li[data-player="Ana"]')).to_have_count(0)
        host.evaluate("() => document.dispatchEvent(new Event('visibilitychange'))")
        expect(host.locator('#live li[data-player="Ana"]')).to_have_count(1, timeout=3_000)
    finally:
        context.close()


def seat_phones(server: Server, code: str, names: list[str]
                ) -> list[tuple[requests.Session, str]]:
    """Players join over the API and keep their phone (device and link) to play the night."""
    phones = []
    for name in names:
        phone = requests.Session()
        phone.headers["X-Wolf-Device"] = f"device-{code}-{name}"
        r = phone.post(f"{server.url}/api/rooms/{code}/join", json={"name": name}, timeout=10)
        assert r.status_code == 200, r.text
        phones.append((phone, r.json()["token"]))
    return phones


def play_the_night(server: Server, phones: list[tuple[requests.Session, str]],
                   night: Callable[[], bool]) -> None:
    """Every player with a turn takes the first choice their phone offers, while it is night
    (a turn may come a moment after another: the witch's once the pack has chosen)."""
    deadline = time.monotonic() + 30
    while night():
        assert time.monotonic() < deadline, "the night never ended"
        for phone, token in phones:
            turn = phone.get(f"{server.url}/api/p/{token}", timeout=10).json().get("turn")
            if turn:
                target = ({"heal": False, "poison": None} if turn["verb"] == "witch"
                          else turn["targets"][0])
                r = phone.post(f"{server.url}/api/p/{token}/choice",
                               json={"verb": turn["verb"], "target": target}, timeout=10)
                assert r.status_code == 200, r.text
        time.sleep(0.2)


def to_the_day(browser: Browser, server: Server, names: list[str], protocol: str,
               clock: str) -> tuple[BrowserContext, Page, Any, str]:
    """A room of the basic set-up (no sheriff) whose host page has started the game, and
    whose players, over the API, have played the first night: the debate is on. Returns the
    host's browser context and page, the server's relay and the game's id."""
    context, host, code = create_room(browser, server)
    phones = seat_phones(server, code, names)
    host.reload()
    host_save(host, "preset", "basic")
    host_save(host, "opt-night_mode", "all_at_once")
    host_save(host, "protocol", protocol)
    host_save(host, "clock", clock)
    host_press(host, "start")
    host_press(host, "ReadyIntent")
    relay = server.app.extensions["wolfvillage_relay"]  # type: ignore[attr-defined]
    game_id = relay.game_for_code(code)
    play_the_night(server, phones, lambda: relay.session(game_id).narrator.phase == "night")
    expect(host.locator("#live .phase")).to_have_attribute("data-phase", "debate")
    return context, host, relay, game_id


def test_the_host_records_a_roll_call_vote_for_the_voter_it_names(browser: Browser,
                                                                  server: Server):
    """The roll call on the host's page: a name picked stays picked while the page redraws
    for the same voter (the box asking "was that number three?"), a vote the box heard
    meanwhile moves the form to the next voter with nothing picked, and a form sent for a
    voter no longer asked is refused with the reason instead of becoming the next vote."""
    from narrator import Heard
    from phones.relay import handle

    context, host, relay, game_id = to_the_day(
        browser, server, ["Ana", "Ben", "Cal", "Dan", "Eve", "Fay"], "roll_call", "0")

    def asked() -> str:
        return relay.session(game_id).narrator.listening().player

    try:
        host_press(host, "skip_clock")
        form = host.locator("#live form.record-vote")
        expect(form).to_have_count(1)

        first = asked()
        expect(form.locator('input[name="slot_voter"]')).to_have_value(first)
        choices = form.locator("#vote-for option").all_inner_texts()
        pick = choices[-1]
        assert pick != choices[0]
        form.locator("#vote-for").select_option(pick)
        form.locator("#vote-for").blur()
        # the box was unsure of what it heard: it asks the voter, the page redraws
        before = server_version(host)
        assert handle(relay, game_id, Heard("VoteIntent", {"player": choices[0]}, first,
                                            sure=False)).accepted
        expect(host.locator("#live")).not_to_have_attribute("data-version", before)
        expect(host.locator("#live form.record-vote #vote-for")).to_have_value(pick)
        # the box hears the voter's answer: the next voter, nothing picked for them
        assert handle(relay, game_id, Heard("AMAZON.YesIntent", {}, first)).accepted
        second = asked()
        assert second != first
        form = host.locator(f'#live form.record-vote[data-keep="{second}"]')
        expect(form).to_have_count(1)
        assert form.locator("#vote-for").input_value() == form.locator(
            "#vote-for option").first.get_attribute("value")
        # a form still showing the first voter (the page had not redrawn yet) is refused
        form.evaluate("(f, v) => { f.querySelector('[name=slot_voter]').value = v; }", first)
        with host.expect_response(lambda r: r.request.method == "POST" and "/do" in r.url):
            form.get_by_role("button").click()
        expect(host.locator("#live .alert")).to_have_attribute("data-reason", "vote_moved_on")
        assert asked() == second
        # and the host's own vote for the voter asked now is taken
        form = host.locator(f'#live form.record-vote[data-keep="{second}"]')
        form.locator("#vote-for").select_option(pick)
        with host.expect_response(lambda r: r.request.method == "POST" and "/do" in r.url):
            form.get_by_role("button").click()
        expect(host.locator(f'#live form.record-vote[data-keep="{second}"]')).to_have_count(0)
        expect(host.locator("#live .alert")).to_have_count(0)
    finally:
        context.close()


def test_a_paused_debate_clock_stands_still_on_the_page(browser: Browser, server: Server):
    """The page counts the debate clock down by itself between two answers of the server;
    while the game is paused the server's clock stands, and so must the page's (it used to
    go on counting down to 0:00 on every phone). Paused, the host's page offers no move of
    the game (the narrator refuses them all: it used to offer "Stop the debate, vote now"),
    only Resume."""
    context, host, _, _ = to_the_day(browser, server, ["Ana", "Ben", "Cal", "Dan", "Eve"],
                                     "roll_call", "120")
    try:
        clock = host.locator("#live #debate-clock")
        expect(clock).to_have_attribute("data-countdown", re.compile(r"\d+"))
        host_press(host, "pause")
        expect(clock).to_have_attribute("data-paused", "")
        skip = host.locator('#live button[data-command="skip_clock"]')
        expect(host.locator("#live #paused-note")).to_have_text("The game is paused.")
        expect(skip).to_have_count(0)
        expect(host.locator('#live button[data-command="resume"]')).to_have_count(1)
        shown = clock.locator(".left").inner_text()
        host.wait_for_timeout(2_500)  # two of app.js's one-second countdown beats
        assert clock.locator(".left").inner_text() == shown
        host_press(host, "resume")
        expect(clock).to_have_attribute("data-countdown", re.compile(r"\d+"))
        expect(clock.locator(".left")).not_to_have_text(shown, timeout=4_000)
        expect(host.locator("#live #paused-note")).to_have_count(0)
        expect(skip).to_have_count(1)
    finally:
        context.close()
