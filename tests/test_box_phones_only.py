"""`wolfvillage box` (and `make run`) on a machine with no audio device: the relay on the
network, the address, room code and QR codes in the terminal, the host's phone narrates,
and the terminal never shows the game. The real command in a subprocess (this machine has
no microphone or speaker), driven over HTTP as phones would drive it."""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import threading
from pathlib import Path

import pytest
import requests

from local_voice.devices import NoAudioDevice, check_devices
from tests.voice_fixtures import ROOT, WOLFVILLAGE, cli_env

NAMES = ["Ana", "Ben", "Cal", "Dan", "Eve"]


def has_audio() -> bool:
    try:
        check_devices("", "")
    except NoAudioDevice:
        return False
    return True


pytestmark = pytest.mark.skipif(has_audio(), reason="this machine has an audio device")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Box:
    """The running command: its terminal output, read line by line as it comes."""

    def __init__(self, tmp: Path, port: int, *args: str, in_background: bool = False):
        env = {**cli_env(tmp), "WOLFVILLAGE_SECRET": "test"}
        self.proc = subprocess.Popen(
            [*WOLFVILLAGE, "box", "--port", str(port), "--store",
             f"sqlite:///{tmp / 'box.db'}", *args],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            # as a shell starts `wolfvillage box &` in a script: with SIGINT ignored
            preexec_fn=(lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
            if in_background else None)
        self.port = port
        self.lines: list[str] = []
        self.ready = threading.Event()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        assert self.ready.wait(90), "the box printed no ready line:\n" + self.text()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for text in self.proc.stdout:
            self.lines.append(text.rstrip("\n"))
            if text.startswith("Ctrl-C stops the server"):
                self.ready.set()

    def text(self) -> str:
        return "\n".join(self.lines)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def stop(self, signum: int = signal.SIGINT) -> tuple[int, str]:
        self.proc.send_signal(signum)
        try:
            code = self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()  # never left running (and holding its port) after a failure
            self.proc.wait()
            raise
        self.reader.join(timeout=5)
        assert self.proc.stderr is not None
        return code, self.proc.stderr.read()


def phone(device: str) -> requests.Session:
    session = requests.Session()
    session.headers["X-Wolf-Device"] = device
    return session


def test_without_audio_the_box_serves_the_phones_and_the_host_phone_hosts(tmp_path):
    port = free_port()
    box = Box(tmp_path, port)
    try:
        out = box.text()
        join = re.search(rf"Players join at (http://[\d.]+:{port}/j/([A-Z]{{4}})) "
                         r"\(room code ([A-Z]{4})\)", out)
        assert join, out
        code = join.group(2)
        assert join.group(3) == code
        host = re.search(rf"(http://[\d.]+:{port}/h/[A-Za-z0-9_\-]{{16,}})", out)
        assert host, out
        # two QR codes drawn in the terminal: the join address and the host's link
        assert sum(1 for text in box.lines if "█" in text or "▀" in text) > 10
        host_path = host.group(1).split(str(port), 1)[1]
        token = host_path.rsplit("/", 1)[1]
        # the host's phone opens its link; players join by the code
        host_phone = phone("host-phone")
        assert host_phone.get(box.url(host_path)).status_code == 200
        for name in NAMES:
            r = phone(name).post(box.url(f"/api/rooms/{code}/join"), json={"name": name})
            assert r.status_code == 200, r.text
        view = host_phone.get(box.url(f"/api/h/{token}")).json()
        assert view["players"] == NAMES and view["host"] is True
        # the game runs on the phones; the terminal stays as it was
        before = list(box.lines)
        for command, arg in (("option", ["night_mode", "all_at_once"]), ("start", None)):
            r = host_phone.post(box.url(f"/api/h/{token}/command"),
                                json={"command": command, "arg": arg})
            assert r.status_code == 200, r.text
        r = host_phone.post(box.url(f"/api/h/{token}/heard"), json={"intent": "ReadyIntent"})
        assert r.status_code == 200 and host_phone.get(box.url(f"/api/h/{token}")).json()[
            "phase"] == "night"
    finally:
        status, err = box.stop()
    assert status == 0, err
    assert "No audio device" in err
    after = box.lines[len(before):]
    assert [t for t in after if t.strip()] == [
        "The game is saved. Run `wolfvillage box` again to go on."]
    for text in box.lines:
        assert "waiting" not in text.lower(), text
        for name in NAMES:
            assert name not in text, text

    # started again: the same room, and a hand-over code for another phone to host
    again = Box(tmp_path, port)
    try:
        out = again.text()
        assert f"/j/{code} (room code {code})" in out
        assert "/h/" not in out  # the host's link is not shown twice
        offer = re.search(r"/host\?room=([A-Z]{4}) on it and type the code ([A-Z]{4}-[A-Z]{4})",
                          out)
        assert offer and offer.group(1) == code, out
        # the host's phone still hosts; another phone can take over with the code
        assert host_phone.get(again.url(f"/api/h/{token}")).status_code == 200
        tablet = phone("tablet")
        r = tablet.post(again.url("/api/host"), json={"room": code, "code": offer.group(2)})
        assert r.status_code == 200, r.text
        moved = r.json()["host_token"]
        assert tablet.get(again.url(f"/api/h/{moved}")).json()["phase"] == "night"
        assert host_phone.get(again.url(f"/api/h/{token}")).status_code == 404
    finally:
        status, _ = again.stop()
    assert status == 0


def test_a_new_room_on_request(tmp_path):
    port = free_port()
    first = Box(tmp_path, port)
    code = re.search(r"room code ([A-Z]{4})", first.text()).group(1)
    first.stop()
    second = Box(tmp_path, port, "--new")
    try:
        other = re.search(r"room code ([A-Z]{4})", second.text()).group(1)
        assert "/h/" in second.text()
    finally:
        second.stop()
    assert other != code


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_box_started_in_the_background_stops_on_a_signal_and_saves(tmp_path, signum):
    # Ctrl-C and systemd's stop both end the box the clean way, even when a script started
    # it in the background (where SIGINT comes ignored)
    box = Box(tmp_path, free_port(), in_background=True)
    status, err = box.stop(signum)
    assert status == 0, err
    assert box.lines[-1] == "The game is saved. Run `wolfvillage box` again to go on."


def test_a_bad_relay_setting_stops_the_box_with_one_clear_line(tmp_path):
    """The phones' relay runs inside the box: a bad WOLFVILLAGE_POLL_SECONDS is a
    configuration problem (exit 2), not a traceback once the box is starting."""
    env = {**cli_env(tmp_path), "WOLFVILLAGE_POLL_SECONDS": "soon"}
    done = subprocess.run([*WOLFVILLAGE, "box", "--port", "0"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done
    assert "WOLFVILLAGE_POLL_SECONDS" in done.stderr and "Traceback" not in done.stderr
