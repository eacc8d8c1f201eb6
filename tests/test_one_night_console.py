"""One Night through `wolfvillage console` (issue 13): whole games typed in a terminal, in
English and in Spanish, by roll call and on the phones.

As in tests/test_console.py, a script is made by playing in-process with the very phrases of
the interaction model ("let's play one night", "ready", "we are ready to vote", "I point at
Ana"), phone taps typed as `@Name verb target` (One Night's: `@Sia look 0 2`, `@Tia swap Ana
Ben`, `@Dru drunk 1`, `@Lia peek yes`, `@Rob rob nobody`) and time let pass (`+12s`); then
the real console program is run on that script and must print the same.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from speech import line
from tests import test_console as console_tests
from tests.test_console import run_console, sample
from wolfvillage.console import Console

NAMES = ["Ana", "Ben", "Cal", "Dan", "Eve", "Fay", "Gil", "Hal", "Ivo"]
TEXT = Path(__file__).resolve().parents[1] / "wolfvillage" / "console_text"


def tap_word(lang: str, verb: str) -> str:
    """The language's word for a One Night tap verb (the first of its spellings)."""
    doc = json.loads((TEXT / f"{lang}.json").read_text("utf-8"))
    own = doc["game_verbs"]["one-night"].get(verb) or doc["verbs"].get(verb)
    return own[0] if own else verb


def game_sample(lang: str) -> str:
    """The first sample of GameIntent in the language's model ("let's play {game}")."""
    from speech.understanding import LOCALE_FOR_LANG, MODELS_DIR

    model = json.loads((MODELS_DIR / f"{LOCALE_FOR_LANG[lang]}.json").read_text("utf-8"))
    intents = model["interactionModel"]["languageModel"]["intents"]
    return next(i["samples"][0] for i in intents if i["name"] == "GameIntent")


def typed_target(target: Any) -> str:
    if target is None:
        return "nobody"
    if target is True or target is False:
        return "yes" if target else "no"
    if isinstance(target, list):
        return " ".join(str(t) for t in target)
    return str(target)


def next_line(console: Console, lang: str, rng: random.Random) -> str | None:
    n = console.narrator
    if n.phase == "lobby":
        if n.config.ruleset != "one-night":
            return game_sample(lang).replace("{game}", {
                "en": "one night", "es": "hombre lobo de una noche"}[lang])
        return sample(lang, "StartGameIntent")
    if n.phase == "over":
        return None
    if n.phase == "reveal":
        return sample(lang, "ReadyIntent")
    if n.phase == "debate":
        return "+300s" if n.timer else sample(lang, "SkipClockIntent")
    turns = [(p, n.player_view(p)["turn"]) for p in n.game.players
             if "turn" in n.player_view(p)]
    if n.phase == "night":
        if not turns:
            return f"+{n.call_pause:g}s"
        player, turn = turns[0]
        target = rng.choice(turn["targets"])
        return f"@{player} {tap_word(lang, turn['verb'])} {typed_target(target)}"
    # the vote
    if n.config.protocol == "phones":
        player, turn = turns[0]
        return f"@{player} {tap_word(lang, 'vote')} {rng.choice(turn['targets'])}"
    voter = n.listening().player
    target = rng.choice([p for p in n.game.players if p != voter])
    return sample(lang, "VoteIntent", target)


def make_script(tmp: Path, lang: str, args: list[str], seed: int) -> tuple[list[str], str]:
    """Play in-process with One Night's own player; the typed lines and the printout."""
    return console_tests.make_script(tmp, lang, args, seed, next_line, steps=500)


GAMES = [
    # language, players, voting, debate clock (minutes), seed
    ("en", 5, "roll_call", "3", 2),
    ("en", 9, "phones", "0", 5),
    ("es", 6, "roll_call", "5", 3),
    ("es", 9, "phones", "2", 7),
]


@pytest.mark.parametrize(("lang", "players", "protocol", "clock", "seed"), GAMES)
def test_a_whole_one_night_game_through_the_console(tmp_path, lang, players, protocol,
                                                    clock, seed):
    args = ["--lang", lang, "--players", ",".join(NAMES[:players]), "--voting", protocol,
            "--clock", clock, "--seed", str(seed)]
    typed, expected = make_script(tmp_path, lang, args, seed=seed)
    done = run_console(args, "\n".join(typed) + "\n", f"sqlite:///{tmp_path}/games.db")
    assert done.returncode == 0, done.stderr
    assert done.stdout == expected
    assert "(?)" not in done.stdout, done.stdout
    said = done.stdout.splitlines()
    assert line(lang, "game_set", {"game": "one-night"}) in said
    assert line(lang, "on_look_at_card") in said
    assert line(lang, "on_night_falls") in said
    assert line(lang, "on_dawn") in said
    assert any(text.startswith(line(lang, "on_countdown" if protocol == "roll_call"
                                     else "on_countdown_phones")) for text in said)
    assert line(lang, "on_reveal_intro") in said
    assert any(text in said for text in (line(lang, f"on_win_{side}") for side in
                                         ("village", "werewolves", "tanner", "nobody")))


def test_one_nights_taps_take_their_typed_targets(tmp_path):
    """`@Sia look 0 2` is two centre cards, `@Tia swap Ana Ben` two players, `@Dru drunk 1`
    a centre card, `@Lia peek yes` a peek, `nobody` no look; `/game` and `/deck`."""
    from wolfvillage.console import parse_tap, words_for

    words = words_for("en")
    assert parse_tap("@Sia look 0 2", words, "one-night").target == [0, 2]
    assert parse_tap("@Sia look Ben", words, "one-night").target == "Ben"
    assert parse_tap("@Tia swap Ana Ben", words, "one-night").target == ["Ana", "Ben"]
    assert parse_tap("@Dru drunk 1", words, "one-night").target == 1
    assert parse_tap("@Lia peek yes", words, "one-night").target is True
    assert parse_tap("@Lia peek no", words, "one-night").target is False
    assert parse_tap("@Rob rob nobody", words, "one-night").target is None
    spanish = words_for("es")
    tap = parse_tap("@Sia mirar 1 2", spanish, "one-night")
    assert (tap.verb, tap.target) == ("look", [1, 2])
    # at a Wolf Village table "look" is still the seer's inspect
    assert parse_tap("@Sia look Ben", words, "wolf-village").verb == "inspect"
    store = f"sqlite:///{tmp_path}/g.db"
    done = run_console(["--players", "Ana,Ben,Cal,Dan", "--seed", "1"],
                       "/game one-night\n/deck werewolf=2 seer=1 robber=1 villager=3\n"
                       "/deck werewolf=two\n", store)
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    assert line("en", "game_set", {"game": "one-night"}) in out
    assert line("en", "preset_set", {"preset": "custom", "rating": "balanced"}) in out
    assert "(?) a deck is card=count, e.g. /deck werewolf=2 seer=1 villager=3" in out
