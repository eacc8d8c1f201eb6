"""Serving the relay (and, beside it, the Alexa endpoint when the skill is installed)."""

from __future__ import annotations

import argparse
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


def build_app(store_url: str | None, **config: Any) -> Any:
    from phones.web import create_app
    from store import open_store

    return create_app(open_store(store_url), **config)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="0.0.0.0", help="address to listen on")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--store", default=None, help="sqlite:///path.db or dynamodb://TABLE")
    parser.add_argument("--threads", type=int, default=16)


def run(args: argparse.Namespace) -> int:
    from waitress import serve

    app = build_app(args.store)
    shown = lan_address() if args.host == "0.0.0.0" else args.host
    print(f"Wolf Village is listening: http://{shown}:{args.port}/", flush=True)
    serve(app, host=args.host, port=args.port, threads=args.threads, ident="wolfvillage")
    return 0
