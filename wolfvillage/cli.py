"""`wolfvillage VERB ...`: each verb is a thin shell over the packages."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

# a game log nests four levels (the log, its actions, an action, a target); the parser and
# the printer recurse, so a document nested thousands deep would be a RecursionError
MAX_LOG_DEPTH = 32


class _Malformed(Exception):
    """A JSON document that cannot be a game log (exit 2, with the reason)."""


class _NotJSON(Exception):
    """Text that is not JSON (exit 1)."""


def _constant(name: str) -> float:
    raise _NotJSON(f"{name} is not a JSON number")


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:  # Python reads at most 4,300 digits (sys.get_int_max_str_digits)
        raise _Malformed(f"a number of {len(text)} digits is too long") from None


def read_log(text: str) -> object:
    """The game log in `text`: strict JSON (no NaN or Infinity), at most MAX_LOG_DEPTH
    levels deep. `_NotJSON` or `_Malformed` say why not."""
    from phones.limits import depth

    try:
        doc = json.loads(text, parse_constant=_constant, parse_int=_int)
    except json.JSONDecodeError as problem:
        raise _NotJSON(str(problem)) from None
    except RecursionError:
        raise _Malformed(f"the document nests more than {MAX_LOG_DEPTH} levels") from None
    if depth(doc) > MAX_LOG_DEPTH:
        raise _Malformed(f"the document nests more than {MAX_LOG_DEPTH} levels")
    return doc


def _replay(args: argparse.Namespace) -> int:
    """Exit 0: the log replays; 2: the rules refuse it (an action, the set-up, or a document
    that cannot be a game log), with the resolved game and `error` on stdout; 1: the file
    cannot be read as JSON text (stderr says why, stdout is empty)."""
    from rules import replay
    from rules.replay import refused_setup

    name = "standard input" if args.file == "-" else args.file
    try:
        if args.file == "-":
            raw = sys.stdin.buffer.read()
        else:
            with open(args.file, "rb") as handle:
                raw = handle.read()
    except OSError as problem:
        print(f"wolfvillage replay: cannot read {args.file}: {problem.strerror}", file=sys.stderr)
        return 1
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as problem:
        print(f"wolfvillage replay: {name} is not UTF-8 text: {problem}", file=sys.stderr)
        return 1
    try:
        result = replay(read_log(text))
    except _NotJSON as problem:
        print(f"wolfvillage replay: {name} is not valid JSON: {problem}", file=sys.stderr)
        return 1
    except _Malformed as problem:
        result = refused_setup(f"not a game log: {problem}")
    try:
        out = json.dumps(result, ensure_ascii=False, indent=args.indent, allow_nan=False)
    except (ValueError, TypeError, RecursionError) as problem:  # never a bare NaN
        out = json.dumps(refused_setup(f"the result cannot be written as JSON: {problem}"))
        result = {"error": True}
    sys.stdout.write(out + "\n")
    return 2 if result["error"] is not None else 0


def _console(args: argparse.Namespace) -> int:
    from wolfvillage.console import run

    return run(args)


def _serve(args: argparse.Namespace) -> int:
    stoppable()
    from wolfvillage.serve import run

    return run(args)


def _hear(args: argparse.Namespace) -> int:
    from local_voice.enrollment import BadClip, Voiceprints
    from local_voice.hearing import EXPECT, understand_audio
    from local_voice.recognizers import make_recognizer
    from local_voice.voices import Audio
    from local_voice.whisper import ModelMissing

    try:
        with open(args.file, "rb") as handle:
            audio = Audio.from_wav(handle.read())
    except (OSError, EOFError, ValueError) as problem:
        print(f"wolfvillage hear: cannot read {args.file}: {problem}", file=sys.stderr)
        return 1
    except Exception as problem:  # wave.Error for a file that is not a WAV
        print(f"wolfvillage hear: {args.file} is not a WAV file: {problem}", file=sys.stderr)
        return 1
    names = [n.strip() for n in args.names.split(",") if n.strip()]
    clips: list = []
    if args.enroll:
        try:
            prints = Voiceprints.folder_of(args.enroll)
            names = names or prints.names()
            clips = list(prints.items([n for n in names if prints.path(n).is_file()]))
        except (OSError, BadClip) as problem:
            print(f"wolfvillage hear: --enroll: {problem}", file=sys.stderr)
            return 1
    whisper = args.whisper
    if whisper == "auto":
        whisper = "tiny.en" if args.lang == "en" else "base"
    try:
        recognizer = make_recognizer(args.recognizer, args.model,
                                     None if whisper == "none" else whisper, args.lang)
    except (ValueError, OSError, ModelMissing) as problem:
        print(f"wolfvillage hear: {problem}", file=sys.stderr)
        return 1
    enroll = getattr(recognizer, "enroll", None)
    for name, samples in clips:
        if enroll is not None:
            enroll(name, samples, args.lang)
    hearing = understand_audio(audio, recognizer, args.lang, names, EXPECT[args.expect],
                               pairs=args.pairs)
    json.dump(hearing.to_json(), sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


def _say(args: argparse.Namespace) -> int:
    from local_voice.voices import PiperVoiceEngine, voice_for

    try:
        voice = PiperVoiceEngine(args.voice, args.voice + ".json") if args.voice else (
            voice_for(args.lang))
        audio = voice.synthesize(args.text)
        with open(args.output, "wb") as handle:
            handle.write(audio.to_wav())
    except OSError as problem:
        print(f"wolfvillage say: {problem}", file=sys.stderr)
        return 1
    return 0


def _box(args: argparse.Namespace) -> int:
    from local_voice.main import run

    stoppable(terminate=True)
    return run(args)


def stoppable(terminate: bool = False) -> None:
    """Ctrl-C (SIGINT) stops a long-running verb the clean way, whoever started it: a shell
    starts a command in the background of a script with SIGINT ignored, and Python then
    keeps it ignored, so `kill -INT` did nothing to a box started that way (and a test that
    stopped one so left it running). With `terminate`, SIGTERM (systemd's stop) is taken as
    Ctrl-C too: the box closes its store and says the game is saved."""
    import signal

    signal.signal(signal.SIGINT, signal.default_int_handler)
    if terminate:
        signal.signal(signal.SIGTERM, signal.default_int_handler)  # KeyboardInterrupt


def build_parser(verb: str | None = None) -> argparse.ArgumentParser:
    """The verbs and their arguments. Given the `verb` asked for, only that verb's options
    are imported from its package: `wolfvillage replay` starts without Flask, the narrator
    or the recognisers (0.6 -> 0.2 s a call, for scripts that replay logs one by one)."""
    parser = argparse.ArgumentParser(prog="wolfvillage", description="Wolf Village narrator")
    verbs = parser.add_subparsers(dest="verb", required=True)
    replay = verbs.add_parser("replay", help="replay a game log and print the resolved game")
    replay.add_argument("file", help="a JSON game log, or - for standard input")
    replay.add_argument("--indent", type=int, default=None, help="pretty-print the JSON")
    replay.set_defaults(run=_replay)

    console = verbs.add_parser("console", help="play a whole table in a terminal")
    if verb in (None, "console"):
        from wolfvillage.console import add_arguments

        add_arguments(console)
    console.set_defaults(run=_console)

    serve = verbs.add_parser("serve", help="serve the phone relay (and the Alexa endpoint)")
    if verb in (None, "serve"):
        from wolfvillage.serve import add_arguments as serve_arguments

        serve_arguments(serve)
    serve.set_defaults(run=_serve)

    box = verbs.add_parser("box", help="the offline narrator: microphone, speaker, phones")
    if verb in (None, "box"):
        from local_voice.main import add_arguments as box_arguments

        box_arguments(box)
    box.set_defaults(run=_box)

    hear = verbs.add_parser("hear", help="understand one utterance in a WAV file")
    hear.add_argument("file")
    hear.add_argument("--lang", default="en")
    hear.add_argument("--names", default="", help="the players who may be named, A,B,C")
    hear.add_argument("--expect", default="any",
                      choices=["vote", "elect", "yesno", "ready", "hands", "any"])
    hear.add_argument("--recognizer", default="pocketsphinx", choices=["pocketsphinx", "vosk"])
    hear.add_argument("--model", default=None, help="a Vosk (or PocketSphinx) model folder")
    hear.add_argument("--whisper", default="auto",
                      help="the back-up recogniser: tiny.en, base, a CTranslate2 Whisper "
                      "folder, or none (auto: tiny.en for English, base otherwise)")
    hear.add_argument("--enroll", default=None, metavar="DIR",
                      help="players' clips of their own names, DIR/<Name>.wav (16 kHz mono)")
    hear.add_argument("--pairs", action="store_true",
                      help="the narrator asked for the seat and the name together (\"number "
                      "three, Ana\"), as the box does at a table it cannot hear")
    hear.set_defaults(run=_hear)

    say = verbs.add_parser("say", help="speak one line into a WAV file")
    say.add_argument("text")
    say.add_argument("-o", "--output", required=True)
    say.add_argument("--lang", default="en")
    say.add_argument("--voice", default=None, help="a Piper .onnx voice (default: joe)")
    say.set_defaults(run=_say)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    # the verb is the first word that is not an option (the top level has only --help)
    verb = next((a for a in argv if not a.startswith("-")), "")
    args = build_parser(verb).parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    raise SystemExit(main())
