"""`wolfvillage console`: a whole table in a terminal.

The narrator's lines are printed; what people say is typed and understood through the
interaction models (the same files Alexa uses); `@Name verb target` is a phone tap by that
player; `+90s` lets time pass; `/command` is a host command. It reads standard input, so a
game can be scripted, and it stores every accepted input, so `--game ID` resumes it.
"""

from __future__ import annotations

import argparse
import json
import re
import secrets
import sys
from typing import Any, TextIO

from narrator import Clock, Heard, Host, Listen, Narrator, Pause, Say, Show, Tap, Tick, Wait
from narrator.session import TableSession
from speech import line
from speech.understanding import Understanding

HOST_COMMANDS = {
    "start": ("start", None),
    "pause": ("pause", None),
    "resume": ("resume", None),
    "repeat": ("repeat", None),
    "undo": ("undo_vote", None),
    "skip": ("skip_clock", None),
    "new": ("new_game", None),
}
NOBODY = ("nobody", "none", "null", "-")
TIME = re.compile(r"^\+(?:(\d+)m)?(?:(\d+)s?)?$")


def parse_tap(text: str) -> Tap:
    """`@Ana kill Cal`, `@Cal link Ana Ben`, `@Wil witch heal poison Cal`, `@Ana vote nobody`."""
    parts = text[1:].split()
    if len(parts) < 2:
        raise ValueError("a phone tap is @Name verb [target]")
    player, verb, rest = parts[0], parts[1], parts[2:]
    if verb == "link":
        names = [n for chunk in rest for n in chunk.split(",") if n]
        return Tap(player, verb, names)
    if verb == "witch":
        heal = "heal" in rest
        poison = rest[rest.index("poison") + 1] if "poison" in rest[:-1] else None
        return Tap(player, verb, {"heal": heal, "poison": poison})
    target: Any = " ".join(rest) if rest else None
    if isinstance(target, str) and target.casefold() in NOBODY:
        target = None
    return Tap(player, verb, target)


def parse_time(text: str) -> float | None:
    match = TIME.match(text.replace(" ", ""))
    if not match or not any(match.groups()):
        return None
    minutes, seconds = match.groups()
    return int(minutes or 0) * 60 + int(seconds or 0)


class Console:
    def __init__(self, session: TableSession, out: TextIO, show_phones: bool = False):
        self.session = session
        self.out = out
        self.show_phones = show_phones

    @property
    def narrator(self) -> Narrator:
        return self.session.narrator

    def emit(self, cues: list[Any]) -> None:
        lang = self.narrator.lang
        for cue in cues:
            if isinstance(cue, Say):
                print(line(lang, cue.key, cue.params), file=self.out)
            elif isinstance(cue, Pause):
                print(f"(… {cue.seconds:g} s …)", file=self.out)
            elif isinstance(cue, Wait):
                # never who: at night that would name the roles being called
                print("(… the phones …)", file=self.out)
            elif isinstance(cue, Clock) and cue.action == "start":
                print(f"(debate clock {cue.seconds // 60}:{cue.seconds % 60:02d})", file=self.out)
            elif isinstance(cue, Show) and self.show_phones:
                view = json.dumps(cue.view, ensure_ascii=False, sort_keys=True)
                print(f"[{cue.player}'s phone] {view}", file=self.out)

    def feed(self, text: str) -> None:
        text = text.strip()
        if not text or text.startswith("#"):
            return
        try:
            inp = self.parse(text)
        except ValueError as problem:
            print(f"(?) {problem}", file=self.out)
            return
        self.emit(self.session.handle(inp).cues)

    def parse(self, text: str) -> Any:
        if text.startswith("@"):
            return parse_tap(text)
        seconds = parse_time(text) if text.startswith("+") else None
        if seconds is not None:
            return Tick(seconds)
        if text.startswith("/"):
            word, _, arg = text[1:].partition(" ")
            arg = arg.strip()
            if word in HOST_COMMANDS:
                return Host(*HOST_COMMANDS[word])
            if word in ("join", "leave", "preset", "protocol", "language"):
                return Host(word, arg)
            if word == "clock":
                return Host("clock", int(arg) * 60 if arg.isdigit() else -1)
            if word == "option":
                key, _, value = arg.partition(" ")
                parsed: Any = value if key == "night_mode" else value in ("on", "true", "yes")
                return Host("option", [key, parsed])
            raise ValueError(f"unknown command /{word}")
        return self.hear(text)

    def hear(self, text: str) -> Heard:
        narrator = self.narrator
        listen = narrator.listening()
        # in the lobby a name is a newcomer's, not one to find among the players
        names = list(narrator.game.players) if narrator.game else None
        expect = listen.intents if isinstance(listen, Listen) else None
        understood = Understanding(narrator.lang).understand(text, names, expect)
        if understood is None:
            return Heard("AMAZON.FallbackIntent")
        speaker = listen.player if isinstance(listen, Listen) else None
        return Heard(understood.intent, dict(understood.slots), speaker)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--lang", default="en", help="en, es, fi, de, nl, fr or pl")
    parser.add_argument("--players", default="", help="comma-separated names, in seat order")
    parser.add_argument("--preset", default=None, help="basic, classic, standard12, fox, chaos")
    parser.add_argument(
        "--night-mode", default=None, choices=["narrated", "all_at_once", "pass_phones"]
    )
    parser.add_argument("--voting", default=None, choices=["roll_call", "show_of_hands", "phones"])
    parser.add_argument(
        "--clock",
        type=int,
        default=None,
        choices=[0, 2, 3, 5],
        help="debate clock in minutes (0: none)",
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=on|off",
        help="a house rule, e.g. reveal_dead_roles=off",
    )
    parser.add_argument("--seed", type=int, default=None, help="fix the deal and tie-breaks")
    parser.add_argument("--game", default=None, help="resume this stored game")
    parser.add_argument(
        "--store",
        default=None,
        help="sqlite:///path.db or dynamodb://TABLE (default: WOLFVILLAGE_STORE "
        "or a SQLite file in your data folder)",
    )
    parser.add_argument("--phones", action="store_true", help="also print every phone's view")
    parser.add_argument("--start", action="store_true", help="start the game right away")


def setup_inputs(args: argparse.Namespace) -> list[Any]:
    inputs: list[Any] = []
    if args.preset:
        inputs.append(Host("preset", args.preset))
    if args.night_mode:
        inputs.append(Host("option", ["night_mode", args.night_mode]))
    if args.voting:
        inputs.append(Host("protocol", args.voting))
    if args.clock is not None:
        inputs.append(Host("clock", args.clock * 60))
    for option in args.option:
        key, _, value = option.partition("=")
        parsed: Any = value if key == "night_mode" else value.lower() in ("on", "true", "yes", "1")
        inputs.append(Host("option", [key, parsed]))
    for name in filter(None, (n.strip() for n in args.players.split(","))):
        inputs.append(Host("join", name))
    if args.start:
        inputs.append(Host("start"))
    return inputs


def run(args: argparse.Namespace, stdin: TextIO = sys.stdin, out: TextIO = sys.stdout) -> int:
    from store import new_game_id, open_store

    store = open_store(args.store)
    try:
        if args.game:
            session = TableSession.resume(store, args.game)
            console = Console(session, out, args.phones)
            print(f"(game {args.game} resumed)", file=sys.stderr)
            console.emit(session.narrator.current_prompt())
        else:
            seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
            narrator = Narrator(args.lang, seed=seed)
            session = TableSession.create(store, new_game_id(), narrator)
            console = Console(session, out, args.phones)
            print(
                f"(game {session.game_id}: resume it with --game={session.game_id})",
                file=sys.stderr,
            )
            for inp in setup_inputs(args):
                console.emit(session.handle(inp).cues)
        for text in stdin:
            console.feed(text)
    except KeyboardInterrupt:
        print("\n(the game is saved)", file=sys.stderr)
    finally:
        store.close()
    return 0
