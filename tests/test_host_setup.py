"""The host's set-up over real HTTP: one form for everything, built from what the rules say.

What the page shows of presets, deals, ratings and house rules is compared with the rules'
own functions (rules/wolf_village), never with numbers written here; every refusal is
checked to change nothing (the stored log and every view, before and after).
"""

from __future__ import annotations

import re
from dataclasses import fields
from typing import Any

import pytest

from phones.i18n import page_text, setup_problem
from rules.core import SetupError
from rules.wolf_village.balance import rating
from rules.wolf_village.options import Options
from rules.wolf_village.presets import PRESETS
from rules.wolf_village.setup import validate_deck
from speech import LANGUAGES
from tests.test_phones_api import Server, Table

NAMES = ["Ana", "Ben", "Cal", "Dan", "Eve", "Fay", "Gil", "Hal"]
SWITCHES = [f.name for f in fields(Options) if f.name not in ("show_of_hands", "night_mode")]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    srv = Server(tmp_path_factory.mktemp("setup") / "games.db")
    yield srv
    srv.stop()


def lobby(server: Server, count: int = 8, lang: str | None = None) -> Table:
    table = Table(server, lang=lang)
    for name in NAMES[:count] if count <= len(NAMES) else [f"P{i}" for i in range(count)]:
        table.join(name)
    return table


def setup_of(table: Table) -> dict[str, Any]:
    return table.host_view()["setup"]


def post_setup(table: Table, body: dict[str, Any]) -> Any:
    return table.host.post(f"/api/h/{table.host_token}/setup", json=body)


def switches(setup: dict[str, Any]) -> dict[str, Any]:
    return {o["id"]: o["value"] for o in setup["options"]}


def csrf(page_text: str) -> str:
    return re.search(r'name="csrf_token" value="([^"]+)"', page_text).group(1)


# ---------------------------------------------------------------------- what the page shows


@pytest.mark.parametrize("count", [4, 8, 12, 20])
def test_every_preset_shows_what_it_deals_at_this_count_with_its_rating(server, count):
    """Seed 000's five ready set-ups, each with its cards at the table's count (or none
    outside its range) and the rules' balance rating."""
    setup = setup_of(lobby(server, count))
    assert [p["id"] for p in setup["presets"]] == list(PRESETS)
    for shown in setup["presets"]:
        spec = PRESETS[shown["id"]]
        assert (shown["min"], shown["max"]) == (spec.min_players, spec.max_players)
        if spec.min_players <= count <= spec.max_players:
            assert shown["deck"] == spec.deck(count)
            assert shown["rating"] == rating(spec.deck(count))
        else:
            assert shown["deck"] is None and shown["rating"] is None
    assert setup["count"] == count


def test_house_rules_show_their_real_values_not_a_dash(server):
    """The rules' defaults, and a preset's own switches (Fox: the doctor may not protect
    himself, the minion does not know the wolves)."""
    table = lobby(server, 9)
    shown = switches(setup_of(table))
    defaults = Options()
    assert shown == {**{k: getattr(defaults, k) for k in SWITCHES},
                     "night_mode": defaults.night_mode}
    assert all(isinstance(v, bool) for k, v in shown.items() if k != "night_mode")
    assert post_setup(table, {"preset": "fox"}).status_code == 200
    shown = switches(setup_of(table))
    for key, value in PRESETS["fox"].options.items():
        assert shown[key] == value, key
    page = table.host.get(f"/h/{table.host_token}").text
    assert ">—<" not in page
    assert not re.search(r'name="opt_doctor_self_protect"\s+checked', page)
    assert re.search(r'name="opt_reveal_dead_roles"\s+checked', page)


def test_the_form_lists_every_preset_and_every_switch_the_rules_have(server):
    """The page is built from the set-up the relay describes: nothing missing."""
    table = lobby(server)
    page = table.host.get(f"/h/{table.host_token}").text
    for preset in PRESETS:
        assert f'name="preset" value="{preset}"' in page
    assert 'name="preset" value="custom"' in page
    for key in SWITCHES:
        assert f'name="opt_{key}"' in page, key
    assert 'name="choice_night_mode"' in page
    for role in ("werewolf", "seer", "villager", "mason", "fox"):
        assert f'name="count_{role}"' in page
    # one form, one button (for pages without JavaScript): no Save per field
    assert page.count('id="setup"') == 1
    assert page.count(">Save<") == 0


# ---------------------------------------------------------------------- one form, all at once


def test_one_form_sets_everything_at_once(server):
    table = lobby(server)
    r = post_setup(table, {"preset": "classic", "protocol": "phones", "clock": 120,
                           "language": "es", "options": {"reveal_dead_roles": False,
                                                         "night_mode": "pass_phones"}})
    assert r.status_code == 200, r.text
    setup = setup_of(table)
    assert setup["choice"] == "classic" and setup["deck"] == PRESETS["classic"].deck(8)
    assert (setup["protocol"], setup["clock"], setup["language"]) == ("phones", 120, "es")
    assert switches(setup)["reveal_dead_roles"] is False
    assert switches(setup)["night_mode"] == "pass_phones"
    # the table's narrator took it all: what a game started now is dealt with
    narrator = table.truth()
    assert narrator.config.protocol == "phones" and narrator.lang == "es"
    # nothing changed sends nothing
    version, _ = table.log()
    assert post_setup(table, {"preset": "classic", "protocol": "phones"}).json() == {
        "said": []}
    assert table.log()[0] == version


def test_the_form_works_without_javascript(server):
    """The page's own form (CSRF and all), every field posted at once, then a redirect."""
    table = lobby(server)
    page = table.host.get(f"/h/{table.host_token}").text
    fields_ = {"csrf_token": csrf(page), "preset": "classic", "protocol": "show_of_hands",
               "clock": "300", "language": "en", "choice_night_mode": "all_at_once",
               "switches": " ".join(SWITCHES)}
    # ticked checkboxes are sent, unticked ones are not: the form ticks what is on
    for key in SWITCHES:
        if getattr(Options(), key) or PRESETS["classic"].options.get(key):
            fields_[f"opt_{key}"] = "on"
    for role, count in PRESETS["basic"].deck(8).items():  # the counts the form showed
        fields_[f"count_{role}"] = str(count)
    r = table.host.post(f"/h/{table.host_token}/setup", data=fields_)
    assert r.status_code == 303 and "reason" not in r.headers["Location"]
    setup = setup_of(table)
    assert setup["choice"] == "classic" and setup["deck"] == PRESETS["classic"].deck(8)
    assert setup["protocol"] == "show_of_hands" and setup["clock"] == 300
    assert switches(setup)["night_mode"] == "all_at_once"
    assert switches(setup)["sheriff"] is True  # Classic's own
    # without its CSRF token the form is refused
    del fields_["csrf_token"]
    before = table.snapshot()
    r = table.host.post(f"/h/{table.host_token}/setup", data={**fields_, "clock": "0"})
    assert r.status_code == 400 and table.snapshot() == before


# ---------------------------------------------------------------------- custom


def test_any_change_of_a_card_or_a_card_switch_makes_the_set_up_custom(server):
    """Seed 000: «cualquier cambio en las cartas de un reparto (un rol, el interruptor de un
    rol, el número de hombres lobo o el alguacil) lo convierte en el tuyo: Personalizado»."""
    table = lobby(server)
    post_setup(table, {"preset": "classic"})
    classic = PRESETS["classic"].deck(8)
    # the sheriff's switch: the same cards, now Custom, the other switches as they were
    before = switches(setup_of(table))
    assert post_setup(table, {"preset": "classic", "options": {"sheriff": False}}
                      ).status_code == 200
    setup = setup_of(table)
    assert setup["choice"] == "custom" and setup["deck"] == classic
    assert switches(setup) == {**before, "sheriff": False}
    assert setup["rating"] == rating(classic)
    # back to Classic: its own cards and switches again
    post_setup(table, {"preset": "classic"})
    assert setup_of(table)["choice"] == "classic"
    assert switches(setup_of(table)) == before
    # a role's switch
    post_setup(table, {"preset": "classic", "options": {"doctor_repeat": True}})
    assert setup_of(table)["choice"] == "custom"
    assert switches(setup_of(table))["sheriff"] is True  # Classic's sheriff is kept
    # the number of werewolves
    post_setup(table, {"preset": "classic"})
    more = {**classic, "werewolf": 3, "villager": classic["villager"] - 1}
    post_setup(table, {"preset": "classic", "deck": more})
    setup = setup_of(table)
    assert setup["choice"] == "custom" and setup["deck"] == more
    assert setup["rating"] == rating(more) and setup["problem"] is None
    # a house rule is not a card: the set-up stays Classic
    post_setup(table, {"preset": "classic"})
    post_setup(table, {"preset": "classic", "options": {"reveal_dead_roles": False}})
    assert setup_of(table)["choice"] == "classic"


def test_a_custom_deck_is_checked_with_the_rules_own_reasons(server):
    table = lobby(server)
    decks = [
        {"werewolf": 2, "seer": 1, "villager": 6},  # 9 cards for 8
        {"seer": 1, "villager": 7},  # no werewolf
        {"werewolf": 2, "mason": 1, "villager": 5},  # masons come as a pair
        {"werewolf": 4, "villager": 4},  # the wolves would win at once
        {"werewolf": 2, "seer": 2, "villager": 4},  # one seer at most
    ]
    for deck in decks:
        assert post_setup(table, {"preset": "custom", "deck": deck}).status_code == 200
        setup = setup_of(table)
        with pytest.raises(SetupError) as expected:
            validate_deck(deck, 8)
        assert setup["choice"] == "custom" and setup["deck"] == deck
        assert setup["problem"] == expected.value.reason
        assert setup["rating"] == rating(deck)
        assert setup["cards"] == sum(deck.values())
        page = table.host.get(f"/h/{table.host_token}").text
        assert 'id="setup-problem"' in page
        # and the narrator refuses to deal it
        r = table.host.post(f"/api/h/{table.host_token}/command", json={"command": "start"})
        assert r.status_code == 400
    good = {"werewolf": 2, "seer": 1, "doctor": 1, "villager": 4}
    post_setup(table, {"preset": "custom", "deck": good})
    assert setup_of(table)["problem"] is None
    assert setup_of(table)["rating"] == rating(good)


def test_why_a_deck_cannot_start_is_said_in_the_hosts_language(server):
    """The rules' reasons reach the page as codes and values (SetupError.code/params), so a
    Spanish (or Polish...) host reads why in their own language, the role by its name in
    that language, never the rules' English sentence."""
    table = lobby(server, lang="es")
    cases = [
        ({"werewolf": 2, "seer": 1, "villager": 6}, "deck_size",
         "la baraja tiene 9 cartas para 8 jugadores: necesita 8"),
        ({"seer": 1, "villager": 7}, "need_werewolf",
         "la baraja necesita al menos un hombre lobo"),
        ({"werewolf": 2, "mason": 1, "villager": 5}, "exact_copies", "Masón: 2 o ninguno, no 1"),
        ({"werewolf": 2, "seer": 2, "villager": 4}, "max_copies",
         "Vidente: como mucho 1 en la baraja, no 2"),
        ({"werewolf": 4, "villager": 4}, "wolves_win_at_once", "4 hombres lobo contra 4 más"),
    ]
    for deck, code, spanish in cases:
        post_setup(table, {"preset": "custom", "deck": deck})
        setup = setup_of(table)
        assert setup["problem_code"] == code, setup
        page = table.host.get(f"/h/{table.host_token}").text
        assert spanish in page
        assert setup["problem"] not in page  # not the rules' English sentence
        for lang in LANGUAGES:
            text = page_text(lang)
            said = setup_problem(text, code, setup["problem_params"], setup["problem"])
            assert said != setup["problem"] or lang == "en", (lang, code)
            assert "{" not in said, (lang, said)


@pytest.mark.parametrize("body", [
    {"preset": "nonsense"},
    {"preset": "custom", "deck": {"werewolf": -1, "villager": 9}},
    {"preset": "custom", "deck": {"werewolf": "two"}},
    {"preset": "custom", "deck": {"dragon": 1}},
    {"preset": "custom", "deck": ["werewolf"]},
    {"options": {"no_such_rule": True}},
    {"options": {"sheriff": "yes"}},
    {"options": {"night_mode": "daytime"}},
    {"options": {"show_of_hands": True}},
    {"clock": 90},
    {"clock": "3"},
    {"protocol": "shouting"},
    {"language": "xx"},
    {"game": "chess"},
    # a bad field spoils the whole form: the good ones are not taken either
    {"protocol": "phones", "clock": 90},
])
def test_a_bad_form_is_400_with_a_reason_and_changes_nothing(server, body):
    table = lobby(server)
    before = table.snapshot()
    r = post_setup(table, body)
    assert r.status_code == 400, (body, r.text)
    assert re.fullmatch(r"[a-z_]+", r.json()["error"])
    assert table.snapshot() == before


def test_the_set_up_cannot_change_once_the_game_has_started(server):
    table = lobby(server)
    table.command("start")
    before = table.snapshot()
    assert post_setup(table, {"preset": "classic"}).status_code == 409
    assert table.snapshot() == before


# ---------------------------------------------------------------------- seats


def test_the_host_removes_a_player_and_their_link_dies(server):
    table = lobby(server)
    phone, token = table.players["Cal"]
    assert phone.get(f"/api/p/{token}").status_code == 200
    r = table.host.post(f"/api/h/{table.host_token}/remove", json={"player": "cal"})
    assert r.status_code == 200 and r.json() == {"removed": "Cal"}
    assert table.host_view()["players"] == [n for n in NAMES if n != "Cal"]
    r = phone.get(f"/api/p/{token}")
    assert r.status_code == 404 and r.json()["error"] == "bad_link"
    # the name is free again
    table.join("Cal")
    assert table.host_view()["players"][-1] == "Cal"
    # an unknown name, and a removal once the game is on, change nothing
    before = table.snapshot()
    r = table.host.post(f"/api/h/{table.host_token}/remove", json={"player": "Zed"})
    assert r.status_code == 404 and table.snapshot() == before
    table.command("start")
    before = table.snapshot()
    r = table.host.post(f"/api/h/{table.host_token}/remove", json={"player": "Ana"})
    assert r.status_code == 409 and table.snapshot() == before


def test_a_host_who_plays_and_leaves_the_table_still_hosts(server):
    table = Table(server, host_name="Hana")
    for name in NAMES[:4]:
        table.join(name)
    r = table.host.post(f"/api/h/{table.host_token}/remove", json={"player": "Hana"})
    assert r.status_code == 200
    view = table.host_view()
    assert "Hana" not in view["players"] and view["host"] is True


def test_seats_move_up_and_down_on_the_page(server):
    table = lobby(server, 4)
    page = table.host.get(f"/h/{table.host_token}").text
    # Ben's "down" form holds the order with Ben and Cal swapped
    down = re.search(r'(<form[^>]*>(?:(?!</form>).)*?aria-label="Move down: Ben".*?</form>)',
                     page, re.S).group(1)
    seats = re.findall(r'name="seat" value="([^"]+)"', down.split("<form")[-1])
    assert seats == ["Ana", "Cal", "Ben", "Dan"]
    r = table.host.post(f"/h/{table.host_token}/do", data={
        "csrf_token": csrf(page), "command": "seats", "seat": seats})
    assert r.status_code == 303
    assert table.host_view()["players"] == seats


def test_the_host_page_shows_who_is_sheriff(server):
    table = lobby(server)
    post_setup(table, {"preset": "classic", "protocol": "phones", "clock": 0,
                       "options": {"night_mode": "all_at_once"}})
    table.command("start")
    table.heard("ReadyIntent")
    narrator = table.truth()
    game = narrator.game
    while game.phase in ("night", "settle"):
        for decision in game.pending():
            targets = game.legal_targets(decision.player, decision.action)
            pick = next(t for t in targets if not (isinstance(t, dict) and t.get("poison")))
            assert table.choose(decision.player, decision.action, pick).status_code == 200
        game = table.truth().game
    if game.phase != "election":
        pytest.skip("this deal ended before the election")
    living = game.alive_names()
    for voter in living:
        assert table.choose(voter, "elect", living[0]).status_code == 200
    view = table.host_view()
    assert view["public"]["sheriff"] == living[0]
    page = table.host.get(f"/h/{table.host_token}").text
    item = re.search(rf'<li[^>]*data-player="{living[0]}"[^>]*>(.*?)</li>', page, re.S).group(1)
    assert "Sheriff" in item
