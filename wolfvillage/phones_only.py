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
    import segno
    from waitress.server import create_server

    from phones import handover
    from phones.serve import lan_address
    from phones.web import create_app
    from store import open_store

    store = open_store(config.store or None)
    app = create_app(store, CALL_PAUSE=config.call_pause, VOICE_MODELS=dict(config.piper))
    relay = app.extensions["wolfvillage_relay"]
    try:
        server = create_server(app, host="0.0.0.0", port=config.port, threads=8)
    except OSError as problem:
        print(f"wolfvillage box: cannot listen on port {config.port}: {problem}", file=out)
        store.close()
        return 2
    base = f"http://{lan_address()}:{server.effective_port}"

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
        # a room the audio box opened: its host link was never shown anywhere
        host_token = handover.new_host_link(relay, game_id, code, config.language)

    def say(text: str = "") -> None:
        print(text, file=out, flush=True)

    say(f"Wolf Village, phones only{f' ({reason})' if reason else ''}.")
    join = f"{base}/j/{code}"
    say(f"Players join at {join} (room code {code}):")
    segno.make(join).terminal(out=out, compact=True)
    if host_token is not None:
        host = f"{base}/h/{host_token}"
        say("The host's phone is the narrator: open this link on it (scan it), and keep it")
        say(f"to yourself: {host}")
        segno.make(host).terminal(out=out, compact=True)
    else:
        takeover = f"{base}/host?room={code}"
        say("The host's phone narrates, as before. To host from another phone, open")
        say(f"{takeover} on it and type the code {handover_code} (it works once, for ten "
            "minutes):")
        segno.make(takeover).terminal(out=out, compact=True)
    say("Ctrl-C stops the server; the game is saved and goes on at the next start.")

    thread = threading.Thread(target=server.run, name="wolfvillage-phones", daemon=True)
    thread.start()
    stop = until or threading.Event()
    try:
        while not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        say("\nThe game is saved. Run `wolfvillage box` again to go on.")
    finally:
        server.close()
        store.close()
    return 0


def fallback(config: BoxConfig, problem: Any, new_room: bool = False) -> int:
    """What `wolfvillage box` does when it finds no audio device."""
    print(f"No audio device: {problem}. The phones run the game: the host's phone narrates.",
          file=sys.stderr)
    return run(config, reason="no audio device here", new_room=new_room)
