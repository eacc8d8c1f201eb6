"""No phone, page or shared screen shows a Werewords secret its viewer may not know.

Whole games are played through the HTTP API of a real server on a loopback port: the mayor
chooses the word and taps tokens (some taken back) on the phone, the host's page lets time
pass, the werewolves hunt the seer and everybody points, on the phones or aloud. After every
step every player's API view and pages and the host's are fetched and checked against an
oracle written here from seed 004, independent of rules/werewords/knowledge.py: the truth
(who holds which role, the word, the offer) is rebuilt from the stored log, and which calls
the table has heard so far from the lines it heard (the narrator's `told`):

- the magic word: the mayor once the mayor's call has been made, the seer once the seer's,
  each werewolf once the werewolves'; everyone once the game is over; nobody else, ever;
- the other words offered: the mayor's alone, once the mayor's call has been made;
- (player, role): one's own card (the mayor's secret role once the mayor's call has been
  made); the pack for a werewolf, the werewolves for the minion, the seer for the beholder,
  each once their call has been made; the werewolves who showed themselves after a guess
  and every card the pointing turned over; every role once the game is over;
- a token the mayor tapped and may still take back: the mayor's phone alone.
"""

from __future__ import annotations

import html
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from narrator.cues import Say
from narrator.narrator import Narrator
from phones.i18n import page_text
from speech import catalog
from tests.pages_read import PagesRead
from tests.stored_truth import StoredTruth
from tests.test_phones_leaks import LI, Phone, Server

ROLES = {"villager", "seer", "werewolf", "minion", "beholder"}
NAMES = ["Ana", "Ben", "Cleo", "Dov", "Eli", "Fay", "Gus", "Hal"]
CALLS = {"mayor": "ww_wake_mayor", "seer": "ww_wake_seer",
         "werewolves": ("ww_wake_werewolves", "ww_wake_werewolf"),
         "minion": "ww_wake_minion", "beholder": "ww_wake_beholder"}
DATA_ROLE = re.compile(r'data-role="([^"]*)"')


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    srv = Server(tmp_path_factory.mktemp("werewords-leaks") / "games.db")
    yield srv
    srv.stop()


# ---------------------------------------------------------------------- the oracle


class Truth:
    """The table rebuilt from its stored log, and what each viewer may know of it."""

    def __init__(self, narrator: Narrator):
        self.narrator = narrator
        self.game = narrator.game
        heard = {c.key for c in narrator.told if isinstance(c, Say)}
        self.called = {call for call, keys in CALLS.items()
                       if set([keys] if isinstance(keys, str) else keys) & heard}
        self.over = self.game.winner is not None
        self.roles = dict(zip(self.game.players, self.game.roles, strict=True))
        self.mayor = self.game.players[self.game.mayor]

    def role(self, name: str) -> str:
        return self.roles[name]

    def may_see_word(self, viewer: str | None) -> bool:
        if self.over:
            return True
        if viewer is None:
            return False
        role = self.role(viewer)
        return ((viewer == self.mayor and "mayor" in self.called)
                or (role == "seer" and "seer" in self.called)
                or (role == "werewolf" and "werewolves" in self.called))

    def may_see_offer(self, viewer: str | None) -> bool:
        return viewer == self.mayor and "mayor" in self.called

    def facts(self, viewer: str | None) -> set[tuple[str, str]]:
        """Every (player, role) `viewer` may hold now (None: the host who does not play)."""
        game = self.game
        if self.over:
            return set(self.roles.items())
        known: set[tuple[str, str]] = set()
        events = game.events
        for event in events:
            if event["type"] == "werewolves_shown":
                known |= {(w, "werewolf") for w in event["players"]}
            if event["type"] == "revealed":
                known |= {(p, self.role(p)) for p in event["players"]}
        if viewer is None:
            return known
        role = self.role(viewer)
        if viewer != self.mayor or "mayor" in self.called:
            known.add((viewer, role))
        wolves = [p for p, r in self.roles.items() if r == "werewolf"]
        if role == "werewolf" and "werewolves" in self.called:
            known |= {(w, "werewolf") for w in wolves}
        if role == "minion" and "minion" in self.called:
            known |= {(w, "werewolf") for w in wolves}
        if role == "beholder" and "beholder" in self.called:
            known |= {(p, "seer") for p, r in self.roles.items() if r == "seer"}
        return known


def json_facts(view: Any, players: set[str]) -> set[tuple[str, str]]:
    """Every (player, role) association anywhere in a JSON view, in the shapes the views
    use: a knowledge's facts, a name -> role mapping, a role beside a player's name."""
    found: set[tuple[str, str]] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            owner = node.get("player") if node.get("player") in players else None
            for fact in node.get("facts", []) if isinstance(node.get("facts"), list) else []:
                kind, value = fact.get("fact"), fact.get("value")
                if kind == "role" and owner:
                    found.add((owner, value))
                elif kind in ("pack", "werewolves"):
                    found.update((n, "werewolf") for n in value)
                elif kind == "seer":
                    found.add((value, "seer"))
            for key, value in node.items():
                if key in players and value in ROLES:
                    found.add((key, value))
                if key in ("role", "role_the") and value in ROLES and owner:
                    found.add((owner, value))
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(view)
    return found


def html_facts(page: str, me: str | None) -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    for name, inner in LI.findall(page):
        found.update((name, role) for role in DATA_ROLE.findall(inner) if role in ROLES)
    for own in re.findall(r'<span class="role" data-role="([^"]*)"', page):
        assert me is not None, "a role card on a page that belongs to nobody"
        found.add((me, own))
    for cls, role in (("pack", "werewolf"), ("wolves", "werewolf"), ("seer-is", "seer")):
        for block in re.findall(rf'<ul class="{cls}">(.*?)</ul>', page, re.S):
            found.update((n.strip(), role) for n in re.findall(r"<li[^>]*>(.*?)</li>", block)
                         if n.strip() and n.strip() != "—")
    return found


def shows(text: str, word: str) -> bool:
    """`word` appears in the text as a word of its own (case and accents as written), in
    what a page or a view carries: a view's values (its keys are the schema: an offered
    "key" is not the JSON's own), a page's text and attribute values (its tag and attribute
    names are markup: an offered "button" is not `<button>`)."""
    return re.search(rf"(?<!\w){re.escape(word.casefold())}(?!\w)",
                     _content(text).casefold()) is not None


# a link's token (or a device id): 32 random URL-safe characters, where a short offered word
# turns up by chance between two dashes ("/p/x9-car-Zq..." about once in 600,000 tokens for
# a three-letter word; a crawl reads some 1,000 tokens a game): a secret's address, not text
TOKEN = re.compile(r"(?<![\w-])[\w-]{32,}(?![\w-])")
MARKUP_VALUES = re.compile(
    r"""\s(?:type|class|id|role|for|name|method|enctype|rel|autocomplete|inputmode|lang|"""
    r"""charset|content|http-equiv|aria-hidden|aria-live)=(?:"[^"]*"|'[^']*')""")


def _content(text: str) -> str:
    try:
        doc = json.loads(text)
    except ValueError:
        text = TOKEN.sub(" ", text)
        # markup: drop tag names, attribute names and the values of the attributes whose
        # values are markup's own vocabulary (`type="button"` is no offered "button"); keep
        # the text and every other attribute's value (data-*, value, alt, title, href)
        text = re.sub(r"</?[A-Za-z][\w-]*", " ", text)
        text = MARKUP_VALUES.sub(" ", text)
        return re.sub(r"\s[A-Za-z_:][\w:.-]*(?==)", " ", text)
    values: list[str] = []

    def collect(node: Any) -> None:
        if isinstance(node, dict):
            for value in node.values():
                collect(value)
        elif isinstance(node, list):
            for value in node:
                collect(value)
        else:
            values.append(str(node))

    collect(doc)
    return TOKEN.sub(" ", "\n".join(values))


def chrome(lang: str) -> str:
    """Every text a page or a story line may hold whatever the game: a word of the offer
    that is also one of these could not be told apart from them."""
    texts: list[str] = []

    def collect(node: Any) -> None:
        if isinstance(node, str):
            texts.append(node)
        elif isinstance(node, dict):
            for value in node.values():
                collect(value)
        elif isinstance(node, list):
            for value in node:
                collect(value)

    collect(page_text(lang))
    collect(catalog(lang))
    texts += NAMES
    return "\n".join(texts)


# ---------------------------------------------------------------------- one table


class Table:
    def __init__(self, server: Server, seed: int, players: int, protocol: str,
                 host_plays: bool, **options: Any):
        self.server, self.rng, self.protocol = server, random.Random(seed), protocol
        self.names = NAMES[:players]
        for _ in range(30):  # a deal whose offer reads apart from the pages' own words
            self.open(host_plays, options)
            truth = self.truth()
            if not any(shows(chrome("en"), w) for w in truth.game.words):
                break
        else:
            raise AssertionError("every deal offered a word the pages use")
        self.steps = 0
        self.pages_read = PagesRead()
        self.checked_word_hidden = 0

    def open(self, host_plays: bool, options: dict[str, Any]) -> None:
        self.host = Phone(self.server.base)
        host_name = self.names[0] if host_plays else None
        r = self.host.post("/api/rooms", json={"host_name": host_name} if host_plays else {})
        self.code, self.ht = r.json()["code"], r.json()["host_token"]
        self.stored = StoredTruth(self.server.url, self.code)
        self.host_player = host_name
        self.links: dict[str, tuple[Phone, str]] = {}
        if host_name:
            self.links[host_name] = (self.host, self.ht)
        for name in self.names[1 if host_plays else 0:]:
            phone = Phone(self.server.base)
            r = phone.post(f"/api/rooms/{self.code}/join", json={"name": name})
            assert r.status_code == 200, r.text
            self.links[name] = (phone, r.json()["token"])
        self.command("game", "werewords")
        self.command("protocol", self.protocol)
        self.command("option", ["day_seconds", 120])
        for key, value in options.items():
            self.command("option", [key, value])
        self.command("start")

    # --- the host's hands

    def post(self, kind: str, body: dict[str, Any]) -> dict[str, Any]:
        r = self.host.post(f"/api/h/{self.ht}/{kind}", json=body)
        assert r.status_code == 200, (kind, body, r.text)
        return r.json()

    def command(self, command: str, arg: Any = None) -> None:
        self.post("command", {"command": command, "arg": arg})

    def heard(self, intent: str, slots: dict[str, Any] | None = None) -> None:
        self.post("heard", {"intent": intent, "slots": slots or {}})

    def tick(self, seconds: float) -> None:
        self.post("tick", {"seconds": seconds})

    def tap(self, name: str, verb: str, target: Any) -> int:
        phone, token = self.links[name]
        return phone.post(f"/api/p/{token}/choice",
                          json={"verb": verb, "target": target}).status_code

    # --- the truth

    def truth(self) -> Truth:
        return Truth(self.stored())

    # --- the checks

    def check(self, truth: Truth, viewer: str | None, views: list[Any], pages: list[str],
              where: str) -> None:
        game = truth.game
        allowed = truth.facts(viewer)
        texts = [json.dumps(v, ensure_ascii=False) for v in views] + [
            html.unescape(p) for p in pages]
        if not truth.may_see_word(viewer):
            for text in texts:
                assert not shows(text, game.word or "\x00"), (where, viewer, "the word")
            self.checked_word_hidden += 1
        for word in game.words:
            if word != game.word and not truth.may_see_offer(viewer):
                for text in texts:
                    assert not shows(text, word), (where, viewer, "an offered word", word)
        for view in views:
            for fact in json_facts(view, set(self.names)):
                assert fact in allowed, (where, viewer, truth.role(viewer) if viewer
                                         else "host", fact)
            if viewer != truth.mayor:
                assert "held" not in json.dumps(view), (where, viewer, "a held token")
        for page in pages:
            for fact in html_facts(page, viewer):
                assert fact in allowed, (where, "html", viewer, fact)
            if viewer != truth.mayor:
                # the token pad and a token held back are the mayor's alone
                assert 'class="turn pad"' not in page, (where, viewer, "the pad")
                assert 'data-verb="take_back"' not in page, (where, viewer, "a held token")

    def observe(self) -> dict[str, Any]:
        self.steps += 1
        truth = self.truth()
        where = f"step {self.steps}, {truth.narrator.phase}, calls {sorted(truth.called)}"
        views: dict[str, Any] = {}
        for name, (phone, token) in self.links.items():
            view = phone.get(f"/api/p/{token}").json()
            pages = ([phone.get(f"/p/{token}").text, phone.get(f"/p/{token}/part").text]
                     if self.pages_read.changed(name, view["version"]) else [])
            extra: list[Any] = []
            if name == self.host_player:
                extra = [phone.get(f"/api/h/{self.ht}").json()]
                if self.pages_read.changed("__host_player__", extra[0]["version"]):
                    pages += [phone.get(f"/h/{self.ht}").text,
                              phone.get(f"/h/{self.ht}/part").text]
            self.check(truth, name, [view, *extra], pages, where)
            views[name] = view
        host = self.host.get(f"/api/h/{self.ht}").json()
        if self.host_player is None:
            pages = ([self.host.get(f"/h/{self.ht}").text,
                      self.host.get(f"/h/{self.ht}/part").text]
                     if self.pages_read.changed("__host__", host["version"]) else [])
            self.check(truth, None, [host], pages, where)
            assert "private" not in host and "turn" not in host, (where, "host")
        views["__host__"] = host
        return views

    # --- playing

    def play(self, max_steps: int = 400) -> Truth:
        whoops = 0
        for _ in range(max_steps):
            views = self.observe()
            host = views["__host__"]
            phase = host["phase"]
            truth = self.truth()
            mayor = truth.mayor
            if phase == "over":
                return truth
            if phase == "reveal":
                self.heard("ReadyIntent")
            elif phase == "night":
                turn = views[mayor].get("turn")
                if turn:
                    assert self.tap(mayor, "choose_word", self.rng.choice(turn["targets"])) == 200
                else:
                    self.tick(host["timer"]["left"])
            elif phase == "ww_day":
                self.day_step(views[mayor], host)
            elif phase in ("ww_hunt", "ww_discuss", "ww_point") and whoops < 2 and (
                    self.rng.random() < 0.15):
                whoops += 1
                if self.rng.random() < 0.5:
                    self.heard("WhoopsIntent")
                else:
                    assert self.tap(mayor, "whoops", None) == 200
            elif phase == "ww_discuss":
                self.command("skip_clock") if self.rng.random() < 0.5 else self.tick(60)
            else:
                self.point(views, host, truth)
        raise AssertionError("the game did not end")

    def day_step(self, mayor_view: dict[str, Any], host: dict[str, Any]) -> None:
        truth = self.truth()
        mayor = truth.mayor
        roll = self.rng.random()
        held = mayor_view["private"].get("held")
        targets = mayor_view["turn"]["targets"]
        if held and (roll < 0.3 or not targets):
            assert self.tap(mayor, "take_back", None) == 200
        elif not held and roll < 0.6:
            weights = [{"correct": 0.15, "so_close": 0.5}.get(t["token"], 1.0) for t in targets]
            assert self.tap(mayor, "answer", self.rng.choices(targets, weights)[0]) == 200
        else:
            self.tick(self.rng.choice([2, 5, 30]))

    def point(self, views: dict[str, Any], host: dict[str, Any], truth: Truth) -> None:
        waiting = [n for n in self.names if (views[n].get("turn") or {}).get("verb") in (
            "guess_seer", "vote")]
        if waiting:
            name = self.rng.choice(waiting)
            turn = views[name]["turn"]
            assert self.tap(name, turn["verb"], self.rng.choice(turn["targets"])) == 200
            return
        listening = truth.narrator.listening()
        if listening is not None and listening.player is not None:
            self.heard("PointIntent", {"player": self.rng.choice(sorted(listening.names))})
            return
        # the hunt's 15 seconds pass on the host's page
        self.tick(host["timer"]["left"])


GAMES = [
    # seed, players, protocol, host plays, options
    (1, 5, "phones", False, {}),
    (2, 8, "phones", False, {"minion": True, "beholder": True}),
    (3, 6, "roll_call", False, {"beholder": True}),
    (4, 7, "roll_call", True, {"minion": True}),
    (5, 4, "phones", True, {}),
]


@pytest.mark.parametrize(("seed", "players", "protocol", "host_plays", "options"), GAMES,
                         ids=[f"{g[0]}-{g[1]}p-{g[2]}{'-host_plays' if g[3] else ''}"
                              f"{''.join('-' + k for k in g[4])}" for g in GAMES])
def test_a_whole_werewords_game_leaks_nothing(server: Server, seed: int, players: int,
                                              protocol: str, host_plays: bool,
                                              options: dict[str, Any]) -> None:
    table = Table(server, seed, players, protocol, host_plays, **options)
    final = table.play()
    # every phone's pages were read (and again whenever its view changed)
    assert set(table.pages_read.versions) >= set(table.links), table.pages_read.versions
    assert table.checked_word_hidden > 3 * players  # the word was looked for, and hidden
    views = table.observe()
    for name in table.names:
        public = views[name]["public"]
        assert public["word"] == final.game.word
        assert public["roles"] == final.roles


def test_the_oracle_catches_a_leak() -> None:
    """The checks themselves: a word, a role and a card are found where they are."""
    assert shows("Your word: <b>Castle</b>.", "castle")
    assert not shows("Newcastle", "castle")
    # markup's own words are not the page's: an offered "button" is not a button's type
    assert not shows('<button type="button" class="small">Replay</button>', "button")
    assert shows('<button type="button" title="Button">Replay</button>', "button")
    assert shows('<li data-word="button">x</li>', "button")
    # a link's token is no text: a word that turns up in it by chance is not shown
    token = "x9-car-" + "Zq" * 12 + "u"
    assert len(token) == 32
    assert not shows(f'<a href="/p/{token}">Your link</a>', "car")
    assert not shows(json.dumps({"link": f"/p/{token}", "token": token}), "car")
    assert shows(json.dumps({"link": f"/p/{token}", "word": "car"}), "car")
    view = {"player": "Ana", "facts": [{"call": "seer", "fact": "role", "value": "seer"},
                                       {"call": "werewolves", "fact": "pack",
                                        "value": ["Ben"]}],
            "public": {"revealed": {"Cleo": "werewolf"}}}
    assert json_facts(view, {"Ana", "Ben", "Cleo"}) == {
        ("Ana", "seer"), ("Ben", "werewolf"), ("Cleo", "werewolf")}
    page = '<li class="in" data-player="Ben">Ben <span data-role="seer">x</span></li>'
    assert html_facts(page, "Ana") == {("Ben", "seer")}
    assert Path(__file__).exists()
