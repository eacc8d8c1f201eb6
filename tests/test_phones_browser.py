"""The phone relay in a real browser: a whole game played through the pages, phone by phone.

A real server (waitress on a loopback port, a SQLite store in a temporary folder) and
Debian's Chromium driven by Playwright. Every player is a browser context of its own (its
own cookies: its own phone) with a mobile viewport; the host has another. Nothing is mocked
and nothing reads the server's private state to decide a move: whose turn it is comes from
the pages (a `form.turn` on a phone, the phase and the buttons on the host's page), and the
pages move on by themselves (app.js polls the server). The test only waits through
Playwright's auto-waiting assertions, synchronised on the version each page shows.
"""

from __future__ import annotations

import contextlib
import random
import re
import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import pytest
import waitress
import zxingcpp
from playwright.sync_api import Browser, BrowserContext, Locator, Page, expect, sync_playwright

from local_voice.voices import line_voice
from phones.codes import ALPHABET
from phones.relay import RelayError
from phones.web import create_app
from rules.wolf_village.presets import PRESETS
from store import open_store
from tests.test_phones_api import stop_waitress

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PHONE = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
}
NAMES = ["Ana", "Ben", "Carla", "Dev", "Elif", "Farid", "Greta", "Hugo"]
WAIT_MS = 8_000  # one poll of app.js is 1.5 s; this only bounds a broken page
MAX_STEPS = 400  # a game of 8 ends long before this many sync points

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is needed")


# ---------------------------------------------------------------------- server and browser


@dataclass
class Server:
    url: str
    port: int
    app: object


def serve(app: object, threads: int = 8) -> contextlib.AbstractContextManager[Server]:
    """The app served by waitress on a loopback port for the block's length (every
    browser test's server)."""

    @contextlib.contextmanager
    def running() -> Iterator[Server]:
        httpd = waitress.create_server(app, host="127.0.0.1", port=0, threads=threads)
        port = httpd.socket.getsockname()[1]
        thread = threading.Thread(target=httpd.run, name="wolfvillage-test-server",
                                  daemon=True)
        thread.start()
        try:
            yield Server(f"http://127.0.0.1:{port}", port, app)
        finally:
            stop_waitress(httpd, thread)

    return running()


@contextlib.contextmanager
def chromium() -> Iterator[Browser]:
    """Debian's Chromium, headless, for the block's length."""
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                     args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("phones")
    # a night call is held open for a second of the host page's ticks (12 s by default);
    # pages ask for news every second (1.5 s in a real room): with nine pages open, asking
    # every 0.4 s cost chromium more than the game itself (42 -> 30 CPU-s, and faster)
    app = create_app(open_store(f"sqlite:///{folder}/games.db"), SECRET_KEY="test",
                     POLL_SECONDS=1.0, CALL_PAUSE=1,
                     VOICE_FACTORY=line_voice)
    with serve(app, threads=12) as running:
        yield running


@pytest.fixture(scope="module")
def browser(server: Server) -> Iterator[Browser]:
    # depends on the server so that the browser (and every page that polls) closes first
    with chromium() as launched:
        yield launched


def new_phone(browser: Browser) -> tuple[BrowserContext, Page]:
    context = browser.new_context(**PHONE)
    context.set_default_timeout(WAIT_MS)
    return context, context.new_page()


# ---------------------------------------------------------------------- page helpers


@dataclass
class Phone:
    name: str
    context: BrowserContext
    page: Page
    url: str = ""
    role: str | None = None


def live_version(page: Page) -> str:
    return page.locator("#live").get_attribute("data-version") or ""


SERVER_VERSION = """() => fetch(document.getElementById("live").dataset.poll,
    {credentials: "same-origin"}).then(r => r.json()).then(v => String(v.version))"""


SHOWN_AGAIN = "() => document.dispatchEvent(new Event('visibilitychange'))"


def server_version(page: Page) -> str:
    """The version tag the server gives this page now (a hash of what this viewer sees)."""
    return page.evaluate(SERVER_VERSION)


def wait_for_version(page: Page, version: str) -> None:
    """Wait until app.js has brought the page's live part up to `version`."""
    expect(page.locator("#live")).to_have_attribute("data-version", version)


def catch_up(page: Page) -> None:
    """Wait until the page shows what the server shows it now. While the narrator's timer
    runs (a night call held open, ticked by the host's page) the view moves on every
    second, so the server's version is asked again until the page has caught it. A page
    behind is told it is in view again (app.js asks for news at once then, as a phone
    unlocked does) instead of waiting for its next beat: the suite's pages spent about half
    of their time waiting for it (the table games: 28 of 58 s)."""
    for _ in range(20):
        version = server_version(page)
        if live_version(page) != version:
            page.evaluate(SHOWN_AGAIN)
        try:
            expect(page.locator("#live")).to_have_attribute("data-version", version,
                                                           timeout=2_500)
            return
        except AssertionError:
            continue
    wait_for_version(page, server_version(page))


def phase_of(page: Page) -> str:
    return page.locator("#live .phase").get_attribute("data-phase") or ""


def turn_form(page: Page) -> Locator:
    return page.locator("#live form.turn")


def has_turn(page: Page) -> bool:
    """Whether the page shows a secret choice to make (read once: call after a sync)."""
    return turn_form(page).count() > 0


def no_refusal(page: Page) -> None:
    expect(page.locator("[data-reason]")).to_have_count(0)


def out_names(page: Page) -> set[str]:
    return set(page.locator("#live ul.players li.out").evaluate_all(
        "items => items.map(li => li.dataset.player)"))


def submit_random_choice(phone: Phone, rng: random.Random) -> tuple[str, object]:
    """Pick a random legal answer among the inputs the turn form offers, and send it."""
    page = phone.page
    form = turn_form(page)
    verb = form.get_attribute("data-verb") or ""
    alive = set(page.locator("#live ul.players li.in").evaluate_all(
        "items => items.map(li => li.dataset.player)"))
    if verb == "witch":
        choice: dict[str, object] = {"heal": False, "poison": None}
        heal = form.locator('input[name="heal"]')
        if heal.count() and rng.random() < 0.5:
            heal.check()
            choice["heal"] = True
        poisons = form.locator('input[name="poison"]')
        values = poisons.evaluate_all("xs => xs.map(x => x.value)")
        assert set(values) - {""} <= alive - {phone.name}, values
        victims = [v for v in values if v]
        # the poison is kept for later three times out of four, so that most games see a day
        if victims and rng.random() < 0.25:
            pick = values.index(rng.choice(victims))
            poisons.nth(pick).check()
            choice["poison"] = values[pick]
        answer: object = choice
    elif verb == "link":
        boxes = form.locator('input[type="checkbox"][name="target"]')
        values = boxes.evaluate_all("xs => xs.map(x => x.value)")
        assert set(values) == alive, (values, alive)
        picks = rng.sample(range(len(values)), 2)
        for i in picks:
            boxes.nth(i).check()
        answer = [values[i] for i in picks]
    else:
        radios = form.locator('input[type="radio"][name="target"]')
        values = radios.evaluate_all("xs => xs.map(x => x.value)")
        assert values, f"{phone.name}'s {verb} form offers no choice"
        names = set(values) - {"__nobody__"}
        # only legal targets: living players, never oneself where the rules forbid it
        assert names <= alive, (verb, values, alive)
        if verb in ("inspect", "shoot", "pass_badge", "kill"):
            assert phone.name not in names, (verb, values)
        if verb == "kill":
            pack = set(page.locator("#live ul.pack li").all_inner_texts())
            assert not names & pack, (values, pack)
        if verb in ("vote", "elect", "pass_badge"):
            assert "__nobody__" in values, (verb, values)
        pick = rng.randrange(len(values))
        radios.nth(pick).check()
        expect(radios.nth(pick)).to_be_checked()
        answer = None if values[pick] == "__nobody__" else values[pick]
    with page.expect_navigation():
        form.get_by_role("button").click()
    no_refusal(page)
    return verb, answer


def host_press(host: Page, command: str) -> None:
    """Press one of the host's buttons (by the command or intent it sends). The page sends
    it without leaving (the narrator on the page keeps talking) and redraws itself."""
    with host.expect_response(lambda r: r.request.method == "POST" and "/do" in r.url):
        host.locator(f'#live button[data-command="{command}"]').click()
    catch_up(host)
    no_refusal(host)


def host_save(host: Page, select_id: str, value: str) -> None:
    """Change one field of the host's set-up form: the page sends the whole form at once
    (no Save button) and redraws itself with what the narrator made of it."""
    field = (host.locator(f'#setup input[name="preset"][value="{value}"]') if select_id == "preset"
             else host.locator(f"#{select_id}"))
    if (field.is_checked() if select_id == "preset" else field.input_value() == value):
        return  # already so: a change that changes nothing sends nothing
    with host.expect_response(lambda r: r.url.endswith("/setup") and r.request.method == "POST"):
        if select_id == "preset":
            host.locator(f'#setup input[name="preset"][value="{value}"]').check()
        else:
            host.locator(f"#{select_id}").select_option(value)
    wait_for_version(host, server_version(host))
    no_refusal(host)
    if select_id == "preset":
        expect(host.locator("#setup-summary [data-choice]")).to_have_attribute(
            "data-choice", value)
    else:
        expect(host.locator(f"#{select_id}")).to_have_value(value)


def decode_qr(page: Page, selector: str = "#qr") -> str:
    """Screenshot a QR image as a phone camera would see it, and decode it.

    Read by ZXing (zxing-cpp), the decoder many phone scanner apps use. OpenCV's
    detector, used before, failed on 1 of 2,500 clean codes of our links that ZXing
    reads (a flaky suite); a wrong address still fails, as does an unreadable code."""
    image_locator = page.locator(selector)
    expect(image_locator).to_be_visible()
    page.wait_for_function("img => img.complete && img.naturalWidth > 0",
                           arg=image_locator.element_handle())
    shot = cv2.imdecode(np.frombuffer(image_locator.screenshot(), np.uint8),
                        cv2.IMREAD_GRAYSCALE)
    assert shot is not None
    found = zxingcpp.read_barcodes(shot, formats=zxingcpp.BarcodeFormat.QRCode)
    if not found:
        raise AssertionError(f"the QR code {selector} did not decode")
    return found[0].text


def create_room(browser: Browser, server: Server) -> tuple[BrowserContext, Page, str]:
    context, host = new_phone(browser)
    host.goto(server.url + "/")
    host.get_by_role("button", name="Start a new room").click()
    expect(host).to_have_url(re.compile(r"/h/[A-Za-z0-9_\-]{16,}$"))
    code = host.locator("#room-code").inner_text().strip()
    assert re.fullmatch(f"[{ALPHABET}]{{4}}", code), code
    expect(host.locator("#live .phase")).to_have_attribute("data-phase", "lobby")
    return context, host, code


def join(browser: Browser, address: str, name: str) -> Phone:
    context, page = new_phone(browser)
    page.goto(address)
    page.get_by_label("Your name", exact=True).fill(name)
    page.get_by_role("button", name="Join").click()
    expect(page).to_have_url(re.compile(r"/p/[A-Za-z0-9_\-]{16,}$"))
    expect(page.locator("header .me")).to_have_text(name)
    expect(page.locator("#live .phase")).to_have_attribute("data-phase", "lobby")
    return Phone(name, context, page, page.url)


# ---------------------------------------------------------------------- what every page shows


SNAPSHOT = """live => ({
  version: live.dataset.version,
  phase: live.querySelector('.phase')?.dataset.phase,
  cards: live.querySelectorAll('.card').length,
  card_roles: [...live.querySelectorAll('.card [data-role]')].map(e => e.dataset.role),
  roles: live.querySelectorAll('[data-role]').length,
  revealed: [...live.querySelectorAll('.players .revealed[data-role]')]
    .map(t => [t.closest('li').dataset.player, t.dataset.role]),
  out: [...live.querySelectorAll('ul.players li.out')].map(li => li.dataset.player),
  dead_notice: [...live.querySelectorAll('.dead-notice')].map(e => e.textContent),
  turns: live.querySelectorAll('form.turn').length,
})"""


def snapshot(page: Page) -> dict:
    """What a page's live part shows, read in one go (the page is in sync: see the loop)."""
    return page.locator("#live").evaluate(SNAPSHOT)


def check_pages(host: Page, phones: list[Phone]) -> None:
    """Each phone shows its own role card and nobody else's secret; the dead know it.

    The host's page lets the narrator's time pass by itself, and every phone polls on
    its own, so the table may move on (a call ends, a death is told) while the pages are
    read. They are compared only when they show one moment of the table: the server gave
    every viewer the same version before and after the pages were read, and each page
    showed that version (a page read twice alike could still be a beat behind the others:
    a suite run compared a host page still at night with phones that had seen the dawn);
    otherwise synced and read again."""
    pages = [host, *(phone.page for phone in phones)]
    for _ in range(10):
        before = [server_version(page) for page in pages]
        table = snapshot(host)
        seen = {phone.name: snapshot(phone.page) for phone in phones}
        shown = [table["version"], *(seen[phone.name]["version"] for phone in phones)]
        if shown == before == [server_version(page) for page in pages]:
            break
        sync(host, phones, host)
    else:
        pytest.fail("the pages never showed one moment of the table")
    check_snapshots(table, seen, phones)


def check_snapshots(table: dict, seen_by: dict[str, dict], phones: list[Phone]) -> None:
    dead = set(table["out"])
    over = table["phase"] == "over"
    # the host does not play here, so the host's page holds no secret at all
    assert table["cards"] == 0 and table["turns"] == 0, table
    assert table["roles"] == len(table["revealed"]), table
    for phone in phones:
        seen = seen_by[phone.name]
        assert seen["cards"] == 1 and seen["card_roles"] == [phone.role], (phone.name, seen)
        # the only other roles on the page are the publicly revealed ones
        shown = dict(seen["revealed"])
        assert over or set(shown) <= dead, (phone.name, shown, dead)
        assert shown == dict(table["revealed"]), (phone.name, shown, table["revealed"])
        assert seen["roles"] == 1 + len(shown), (phone.name, seen)
        assert set(seen["out"]) == dead, (phone.name, seen["out"], dead)
        if phone.name in dead:
            assert len(seen["dead_notice"]) == 1, (phone.name, seen)
            assert "out of the game" in seen["dead_notice"][0]
            if table["phase"] != "settle":  # a dead hunter shoots, a dead sheriff passes on
                assert seen["turns"] == 0, (phone.name, seen)
        else:
            assert seen["dead_notice"] == [], (phone.name, seen)


def sync(host: Page, phones: list[Phone], latest: Page) -> None:
    """Wait until every page shows what the server shows that viewer now. (Each viewer's
    version is a hash of its own view, so pages are compared with the server, not with
    each other; `latest` acted last and was reloaded after its answer was stored.)"""
    del latest
    for page in [host, *(p.page for p in phones)]:
        catch_up(page)


def play_game(host: Page, phones: list[Phone], rng: random.Random, done: Counter[str]) -> str:
    """Deal, then play every turn on the pages until the game is over; return the winners."""
    host_press(host, "start")
    expect(host.locator("#live .phase")).to_have_attribute("data-phase", "reveal")
    sync(host, phones, host)
    for phone in phones:
        role = phone.page.locator("#live .card .role[data-role]")
        expect(role).to_have_count(1)
        phone.role = role.get_attribute("data-role")
    deck = PRESETS["classic"].deck(len(phones))
    assert Counter(p.role for p in phones) == Counter(deck)
    check_pages(host, phones)
    host_press(host, "ReadyIntent")
    done["host:ready"] += 1

    latest = host
    for _step in range(MAX_STEPS):
        sync(host, phones, latest)
        check_pages(host, phones)
        phase = phase_of(host)
        if phase == "over":
            break
        if phase == "debate":
            host_press(host, "skip_clock")
            done["host:skip_clock"] += 1
            latest = host
            continue
        revote = host.locator('#live button[data-command="AMAZON.YesIntent"]')
        if phase == "tie" and revote.count():
            choice = rng.choice(["AMAZON.YesIntent", "AMAZON.NoIntent"])
            host_press(host, choice)
            done["host:revote" if choice == "AMAZON.YesIntent" else "host:spare"] += 1
            latest = host
            continue
        dead = out_names(host)
        turns = [p for p in phones if has_turn(p.page)]
        if not turns and phase == "night":
            host.wait_for_timeout(500)  # a call is held open: the host's page ticks it
            continue
        assert turns, f"phase {phase}: no phone has a turn and the host has no button"
        for phone in turns:
            assert phone.name not in dead or phase == "settle", (phone.name, phase)
            verb, _answer = submit_random_choice(phone, rng)
            done[verb] += 1
            latest = phone.page
    else:
        pytest.fail(f"the game did not end in {MAX_STEPS} steps: {done}")

    # the end: every page says so and names the same winners
    winners = host.locator("#live .winners").inner_text().strip()
    assert winners, "the host's page names no winners"
    assert set(winners.split(", ")) <= {p.name for p in phones}, winners
    for phone in phones:
        over = phone.page.locator("#live section.over")
        expect(over).to_contain_text("Game over")
        expect(over.locator(".winners")).to_have_text(winners)
        expect(turn_form(phone.page)).to_have_count(0)
    # at the end every role is public, and it is the card each phone showed
    revealed = dict(snapshot(host)["revealed"])
    assert revealed == {p.name: p.role for p in phones}
    return winners


# ---------------------------------------------------------------------- the tests


def test_refusals_in_the_browser(browser: Browser, server: Server) -> None:
    """Another phone, a forged link, a wrong room code: each refused with its reason."""
    host_context, host, code = create_room(browser, server)
    first = join(browser, f"{server.url}/j/{code}", "Ana")
    other_context, other = new_phone(browser)
    try:
        before = first.page.locator("#live").inner_html()
        version = live_version(first.page)

        # the same link opened on a second phone is refused, and the first phone keeps it
        response = other.goto(first.url)
        assert response is not None and response.status == 403
        expect(other.locator("#reason")).to_have_attribute("data-reason", "other_device")
        expect(other.locator("#reason")).to_contain_text("already open on another phone")
        expect(other.locator("#live")).to_have_count(0)
        first.page.reload()
        expect(first.page.locator("header .me")).to_have_text("Ana")
        no_refusal(first.page)
        assert live_version(first.page) == version
        assert first.page.locator("#live").inner_html() == before

        # a forged link
        forged = first.url.rsplit("/", 1)[0] + "/" + "A" * 32
        response = other.goto(forged)
        assert response is not None and response.status == 404
        expect(other.locator("#reason")).to_have_attribute("data-reason", "bad_link")
        expect(other.locator("#reason")).to_contain_text("This link does not work")

        # a room code nobody has opened, typed on the join form
        relay = server.app.extensions["wolfvillage_relay"]  # type: ignore[attr-defined]
        wrong = next(c for c in (x * 4 for x in ALPHABET) if c != code and _unknown(relay, c))
        other.goto(server.url + "/")
        other.get_by_label("Room code", exact=True).fill(wrong)
        other.get_by_label("Your name", exact=True).fill("Zed")
        other.get_by_role("button", name="Join").click()
        expect(other.locator("#reason")).to_have_attribute("data-reason", "unknown_room")
        expect(other.locator("#reason")).to_contain_text("There is no room with that code")
        expect(other).not_to_have_url(re.compile(r"/p/"))
        # nobody joined the real room
        host.reload()
        expect(host.locator("#live ol.players li")).to_have_count(1)
    finally:
        for context in (host_context, first.context, other_context):
            context.close()


def _unknown(relay: object, code: str) -> bool:
    try:
        relay.game_for_code(code)  # type: ignore[attr-defined]
    except RelayError:
        return True
    return False


def test_a_whole_game_on_phones(browser: Browser, server: Server) -> None:
    rng = random.Random()
    seed = rng.randrange(2**32)
    rng.seed(seed)
    host_context, host, code = create_room(browser, server)
    phones: list[Phone] = []
    done: Counter[str] = Counter()
    try:
        # the join address comes from the QR code on the host's screen
        address = decode_qr(host)
        assert address == f"http://127.0.0.1:{server.port}/j/{code}"
        for name in NAMES:
            phones.append(join(browser, address, name))
        sync(host, phones, phones[-1].page)
        expect(host.locator("#live ol.players li")).to_have_count(len(NAMES))

        # the host's set-up: classic, votes on the phones, no debate clock
        host_save(host, "preset", "classic")
        expect(host.locator("#setup-summary .rating[data-rating]")).not_to_have_attribute(
            "data-rating", "")
        host_save(host, "protocol", "phones")
        host_save(host, "clock", "0")
        winners = play_game(host, phones, rng, done)
        games = 1
        # a night can end the game before any day (a bitten lover, a hunter's shot, the
        # poison): then the host starts a new game at the same table, and it is played too
        while not done["vote"] and games < 3:
            host_press(host, "new_game")
            expect(host.locator("#live .phase")).to_have_attribute("data-phase", "lobby")
            sync(host, phones, host)
            for phone in phones:
                expect(phone.page.locator("#live .card")).to_have_count(0)
            winners = play_game(host, phones, rng, done)
            games += 1
        for verb in ("link", "kill", "inspect", "witch", "elect", "vote", "host:skip_clock"):
            assert done[verb], f"no {verb} was played (seed {seed}): {done}"
        print(f"seed {seed}, {games} game(s): {dict(done)}; winners {winners}")
    finally:
        for context in [host_context, *(p.context for p in phones)]:
            context.close()
