"""One Night: no phone, page or host screen shows anything its viewer may not know (issue 13).

Whole games are played through the HTTP API of a real server on a loopback port, as in
tests/test_phones_leaks.py for Wolf Village. After every step, every player's API view
and pages and the host's are fetched and checked against an oracle written here from the
seed, independent of `rules/one_night/knowledge.py`: the night is replayed from the stored
log card by card (who holds what, after each swap), and the oracle decides which facts each
player may hold (a player or a centre card shown with a card, a player shown as a werewolf
or a mason), given the calls the narrator has made so far:

- their own card as dealt, from the deal;
- in the doppelganger's call, the card she copied; in the werewolves' call, the other
  werewolves (for each werewolf, the doppelganger who copied one, and the little girl who
  peeks) and the centre card a lone werewolf looks at; in the minion's call, the
  werewolves; in the masons' call, the other masons; the cards the mystic wolf, the seer,
  the paranormal investigator look at; the card the robber takes (and that the robbed
  player held it); in the insomniac's call, her own card as it stands;
- nothing of the troublemaker's or the drunk's swaps (they do not look); at the end,
  everything.

Besides the facts: a choice shows only on the phone of the player whose call is open (or,
by day, every phone once the debate is over, when the table votes on its phones); a phone
is "awake" only in its own call; the host who does not play sees no private view, no turn
and nobody awaited at night.
"""

from __future__ import annotations

import random
import re
import secrets
from types import SimpleNamespace
from typing import Any

import pytest

import phones.relay
from narrator.narrator import Narrator
from tests.pages_read import PagesRead
from tests.stored_truth import StoredTruth
from tests.test_phones_leaks import Phone, Server

CARDS = {"doppelganger", "werewolf", "mystic_wolf", "minion", "mason", "seer",
         "paranormal_investigator", "robber", "troublemaker", "drunk", "insomniac",
         "villager", "tanner", "hunter", "little_girl"}
WOLF_CARDS = {"werewolf", "mystic_wolf"}
TURNS = {"werewolf", "mystic_wolf", "tanner"}  # what the investigator becomes on seeing it
NAMES = ["Ana", "Ben", "Cleo", "Dov", "Eli", "Fay", "Gus", "Hal", "Ivy", "Jon", "Kim", "Lev"]
WOLF, MASON = "wolf", "mason"  # a player shown as a werewolf (pack, minion) or a mason
# an element on a page that shows a player's (or a centre card's) card
TAGGED = re.compile(r'<[^>]*\bdata-(player|center)="([^"]*)"[^>]*\bdata-role="([^"]*)"', re.S)
TAGGED_SIDE = re.compile(r'<[^>]*\bdata-player="([^"]*)"[^>]*\bdata-side="([^"]*)"', re.S)


# ---------------------------------------------------------------------- the harness


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    srv = Server(tmp_path_factory.mktemp("one-night-leaks") / "games.db", CALL_PAUSE=4.0)
    yield srv
    srv.stop()


# ---------------------------------------------------------------------- the oracle


def woken_call(dealt: str, copied: str | None, verb: str) -> str:
    """The call in which a player dealt `dealt` makes a choice with `verb`."""
    if verb in ("peek_center", "peek"):
        return "werewolves"
    if dealt == "doppelganger":
        return "doppelganger"  # her copy and a copied action, in her own call
    return {"mystic_wolf": "mystic_wolf", "seer": "seer",
            "paranormal_investigator": "paranormal_investigator", "robber": "robber",
            "troublemaker": "troublemaker", "drunk": "drunk"}[dealt]


def allowed_facts(truth: Narrator, viewer: str | None) -> set[tuple[str, str]]:
    """Every (player or "center:i", card | WOLF | MASON) fact `viewer` may hold now."""
    game = truth.game
    names = list(game.players)
    dealt = dict(zip(names, game.setup.roles, strict=True))
    centre = list(game.setup.center)
    facts: set[tuple[str, str]] = set()
    if truth.phase == "over":
        # every card as dealt and as it ended, what each counted as: everyone's now
        for name in names:
            facts |= {(name, dealt[name]), (name, game.cards()[name]),
                      (name, game.final_roles()[name])}
        for i in range(3):
            facts |= {(f"center:{i}", centre[i]), (f"center:{i}", game.center()[i])}
    if viewer is None:
        return facts
    made = set(truth.script.opened) if truth.phase in ("reveal", "night") else set(
        game.night_calls())
    facts.add((viewer, dealt[viewer]))
    # the night, card by card, from the log
    held = {**dealt, **{f"center:{i}": c for i, c in enumerate(centre)}}
    copied: str | None = None
    peeked: set[str] = set()
    for actor, verb, target in truth.actions:
        if verb == "vote":
            continue
        call = woken_call(dealt[actor], copied, verb)
        mine = actor == viewer and call in made
        if verb == "copy":
            copied = held[target]
            if mine:
                facts.add((target, copied))
        elif verb in ("look", "investigate") and target is not None:
            looked = ([target] if isinstance(target, str)
                      else [f"center:{i}" for i in target])
            if mine:
                facts |= {(t, held[t]) for t in looked}
                if verb == "investigate" and held[target] in TURNS:
                    facts.add((viewer, held[target]))  # «se une a ese bando»
        elif verb == "peek_center" and target is not None and mine:
            facts.add((f"center:{target}", held[f"center:{target}"]))
        elif verb == "peek" and target:
            peeked.add(actor)
        elif verb == "rob" and target is not None:
            mine_before, theirs = held[actor], held[target]
            held[actor], held[target] = theirs, mine_before
            if mine:
                facts |= {(viewer, theirs), (target, theirs)}
        elif verb == "swap" and target is not None:
            a, b = target
            held[a], held[b] = held[b], held[a]
        elif verb == "drunk":
            key = f"center:{target}"
            held[actor], held[key] = held[key], held[actor]

    def wakes_as(name: str) -> str:
        return copied if dealt[name] == "doppelganger" and copied else dealt[name]

    wolves = {n for n in names if dealt[n] in WOLF_CARDS
              or (dealt[n] == "doppelganger" and copied in WOLF_CARDS)}
    me = wakes_as(viewer)
    if "werewolves" in made and (viewer in wolves or viewer in peeked):
        facts |= {(w, WOLF) for w in wolves}
    if "minion" in made and me == "minion":
        facts |= {(w, WOLF) for w in wolves}
    if "masons" in made and me == "mason":
        facts |= {(n, MASON) for n in names if wakes_as(n) == "mason"}
    own_call = "insomniac" if dealt[viewer] == "insomniac" else "doppelganger_insomniac"
    if me == "insomniac" and own_call in made:
        facts.add((viewer, held[viewer]))
    return facts


def json_facts(view: Any, me: str | None, players: set[str]) -> set[tuple[str, str]]:
    """Every association of a player (or a centre card) with a card anywhere in a view."""
    found: set[tuple[str, str]] = set()

    def walk(node: Any, key: str | None) -> None:
        if isinstance(node, dict):
            if key == "story":
                return  # lines said aloud: every table heard them
            fact, value = node.get("fact"), node.get("value")
            if fact in ("card", "own_card", "became") and value in CARDS and me:
                found.add((me, value))
            if isinstance(node.get("player"), str) and node["player"] in players and (
                    node.get("role") in CARDS):
                found.add((node["player"], node["role"]))
            if isinstance(node.get("center"), int) and node.get("role") in CARDS:
                found.add((f"center:{node['center']}", node["role"]))
            for k, v in node.items():
                if k in players and v in CARDS:
                    found.add((k, v))  # {name: card} (the end's dealt, cards, counts_as)
                if k in ("center", "center_dealt") and isinstance(v, list):
                    found.update((f"center:{i}", c) for i, c in enumerate(v) if c in CARDS)
                walk(v, k)
            if fact in ("pack", "werewolves") and isinstance(value, list):
                found.update((n, WOLF) for n in value if n in players)
            if fact == "masons" and isinstance(value, list):
                found.update((n, MASON) for n in value if n in players)
        elif isinstance(node, list):
            for item in node:
                walk(item, key)

    walk(view, None)
    return found


def html_facts(page: str, me: str | None) -> set[tuple[str, str]]:
    found = set()
    for kind, who, role in TAGGED.findall(page):
        found.add((who if kind == "player" else f"center:{who}", role))
    for who, side in TAGGED_SIDE.findall(page):
        found.add((who, side))
    own = re.search(r'<span class="role" data-role="([^"]*)"', page)
    if own:
        assert me is not None, "a card on a page that belongs to nobody"
        found.add((me, own.group(1)))
    return found


def keys_in(node: Any) -> set[str]:
    if isinstance(node, dict):
        return set(node) | {k for v in node.values() for k in keys_in(v)}
    if isinstance(node, list):
        return {k for v in node for k in keys_in(v)}
    return set()


# ---------------------------------------------------------------------- one table


class Table:
    def __init__(self, server: Server, seed: int, players: int, deck: dict[str, int] | None,
                 protocol: str, host_plays: bool = False):
        # the room deals from `seed` (the relay draws a room's seed at random): the same
        # game every run
        self.saved_secrets = phones.relay.secrets
        phones.relay.secrets = SimpleNamespace(randbelow=lambda _n: seed,  # type: ignore[assignment]
                                               token_urlsafe=secrets.token_urlsafe)
        try:
            self._open(server, seed, players, deck, protocol, host_plays)
        finally:
            phones.relay.secrets = self.saved_secrets

    def _open(self, server: Server, seed: int, players: int, deck: dict[str, int] | None,
              protocol: str, host_plays: bool) -> None:
        self.server = server
        self.rng = random.Random(seed)
        self.protocol = protocol
        self.host = Phone(server.base)
        names = NAMES[:players]
        host_name = names[0] if host_plays else None
        r = self.host.post("/api/rooms", json={"host_name": host_name} if host_plays else {})
        self.code, self.ht = r.json()["code"], r.json()["host_token"]
        self.stored = StoredTruth(self.server.url, self.code)
        self.host_player = host_name
        self.links: dict[str, tuple[Phone, str]] = {}
        if host_name:
            self.links[host_name] = (self.host, self.ht)
        for name in names[1 if host_plays else 0:]:
            phone = Phone(server.base)
            r = phone.post(f"/api/rooms/{self.code}/join", json={"name": name})
            assert r.status_code == 200, r.text
            self.links[name] = (phone, r.json()["token"])
        self.players = set(names)
        self.command("game", "one-night")
        if deck is not None:
            self.command("deck", deck)
        self.command("protocol", protocol)
        self.command("start")
        self.steps = 0
        self.pages_read = PagesRead()
        self.seen: dict[str, set[tuple[str, str]]] = {}

    def post(self, kind: str, body: dict[str, Any]) -> dict[str, Any]:
        r = self.host.post(f"/api/h/{self.ht}/{kind}", json=body)
        assert r.status_code == 200, (kind, body, r.text)
        return r.json()

    def command(self, command: str, arg: Any = None) -> None:
        self.post("command", {"command": command, "arg": arg})

    def heard(self, intent: str, slots: dict[str, Any] | None = None) -> None:
        self.post("heard", {"intent": intent, "slots": slots or {}})

    def truth(self) -> Narrator:
        return self.stored()

    # --- the checks

    def may_choose(self, truth: Narrator, name: str) -> bool:
        """Whether `name`'s phone may show a choice now (from the calls, not the rules'
        knowledge module)."""
        game = truth.game
        if truth.phase == "vote":
            return self.protocol == "phones" and name not in public_voted(truth)
        if truth.phase != "night":
            return False
        calling = truth.script.night.calling
        return calling is not None and calling == game.current_call() and any(
            d.player == name for d in game.pending())

    def check_player(self, truth: Narrator, name: str, view: dict[str, Any],
                     pages: list[str], where: str) -> None:
        allowed = allowed_facts(truth, name)
        for fact in json_facts(view, name, self.players):
            assert fact in allowed, (where, name, truth.game.setup.roles, fact)
        for page in pages:
            for fact in html_facts(page, name):
                assert fact in allowed, (where, "html", name, fact)
        if "turn" in view and view["turn"]["verb"] != "confirm":
            assert self.may_choose(truth, name), (where, name, view["turn"])
        elif self.may_choose(truth, name):
            raise AssertionError((where, name, "a choice that does not show"))
        # «abre los ojos»: awake exactly in their own call (woken by the card dealt, or the
        # doppelganger's copy), and only then
        calling = truth.script.night.calling if truth.phase == "night" else None
        woken = calling is not None and name in truth.game.woken(calling)
        assert view.get("awake") == (calling if woken else None), (where, name, calling)
        public = view.get("public") or {}
        if truth.phase != "over":
            for key in ("dealt", "cards", "center", "center_dealt", "counts_as", "winner"):
                assert public.get(key) is None, (where, key)
        # what was seen stays on the phone (own card first, then each call's facts)
        found = json_facts(view.get("private") or {}, name, self.players)
        assert (name, truth.game.setup.roles[truth.game.players.index(name)]) in found, (
            where, name, "own card")
        lost = self.seen.get(name, set()) - found
        assert not lost or truth.phase == "lobby", (where, name, lost)
        self.seen[name] = found

    def check_host(self, truth: Narrator, view: dict[str, Any], pages: list[str],
                   where: str) -> None:
        if self.host_player is not None:
            return  # the host who plays is checked as that player
        allowed = allowed_facts(truth, None)
        for fact in json_facts(view, None, self.players):
            assert fact in allowed, (where, "host", fact)
        keys = keys_in({k: v for k, v in view.items() if k != "story"})
        assert not keys & {"private", "turn", "awake", "facts"}, (where, "host")
        if view["phase"] in ("reveal", "night", "debate"):
            assert view.get("waiting") in ({}, None), (where, view.get("waiting"))
        for page in pages:
            for fact in html_facts(page, None):
                assert fact in allowed, (where, "host html", fact)
            assert 'class="role"' not in page

    @staticmethod
    def page(phone: Phone, url: str) -> str:
        r = phone.get(url)
        assert r.status_code == 200, (url, r.status_code, r.text[:300])
        return r.text

    def observe(self) -> dict[str, dict[str, Any]]:
        self.steps += 1
        truth = self.truth()
        where = f"step {self.steps}, {truth.phase}, call {truth.script.night.calling}"
        views = {}
        for name, (phone, token) in self.links.items():
            view = phone.get(f"/api/p/{token}").json()
            pages = ([self.page(phone, f"/p/{token}"), self.page(phone, f"/p/{token}/part")]
                     if self.pages_read.changed(name, view["version"]) else [])
            if name == self.host_player:
                host = phone.get(f"/api/h/{self.ht}").json()
                fresh = self.pages_read.changed("__host_player__", host["version"])
                host_pages = [self.page(phone, f"/h/{self.ht}/part")] if fresh else []
                self.check_player(truth, name, host, host_pages, where + " (host)")
            self.check_player(truth, name, view, pages, where)
            views[name] = view
        host_view = self.host.get(f"/api/h/{self.ht}").json()
        host_pages = ([self.page(self.host, f"/h/{self.ht}"),
                       self.page(self.host, f"/h/{self.ht}/part")]
                      if self.pages_read.changed("__host__", host_view["version"]) else [])
        self.check_host(truth, host_view, host_pages, where)
        views["__host__"] = host_view
        return views

    def play(self, max_steps: int = 400) -> Narrator:
        for _ in range(max_steps):
            views = self.observe()
            host = views["__host__"]
            phase = host["phase"]
            if phase == "over":
                return self.truth()
            if phase == "reveal":
                self.heard("ReadyIntent")
                continue
            if phase == "debate":
                self.command("skip_clock")
                continue
            if phase == "vote" and self.protocol == "roll_call":
                voter = host["waiting"]["players"][0]
                self.heard("VoteIntent", {"player": self.rng.choice(
                    [p for p in sorted(self.players) if p != voter])})
                continue
            waiting = [n for n in sorted(self.links) if "turn" in views[n]]
            if not waiting:
                timer = host.get("timer") or {}
                assert phase == "night" and timer.get("kind") == "call", ("stuck", host)
                self.post("tick", {"seconds": max(timer["left"], 1)})
                continue
            name = self.rng.choice(waiting)
            turn = views[name]["turn"]
            phone, token = self.links[name]
            r = phone.post(f"/api/p/{token}/choice",
                           json={"verb": turn["verb"], "target": self.rng.choice(turn["targets"])})
            assert r.status_code == 200, (name, turn["verb"], r.text)
        raise AssertionError("the game did not end")


def public_voted(truth: Narrator) -> set[str]:
    return set(truth.script.public_knowledge()["voted"])


EVERY_CALL = {"doppelganger": 1, "werewolf": 1, "mystic_wolf": 1, "minion": 1, "mason": 2,
              "seer": 1, "paranormal_investigator": 1, "robber": 1, "troublemaker": 1,
              "drunk": 1, "insomniac": 1, "little_girl": 1, "tanner": 1, "villager": 1}
GAMES = [
    # seed, players, deck (None: the suggested one), protocol, host plays
    (1, 5, None, "phones", False),
    (2, 9, None, "roll_call", False),
    (3, 12, EVERY_CALL, "phones", False),
    (4, 12, EVERY_CALL, "phones", True),
    (5, 6, {"doppelganger": 1, "werewolf": 2, "insomniac": 1, "robber": 1, "mason": 2,
            "minion": 1, "villager": 1}, "phones", False),
]


@pytest.mark.parametrize(("seed", "players", "deck", "protocol", "host_plays"), GAMES,
                         ids=[f"{g[0]}-{g[1]}p-{'every-call' if g[2] == EVERY_CALL else 'deck'}"
                              f"-{g[3]}{'-host_plays' if g[4] else ''}" for g in GAMES])
def test_a_whole_one_night_game_leaks_nothing(server: Server, seed: int, players: int,
                                             deck: dict[str, int] | None, protocol: str,
                                             host_plays: bool) -> None:
    table = Table(server, seed, players, deck, protocol, host_plays)
    final = table.play()
    # every phone's pages were read (and again whenever its view changed)
    assert set(table.pages_read.versions) >= set(table.links), table.pages_read.versions
    views = table.observe()
    for name in table.links:
        public = views[name]["public"]
        assert public["dealt"] == final.game.roles_as_dealt()
        assert public["cards"] == final.game.cards()
        assert public["winners"] == final.game.winners


def test_the_oracle_catches_a_leak() -> None:
    """The checks themselves: a view or a page naming another's card is caught."""
    view = {"private": {"facts": [{"call": "seer", "fact": "looked",
                                   "value": {"player": "Ben", "role": "werewolf"}},
                                  {"call": "werewolves", "fact": "pack", "value": ["Cal"]}]},
            "public": {"cards": {"Dan": "tanner"}, "center": ["villager", None, "seer"]}}
    found = json_facts(view, "Ana", {"Ana", "Ben", "Cal", "Dan"})
    assert {("Ben", "werewolf"), ("Cal", WOLF), ("Dan", "tanner"), ("center:0", "villager"),
            ("center:2", "seer")} <= found
    page = ('<li data-player="Ben" data-role="robber">Ben</li>'
            '<li data-center="1" data-role="drunk">2</li><li data-player="Cal" data-side="wolf">')
    assert html_facts(page, "Ana") == {("Ben", "robber"), ("center:1", "drunk"), ("Cal", WOLF)}
