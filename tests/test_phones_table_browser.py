"""A table with nothing but phones, in a real browser (headless Debian chromium): the host's
phone narrates, every phone tells the story.

Two whole games on a real server (waitress on loopback, SQLite, the real voices: Piper for
English, espeak-ng for Spanish), every phone its own browser context:

- in English, a narrated night: the host taps "let the narrator speak"; its captions are
  the narrator's told lines, in order; the audio of every line is fetched from the server
  (and the second time comes from the server's cache); a role card is face down until
  tapped; a choice appears only while its role is called; the debate clock runs and time
  runs out; after voting a phone says what it voted; the end names the winning side on
  every phone;
- in Spanish, pass the phones on two shared phones: the seer sees her answer and a
  werewolf the pack before the phone is passed on.

The narrator's audio is played at 16 times its speed (the browser's playbackRate, set by
the test before any page script runs): the lines are real, only the waiting is shorter.

Screenshots of the host's page and a player's phone at each phase go to the folder
WOLFVILLAGE_SCREENSHOTS names (`docs/screenshots` for the README), or the test's own.
"""

from __future__ import annotations

import os
import random
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, Response, expect

from local_voice.voices import line_voice
from rules.wolf_village.roles import NIGHT_ORDER
from speech import line
from store import open_store
from tests.test_phones_browser import (
    CHROMIUM,
    PHONE,
    WAIT_MS,
    Phone,
    Server,
    catch_up,
    chromium,
    has_turn,
    host_press,
    host_save,
    phase_of,
    serve,
    submit_random_choice,
    turn_form,
)

NAMES = ["Ana", "Ben", "Carla", "Dev", "Elif", "Farid", "Greta", "Hugo"]
MAX_STEPS = 600
FAST_AUDIO = """(() => {
  const Real = window.Audio;
  window.Audio = function (src) { const a = new Real(src); a.defaultPlaybackRate = 16;
    a.playbackRate = 16; return a; };
})();"""

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is needed")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, shared_voice_cache: Path
           ) -> Iterator[Server]:
    from phones.web import create_app

    folder = tmp_path_factory.mktemp("table")
    # a night call is held open for one second of the host page's ticks (12 s by default);
    # the voice cache is the run's, as the box's games by voice fill it (the same Piper
    # voice, names and narrator's lines: a line either made first is not made again; the
    # welcome with this room's code, at least, is always made here); pages ask for news
    # every second, not 0.4 s: ten pages asking that often cost chromium a third of the
    # file's CPU (124 -> 86 CPU-s, 129 -> 109 s)
    app = create_app(open_store(f"sqlite:///{folder}/games.db"), SECRET_KEY="test",
                     CALL_PAUSE=1, VOICE_CACHE=str(shared_voice_cache), POLL_SECONDS=1.0,
                     ROOM_GUESS_LIMIT="1000 per minute", VOICE_FACTORY=line_voice)
    with serve(app, threads=16) as running:
        yield running


@pytest.fixture(scope="module")
def browser(server: Server) -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = Path(os.environ.get("WOLFVILLAGE_SCREENSHOTS") or tmp_path_factory.mktemp("shots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


class Shots:
    """One screenshot per page and phase, the first time the page is in that phase."""

    def __init__(self, folder: Path, lang: str):
        self.folder, self.lang, self.taken = folder, lang, set()

    def take(self, page: Page, who: str, phase: str, focus: str | None = None) -> None:
        name = f"{self.lang}-{who}-{phase}.png"
        if name in self.taken:
            return
        self.taken.add(name)
        page.evaluate("window.scrollTo(0, 0)")
        if focus:
            # found and scrolled to in one step inside the page: the page replaces its
            # live parts as it polls, and a locator resolved a moment before could be
            # gone by the time it scrolled ("not attached to the DOM")
            page.evaluate("""sel => { const e = document.querySelector(sel);
                                      if (e) e.scrollIntoView({block: 'nearest'}); }""",
                          focus)
        page.screenshot(path=str(self.folder / name))


def phone_context(browser: Browser) -> Any:
    # a phone's screen at one pixel per point: the screenshots stay small in the repository
    context = browser.new_context(**{**PHONE, "device_scale_factor": 1})
    context.set_default_timeout(WAIT_MS)
    context.add_init_script(FAST_AUDIO)
    return context


def open_room(browser: Browser, server: Server, lang: str) -> tuple[Any, Page, str]:
    context = phone_context(browser)
    host = context.new_page()
    host.goto(f"{server.url}/?lang={lang}")
    host.locator('form[action="/rooms"] button').click()
    expect(host).to_have_url(re.compile(r"/h/[A-Za-z0-9_\-]{16,}$"))
    code = host.locator("#room-code").inner_text().strip()
    return context, host, code


def seat(browser: Browser, server: Server, code: str, name: str, lang: str) -> Phone:
    context = phone_context(browser)
    page = context.new_page()
    page.goto(f"{server.url}/j/{code}?lang={lang}")
    page.locator("#name").fill(name)
    page.locator("#lang").select_option(lang)
    page.locator('form[action="/join"] button').click()
    expect(page).to_have_url(re.compile(r"/p/[A-Za-z0-9_\-]{16,}$"))
    return Phone(name, context, page, page.url)


TOLD = """() => fetch(document.getElementById("narrator").dataset.told + "?since=0",
    {credentials: "same-origin"}).then(r => r.json())"""


def told(host: Page) -> dict[str, Any]:
    """The narrator's told list, as the host's page gets it."""
    return host.evaluate(TOLD)


# turns that answer no call: the dying hunter's shot, the dying sheriff's badge
SETTLE_VERBS = ("shoot", "pass_badge")


def last_wake(items: list[dict[str, Any]], lang: str) -> str | None:
    """The role the narrator called last tonight (None: none is called now)."""
    wakes = {line(lang, f"wake_{role}"): role for role in NIGHT_ORDER}
    sleeps = {line(lang, f"sleep_{role}") for role in NIGHT_ORDER}
    called = None
    for item in items:
        if item["text"] in wakes:
            called = wakes[item["text"]]
        elif item["text"] in sleeps:
            called = None
    return called


def sync(pages: list[Page]) -> None:
    for page in pages:
        catch_up(page)


def card_role(phone: Phone) -> str:
    role = phone.page.locator("#live .card .role[data-role]")
    expect(role).to_have_count(1)
    return role.get_attribute("data-role") or ""


def story_lines(page: Page) -> list[str]:
    return page.locator("#live .story-lines li").all_text_contents()


# ---------------------------------------------------------------------- English


def test_the_host_phone_narrates_a_whole_game_and_every_phone_tells_it(
        browser: Browser, server: Server, shots: Path) -> None:
    rng = random.Random(11)
    pictures = Shots(shots, "en")
    host_context, host, code = open_room(browser, server, "en")
    audio: list[Response] = []
    host.on("response", lambda r: audio.append(r) if "/audio/" in r.url else None)
    phones: list[Phone] = []
    done: Counter[str] = Counter()
    try:
        # the narrator speaks from the host's tap on
        expect(host.locator("#narrator-start")).to_be_visible()
        host.locator("#narrator-start").click()
        expect(host.locator("#narrator-controls")).to_be_visible()
        for name in NAMES:
            phones.append(seat(browser, server, code, name, "en"))
        pages = [host, *(p.page for p in phones)]
        sync(pages)
        host_save(host, "preset", "classic")
        host_save(host, "protocol", "phones")
        host_save(host, "clock", "120")
        pictures.take(host, "host", "lobby")
        pictures.take(host, "host", "setup", "#setup-summary")
        pictures.take(phones[0].page, "player", "lobby")

        host_press(host, "start")
        sync(pages)
        # the role card is face down until tapped, and hides again
        me = phones[0].page
        card = me.locator("#role-card")
        expect(card).not_to_have_attribute("open", "")
        expect(me.locator("#role-card .role")).to_be_hidden()
        pictures.take(me, "player", "reveal")
        card.locator("summary").click()
        expect(me.locator("#role-card .role")).to_be_visible()
        pictures.take(me, "player", "reveal-card")
        card.locator("summary").click()
        expect(me.locator("#role-card .role")).to_be_hidden()
        for phone in phones:
            phone.role = card_role(phone)
            assert not has_turn(phone.page), "a choice during «look at your role»"
        pictures.take(host, "host", "reveal")
        host_press(host, "ReadyIntent")

        clock_seen = voted_seen = False
        rereads = 0  # readings of the call and the turns that straddled a call's end
        for _ in range(MAX_STEPS):
            sync(pages)
            phase = phase_of(host)
            focus = "#live .over" if phase == "over" else "#live .story"
            pictures.take(host, "host", phase, focus)
            pictures.take(phones[0].page, "player", phase, focus)
            if phase == "over":
                break
            if phase == "debate":
                clock = phones[0].page.locator("#debate-clock")
                if not clock_seen:
                    # the debate clock on every phone, counting down
                    expect(clock).to_be_visible()
                    left = int(clock.get_attribute("data-countdown") or "0")
                    assert 0 < left <= 120
                    expect(clock).not_to_have_attribute("data-countdown", str(left))
                    pictures.take(phones[0].page, "player", "debate-clock", "#debate-clock")
                    # let the rest of the two minutes pass (as the host page would)
                    host.evaluate("""seconds => fetch(document.getElementById("narrator")
                        .dataset.tick, {method: "POST", credentials: "same-origin",
                        headers: {"Content-Type": "application/json"},
                        body: JSON.stringify({seconds})})""", 125)
                    # time's up, on every phone
                    for phone in phones:
                        expect(phone.page.locator("#live section.story")).to_contain_text(
                            line("en", "time_up"))
                    clock_seen = True
                else:
                    host_press(host, "skip_clock")
                continue
            if phase == "tie" and host.locator(
                    '#live button[data-command="AMAZON.YesIntent"]').count():
                host_press(host, rng.choice(["AMAZON.YesIntent", "AMAZON.NoIntent"]))
                continue
            turns = [p for p in phones if has_turn(p.page)]
            if phase == "night":
                called = last_wake(told(host)["items"], "en")
                called_turns = [p for p in turns if turn_form(p.page).get_attribute(
                    "data-verb") not in SETTLE_VERBS]
                # the hunter's shot and the badge, at dawn, answer no call (the host's page
                # may not show the settle yet when the phone does); a call that ended
                # between reading the phones and the narrator's lines is read again, after
                # a sync, a few times: a turn out of its call stays out of it and fails
                if rereads < 3 and any(called != card_role(p) for p in called_turns):
                    rereads += 1
                    continue
                rereads = 0
                for phone in called_turns:
                    # a choice only while the narrator calls that role
                    assert called == card_role(phone), (phone.name, called, phone.role)
            if not turns:
                host.wait_for_timeout(300)  # a call held open: the host's page ticks it
                continue
            phone = turns[0]
            verb, answer = submit_random_choice(phone, rng)
            done[verb] += 1
            if verb == "vote":
                # the phone says what it voted
                catch_up(phone.page)
                voted = phone.page.locator("#live .voted")
                if voted.count():
                    expect(voted).to_have_attribute("data-target", answer or "")
                    pictures.take(phone.page, "player", "voted", "#live .voted")
                    voted_seen = True
        else:
            pytest.fail(f"the game did not end: {done}")

        # every phone tells the end: the winning side's line, in the story
        wins = [line("en", f"win_{side}") for side in ("village", "werewolves", "jester",
                                                       "fox")]
        for page in pages:
            said = story_lines(page)
            assert any(text in wins or text.startswith("The lovers win!") for text in said), said
            expect(page.locator("#live .over .winners")).not_to_be_empty()
        assert done["kill"] and done["inspect"]
        assert voted_seen or not done["vote"]

        # the host's captions are the narrator's told lines, in order
        listed = told(host)
        narrator = host.locator("#narrator")
        expect(narrator).to_have_attribute("data-next", str(listed["next"]), timeout=30_000)
        expect(narrator).to_have_attribute("data-idle", "1", timeout=60_000)
        spoken = [i["text"] for i in listed["items"] if i["text"]]
        captions = host.locator("#captions li").all_text_contents()
        # (a line said in the lobby before the deal, "Set-up: Classic...", stays captioned
        # above the game's when the page heard it: a suite run saw it; it is no game line)
        k = min(len(captions), len(spoken))
        assert captions and captions[-k:] == spoken[-k:], (captions[-5:], spoken[-5:])
        assert not set(captions[:-k]) & set(spoken), captions[:-k]
        # every line of this game was fetched as audio, and repeats come from the cache
        fetched = {int(r.url.rsplit("/", 1)[1].split(".")[0]) for r in audio
                   if r.ok and listed["game"].replace(":", "%3A") in r.url}
        lines = {i["i"] for i in listed["items"] if i["text"]}
        assert lines <= fetched, sorted(lines - fetched)
        kinds = Counter(r.headers.get("x-wolf-audio") for r in audio if r.ok)
        assert kinds["rendered"] and kinds["cached"], kinds
        with host.expect_response(lambda r: "/audio/" in r.url) as replay:
            host.locator("#narrator-replay").click()
        assert replay.value.headers.get("x-wolf-audio") == "cached"
        host.locator("#narrator details.captions-box summary").click()
        pictures.take(host, "host", "captions", "#narrator")
    finally:
        for context in [host_context, *(p.context for p in phones)]:
            context.close()


# ---------------------------------------------------------------------- Spanish, shared phones


def test_pass_the_phones_in_spanish_on_two_shared_phones(browser: Browser, server: Server,
                                                         shots: Path) -> None:
    rng = random.Random(5)
    pictures = Shots(shots, "es")
    host_context, host, code = open_room(browser, server, "es")
    names = NAMES[:7]
    phones: list[Phone] = []
    shared: list[tuple[Any, Page, list[str]]] = []
    seen: set[str] = set()
    try:
        host.locator("#narrator-start").click()
        for name in names:
            phones.append(seat(browser, server, code, name, "es"))
        catch_up(host)
        host_save(host, "preset", "basic")
        host_save(host, "protocol", "phones")
        host_save(host, "clock", "0")
        with host.expect_response(lambda r: r.url.endswith("/setup")):
            host.locator("#opt-night_mode").select_option("pass_phones")
        catch_up(host)
        pictures.take(host, "host", "lobby")
        # two shared phones, each for the players sitting near it
        for near in (names[:4], names[4:]):
            host.locator("#add-shared summary").click() if not host.locator(
                "#add-shared").evaluate("d => d.open") else None
            for box in host.locator('#add-shared input[name="serves"]').all():
                box.set_checked(box.get_attribute("value") in near)
            with host.context.expect_page() as opened:
                host.locator('#add-shared button[data-command="add_shared"]').click()
            page = opened.value
            url = page.locator("#shared-link").get_attribute("href") or ""
            page.close()
            context = phone_context(browser)
            device = context.new_page()
            device.goto(url)
            shared.append((context, device, near))
        host_press(host, "start")
        for phone in phones:
            phone.role = card_role(phone)
        pictures.take(phones[0].page, "player", "reveal")
        host_press(host, "ReadyIntent")
        pack = {p.name for p in phones if p.role == "werewolf"}
        for _ in range(MAX_STEPS):
            catch_up(host)
            phase = phase_of(host)
            pictures.take(host, "host", phase, "#live .over" if phase == "over" else "#live .story")
            if phase == "over":
                break
            if phase == "night":
                moved = False
                for _context, device, near in shared:
                    device.reload()
                    nxt = device.locator("#live .pass-to")
                    if not nxt.count():
                        continue
                    name = nxt.get_attribute("data-next") or ""
                    assert name in near, (name, near)
                    expect(nxt).to_have_text(f"Pásale el teléfono a {name}.")
                    pictures.take(device, "shared", "pass")
                    device.locator("#i-am").click()
                    role = device.locator(".open-card .role").get_attribute("data-role")
                    if role == "werewolf":
                        # the rest of the pack, on the shared phone, with the choice
                        listed = set(device.locator("ul.pack li").all_text_contents())
                        assert listed == pack - {name}, (listed, pack)
                        pictures.take(device, "shared", "werewolf", "ul.pack")
                        seen.add("pack")
                    form = device.locator("form.turn")
                    radios = form.locator('input[type="radio"][name="target"]')
                    boxes = form.locator('input[type="checkbox"][name="target"]')
                    if boxes.count():
                        for i in rng.sample(range(boxes.count()), 2):
                            boxes.nth(i).check()
                    elif radios.count():
                        radios.nth(rng.randrange(radios.count())).check()
                    target = form.locator('input[name="target"]:checked').first
                    picked = target.get_attribute("value") if target.count() else None
                    form.get_by_role("button").click()
                    done = device.locator("section.pass-done")
                    expect(done).to_be_visible()
                    if role == "seer":
                        # her answer, before the phone goes on
                        answer = done.locator(".answer")
                        expect(answer).to_contain_text(picked or "")
                        werewolf = next(p.role for p in phones if p.name == picked) == "werewolf"
                        expect(answer).to_have_attribute("data-werewolf",
                                                         "yes" if werewolf else "no")
                        pictures.take(device, "shared", "seer-answer", ".answer")
                        seen.add("seer")
                    device.locator("#hide-and-pass").click()
                    expect(device.locator("#live .phase")).to_be_attached()
                    moved = True
                if not moved:
                    host.wait_for_timeout(300)
                continue
            turns = []
            for phone in phones:
                catch_up(phone.page)
                if has_turn(phone.page):
                    turns.append(phone)
            pictures.take(phones[0].page, "player", phase, "#live .story")
            if phase == "tie" and host.locator(
                    '#live button[data-command="AMAZON.YesIntent"]').count():
                host_press(host, "AMAZON.NoIntent")
                continue
            if phase == "debate":
                host_press(host, "skip_clock")
                continue
            for phone in turns:
                submit_random_choice(phone, rng)
            if not turns:
                host.wait_for_timeout(300)
        else:
            pytest.fail("the game did not end")
        for phone in phones:
            catch_up(phone.page)
            said = story_lines(phone.page)
            wins = [line("es", f"win_{side}") for side in ("village", "werewolves")]
            assert any(text in wins for text in said), said
        pictures.take(phones[0].page, "player", "over", "#live .over")
        assert seen == {"pack", "seer"}
    finally:
        for context in [host_context, *(p.context for p in phones), *(s[0] for s in shared)]:
            context.close()
