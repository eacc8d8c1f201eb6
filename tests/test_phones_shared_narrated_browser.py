"""A whole narrated game on one shared phone, in headless Chromium at a phone's size (seed
000: «los llamados ... tocan su elección en el más cercano si juegan con teléfonos
compartidos»). The host seats the players who have no phone, adds a shared phone from
its page (scanned from its QR code), and one player keeps her own phone. Screenshots go
to WOLFVILLAGE_SCREENSHOTS (`docs/screenshots` for the README), or the test's own folder.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from narrator.cues import input_from_json
from narrator.narrator import Narrator
from phones.web import create_app
from store import open_store
from tests.test_phones_browser import (
    CHROMIUM,
    catch_up,
    chromium,
    create_room,
    decode_qr,
    host_press,
    host_save,
    join,
    new_phone,
    no_refusal,
    serve,
)

NAMES = ["Ana", "Ben", "Cal", "Dan", "Eve", "Fay", "Gil", "Hal"]
OWN = "Ana"  # the one player with a phone of her own

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is needed")


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = Path(os.environ.get("WOLFVILLAGE_SCREENSHOTS") or tmp_path_factory.mktemp("shots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> str:
    return f"sqlite:///{tmp_path_factory.mktemp('shared_browser')}/games.db"


@pytest.fixture(scope="module")
def running(db: str) -> Iterator[object]:
    # the test lets the narrator's time pass itself (see `end_call`), so a dead role's call
    # cannot be over before the shared phone has shown it
    app = create_app(open_store(db), SECRET_KEY="test", POLL_SECONDS=0.4, CALL_PAUSE=5)
    with serve(app, threads=8) as server:
        yield server


def count_hands(host: Page, db: str, most: str) -> None:
    """The host picks who most hands point at and sends it. Once, in a suite run under
    load, the tap sent nothing within 8 s (most likely the page redrew between
    Playwright's aim and its tap, its layout shifting); then, and only if the hands were
    not counted (`most` is still alive), it is picked and tapped again."""
    for _ in range(3):
        host.locator("#hands-most").select_option(most)
        try:
            with host.expect_response(lambda r: r.request.method == "POST"
                                      and "/do" in r.url, timeout=5_000):
                host.locator("#live form.hands button").click()
            break
        except PlaywrightTimeout:
            catch_up(host)
            if most not in truth(db).game.alive_names() or not host.locator(
                    "#hands-most").count():
                break  # it was sent after all (its answer was slow)
    else:
        pytest.fail("the hands were never sent")
    catch_up(host)


def truth(db: str) -> Narrator:
    """The table as stored, to know which tap is legal (the test plays every role)."""
    store = open_store(db)
    try:
        game_id = store.lookup(f"room:{code_of[0]}")
        stored = store.load(game_id)
    finally:
        store.close()
    return Narrator.restore(stored.setup, [input_from_json(e) for e in stored.entries])


code_of: list[str] = []


def end_call(host: Page) -> None:
    """Let the call in progress last its whole time, as the host's page would (its own
    ticks are held back: the test decides when time passes)."""
    token = host.url.rsplit("/", 1)[-1]
    view = host.context.request.get(f"{host.url.split('/h/')[0]}/api/h/{token}").json()
    timer = view.get("timer") or {}
    if timer.get("kind") == "call":
        r = host.context.request.post(f"{host.url.split('/h/')[0]}/api/h/{token}/tick",
                                      data={"seconds": timer["left"]})
        assert r.ok, r.text()


def wait_for_call(shared: Page, host: Page) -> str | None:
    """The call the shared phone shows next (None: the night is over)."""
    for _ in range(60):
        # read in one go inside the page: the page redraws its live part as it polls, and a
        # section counted a moment before may be gone when its attribute is asked for (a
        # suite run under load waited 8 s for one that the call's end had replaced)
        shown = shared.evaluate("""() => {
            const call = document.querySelector('#live section.shared-call');
            return call && {call: call.dataset.call, chosen: !!call.querySelector('.chosen')};
        }""")
        if shown and not shown["chosen"]:
            return shown["call"]
        if host.locator("#live .phase").get_attribute("data-phase") != "night":
            return None
        shared.wait_for_timeout(250)
    raise AssertionError("the shared phone never showed the next call")


def tap_on_shared(shared: Page, target: str | list[str], shot: Path | None = None) -> Page:
    form = shared.locator("#live form.turn")
    if isinstance(target, list):
        for name in target:
            form.locator(f'input[name="target"][value="{name}"]').check()
    elif target == "witch":
        pass
    else:
        form.locator(f'input[name="target"][value="{target}"]').check()
    if shot is not None:
        shared.screenshot(path=str(shot), full_page=True)
    with shared.expect_navigation():
        form.get_by_role("button").click()
    refusal = shared.locator("[data-reason]")
    assert not refusal.count(), (target, refusal.get_attribute("data-reason"))
    return shared


def test_a_whole_narrated_game_on_a_shared_phone(running, db: str, shots: Path) -> None:
    server = running
    with chromium() as browser:
        host_context, host, code = create_room(browser, server)
        code_of[:] = [code]
        contexts = [host_context]
        try:
            ana = join(browser, f"{server.url}/j/{code}", OWN)
            contexts.append(ana.context)
            # the others have no phone: the host seats them
            for name in NAMES[1:]:
                host.locator("#seat-name").fill(name)
                with host.expect_response(lambda r: r.request.method == "POST"
                                          and "/do" in r.url):
                    host.locator('#live button[data-command="join"]').click()
                catch_up(host)
            expect(host.locator("#live ol.players li")).to_have_count(len(NAMES))
            host_save(host, "preset", "basic")  # 8: two wolves, a seer, a doctor
            host_save(host, "protocol", "show_of_hands")
            host_save(host, "clock", "0")
            # the dead's roles stay secret: a dead seer is still called
            with host.expect_response(lambda r: r.url.endswith("/setup")):
                host.locator("#opt-reveal_dead_roles").set_checked(False)
            catch_up(host)
            expect(host.locator("#opt-reveal_dead_roles")).not_to_be_checked()
            expect(host.locator("#opt-night_mode")).to_have_value("narrated")
            expect(host.locator("#night-help")).to_contain_text("taps the nearest shared phone")
            night = host.locator('#setup fieldset[data-group="night"]')
            night.scroll_into_view_if_needed()
            night.screenshot(path=str(shots / "en-host-setup-shared-narrated.png"))
            # a shared phone, added from the host's page and scanned from its QR code
            host.locator("#add-shared summary").click()
            with host.expect_popup() as popup:
                host.locator('#add-shared button[data-command="add_shared"]').click()
            added = popup.value
            url = decode_qr(added, "#shared-qr")
            added.close()
            shared_context, shared = new_phone(browser)
            contexts.append(shared_context)
            shared.goto(url)
            expect(shared.locator("#live .phase")).to_have_attribute("data-phase", "lobby")

            # the host's page would let each call's time pass by itself: held back here
            host.route("**/tick", lambda route: route.abort())
            host_press(host, "start")
            host_press(host, "ReadyIntent")
            game = truth(db).game
            role_of = {p: game.current_role(p) for p in game.players}
            seer = next(p for p, r in role_of.items() if r == "seer")
            pack = sorted(p for p, r in role_of.items() if r == "werewolf")
            wolves_out: list[str] = []
            dead_seer_seen = False
            for nights in range(1, 5):
                while (call := wait_for_call(shared, host)) is not None:
                    game = truth(db).game
                    living = game.alive_names()
                    holders = [p for p, r in role_of.items() if r == call]
                    alive = [p for p in holders if p in living]
                    # the same choice whoever holds the card, dead or alive: every living
                    # player, and the call's own words
                    radios = shared.locator('#live form.turn input[name="target"]')
                    expect(radios).to_have_count(len(living))
                    assert radios.evaluate_all("xs => xs.map(x => x.value)") == living
                    if alive == [OWN] and nights == 1:
                        # she plays on her own phone; the shared phone still shows the call
                        catch_up(ana.page)
                        form = ana.page.locator("#live form.turn")
                        other = next(p for p in living if p not in (OWN, seer)
                                     and role_of[p] != "werewolf")
                        expect(form).to_have_count(1)
                        form.locator(f'input[name="target"][value="{other}"]').check()
                        with ana.page.expect_navigation():
                            form.get_by_role("button").click()
                        no_refusal(ana.page)
                    else:
                        if call == "werewolf":
                            # night one: the seer, so that night two calls a dead seer
                            target = seer if nights == 1 else next(
                                p for p in living if role_of[p] not in ("werewolf",))
                        elif alive:
                            verb = {"seer": "inspect", "doctor": "protect"}[call]
                            legal = game.legal_targets(alive[0], verb)
                            target = next((p for p in legal if p != seer), legal[0])
                        else:
                            target = living[0]  # a dead role's call: any tap at all
                        name = f"en-shared-{call}-night{nights}.png"
                        tap_on_shared(shared, target, shots / name if nights == 1
                                      and call == "werewolf" else None)
                        done = shared.locator("section.shared-done")
                        expect(done).to_be_visible()
                        if call == "werewolf":
                            listed = done.locator("ul.pack li").all_inner_texts()
                            assert sorted(listed) == pack
                        if call == "seer":
                            answer = done.locator(".answer")
                            expect(answer).to_contain_text(target)
                            werewolf = role_of[target] == "werewolf"
                            expect(answer).to_have_attribute("data-werewolf",
                                                             "yes" if werewolf else "no")
                            if not alive:
                                dead_seer_seen = True
                                shared.screenshot(path=str(shots / "en-shared-seer-dead.png"),
                                                  full_page=True)
                            else:
                                shared.screenshot(path=str(shots / "en-shared-seer-answer.png"),
                                                  full_page=True)
                        if call == "seer" and alive:
                            # not "done": the next call hides it all the same
                            with shared.expect_response(lambda r: "/api/s/" in r.url):
                                pass  # the page's next poll: the answer stays through it
                            expect(shared.locator("section.shared-done .answer")).to_be_visible()
                            end_call(host)
                            expect(shared.locator("section.shared-done")).to_have_count(0)
                            expect(shared.locator(".answer")).to_have_count(0)
                            continue
                        # "done" hides it at once
                        shared.locator("#hide-and-pass").click()
                        expect(shared.locator("section.shared-done")).to_have_count(0)
                        expect(shared.locator(".answer, ul.pack")).to_have_count(0)
                    end_call(host)
                    if alive == [OWN] and nights == 1:
                        # the shared page did not change for her choice: wait for the
                        # next call (or the morning) before looking again
                        catch_up(shared)
                if truth(db).game.winner is not None:
                    break
                # the day: the host's page runs it; hands are counted aloud
                catch_up(host)
                if host.locator('#live button[data-command="skip_clock"]').count():
                    host_press(host, "skip_clock")
                game = truth(db).game
                wolf = next(p for p in pack if p in game.alive_names())
                count_hands(host, db, wolf)
                wolves_out.append(wolf)
                if truth(db).game.winner is not None:
                    break
            game = truth(db).game
            assert game.winner == "village", (game.winner, wolves_out)
            assert not game.alive[game.seat[seer]] and dead_seer_seen
            expect(host.locator("#live .winners")).to_be_visible()
            # after the night, the shared phone shows nothing secret
            catch_up(shared)
            expect(shared.locator("#live .shared-call")).to_have_count(0)
            expect(shared.locator(".pack, .answer, form.turn")).to_have_count(0)
        finally:
            for context in contexts:
                context.close()
