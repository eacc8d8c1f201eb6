"""`wolfvillage console`: whole games typed in a terminal, in English and Spanish, every night
mode and voting protocol, resumed after the process is killed mid-night.

A script is made by playing in-process with the very phrases of the interaction model (so
the model's samples are what gets understood), then the real console program is run on it.
"""

from __future__ import annotations

import io
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from narrator import Listen, Narrator, Wait
from narrator.cues import input_from_json
from narrator.session import TableSession
from rules.core import Decision
from speech import line
from speech.understanding import LOCALE_FOR_LANG, MODELS_DIR
from store import open_store
from wolfvillage.console import Console, words_for

NAMES = ["Ana", "Ben", "Cal", "Dan", "Eve", "Fay", "Gil", "Hal", "Ivo", "Jon"]
ROOT = Path(__file__).resolve().parents[1]


def sample(lang: str, intent: str, player: str | None = None, other: str | None = None) -> str:
    """The first sample of `intent` in the language's model that fits the slots we fill."""
    model = json.loads((MODELS_DIR / f"{LOCALE_FOR_LANG[lang]}.json").read_text("utf-8"))
    intents = model["interactionModel"]["languageModel"]["intents"]
    samples = next(i["samples"] for i in intents if i["name"] == intent)
    wanted = {"{player}"} if player else set()
    if other:
        wanted.add("{other}")
    for text in samples:
        slots = {s for s in ("{player}", "{other}") if s in text}
        if slots == wanted and "{" not in text.replace("{player}", "").replace("{other}", ""):
            return text.replace("{player}", player or "").replace("{other}", other or "")
    raise AssertionError(f"no sample for {intent} in {lang}")


def next_line(console: Console, lang: str, rng: random.Random) -> str | None:
    """What the table types next, from what the narrator is waiting for."""
    n = console.narrator
    if n.phase == "over":
        return None
    if n.phase == "reveal":
        return sample(lang, "ReadyIntent")
    if n.phase == "debate":
        return "+200s" if n.config.clock else sample(lang, "SkipClockIntent")
    pending = n.game.pending()
    prompt = n.current_prompt()
    if any(isinstance(c, Wait) for c in prompt):
        # a phone shows a choice only while its role is called; otherwise time passes
        turns = [(name, n.player_view(name)["turn"]) for name in n.game.players
                 if "turn" in n.player_view(name)]
        if not turns:
            return f"+{n.call_pause:g}s"
        player, turn = turns[0]
        d = Decision(player, turn["verb"])
        target = rng.choice(turn["targets"])
        if d.action == "link":
            return f"@{d.player} link {target[0]} {target[1]}"
        if d.action == "witch":
            words = (["heal"] if target["heal"] else []) + (
                ["poison", target["poison"]] if target["poison"] else [])
            return f"@{d.player} witch {' '.join(words) or 'none'}"
        return f"@{d.player} {d.action} {target or 'nobody'}"
    if n.phase == "tie" and n.game.sheriff is None:
        return sample(lang, rng.choice(["AMAZON.YesIntent", "AMAZON.NoIntent"]))
    d = pending[0]
    targets = [t for t in n.game.legal_targets(d.player, d.action) if isinstance(t, str)]
    choice = rng.choice(targets)
    if d.player == "table":
        return sample(lang, "HandsResultIntent", choice)
    if d.action == "elect":
        return sample(lang, "ElectIntent", choice)
    if d.action in ("vote", "pass_badge") and rng.random() < 0.2:
        return sample(lang, "NobodyIntent")
    return sample(lang, "VoteIntent", choice)


def make_script(tmp: Path, lang: str, args: list[str], seed: int,
                next_line: Callable[[Console, str, random.Random], str | None] = next_line,
                steps: int = 2000) -> tuple[list[str], str]:
    """Play in-process, each line typed by `next_line` (a game's own player); return the
    typed lines and everything the console printed."""
    from wolfvillage.cli import build_parser
    from wolfvillage.console import setup_inputs

    parsed = build_parser().parse_args(["console", *args])
    store = open_store(f"sqlite:///{tmp}/script.db")
    narrator = Narrator(lang, seed=parsed.seed)
    out = io.StringIO()
    console = Console(TableSession.create(store, "script", narrator), out)
    for inp in setup_inputs(parsed):
        console.emit(console.session.handle(inp).cues)
    rng = random.Random(seed)
    typed: list[str] = []
    for _ in range(steps):
        text = next_line(console, lang, rng)
        if text is None:
            break
        typed.append(text)
        before = console.session.version
        console.feed(text)
        assert console.session.version > before, (text, out.getvalue()[-500:])
    assert console.narrator.phase == "over"
    store.close()
    return typed, out.getvalue()


def run_console(args: list[str], stdin: str, store: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "wolfvillage.cli", "console", "--store", store, *args],
        input=stdin, capture_output=True, text=True, timeout=120, cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


GAMES = [
    ("en", "narrated", "roll_call", "classic"),
    ("en", "all_at_once", "show_of_hands", "chaos"),
    ("en", "pass_phones", "phones", "fox"),
    ("es", "narrated", "show_of_hands", "classic"),
    ("es", "all_at_once", "roll_call", "basic"),
    ("es", "pass_phones", "phones", "chaos"),
]


@pytest.mark.parametrize(("lang", "mode", "protocol", "preset"), GAMES)
def test_whole_game_through_the_console(tmp_path, lang, mode, protocol, preset):
    args = ["--lang", lang, "--players", ",".join(NAMES), "--preset", preset,
            "--night-mode", mode, "--voting", protocol, "--clock", "3", "--seed", "11",
            "--start"]
    typed, expected = make_script(tmp_path, lang, args, seed=4)
    done = run_console(args, "\n".join(typed) + "\n", f"sqlite:///{tmp_path}/games.db")
    assert done.returncode == 0, done.stderr
    assert done.stdout == expected
    said = done.stdout.splitlines()
    night = line(lang, "night_falls_secret" if mode != "narrated" else "night_falls")
    assert night in said
    assert line(lang, "good_morning") in said
    assert any(text.startswith(line(lang, "reveal_intro")) for text in said)
    assert any(line(lang, f"win_{w}") == text for text in said
               for w in ("village", "werewolves", "jester", "fox")) or any(
        "enamorados" in text or "lovers" in text for text in said)


def test_spanish_lines_are_the_seeds_word_for_word(tmp_path):
    args = ["--lang", "es", "--players", ",".join(NAMES[:8]), "--preset", "classic",
            "--voting", "roll_call", "--clock", "3", "--seed", "5", "--start"]
    _, printed = make_script(tmp_path, "es", args, seed=1)
    said = printed.splitlines()
    for quote in ("La noche cae sobre la aldea. Todos, cierren los ojos.",
                  "Buenos días, aldea.", "Todos, abran los ojos.",
                  "Se acabó el tiempo. Es hora de votar."):
        assert quote in said
    assert "La aldea ha decidido." in said or (
        "La aldea no llegó a un acuerdo. Hoy nadie queda fuera." in said)


def test_bad_input_changes_nothing_and_gets_a_clear_line(tmp_path):
    store = f"sqlite:///{tmp_path}/games.db"
    args = ["--players", ",".join(NAMES[:8]), "--preset", "basic", "--seed", "3", "--start"]
    script = "\n".join([
        "banana split", "I vote for Zed", "@Nobody kill Ana", "ready",
        "@Ana kill Ana", "what is the time", "/frobnicate",
    ]) + "\n"
    done = run_console(args, script, store)
    assert done.returncode == 0
    out = done.stdout
    assert "Sorry, I didn't understand that." in out
    assert "unknown command /frobnicate" in out
    games = open_store(store)
    game_id = games.list_games(include_finished=True)[0]
    entries = games.load(game_id).entries
    # the lobby (join ×8, preset, start) and "ready": nothing else was accepted
    assert [e["type"] for e in entries].count("heard") == 1
    assert [e["type"] for e in entries].count("tap") == 0


def test_resume_after_the_process_is_killed_mid_night(tmp_path):
    store = f"sqlite:///{tmp_path}/games.db"
    args = ["--players", ",".join(NAMES[:8]), "--preset", "classic",
            "--voting", "roll_call", "--seed", "9", "--start"]
    typed, expected = make_script(tmp_path, "en", args, seed=2)
    taps = [t.startswith("@") for t in typed]
    first_night = taps.index(True)
    day_one = taps.index(False, first_night)
    night_two = taps.index(True, day_one)  # the game seeded here lasts beyond day 1
    cut = night_two + 1  # one accepted choice of a later night, then the process dies
    proc = subprocess.Popen(
        [sys.executable, "-m", "wolfvillage.cli", "console", "--store", store, *args],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.stdin is not None
    proc.stdin.write("\n".join(typed[:cut]) + "\n")
    proc.stdin.flush()
    games = open_store(store)
    deadline = time.monotonic() + 60
    game_id = None
    while time.monotonic() < deadline:
        ids = games.list_games(include_finished=True)
        if ids:
            game_id = ids[0]
            taps = [e for e in games.load(game_id).entries if e["type"] == "tap"]
            if taps and taps[-1]["player"] == typed[cut - 1].split()[0][1:] and len(
                    [t for t in typed[:cut] if t.startswith("@")]) == len(taps):
                break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert game_id is not None
    before = games.load(game_id).version

    done = subprocess.run(
        [sys.executable, "-m", "wolfvillage.cli", "console", "--store", store,
         "--game", game_id],
        input="\n".join(typed[cut:]) + "\n", capture_output=True, text=True, timeout=120,
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr
    after = games.load(game_id)
    assert after.version > before
    # the resumed table ends exactly as the uninterrupted one did
    assert done.stdout.splitlines()[-3:] == expected.splitlines()[-3:]
    restored = Narrator.restore(after.setup, [input_from_json(e) for e in after.entries])
    assert restored.phase == "over"


def test_listen_intents_come_from_the_model():
    """The console understands only through the interaction model: no second phrase list."""
    n = Narrator("en", seed=1)
    console = Console(TableSession.create(open_store("sqlite:///:memory:"), "x", n),
                      io.StringIO())
    heard = console.hear("add Zoe")
    assert heard.intent == "JoinIntent" and heard.slots == {"player": "Zoe"}
    assert isinstance(n.listening(), Listen | type(None))


# ---------------------------------------------------------------------- issue 11


def console_on(tmp_path: Path, lang: str = "en", players: int = 8, preset: str = "classic",
               seed: int = 3, **kwargs: object) -> tuple[Console, io.StringIO]:
    from wolfvillage.cli import build_parser
    from wolfvillage.console import setup_inputs

    args = ["--lang", lang, "--players", ",".join(NAMES[:players]), "--preset", preset,
            "--seed", str(seed), "--start"]
    parsed = build_parser().parse_args(["console", *args])
    out = io.StringIO()
    store = open_store(f"sqlite:///{tmp_path}/{lang}-{seed}.db")
    console = Console(TableSession.create(store, f"t{lang}{seed}", Narrator(lang, seed=seed)),
                      out, **kwargs)
    for inp in setup_inputs(parsed):
        console.emit(console.session.handle(inp).cues)
    return console, out


def typed(console: Console, out: io.StringIO, text: str) -> list[str]:
    """What the console prints for one typed line."""
    start = len(out.getvalue())
    console.feed(text)
    return out.getvalue()[start:].splitlines()


def test_no_false_error_at_start_the_set_up_is_heard_for_the_seated_table(tmp_path):
    """`--players <8 names> --preset classic`: the rating, not «for 8 to 20 players»."""
    done = run_console(["--players", ",".join(NAMES[:8]), "--preset", "classic", "--seed",
                        "1"], "", f"sqlite:///{tmp_path}/g.db")
    assert done.returncode == 0, done.stderr
    said = done.stdout.splitlines()
    assert line("en", "preset_range", {"preset": "classic", "min": 8, "max": 20}) not in said
    assert line("en", "preset_set", {"preset": "classic", "rating": "balanced"}) in said or any(
        text.startswith("Set-up: Classic.") for text in said), said
    # the players were seated first
    assert said.index(next(s for s in said if s.startswith("Set-up"))) == 8


def test_a_refused_tap_always_prints_why_and_names_no_other_turn(tmp_path):
    console, out = console_on(tmp_path)
    n = console.narrator
    console.feed("ready")
    roles = {p: n.game.current_role(p) for p in n.game.players}
    wolf = next(p for p, r in roles.items() if r == "werewolf")
    other_wolf = next(p for p, r in roles.items() if r == "werewolf" and p != wolf)
    villager = next(p for p, r in roles.items() if r == "villager")
    cupid = next(p for p, r in roles.items() if r == "cupid")
    before = console.session.version
    # cupid is called first: a werewolf's tap is out of turn, and says only that
    said = typed(console, out, f"@{wolf} kill {villager}")
    assert said == [f"(?) it is not {wolf}'s turn to kill"]
    # an unknown verb, an unknown player
    said = typed(console, out, f"@{wolf} frobnicate {villager}")
    assert len(said) == 1 and "'frobnicate' is not a tap verb" in said[0]
    assert "kill" in said[0] and "inspect" in said[0]
    assert typed(console, out, f"@Zed link {wolf} {villager}") == [
        "(?) there is no player called Zed"]
    assert console.session.version == before
    # the werewolves' call: a wolf who bites himself is told the rules' reason
    typed(console, out, f"@{cupid} link {wolf} {villager}")
    typed(console, out, f"+{n.call_pause:g}s")  # cupid's call is held open its full time
    said = typed(console, out, f"@{wolf} kill {wolf}")
    assert len(said) == 1 and said[0].startswith("(?) not taken: ") and "pack" in said[0]
    for text in out.getvalue().splitlines():
        if text.startswith("(?)"):
            assert other_wolf not in text, text


def test_the_console_never_names_who_is_awaited_at_night(tmp_path):
    """«(waiting on the phones of Cal, Dan)» named the pack: the night's waits name nobody."""
    for mode in ("narrated", "all_at_once", "pass_phones"):
        args = ["--players", ",".join(NAMES[:8]), "--preset", "classic", "--night-mode", mode,
                "--voting", "phones", "--seed", "7", "--start"]
        (tmp_path / mode).mkdir()
        _, printed = make_script(tmp_path / mode, "en", args, seed=3)
        waits = [t for t in printed.splitlines() if t.startswith("(waiting")]
        assert waits, mode
        for text in waits:
            if text != "(waiting for the secret choices on the phones)":
                # the day's votes on the phones: every living voter, which is public
                assert text.startswith("(waiting for the votes on the phones of "), text


def test_another_language_takes_its_own_tap_verbs_commands_and_phrases(tmp_path):
    """`--lang es`: «@Ana matar Cal», «/empezar», «listo»; the console speaks Spanish."""
    args = ["--lang", "es", "--players", ",".join(NAMES[:8]), "--preset", "classic",
            "--voting", "phones", "--seed", "5"]
    english, _ = make_script(tmp_path, "es", [*args, "--start"], seed=6)
    words = words_for("es")
    spanish = []
    for text in english:
        if text.startswith("@"):
            player, verb, *rest = text.split()
            rest = [{"heal": words.shown_words["heal"], "poison": words.shown_words["poison"],
                     "nobody": words.shown_words["nobody"]}.get(w, w) for w in rest]
            text = " ".join([player, words.shown_verbs[verb], *rest])
        spanish.append(text)
    assert any(t.startswith("@") and " matar " in t for t in spanish)
    store = f"sqlite:///{tmp_path}/es.db"
    done = run_console(args, "/empezar\n" + "\n".join(spanish) + "\n", store)
    assert done.returncode == 0, done.stderr
    assert "(?)" not in done.stdout, done.stdout
    assert done.stderr.startswith("(partida ")
    said = done.stdout.splitlines()
    assert line("es", "game_starts", {"count": 8}) in said
    assert any(line("es", f"win_{w}") == t for t in said
               for w in ("village", "werewolves", "jester", "fox")) or any(
        "enamorados" in t for t in said)


def test_help_lists_the_languages_words_and_quit_leaves(tmp_path):
    store = f"sqlite:///{tmp_path}/h.db"
    done = run_console(["--lang", "es", "--players", ",".join(NAMES[:5]), "--seed", "2"],
                       "ayuda\n/help\nsalir\nempieza la partida\n", store)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.count("Cómo jugar en la consola:") == 2
    for word in ("matar", "mirar", "pociones", "/empezar", "/reparto", "salir",
                 "reparte las cartas", "voto por Ana"):
        assert word in out, word
    # nothing after `salir` was read: the game never started
    assert line("es", "game_starts", {"count": 5}) not in out
    assert "(la partida está guardada)" in done.stderr
    done = run_console(["--players", "Ana,Ben,Cal,Dan"], "/quit\nstart the game\n", store)
    assert "(the game is saved)" in done.stderr
    assert line("en", "game_starts", {"count": 4}) not in done.stdout
