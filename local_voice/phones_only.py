"""`wolfvillage box` on a machine with no microphone or speaker: a table of phones only.

The phone relay runs on the local network as it does in the box; the terminal shows the
join address, the room code and its QR code, and a QR code of the host's own link, for the
host's phone, which narrates (the host page speaks every line with the server's voice).
The room is the box's room (the store's `box:current`), so plugging a speakerphone in later
and starting `wolfvillage box` again goes on with the same table.

The terminal is seen by everyone at the table: it shows how to join and how to host,
never the game (nobody's role, nobody's turn, nobody being waited on).
"""

from __future__ import annotations

import sys
import threading
from typing import Any, TextIO

from local_voice.config import BoxConfig

CURRENT = "box:current"
ROOM_CODE = "box:code:{game}"


def run(config: BoxConfig, reason: str = "", new_room: bool = False,
        out: TextIO = sys.stdout, until: threading.Event | None = None) -> int:
    """Serve the phones until Ctrl-C (or `until` is set). Returns the exit status."""
    from waitress.server import create_server

    from phones.serve import lan_address
    from phones.web import create_app
    from store import open_store

    store = open_store(config.store or None)
    from local_voice.voices import line_voice

    app = create_app(store, CALL_PAUSE=config.call_pause, VOICE_MODELS=dict(config.piper),
                     VOICE_FACTORY=line_voice)
    relay = app.extensions["wolfvillage_relay"]
    try:
        server = create_server(app, host="0.0.0.0", port=config.port, threads=8)
    except OSError as problem:
        print(f"wolfvillage box: cannot listen on port {config.port}: {problem}", file=out)
        store.close()
        return 2
    base = f"http://{lan_address()}:{server.effective_port}"

    _, code, host_token, handover_code = open_room(relay, config, new_room)

    def say(text: str = "") -> None:
        print(text, file=out, flush=True)

    say(f"Wolf Village, phones only{f' ({reason})' if reason else ''}.")
    show_room(out, base, code, host_token, handover_code, host_narrates=True)
    stop = until or threading.Event()
    try:  # from the line that says Ctrl-C stops it on, a Ctrl-C is a clean stop
        say("Ctrl-C stops the server; the game is saved and goes on at the next start.")
        thread = threading.Thread(target=server.run, name="wolfvillage-phones", daemon=True)
        thread.start()
        while not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        say("\nThe game is saved. Run `wolfvillage box` again to go on.")
    finally:
        server.close()
        store.close()
    return 0


def open_room(relay: Any, config: BoxConfig, new_room: bool = False
              ) -> tuple[str, str, str | None, str | None]:
    """The box's room (a new one, or the one it had): its game id, its code, and either the
    host's link (when it has never been shown) or a one-time hand-over code for it."""
    from phones import handover

    store = relay.store
    game_id = None if new_room else store.lookup(CURRENT)
    code = store.lookup(ROOM_CODE.format(game=game_id)) if game_id else None
    host_token = None
    if game_id is None or code is None:
        code, host_token = relay.create_room(config.language)
        game_id = relay.game_for_code(code)
        store.bind(CURRENT, game_id)
        store.bind(ROOM_CODE.format(game=game_id), code)
        handover.remember_host_link(relay, game_id, host_token)
    handover_code = None if host_token else handover.offer_for_room(relay, game_id)
    if host_token is None and handover_code is None:
        # a room whose host link was never shown anywhere
        host_token = handover.new_host_link(relay, game_id, code, config.language)
    return game_id, code, host_token, handover_code


def show_room(out: TextIO, base: str, code: str, host_token: str | None,
              handover_code: str | None, host_narrates: bool) -> None:
    """How to join and how to host, in the terminal everyone at the table can see."""
    import segno

    def say(text: str = "") -> None:
        print(text, file=out, flush=True)

    join = f"{base}/j/{code}"
    say(f"Players join at {join} (room code {code}):")
    segno.make(join).terminal(out=out, compact=True)
    role = ("The host's phone is the narrator" if host_narrates
            else "The host's phone sets the game up (the box narrates)")
    if host_token is not None:
        host = f"{base}/h/{host_token}"
        say(f"{role}: open this link on it (scan it), and keep it")
        say(f"to yourself: {host}")
        segno.make(host).terminal(out=out, compact=True)
    else:
        takeover = f"{base}/host?room={code}"
        say(f"{role}. To host from another phone, open")
        say(f"{takeover} on it and type the code {handover_code} (it works once, for ten "
            "minutes):")
        segno.make(takeover).terminal(out=out, compact=True)


def fallback(config: BoxConfig, problem: Any, new_room: bool = False) -> int:
    """What `wolfvillage box` does when it finds no audio device."""
    print(f"No audio device: {problem}. The phones run the game: the host's phone narrates.",
          file=sys.stderr)
    return run(config, reason="no audio device here", new_room=new_room)
