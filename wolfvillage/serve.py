"""`wolfvillage serve`: the phone relay and, beside it, the Alexa endpoint, in one web app.

This module composes the two adapters (phones/ may not import skill/, so the composition
lives here) and runs them:

- one worker process (the default on a machine with fewer than two cores, or `--workers 1`):
  waitress, as before;
- several worker processes (`--workers N`, the default `min(2, cpu_count)`): granian, a Rust
  HTTP server with a WSGI interface, each worker building its own app over the same store
  (`make_app`, a factory that reads its settings from the environment). The relay is correct
  across processes: every use of a cached table revalidates it against the store, and a fresh
  link is claimed with the store's compare-and-set.

The budgets per client address (wrong room-code guesses, rooms created: `phones.limits`) are
counted in the store, so every worker shares them.

Stopping: SIGTERM or SIGINT stops the server within STOP_GRACE_S seconds at any moment. A
worker that is still building its app when the signal comes dies at once (it has not taken
a request yet), and one that does not finish in time is killed. A worker never outlives the
server process: it is killed when its parent dies (`kill -9` of the server included), so a
restart never runs beside an older generation of workers on the same store.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
from typing import Any

from phones.serve import lan_address

# what the worker processes read (the factory has no arguments)
ENV_SETTINGS = "WOLFVILLAGE_SERVE_SETTINGS"
ENV_PARENT = "WOLFVILLAGE_SERVE_PARENT"  # the server's pid, which its workers check
SKILL_ID_ENV = "WOLFVILLAGE_SKILL_ID"
TRUSTED_PROXIES_ENV = "WOLFVILLAGE_TRUSTED_PROXIES"
# seconds the server waits for a worker to stop on its own before killing it
STOP_GRACE_S = 3
ALEXA_OFF = ("The Alexa endpoint is off: set {env} (or --skill-id) to your skill's id "
             "(amzn1.ask.skill....) to serve POST /alexa (docs/alexa.md)")
# granian's own runtime holds the connections; Python threads per worker. A thread waits
# for its table's lock and for its write's commit, so more threads hide those waits, but
# each extra one also queues on the GIL: on the idle 2-core machine 4 threads gave a p99 of
# 56-68 ms against 79-111 ms with 16 (with other jobs taking the cores, 16 did better:
# docs/phones-performance.md). The box and a Pi serve far less than the benchmark's load.
GRANIAN_THREADS = 4
WAITRESS_THREADS = 16
# objects allocated (minus freed) between two young collections; Python's default is 700
GC_YOUNG_THRESHOLD = 50_000


def default_workers() -> int:
    """Two processes on a machine with two cores or more (the relay's bottleneck is the GIL,
    and the second core is otherwise idle); one on a single core, where a second process
    would only add switching."""
    return max(1, min(2, os.cpu_count() or 1))


def build_app(store_url: str | None, alexa: bool = True, verify_alexa: bool = True,
              public_url: str | None = None, skill_id: str | None = None,
              **config: Any) -> Any:
    """The relay's app; with `alexa` and a skill id, the skill's POST /alexa beside it, over
    the same store. Without a skill id there is no Alexa endpoint (a signed request for any
    other skill would be answered): `run` says so at start-up.

    The skill is imported lazily, so that serving the relay alone never needs it.
    """
    from local_voice.voices import line_voice
    from phones.serve import build_relay_app

    # the host page speaks with the box's voices (phones has none of its own)
    config.setdefault("VOICE_FACTORY", line_voice)
    app = build_relay_app(store_url, **config)
    if alexa and skill_id:
        from skill.builder import build_skill_builder
        from skill.web import init_alexa

        relay = app.extensions["wolfvillage_relay"]
        skill = build_skill_builder(relay=relay, public_url=public_url,
                                    skill_id=skill_id).create()
        init_alexa(app, skill, verify=verify_alexa)
    return app


def quiet_garbage_collector() -> None:
    """Fewer, cheaper pauses of Python's cycle collector in a server process.

    A full collection walks every object the process holds (imported modules, cached
    tables and views) while every request thread waits: the slowest 1 % of answers under
    load. The objects alive once the app is built live as long as the process, so they are
    moved out of the collector's sight (`gc.freeze`), and young collections are made rarer:
    a request's garbage is almost all freed by reference counting anyway.
    """
    import gc

    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_YOUNG_THRESHOLD, 20, 20)


def make_app() -> Any:
    """The app of one worker process, from the settings `run` left in the environment."""
    die_with_parent(int(os.environ.get(ENV_PARENT) or 0))
    settings = json.loads(os.environ.get(ENV_SETTINGS) or "{}")
    app = build_app(settings.get("store"), alexa=settings.get("alexa", True),
                    verify_alexa=settings.get("verify_alexa", True),
                    public_url=settings.get("public_url"), skill_id=settings.get("skill_id"),
                    **_config(settings))
    quiet_garbage_collector()
    return app


def _config(settings: dict[str, Any]) -> dict[str, Any]:
    proxies = settings.get("trusted_proxies")
    return {"TRUSTED_PROXIES": proxies} if proxies else {}


def die_with_parent(parent: int) -> None:
    """In a worker process, first thing: it never outlives the server, and a stop signal
    that comes while it builds its app ends it at once.

    granian forks its workers with the server's own signal handlers, which only set a flag
    in the server's object: a SIGTERM that reached a worker before granian installed the
    worker's handlers (while `make_app` builds the app) was lost, the worker went on to
    serve, and the server waited for it forever. Until granian takes the signals over, the
    defaults apply: SIGTERM ends the worker, SIGINT raises KeyboardInterrupt.
    """
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    if not parent or not sys.platform.startswith("linux"):
        return
    import ctypes

    pr_set_pdeathsig = 1
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0) != 0:
        return
    if os.getppid() != parent:
        os._exit(1)  # the server died before the line above: nobody would kill this one


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="0.0.0.0", help="address to listen on")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--store", default=None, help="sqlite:///path.db or dynamodb://TABLE")
    parser.add_argument("--workers", type=int, default=default_workers(),
                        help="server processes (default: %(default)s, i.e. min(2, cores)); "
                        "1 serves with waitress, more with granian")
    parser.add_argument("--threads", type=int, default=None,
                        help="request threads per process (default: "
                        f"{WAITRESS_THREADS} with waitress, {GRANIAN_THREADS} per granian worker)")
    parser.add_argument("--connections", type=int, default=4000,
                        help="open connections kept at once (every phone keeps one)")
    parser.add_argument("--public-url", default=None,
                        help="the address phones use (default: this machine's, or "
                        "WOLFVILLAGE_PUBLIC_URL)")
    parser.add_argument("--no-alexa", action="store_true", help="serve the phone relay only")
    parser.add_argument("--skill-id", default=os.environ.get(SKILL_ID_ENV) or None,
                        help=f"your Alexa skill's id (default: ${SKILL_ID_ENV}); without it "
                        "there is no Alexa endpoint")
    parser.add_argument("--trusted-proxy", action="append", default=None, metavar="ADDRESS",
                        help="a reverse proxy whose X-Forwarded-For is believed: an address or "
                        f"a network, repeatable (default: ${TRUSTED_PROXIES_ENV}, "
                        "comma-separated; none)")
    parser.add_argument("--insecure-skip-alexa-verification", action="store_true",
                        help="DEVELOPMENT ONLY: accept unsigned Alexa requests")


def run(args: argparse.Namespace) -> int:
    shown = lan_address() if args.host == "0.0.0.0" else args.host
    public = args.public_url or os.environ.get("WOLFVILLAGE_PUBLIC_URL") or (
        f"http://{shown}:{args.port}")
    proxies = ",".join(args.trusted_proxy) if args.trusted_proxy else (
        os.environ.get(TRUSTED_PROXIES_ENV) or "")
    try:
        from phones.limits import trusted_networks

        trusted_networks(proxies)
    except ValueError as problem:
        print(f"wolfvillage serve: --trusted-proxy: {problem}", file=sys.stderr)
        return 2
    from phones.web import environment_problem

    problem = environment_problem()
    if problem:
        print(f"wolfvillage serve: {problem}", file=sys.stderr)
        return 2
    alexa = not args.no_alexa and bool(args.skill_id)
    if not args.no_alexa and not args.skill_id:
        print(ALEXA_OFF.format(env=SKILL_ID_ENV), flush=True)
    settings = {"store": args.store, "alexa": alexa,
                "verify_alexa": not args.insecure_skip_alexa_verification,
                "public_url": public, "skill_id": args.skill_id, "trusted_proxies": proxies}
    workers = max(1, args.workers)
    if workers > 1:
        _prepare_store(args.store)
        if not os.environ.get("WOLFVILLAGE_SECRET"):
            from phones.web import secret_key

            secret_key()  # created once here, so every worker signs forms with the same one
        print(f"Wolf Village is listening: http://{shown}:{args.port}/ "
              f"({workers} processes)", flush=True)
        serve_workers(settings, host=args.host, port=args.port, workers=workers,
                      threads=args.threads or GRANIAN_THREADS, connections=args.connections)
        return 0
    from phones.serve import serve

    app = build_app(args.store, alexa=alexa, verify_alexa=settings["verify_alexa"],
                    public_url=public, skill_id=args.skill_id, **_config(settings))
    quiet_garbage_collector()
    print(f"Wolf Village is listening: http://{shown}:{args.port}/", flush=True)
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C: a clean exit
        serve(app, host=args.host, port=args.port, threads=args.threads or WAITRESS_THREADS,
              connections=args.connections)
    return 0


def _prepare_store(store_url: str | None) -> None:
    """Open the store once before the workers start: a new SQLite file gets its schema (and
    WAL mode) here, not from two processes racing to create it."""
    from store import open_store

    store = open_store(store_url)
    close = getattr(store, "close", None)
    if close is not None:
        close()


def serve_workers(settings: dict[str, Any], host: str, port: int, workers: int, threads: int,
                  connections: int) -> None:
    """granian: `workers` processes on one listening socket, each with its own app.

    granian's Rust runtime holds the connections (idle keep-alive phones cost no Python
    time) and hands each request to one of the worker's `threads` Python threads.
    """
    from granian import Granian
    from granian.constants import Interfaces

    os.environ[ENV_SETTINGS] = json.dumps(settings)
    os.environ[ENV_PARENT] = str(os.getpid())
    Granian("wolfvillage.serve:make_app", factory=True, address=host, port=port,
            interface=Interfaces.WSGI, workers=workers, blocking_threads=threads,
            backlog=max(1024, connections), log_access=False,
            workers_kill_timeout=STOP_GRACE_S).serve()
