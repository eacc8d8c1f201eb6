"""The host page's narrator over real HTTP: the told lines and their audio.

Only a host link gets them, only lines the table has heard have audio, a line is rendered
once (the real Piper voice for English, espeak-ng for Spanish) and served from the disk
cache after, and where the server has no voice the page is told so (it speaks the line
with the browser's own voice)."""

from __future__ import annotations

import io
import wave
from typing import Any

import pytest

from narrator.cues import Say
from speech import to_plain
from tests.test_phones_api import Server, Table


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    folder = tmp_path_factory.mktemp("narration")
    srv = Server(folder / "games.db", CALL_PAUSE=1, VOICE_CACHE=str(folder / "voice"),
                 VOICE_MODELS={"fr": str(folder / "no-such-voice.onnx")})
    yield srv
    srv.stop()


def told(table: Table, since: int = 0, game: str | None = None) -> dict[str, Any]:
    params: dict[str, Any] = {"since": since}
    if game:
        params["game"] = game
    r = table.host.get(f"/api/h/{table.host_token}/told", params=params)
    assert r.status_code == 200, r.text
    return r.json()


def audio(table: Table, game: str, index: int, phone: Any = None) -> Any:
    return (phone or table.host).get(f"/h/{table.host_token}/audio/{game}/{index}.wav")


def seated(server: Server, names: int = 5, lang: str = "en") -> Table:
    table = Table(server)
    if lang != "en":
        table.command("language", lang)
    for i in range(names):
        table.join(f"P{i}")
    return table


def test_the_told_lines_are_the_narrators_in_order(server: Server):
    table = seated(server)
    listed = told(table)
    truth = table.truth()
    assert [i["i"] for i in listed["items"]] == list(range(len(truth.told)))
    for item, cue in zip(listed["items"], truth.told, strict=True):
        if isinstance(cue, Say):
            assert item["text"] == to_plain("en", [cue])[0].text
    assert listed["next"] == len(truth.told)
    # after a game is dealt the narrator starts a new list: the page follows it
    table.command("start")
    table.heard("ReadyIntent")
    after = told(table, listed["next"], listed["game"])
    assert after["game"] != listed["game"]
    assert after["game"].split(":")[0] == listed["game"].split(":")[0]
    assert [i["i"] for i in after["items"]] == list(range(len(table.truth().told)))
    assert after["items"][0]["text"].startswith("The game begins with 5 players")
    # asking from where it was gives only what is new
    again = told(table, after["next"], after["game"])
    assert again["items"] == []
    # a night call held open: the page is told the timer, and lets its time pass
    assert after["timer"] == {"kind": "call", "left": 1}


def test_a_lines_audio_is_rendered_once_and_served_from_the_cache(server: Server):
    table = seated(server)
    listed = told(table)
    first = audio(table, listed["game"], 0)
    assert first.status_code == 200 and first.headers["Content-Type"] == "audio/wav"
    assert first.headers["X-Wolf-Audio"] == "rendered"
    with wave.open(io.BytesIO(first.content), "rb") as handle:
        assert handle.getnchannels() == 1 and handle.getnframes() > handle.getframerate()
    second = audio(table, listed["game"], 0)
    assert second.headers["X-Wolf-Audio"] == "cached" and second.content == first.content
    # the same line at another table is the same file
    other = seated(server)
    assert audio(other, told(other)["game"], 0).headers["X-Wolf-Audio"] == "cached"


def test_spanish_lines_are_spoken_by_espeak(server: Server):
    table = seated(server, lang="es")
    listed = told(table)
    said = next(i for i in listed["items"] if i["text"])
    assert said["text"] == "Hablaré en español."
    r = audio(table, listed["game"], said["i"])
    assert r.status_code == 200 and r.headers["X-Wolf-Audio"] == "rendered"


def test_only_the_hosts_link_gets_lines_and_only_lines_that_were_told(server: Server):
    table = seated(server)
    listed = told(table)
    game = listed["game"]
    phone, token = table.players["P0"]
    # a player's link, another device, a forged link
    assert phone.get(f"/api/h/{token}/told").status_code == 404
    assert phone.get(f"/h/{token}/audio/{game}/0.wav").status_code == 404
    assert audio(table, game, 0, server.phone()).status_code == 403
    assert server.phone().get(f"/h/{'A' * 32}/audio/{game}/0.wav").status_code == 404
    # no line at that index, another list, a list of another table
    for where in ((game, listed["next"]), (game, 10_000), ("nope:0", 0),
                  (game.split(":")[0] + ":7", 0)):
        r = audio(table, *where)
        assert r.status_code == 404 and r.json()["error"] == "no_line", where
    # a bad index is refused by the route itself
    assert table.host.get(f"/h/{table.host_token}/audio/{game}/-1.wav").status_code == 404
    r = table.host.get(f"/api/h/{table.host_token}/told", params={"since": "x"})
    assert r.status_code == 400


def test_a_language_the_server_cannot_speak_is_left_to_the_browser(server: Server):
    table = seated(server, lang="fr")  # its Piper voice is configured but missing
    listed = told(table)
    said = next(i for i in listed["items"] if i["text"])
    r = audio(table, listed["game"], said["i"])
    assert r.status_code == 503 and r.json()["error"] == "no_voice"
    # the captions still come
    assert said["text"]


def test_the_host_page_carries_the_narrator(server: Server):
    table = seated(server)
    page = table.host.get(f"/h/{table.host_token}").text
    for marker in ('id="narrator"', 'id="narrator-start"', 'id="narrator-volume"',
                   'id="narrator-mute"', 'id="narrator-replay"', 'id="captions"',
                   "narrator.js"):
        assert marker in page, marker
    # the page may play audio from its own server, and from nowhere else
    csp = table.host.get(f"/h/{table.host_token}").headers["Content-Security-Policy"]
    assert "media-src 'self'" in csp


def test_a_server_built_without_a_voice_leaves_every_line_to_the_browser(tmp_path):
    """phones has no voice of its own (DESIGN.md): whoever builds the app gives it one
    (`wolfvillage serve` and the box give local_voice's); an app built without one (AWS
    Lambda) says so for every line, and the captions still come."""
    bare = Server(tmp_path / "games.db", CALL_PAUSE=1, VOICE_CACHE=str(tmp_path / "voice"),
                  VOICE_FACTORY=None)
    try:
        table = seated(bare)
        listed = told(table)
        said = next(i for i in listed["items"] if i["text"])
        r = audio(table, listed["game"], said["i"])
        assert r.status_code == 503 and r.json()["error"] == "no_voice"
        assert not list((tmp_path / "voice").glob("*.wav"))
    finally:
        bare.stop()
