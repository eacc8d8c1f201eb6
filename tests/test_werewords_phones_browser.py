"""Werewords on phones only, in a real browser at phone size (issue 14): Debian's Chromium
through Playwright, a real server on a loopback port, the host's phone narrating (no box, no
Echo) and every player a browser context of its own (its own cookie: its own phone).

Two whole games, as a table new to the app would play them:

- in English: joined by the room's code; the host sets the difficulty and the day's length
  on the host's page and starts; the mayor is shown on every phone; the mayor chooses the
  word by tapping their page, and the word shows only on the pages of the mayor, the seer and
  the werewolf; the mayor taps the token pad for who asked (a token taken back within its
  window, another given); the tokens and the moving day timer on every phone; "correct" ->
  the werewolves' seer hunt on the werewolf's phone -> the end, every role on every phone;
- in Spanish: the day's time runs out -> the minute of talk -> everybody points on their
  phone -> the end.

Time passes through the host's API (the host page's own ticks are held back, so nothing
here runs on the wall clock but the pages' polls). Screenshots of every page per phase go to
WOLFVILLAGE_SCREENSHOTS (`docs/screenshots` for the README) as `ww-<lang>-*.png`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect
from playwright.sync_api import Error as PlaywrightError

from narrator.scripts.werewords import HUNT_SECONDS, TAKE_BACK_SECONDS
from tests import test_phones_table_browser as table
from tests.test_phones_browser import CHROMIUM, Server, catch_up, host_press, host_save
from tests.test_phones_table_browser import Shots

# the table test's server (its voices), browser and screenshot folder
server, browser, shots = table.server, table.browser, table.shots

NAMES = ["Ana", "Ben", "Cal", "Dee"]
NARROW = {"width": 360, "height": 760}  # a small phone: nothing may overflow it
WAIT_MS = 8_000

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is needed")


def phone(browser: Browser) -> BrowserContext:
    context = browser.new_context(viewport=NARROW, device_scale_factor=1, is_mobile=True,
                                  has_touch=True)
    context.set_default_timeout(WAIT_MS)
    return context


@dataclass
class Room:
    url: str
    context: BrowserContext
    host: Page
    token: str
    code: str

    def api(self, kind: str, body: dict[str, Any]) -> dict[str, Any]:
        answer = self.context.request.post(f"{self.url}/api/h/{self.token}/{kind}", data=body)
        assert answer.ok, answer.text()
        return answer.json()

    def view(self) -> dict[str, Any]:
        return self.context.request.get(f"{self.url}/api/h/{self.token}").json()

    def tick(self, seconds: float) -> None:
        self.api("tick", {"seconds": seconds})


def open_room(browser: Browser, server: Server, lang: str) -> Room:
    context = phone(browser)
    host = context.new_page()
    # the test lets the time pass (the API's ticks): the page's own ticks are held back
    host.route("**/tick", lambda route: route.abort())
    host.goto(f"{server.url}/?lang={lang}")
    host.locator('form[action="/rooms"] button').click()
    expect(host).to_have_url(re.compile(r"/h/[A-Za-z0-9_\-]{16,}$"))
    code = host.locator("#room-code").inner_text().strip()
    return Room(server.url, context, host, host.url.rsplit("/", 1)[1], code)


def join(browser: Browser, room: Room, name: str, lang: str) -> Page:
    page = phone(browser).new_page()
    page.goto(f"{room.url}/j/{room.code}?lang={lang}")
    page.locator("#name").fill(name)
    page.locator("#lang").select_option(lang)
    page.locator('form[action="/join"] button').click()
    expect(page).to_have_url(re.compile(r"/p/[A-Za-z0-9_\-]{16,}$"))
    expect(page.locator("#live p.phase")).to_have_attribute("data-phase", "lobby")
    return page


def fits(page: Page) -> None:
    """Nothing wider than the phone: no sideways scrolling, no text cut off. (The phone's own
    width, not window.innerWidth: a mobile browser zooms out to show what overflows.)"""
    width = page.viewport_size["width"]
    wide = page.evaluate("""(width) => [...document.querySelectorAll('body *')]
        .filter(e => e.checkVisibility() && e.getBoundingClientRect().right > width + 1)
        .map(e => e.tagName + '.' + e.className + ': ' + (e.textContent || '').slice(0, 40))""",
                         width)
    assert wide == [], wide
    assert page.evaluate("document.documentElement.scrollWidth") <= width


class Pictures:
    """The recorder of tests/test_phones_table_browser.py, with the phone-width check."""

    def __init__(self, folder: Path, prefix: str):
        self.shots = Shots(folder, prefix)

    def take(self, page: Page, who: str, phase: str, focus: str | None = None) -> None:
        catch_up(page)  # the picture shows what the server shows now
        for _ in range(3):  # a poll may redraw the part being scrolled to: once more
            try:
                self.shots.take(page, who, phase, focus)
                fits(page)  # after the picture: it shows what overflows
                return
            except PlaywrightError:
                self.shots.taken.discard(f"{self.shots.lang}-{who}-{phase}.png")
        self.shots.take(page, who, phase, focus)


def text(page: Page) -> str:
    return page.locator("body").inner_text()


def role_of(page: Page) -> str:
    return page.locator("#role-card span.role").first.get_attribute("data-role") or ""


def tap_card(page: Page) -> None:
    card = page.locator("details#role-card")
    if card.get_attribute("open") is None:
        card.locator("summary").click()
    expect(card.locator("p.hint")).to_be_visible()


def hide_card(page: Page) -> None:
    card = page.locator("details#role-card")
    if card.get_attribute("open") is not None:
        card.locator("summary").click()


def set_up(room: Room, lang: str, **choices: str) -> None:
    host_save(room.host, "game", "werewords")
    expect(room.host.locator("#opt-ww_difficulty")).to_be_visible()
    for select, value in choices.items():
        host_save(room.host, select, value)
    host_save(room.host, "protocol", "phones")
    expect(room.host.locator("#protocol")).to_have_value("phones")


def to_the_night(room: Room, phones: dict[str, Page]) -> str:
    """Start; the mayor on every phone and on the host's; the night's first call."""
    host_press(room.host, "start")
    expect(room.host.locator("#live p.phase")).to_have_attribute("data-phase", "reveal")
    host_press(room.host, "ReadyIntent")
    mayor = room.view()["public"]["mayor"]
    for page in [room.host, *phones.values()]:
        expect(page.locator("#live p.mayor")).to_have_attribute("data-mayor", mayor)
    return mayor


def pass_the_night(room: Room) -> None:
    for _ in range(20):
        view = room.view()
        if view["phase"] != "night":
            break
        room.tick((view.get("timer") or {}).get("left") or 1)
    assert room.view()["phase"] == "ww_day"


def word_shown(page: Page, word: str) -> bool:
    return re.search(rf"\b{re.escape(word)}\b", text(page), re.IGNORECASE) is not None


ROOT = Path(__file__).resolve().parent.parent


def interface_words(lang: str) -> set[str]:
    """Every word the pages and the narration can show in `lang` whatever the magic word
    is: its catalogues and the page templates. A magic word among them ("wolf", as in
    "Wolf Village"; "saw") is on every page anyway, so a search of the page's text cannot
    say whether it leaked: those words are judged by the offered inputs alone."""
    sources = [*ROOT.glob(f"phones/text/**/{lang}.json"),
               *ROOT.glob(f"speech/catalog/**/{lang}.json"),
               *ROOT.glob("phones/templates/*.html")]
    return {w.casefold() for f in sources for w in re.findall(r"[^\W\d_]+", f.read_text())}


def test_werewords_in_english_on_phones_only(browser: Browser, server: Server,
                                             shots: Path) -> None:
    pictures = Pictures(shots, "ww-en")
    room = open_room(browser, server, "en")
    phones = {name: join(browser, room, name, "en") for name in NAMES}
    set_up(room, "en", **{"opt-ww_difficulty": "ww_medium", "opt-ww_day": "ww_day_3"})
    summary = room.host.locator("#setup-summary")
    expect(summary).to_contain_text("medium words")
    expect(summary).to_contain_text("a 3-minute day")
    pictures.take(room.host, "host", "setup", "#setup-summary")
    expect(phones["Ana"].locator("#live p.lobby-wait")).to_be_visible()  # what happens next
    pictures.take(phones["Ana"], "player", "lobby")

    mayor = to_the_night(room, phones)
    roles = {}
    for name, page in phones.items():
        expect(page.locator("details#role-card")).not_to_have_attribute("open", "")
        expect(page.locator("#role-card span.role")).not_to_be_visible()
        roles[name] = role_of(page) if name != mayor else ""
    assert set(roles.values()) - {""} <= {"seer", "werewolf", "villager"}
    others = [n for n in NAMES if n != mayor]
    # the night: the mayor's own call, a choice to tap; nobody else has one
    mine = phones[mayor]
    form = mine.locator("#live form.turn[data-verb=choose_word]")
    expect(form).to_be_visible()
    words = form.locator("input[name=target]").evaluate_all("l => l.map(i => i.value)")
    assert len(words) == 4
    pictures.take(mine, "mayor", "night", "#live form.turn")
    asleep = phones[others[0]]
    expect(asleep.locator("#live form.turn")).to_have_count(0)
    expect(asleep.locator("#live p.waiting")).to_be_visible()
    pictures.take(asleep, "player", "night")
    # a word the interface itself uses (6 of the 302 medium words: one of the four
    # offered in some 8 % of games) is on every page
    searchable = [w for w in words if w.casefold() not in interface_words("en")]
    assert searchable, words
    for name in others:  # the offered words are the mayor's alone
        assert not any(word_shown(phones[name], w) for w in searchable), name
        for w in words:
            expect(phones[name].locator(f"input[value='{w}']")).to_have_count(0)
    tap_card(mine)
    expect(mine.locator("#role-card p.offered")).to_be_visible()
    mayor_role = role_of(mine)
    roles[mayor] = mayor_role
    pictures.take(mine, "mayor", "card", "#role-card")
    hide_card(mine)
    word = searchable[-1]  # one the pages' text can be searched for
    form.locator(f"input[value='{word}']").check()
    form.locator("button[type=submit]").click()
    expect(mine.locator("#live form.turn[data-verb=choose_word]")).to_have_count(0)
    pass_the_night(room)

    # the day: who sees the word, who does not
    knows = {n for n, r in roles.items() if r in ("seer", "werewolf")} | {mayor}
    for name, page in phones.items():
        tap_card(page)
        expect(page.locator("#role-card .magic-word")).to_have_count(1 if name in knows else 0)
        assert word_shown(page, word) == (name in knows), name
        if name != mayor:
            assert role_of(page) == roles[name]
        # nobody else's role on a phone before the end
        for other in roles:
            if other != name:
                expect(page.locator(f"#live li[data-player='{other}'] .tag.revealed")
                       ).to_have_count(0)
    seer = next(n for n, r in roles.items() if r == "seer")
    wolf = next(n for n, r in roles.items() if r == "werewolf")
    # the lone werewolf is told so, without an empty "other werewolves" heading
    expect(phones[wolf].locator("#role-card p.alone")).to_be_visible()
    expect(phones[wolf].locator("#role-card h2")).to_have_count(0)
    pictures.take(phones[seer], "seer", "card", "#role-card")
    pictures.take(phones[wolf], "werewolf", "card", "#role-card")
    for page in phones.values():
        hide_card(page)
    assert not word_shown(room.host, word)
    assert not any(room.host.locator(f"[data-role='{r}']").count()
                   for r in ("seer", "werewolf", "villager"))

    # the timer and the tokens on every phone, the timer moving by itself
    for page in [room.host, *phones.values()]:
        clock = page.locator("#live #ww-clock[data-kind=ww_day]")
        expect(clock).to_be_visible()
        expect(page.locator("#live li[data-supply=yes_no] strong")).to_have_text("36")
    # what the others do now: ask the mayor (not "listen to the narrator")
    expect(phones[others[0]].locator("#live p.waiting")).to_contain_text("Ask the mayor")
    shown = phones[others[0]].locator("#ww-clock .left")
    first = shown.inner_text()
    # three minutes, a few seconds gone (more on a loaded machine: a -n 3 run saw 2:57)
    assert re.fullmatch(r"3:00|2:5\d", first), first
    expect(shown).not_to_have_text(first)  # app.js counts down between two polls
    room.tick(30)
    expect(shown).to_have_text(re.compile(r"^2:[0-2]\d$"))  # the server's time, redrawn

    # the token pad: a tap taken back, then a token given
    pad = mine.locator("#live form.turn.pad")
    colours = pad.locator("button[data-token]").evaluate_all(
        "l => l.map(b => getComputedStyle(b).backgroundColor)")
    assert len(colours) == 5 and len(set(colours)) == 5, colours  # one colour per token
    asker = others[0]
    pad.locator(f"label:has-text('{asker}') input").check()
    pad.locator("button[data-token=yes]").click()
    held = mine.locator("#live p.held")
    expect(held).to_have_attribute("data-token", "yes")
    expect(held).to_contain_text(asker)
    pictures.take(mine, "mayor", "pad-held", "#live form.take-back")
    expect(phones[asker].locator("#live p.held")).to_have_count(0)
    mine.locator("#live button[data-command=take_back]").click()
    expect(mine.locator("#live p.held")).to_have_count(0)
    room.tick(TAKE_BACK_SECONDS)
    assert room.view()["public"]["tokens_given"] == []
    pad.locator(f"label:has-text('{asker}') input").check()
    pad.locator("button[data-token=no]").click()
    expect(held).to_have_attribute("data-token", "no")
    room.tick(TAKE_BACK_SECONDS)
    assert room.view()["public"]["tokens_given"] == [{"to": asker, "token": "no"}]
    for page in [room.host, *phones.values()]:
        expect(page.locator("#live li[data-supply=yes_no] strong")).to_have_text("35")
    expect(room.host.locator("#live ol.tokens-given li[data-token=no]")).to_contain_text(asker)
    pictures.take(mine, "mayor", "day", "#live form.turn.pad")
    pictures.take(phones[asker], "player", "day")
    pictures.take(room.host, "host", "day", "#ww-clock")

    # "correct" for a villager's guess: the werewolf is shown, the werewolf hunts the seer
    guesser = next(n for n in others if roles[n] == "villager")  # the werewolf misses
    pad.locator(f"label:has-text('{guesser}') input").check()
    pad.locator("button[data-token=correct]").click()
    expect(held).to_have_attribute("data-token", "correct")
    room.tick(TAKE_BACK_SECONDS)
    assert room.view()["phase"] == "ww_hunt"
    for page in [room.host, *phones.values()]:
        expect(page.locator("#live p.phase")).to_have_attribute("data-phase", "ww_hunt")
        expect(page.locator(f"#live li[data-player='{wolf}'] .tag.revealed")).to_have_attribute(
            "data-role", "werewolf")
        expect(page.locator("#live li .tag.revealed")).to_have_count(1)
        assert not word_shown(page, word) or page in (phones[n] for n in knows)
    bystander = next(n for n in others if n not in (wolf, seer))
    expect(phones[bystander].locator("#live p.waiting")).to_contain_text("15 seconds")
    pictures.take(room.host, "host", "hunt")
    room.tick(HUNT_SECONDS)
    hunt = phones[wolf].locator("#live form.turn[data-verb=guess_seer]")
    expect(hunt).to_be_visible()
    assert set(hunt.locator("input[name=target]").evaluate_all(
        "l => l.map(i => i.value)")) == set(NAMES) - {wolf}
    for name in NAMES:
        if name != wolf:
            expect(phones[name].locator("#live form.turn")).to_have_count(0)
    pictures.take(phones[wolf], "werewolf", "hunt", "#live form.turn")
    hunt.locator(f"input[value='{guesser}']").check()
    hunt.locator("button[type=submit]").click()

    # the end on every phone: the word and every role
    for page in [room.host, *phones.values()]:
        expect(page.locator("#live .word-was")).to_contain_text(word)
        listed = "ul.roles-at-end" if page is room.host else "ul.players"
        for name, role in roles.items():
            expect(page.locator(f"#live {listed} li[data-player='{name}'] [data-role='{role}']")
                   ).to_have_count(1)
    expect(phones[guesser].locator("#live section.over .winners")).to_contain_text(guesser)
    for page in [room.host, *phones.values()]:  # which side won, in words
        expect(page.locator("#live .won[data-winner=village]")).to_contain_text(
            "The village wins.")
    expect(phones[guesser].locator("#live .won .you")).to_have_attribute("data-won", "yes")
    expect(phones[wolf].locator("#live .won .you")).to_have_attribute("data-won", "no")
    pictures.take(room.host, "host", "over")
    pictures.take(phones[guesser], "player", "over")


def test_werewords_in_spanish_time_runs_out_and_the_phones_point(
        browser: Browser, server: Server, shots: Path) -> None:
    pictures = Pictures(shots, "ww-es")
    room = open_room(browser, server, "es")
    phones = {name: join(browser, room, name, "es") for name in NAMES}
    set_up(room, "es", **{"opt-ww_day": "ww_day_2"})
    expect(room.host.locator("#setup-summary")).to_contain_text("2 minutos")
    pictures.take(room.host, "host", "setup", "#setup-summary")
    pictures.take(phones["Ana"], "player", "lobby")
    mayor = to_the_night(room, phones)
    mine = phones[mayor]
    form = mine.locator("#live form.turn[data-verb=choose_word]")
    expect(form).to_be_visible()
    pictures.take(mine, "mayor", "night", "#live form.turn")
    others = [n for n in NAMES if n != mayor]
    pictures.take(phones[others[0]], "player", "night")
    form.locator("input[name=target]").first.check()
    form.locator("button[type=submit]").click()
    pass_the_night(room)
    for page in phones.values():
        expect(page.locator("#live p.phase")).to_have_attribute("data-phase", "ww_day")
    expect(phones[others[0]].locator("#live p.waiting")).to_contain_text("Hagan al alcalde")
    pictures.take(mine, "mayor", "day", "#live form.turn.pad")
    tap_card(phones[others[0]])
    pictures.take(phones[others[0]], "player", "card", "#role-card")
    hide_card(phones[others[0]])
    pictures.take(phones[others[0]], "player", "day")

    # the day runs out: a minute to talk, then everybody points on their phone
    room.tick(120)
    for page in [room.host, *phones.values()]:
        expect(page.locator("#live #ww-clock")).to_have_attribute("data-kind", "ww_discuss")
    expect(phones[others[0]].locator("#live p.waiting")).to_contain_text(
        "¿quién es un hombre lobo?")
    pictures.take(room.host, "host", "discuss")
    host_press(room.host, "SkipClockIntent")
    for i, name in enumerate(NAMES):
        page = phones[name]
        vote = page.locator("#live form.turn[data-verb=vote]")
        expect(vote).to_be_visible()
        assert name not in vote.locator("input[name=target]").evaluate_all(
            "l => l.map(i => i.value)")
        if i == 0:
            pictures.take(page, "player", "point", "#live form.turn")
        vote.locator(f"input[value='{NAMES[(i + 1) % len(NAMES)]}']").check()
        vote.locator("button[type=submit]").click()
        expect(page.locator("#live form.turn")).to_have_count(0)
    for page in [room.host, *phones.values()]:
        expect(page.locator("#live .word-was")).to_be_visible()
        expect(page.locator("#live .won")).to_contain_text("Gana")
        listed = "ul.roles-at-end" if page is room.host else "ul.players"
        expect(page.locator(f"#live {listed} li[data-player] [data-role]")
               ).to_have_count(len(NAMES))
    pictures.take(room.host, "host", "over")
    pictures.take(phones["Ana"], "player", "over")


@pytest.fixture(autouse=True)
def _close_contexts(browser: Browser) -> Iterator[None]:
    yield
    for context in browser.contexts:
        context.close()
