"""`wolfvillage console`: whole Werewords games typed in a terminal, in English and Spanish.

As tests/test_console.py does for Wolf Village: a script is made by playing in-process with
the very phrases of the interaction model (set-up, "ready", "whoops", "we are ready", the
pointing), the mayor's phone taps typed in the table's language (`@Cal palabra castillo`,
`@Cal responder sí Ana`) and time as `+5s`; then the real console program runs it and must
print the same.
"""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import pytest

from narrator import Narrator
from narrator.session import TableSession
from speech import line
from speech.understanding import LOCALE_FOR_LANG, MODELS_DIR
from store import open_store
from tests.test_console import run_console, sample
from wolfvillage.console import Console, words_for

NAMES = ["Ana", "Ben", "Cal", "Dan", "Eve", "Fay"]
NUMBER = {"en": ["two", "three"], "es": ["dos", "tres"]}


def slot_sample(lang: str, intent: str, slot: str, value: str) -> str:
    """The first sample of `intent` with exactly that one slot, filled."""
    model = json.loads((MODELS_DIR / f"{LOCALE_FOR_LANG[lang]}.json").read_text("utf-8"))
    samples = next(i["samples"] for i in model["interactionModel"]["languageModel"]["intents"]
                   if i["name"] == intent)
    text = next(s for s in samples if s.count("{") == 1 and "{" + slot + "}" in s)
    return text.replace("{" + slot + "}", value)


class Script:
    """What the table types, decided from what the narrator waits for."""

    def __init__(self, console: Console, lang: str, seed: int, whoops: bool):
        self.console, self.lang = console, lang
        self.rng = random.Random(seed)
        self.whoops_left = 1 if whoops else 0
        self.tokens = 0

    def tap(self, player: str, verb: str, *rest: str) -> str:
        words = words_for(self.lang)
        return " ".join([f"@{player}", words.shown_verbs[verb], *rest])

    def token(self, kind: str) -> str:
        path = Path(__file__).resolve().parents[1] / "wolfvillage" / "console_text"
        own = json.loads((path / f"{self.lang}.json").read_text(encoding="utf-8"))
        return own["tokens"][kind][0]

    def next(self) -> str | None:
        n = self.console.narrator
        lang = self.lang
        if n.phase == "over":
            return None
        if n.phase == "reveal":
            return sample(lang, "ReadyIntent")
        game = n.game
        mayor = game.mayor_name
        if n.phase == "night":
            turn = n.player_view(mayor).get("turn")
            if turn:
                return self.tap(mayor, "choose_word", turn["targets"][-1])
            return f"+{n.timer_due():g}s"
        if n.phase == "ww_day":
            if n.script.held is not None:
                return f"+{n.timer_due():g}s"
            others = [p for p in game.players if p != mayor]
            if self.tokens < 4:
                self.tokens += 1
                kind = self.rng.choice(["yes", "no", "maybe"])
                return self.tap(mayor, "answer", self.token(kind), self.rng.choice(others))
            if self.rng.random() < 0.5:
                return self.tap(mayor, "answer", self.token("correct"), self.rng.choice(others))
            return f"+{round(n.timer)}s"
        if n.phase in ("ww_hunt", "ww_discuss", "ww_point") and self.whoops_left:
            self.whoops_left -= 1
            return sample(lang, "WhoopsIntent")
        if n.phase == "ww_discuss":
            return sample(lang, "SkipClockIntent")
        listen = n.listening()
        if listen is None or listen.player is None:
            return f"+{n.timer_due():g}s"  # the werewolves' 15 seconds
        target = self.rng.choice(sorted(listen.names))
        intent = self.rng.choice(["PointIntent", "VoteIntent"])
        return sample(lang, intent, target)


def make_script(tmp: Path, lang: str, seed: int, whoops: bool) -> tuple[list[str], str]:
    """Play in-process; return the typed lines and everything the console printed."""
    store = open_store(f"sqlite:///{tmp}/script.db")
    narrator = Narrator(lang, seed=seed)
    out = io.StringIO()
    console = Console(TableSession.create(store, "script", narrator), out)
    words = words_for(lang)
    typed = [f"/{words.shown_commands['join']} {name}" for name in NAMES]
    typed += [f"/{words.shown_commands['game']} werewords",
              slot_sample(lang, "DayTimerIntent", "minutes", NUMBER[lang][0]),
              slot_sample(lang, "WordsDifficultyIntent", "difficulty",
                          "medium" if lang == "en" else "medias"),
              sample(lang, "StartGameIntent")]
    for text in typed:
        before = console.session.version
        console.feed(text)
        assert console.session.version > before, (text, out.getvalue()[-400:])
    script = Script(console, lang, seed, whoops)
    for _ in range(500):
        text = script.next()
        if text is None:
            break
        typed.append(text)
        before = console.session.version
        console.feed(text)
        assert console.session.version > before, (text, out.getvalue()[-500:])
    assert console.narrator.phase == "over"
    store.close()
    return typed, out.getvalue()


GAMES = [("en", 1, False), ("en", 2, True), ("es", 3, True), ("es", 4, False)]


@pytest.mark.parametrize(("lang", "seed", "whoops"), GAMES)
def test_a_whole_werewords_game_through_the_console(tmp_path, lang, seed, whoops):
    args = ["--lang", lang, "--seed", str(seed)]
    typed, expected = make_script(tmp_path, lang, seed, whoops)
    done = run_console(args, "\n".join(typed) + "\n", f"sqlite:///{tmp_path}/games.db")
    assert done.returncode == 0, done.stderr
    assert done.stdout == expected
    said = done.stdout.splitlines()
    assert line(lang, "game_set", {"game": "werewords"}) in said
    assert line(lang, "ww_day_set", {"minutes": 2}) in said
    assert line(lang, "ww_night_falls") in said
    assert any(text.startswith(line(lang, "ww_wake_mayor")[:12]) for text in said)
    assert line(lang, "ww_day_starts", {"minutes": 2}) in said
    tokens = [t for t in said if any(t == line(lang, f"ww_token_{k}", {"name": n})
                                     for k in ("yes", "no", "maybe") for n in NAMES)]
    assert len(tokens) == 4  # every token tapped was said, once given
    wins = [k for k in ("village_guessed", "werewolves_guessed", "village_not_guessed",
                        "werewolves_not_guessed") if line(lang, f"ww_win_{k}") in said]
    assert len(wins) == 1
    if whoops:
        assert any(line(lang, f"ww_whoops_{e}") in said for e in ("guessed", "not_guessed"))


def test_spanish_tokens_and_the_seeds_words_in_the_console(tmp_path):
    typed, out = make_script(tmp_path, "es", 5, whoops=False)
    assert any(t.startswith("@") and " responder " in t for t in typed)
    assert any(t.startswith("@") and " palabra " in t for t in typed)
    said = out.splitlines()
    assert any(t.startswith(("Sí, ", "No, ", "Quizás, ")) for t in said)
    assert "La palabra mágica era: " in out


def test_a_bad_token_tap_says_how_to_type_it_and_changes_nothing(tmp_path):
    store = open_store(f"sqlite:///{tmp_path}/bad.db")
    out = io.StringIO()
    console = Console(TableSession.create(store, "bad", Narrator("en", seed=1)), out)
    for text in [*(f"/join {n}" for n in NAMES), "/game werewords", "start the game",
                 "ready"]:
        console.feed(text)
    mayor = console.narrator.game.mayor_name
    version = console.session.version
    console.feed(f"@{mayor} answer perhaps Ana")
    console.feed(f"@{mayor} answer yes")
    assert console.session.version == version
    assert out.getvalue().splitlines()[-1] == "(?) " + words_for("en").say("bad_answer")
    store.close()


