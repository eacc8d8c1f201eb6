"""Serving the relay (and, beside it, the Alexa endpoint when the skill is installed)."""

from __future__ import annotations

import argparse
import os
import socket
from typing import Any


def lan_address() -> str:
    """This machine's address on the local network (what the phones must reach)."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        # no packet is sent: connecting a UDP socket only picks the outgoing interface
        probe.connect(("10.255.255.255", 1))
        return probe.getsockname()[0]
    except OSError:
        return "127.0.0.1"
    finally:
        probe.close()


def build_app(store_url: str | None, alexa: bool = True, verify_alexa: bool = True,
              public_url: str | None = None, **config: Any) -> Any:
    """The relay's app; with `alexa`, the skill's POST /alexa beside it, over the same store.

    (This module only composes: the skill is imported lazily so that the relay never
    depends on it.)
    """
    from phones.web import create_app
    from store import open_store

    app = create_app(open_store(store_url), **config)
    if alexa:
        from skill.builder import build_skill_builder
        from skill.web import init_alexa

        relay = app.extensions["wolfvillage_relay"]
        skill = build_skill_builder(relay=relay, public_url=public_url).create()
        init_alexa(app, skill, verify=verify_alexa)
    return app


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="0.0.0.0", help="address to listen on")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--store", default=None, help="sqlite:///path.db or dynamodb://TABLE")
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--connections", type=int, default=4000,
                        help="open connections kept at once (every phone keeps one)")
    parser.add_argument("--public-url", default=None,
                        help="the address phones use (default: this machine's, or "
                        "WOLFVILLAGE_PUBLIC_URL)")
    parser.add_argument("--no-alexa", action="store_true", help="serve the phone relay only")
    parser.add_argument("--insecure-skip-alexa-verification", action="store_true",
                        help="DEVELOPMENT ONLY: accept unsigned Alexa requests")


def run(args: argparse.Namespace) -> int:
    shown = lan_address() if args.host == "0.0.0.0" else args.host
    public = args.public_url or os.environ.get("WOLFVILLAGE_PUBLIC_URL") or (
        f"http://{shown}:{args.port}")
    app = build_app(args.store, alexa=not args.no_alexa,
                    verify_alexa=not args.insecure_skip_alexa_verification, public_url=public)
    print(f"Wolf Village is listening: http://{shown}:{args.port}/", flush=True)
    serve(app, host=args.host, port=args.port, threads=args.threads,
          connections=args.connections)
    return 0


def serve(app: Any, host: str, port: int, threads: int, connections: int) -> None:
    """waitress, set for a room full of phones that each keep a connection open.

    Every phone keeps its connection alive between polls, so a busy relay holds a thousand
    mostly idle connections: waitress's default limit (100) would make the 101st phone wait,
    and select() cannot watch more than 1024 sockets (docs/phones-performance.md).
    """
    from waitress import serve as waitress_serve

    waitress_serve(app, host=host, port=port, threads=threads, ident="wolfvillage",
                   connection_limit=connections, asyncore_use_poll=True)
