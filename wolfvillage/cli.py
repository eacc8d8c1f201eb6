"""`wolfvillage VERB ...`: each verb is a thin shell over the packages."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence


def _replay(args: argparse.Namespace) -> int:
    from rules import replay

    try:
        if args.file == "-":
            text = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8") as handle:
                text = handle.read()
    except OSError as problem:
        print(f"wolfvillage replay: cannot read {args.file}: {problem.strerror}", file=sys.stderr)
        return 1
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as problem:
        print(f"wolfvillage replay: {args.file} is not valid JSON: {problem}", file=sys.stderr)
        return 1
    result = replay(doc)
    json.dump(result, sys.stdout, ensure_ascii=False, indent=args.indent)
    sys.stdout.write("\n")
    return 2 if result["error"] is not None else 0


def _console(args: argparse.Namespace) -> int:
    from wolfvillage.console import run

    return run(args)


def _serve(args: argparse.Namespace) -> int:
    from phones.serve import run

    return run(args)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="wolfvillage", description="Wolf Village narrator")
    verbs = parser.add_subparsers(dest="verb", required=True)
    replay = verbs.add_parser("replay", help="replay a game log and print the resolved game")
    replay.add_argument("file", help="a JSON game log, or - for standard input")
    replay.add_argument("--indent", type=int, default=None, help="pretty-print the JSON")
    replay.set_defaults(run=_replay)

    from wolfvillage.console import add_arguments

    console = verbs.add_parser("console", help="play a whole table in a terminal")
    add_arguments(console)
    console.set_defaults(run=_console)

    from phones.serve import add_arguments as serve_arguments

    serve = verbs.add_parser("serve", help="serve the phone relay (and the Alexa endpoint)")
    serve_arguments(serve)
    serve.set_defaults(run=_serve)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    raise SystemExit(main())
