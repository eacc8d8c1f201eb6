"""`wolfvillage console`: a whole table in a terminal.

The narrator's lines are printed; what people say is typed and understood through the
interaction models (the same files Alexa uses); `@Name verb target` is a phone tap by that
player; `+90s` lets time pass; `/command` is a host command; `help` lists them and `quit`
leaves. Tap verbs and host commands are words of the table's language (English words work
in every language), and so are the console's own messages (wolfvillage/console_text/).
It reads standard input, so a game can be scripted, and it stores every accepted input, so
`--game ID` resumes it.

The terminal is seen by the whole table: it never names whose secret choice is awaited at
night, and a refused tap is explained without naming anyone else's turn.
"""

from __future__ import annotations

import argparse
import json
import re
import secrets
import sys
import unicodedata
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, TextIO

from narrator import Clock, Heard, Host, Listen, Narrator, Pause, Say, Show, Tap, Tick, Wait
from narrator.session import TableSession
from narrator.table import LANGUAGES
from speech import catalog, line
from speech.catalog_loader import join_names
from speech.understanding import LOCALE_FOR_LANG, MODELS_DIR, Understanding

TEXT_DIR = Path(__file__).parent / "console_text"
# host commands that take no argument, and the narrator's Host command each one sends
PLAIN_COMMANDS = {
    "start": "start",
    "pause": "pause",
    "resume": "resume",
    "repeat": "repeat",
    "undo": "undo_vote",
    "skip": "skip_clock",
    "new": "new_game",
}
ARG_COMMANDS = ("join", "leave", "preset", "protocol", "language", "clock", "option", "game",
                "deck")
# tap verbs whose targets are not all names (One Night): a centre card 0-2, two of them,
# two players, yes or no
TYPED_TARGETS = ("copy", "peek_center", "look", "peek", "investigate", "rob", "swap", "drunk")
# the day's waits name nobody secret: every living voter votes
PUBLIC_WAITS = ("vote", "elect")
TIME = re.compile(r"^\+(?:(\d+)m)?(?:(\d+)s?)?$")
_STABLE_REASON = re.compile(r"[a-z][a-z_]{0,39}")
# the intents whose phrases `help` shows, in this order
HELP_INTENTS = ("JoinIntent", "PresetIntent", "StartGameIntent", "ReadyIntent", "VoteIntent",
                "NobodyIntent", "SkipClockIntent", "NewGameIntent")


def fold(text: str) -> str:
    """A typed word as it is compared: no case, no accents ("Pociónes" = "pociones")."""
    decomposed = unicodedata.normalize("NFKD", text.casefold().strip())
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return plain.replace("ł", "l").replace("_", " ")


@dataclass(frozen=True)
class Words:
    """The console's words in one language: what it understands and what it prints."""

    lang: str
    verbs: dict[str, str]  # folded word -> the rules' verb
    words: dict[str, str]  # folded word -> heal, poison, nobody, on, off
    commands: dict[str, str]  # folded word -> command
    shown_verbs: dict[str, str]  # verb -> the word `help` shows
    shown_words: dict[str, str]
    shown_commands: dict[str, str]
    messages: dict[str, str]
    # a game's own tap verbs (folded word -> verb), which win over the others at its table
    game_verbs: dict[str, dict[str, str]] = field(default_factory=dict)

    def say(self, key: str, **params: Any) -> str:
        return self.messages[key].format(**params)

    def verb(self, word: str, game: str | None = None) -> str | None:
        own = self.game_verbs.get(game or "", {})
        return own.get(fold(word)) or self.verbs.get(fold(word))

    def word(self, word: str) -> str | None:
        return self.words.get(fold(word))

    def command(self, word: str) -> str | None:
        return self.commands.get(fold(word))


def _load(lang: str) -> dict[str, Any]:
    with open(TEXT_DIR / f"{lang}.json", encoding="utf-8") as handle:
        return json.load(handle)


@cache
def words_for(lang: str) -> Words:
    """The language's words, and the English ones beside them (scripts stay portable)."""
    english = _load("en")
    own = _load(lang) if lang != "en" else english
    tables: dict[str, dict[str, str]] = {}
    shown: dict[str, dict[str, str]] = {}
    for section in ("verbs", "words", "commands"):
        table: dict[str, str] = {}
        for doc in (english, own):  # the language's own words win a clash
            for ident, spellings in doc[section].items():
                for spelling in spellings:
                    table[fold(spelling)] = ident
        tables[section] = table
        shown[section] = {ident: spellings[0] for ident, spellings in own[section].items()}
    game_verbs: dict[str, dict[str, str]] = {}
    for doc in (english, own):
        for game, verbs in doc.get("game_verbs", {}).items():
            table = game_verbs.setdefault(game, {})
            for ident, spellings in verbs.items():
                for spelling in spellings:
                    table[fold(spelling)] = ident
    return Words(lang, tables["verbs"], tables["words"], tables["commands"], shown["verbs"],
                 shown["words"], shown["commands"], {**english["messages"], **own["messages"]},
                 game_verbs)


def parse_tap(text: str, words: Words | None = None, game: str | None = None) -> Tap:
    """`@Ana kill Cal`, `@Cal link Ana Ben`, `@Wil witch heal poison Cal`, `@Ana vote nobody`
    (or the same with the table's language's words: `@Ana matar Cal`); One Night's
    `@Sia look 0 2` (centre cards 0, 1, 2), `@Tia swap Ana Ben`, `@Dru drunk 1`,
    `@Lia peek yes`, `@Rob rob nobody`."""
    words = words or words_for("en")
    parts = text[1:].split()
    if len(parts) < 2:
        raise ValueError(words.say("bad_tap"))
    player, typed, rest = parts[0], parts[1], parts[2:]
    verb = words.verb(typed, game)
    if verb is None:
        raise ValueError(words.say("unknown_verb", verb=typed,
                                   verbs=", ".join(words.shown_verbs.values())))
    if verb == "link":
        names = [n for chunk in rest for n in chunk.split(",") if n]
        return Tap(player, verb, names)
    if game == "one-night" and verb in TYPED_TARGETS:
        return Tap(player, verb, _typed_target(verb, rest, words))
    if verb == "witch":
        meaning = [words.word(w) for w in rest]
        heal = "heal" in meaning
        poison = None
        if "poison" in meaning[:-1]:
            poison = rest[meaning.index("poison") + 1]
        return Tap(player, verb, {"heal": heal, "poison": poison})
    target: Any = " ".join(rest) if rest else None
    if isinstance(target, str) and words.word(target) == "nobody":
        target = None
    return Tap(player, verb, target)


def _typed_target(verb: str, rest: list[str], words: Words) -> Any:
    """A target of numbers, names or yes/no: one item, or a list of two."""
    if not rest or (len(rest) == 1 and words.word(rest[0]) == "nobody"):
        return None
    if verb == "peek":
        return words.word(rest[0]) == "on"
    items: list[Any] = [int(t) if t.isdigit() else t for t in rest]
    return items[0] if len(items) == 1 else items


def _deck(arg: str, words: Words) -> dict[str, Any]:
    """`/deck werewolf=2 seer=1 villager=3`: the host's cards, a count per card."""
    deck: dict[str, Any] = {}
    for item in arg.replace(",", " ").split():
        card, _, count = item.partition("=")
        if not count.isdigit():
            raise ValueError(words.say("bad_deck"))
        deck[card] = int(count)
    return deck


def parse_time(text: str) -> float | None:
    match = TIME.match(text.replace(" ", ""))
    if not match or not any(match.groups()):
        return None
    minutes, seconds = match.groups()
    return int(minutes or 0) * 60 + int(seconds or 0)


class Quit(Exception):
    """The table asked to leave the console."""


class Console:
    def __init__(self, session: TableSession, out: TextIO, show_phones: bool = False):
        self.session = session
        self.out = out
        self.show_phones = show_phones

    @property
    def narrator(self) -> Narrator:
        return self.session.narrator

    @property
    def words(self) -> Words:
        return words_for(self.narrator.lang)

    def print(self, text: str) -> None:
        print(text, file=self.out)

    def emit(self, cues: list[Any]) -> int:
        """Print what the table hears and sees; return how many lines were printed."""
        lang = self.narrator.lang
        words = self.words
        printed = 0
        for cue in cues:
            text = None
            if isinstance(cue, Say):
                text = line(lang, cue.key, cue.params)
            elif isinstance(cue, Pause):
                text = words.say("pause", seconds=f"{cue.seconds:g}")
            elif isinstance(cue, Wait):
                # at night the phones awaited are the roles still to play: never named
                if cue.verb in PUBLIC_WAITS:
                    text = words.say("waiting_votes", names=join_names(lang, list(cue.players)))
                else:
                    text = words.say("waiting_night")
            elif isinstance(cue, Clock) and cue.action == "start":
                text = words.say("clock", time=f"{cue.seconds // 60}:{cue.seconds % 60:02d}")
            elif isinstance(cue, Show) and self.show_phones:
                view = json.dumps(cue.view, ensure_ascii=False, sort_keys=True)
                text = f"[{cue.player}'s phone] {view}"
            if text is not None:
                self.print(text)
                printed += 1
        return printed

    def feed(self, text: str) -> None:
        """One typed line. Raises `Quit` when the table leaves."""
        text = text.strip()
        if not text or text.startswith("#"):
            return
        if self._console_word(text) == "quit":
            raise Quit
        if self._console_word(text) == "help" or text == "?":
            self.help()
            return
        try:
            inp = self.parse(text)
        except ValueError as problem:
            self.print(f"(?) {problem}")
            return
        if isinstance(inp, Tap) and self.narrator.resolve_name(inp.player) is None:
            # nobody at the table taps by that name (the narrator is not asked at all)
            self.print(f"(?) {self.words.say('unknown_player', name=inp.player)}")
            return
        reply = self.session.handle(inp)
        printed = self.emit(reply.cues)
        if reply.accepted:
            return
        if isinstance(inp, Tap):
            self.print(f"(?) {self.why_refused(inp, reply.cues)}")
        elif isinstance(inp, Tick) and not printed:
            self.print(line(self.narrator.lang, "no_clock"))
        elif not printed:
            self.print(f"(?) {self.words.say('reason_not_now')}")

    def _console_word(self, text: str) -> str | None:
        """`help`, `/help`, `quit`, `/quit` (or the language's words for them)."""
        word = text[1:] if text.startswith("/") else text
        command = self.words.command(word)
        return command if command in ("help", "quit") else None

    def why_refused(self, tap: Tap, cues: list[Any]) -> str:
        """Why a tap was not taken, naming nobody's turn but the tapper's own."""
        n = self.narrator
        words = self.words
        if n.resolve_name(tap.player) is None:
            return words.say("unknown_player", name=tap.player)
        reason = next((str(c.view.get("reason", "")) for c in cues if isinstance(c, Show)), "")
        if reason == "not_your_turn":
            return words.say("not_your_turn", name=tap.player,
                             verb=words.shown_verbs.get(tap.verb, tap.verb))
        if _STABLE_REASON.fullmatch(reason):
            key = f"reason_{reason}"
            return words.say(key) if key in words.messages else reason
        turn = n.player_view(n.resolve_name(tap.player) or tap.player).get("turn")
        if turn is None or turn.get("verb") != tap.verb:
            return words.say("not_your_turn", name=tap.player,
                             verb=words.shown_verbs.get(tap.verb, tap.verb))
        # the tapper's own turn with a target the rules refuse: the rules' reason is about
        # this player and their target only
        return words.say("refused", reason=reason)

    def parse(self, text: str) -> Any:
        if text.startswith("@"):
            return parse_tap(text, self.words, self.narrator.config.ruleset)
        seconds = parse_time(text) if text.startswith("+") else None
        if seconds is not None:
            return Tick(seconds)
        if text.startswith("/"):
            return self.command(text[1:])
        return self.hear(text)

    def command(self, text: str) -> Host:
        words = self.words
        typed, _, arg = text.partition(" ")
        arg = arg.strip()
        command = words.command(typed)
        if command in PLAIN_COMMANDS:
            return Host(PLAIN_COMMANDS[command])
        if command not in ARG_COMMANDS:
            raise ValueError(words.say("unknown_command", word=typed))
        if command == "clock":
            if not arg.isdigit():
                raise ValueError(words.say("bad_clock"))
            return Host("clock", int(arg) * 60)
        if command == "preset":
            return Host("preset", self._ident(arg, "presets"))
        if command == "protocol":
            return Host("protocol", self._ident(arg, "protocols"))
        if command == "language":
            return Host("language", self._language(arg))
        if command == "game":
            return Host("game", self._ident(arg, "games"))
        if command == "deck":
            return Host("deck", _deck(arg, words))
        if command == "option":
            key, _, value = arg.partition(" ")
            option = self._ident(key, "options")
            if option == "night_mode":
                return Host("option", [option, self._ident(value, "values")])
            return Host("option", [option, words.word(value) == "on"])
        return Host(command, arg)

    def _ident(self, typed: str, section: str) -> str:
        """A preset, protocol, option or value as typed: its id or its name in the table's
        language ("/reparto clásico", "/preset classic")."""
        folded = fold(typed)
        names = catalog(self.narrator.lang)[section]
        for ident, name in names.items():
            if folded in (fold(ident), fold(str(name))):
                return ident
        return typed

    def _language(self, typed: str) -> str:
        from phones.i18n import LANGUAGE_NAMES

        folded = fold(typed)
        return next((code for code in LANGUAGES
                     if folded in (code, fold(LANGUAGE_NAMES[code]))), typed)

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

    def help(self) -> None:
        words = self.words
        n = self.narrator
        players = n.game.players if n.game else n.config.players
        example = players[0] if players else "Ana"
        phrases = " · ".join(phrases_of(n.lang, example))
        shown = words.shown_words
        commands = ", ".join(f"/{w}" for c, w in words.shown_commands.items()
                             if c not in ("help", "quit"))
        self.print(words.say("help_title"))
        self.print(words.say("help_say", phrases=phrases))
        self.print(words.say("help_taps", verbs=", ".join(words.shown_verbs.values()),
                             witch=words.shown_verbs["witch"], heal=shown["heal"],
                             poison=shown["poison"], link=words.shown_verbs["link"],
                             nobody=shown["nobody"].replace("_", " ")))
        self.print(words.say("help_time"))
        self.print(words.say("help_commands", commands=commands))
        self.print(words.say("help_quit", quit=words.shown_commands["quit"]))
        # and what the narrator says helps now
        self.emit(self.session.handle(Heard("AMAZON.HelpIntent")).cues)


@cache
def _samples(lang: str) -> dict[str, list[str]]:
    path = MODELS_DIR / f"{LOCALE_FOR_LANG[lang]}.json"
    model = json.loads(path.read_text(encoding="utf-8"))["interactionModel"]["languageModel"]
    return {intent["name"]: intent.get("samples", []) for intent in model["intents"]}


def phrases_of(lang: str, name: str) -> list[str]:
    """A phrase of each of the main intents, from the language's interaction model."""
    fill = {"{player}": name, "{preset}": str(catalog(lang)["presets"]["classic"]).lower()}
    out = []
    for intent in HELP_INTENTS:
        for sample in _samples(lang).get(intent, []):
            slots = re.findall(r"\{\w+\}", sample)
            # a phrase with words of its own, and only slots we can fill
            if set(slots) <= set(fill) and sample.strip() not in fill:
                for slot in slots:
                    sample = sample.replace(slot, fill[slot])
                out.append(sample)
                break
    return out


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
    """The command line's table: the players first, then the set-up (a preset's rating is
    for the table as it is, so it is heard once everybody is seated), then the start."""
    inputs: list[Any] = []
    for name in filter(None, (n.strip() for n in args.players.split(","))):
        inputs.append(Host("join", name))
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
    if args.start:
        inputs.append(Host("start"))
    return inputs


def run(args: argparse.Namespace, stdin: TextIO = sys.stdin, out: TextIO = sys.stdout) -> int:
    from store import new_game_id, open_store

    store = open_store(args.store)
    words = words_for(args.lang if args.lang in LANGUAGES else "en")
    try:
        if args.game:
            session = TableSession.resume(store, args.game)
            console = Console(session, out, args.phones)
            words = console.words
            print(words.say("resumed", game=args.game), file=sys.stderr)
            console.emit(session.narrator.current_prompt())
        else:
            seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
            narrator = Narrator(args.lang, seed=seed)
            session = TableSession.create(store, new_game_id(), narrator)
            console = Console(session, out, args.phones)
            print(words.say("new_game", game=session.game_id), file=sys.stderr)
            for inp in setup_inputs(args):
                console.emit(session.handle(inp).cues)
        for text in stdin:
            console.feed(text)
    except Quit:
        print(console.words.say("saved"), file=sys.stderr)
    except KeyboardInterrupt:
        print("\n" + words.say("saved"), file=sys.stderr)
    finally:
        store.close()
    return 0
