"""What the host's page says: the narrator's told cues as items to speak and caption.

The narrator keeps every cue the table has heard (`Narrator.told`: lines, pauses, the
clock; never a phone's private view), from accepted inputs only, so what the host's page
says follows from the table's log like everything else. Each item is one cue: a line (its
text in the table's language, as Piper says it: a room code spelled out) or a pause (the
seconds of silence the narrator asks for). An item is addressed by its index in `told`,
within one list (`told_game`): the narrator starts the list again when a game is dealt,
and a new game at the table is a new log whose list starts with its lobby.
"""

from __future__ import annotations

from typing import Any

from speech import to_plain

MAX_ITEMS = 200  # a page that fell far behind catches up in several answers


def told_items(narrator: Any, since: int) -> list[dict[str, Any]]:
    """The told cues after index `since` - 1 (so `since` is the first wanted), as items."""
    told = narrator.told
    start = max(0, since)
    items: list[dict[str, Any]] = []
    for index in range(start, min(len(told), start + MAX_ITEMS)):
        item = _item(narrator.lang, told[index])
        if item is not None:
            items.append({"i": index, **item})
    return items


def told_game(session: Any) -> str:
    """Which told list the table is on: the log, and how many games it dealt."""
    return f"{session.game_id}:{session.narrator.games_started}"


def told_count(narrator: Any) -> int:
    return len(narrator.told)


def line_text(narrator: Any, index: int) -> str | None:
    """The text of told line `index` (None: no such line, or a pause)."""
    told = narrator.told
    if not 0 <= index < len(told):
        return None
    item = _item(narrator.lang, told[index])
    return item["text"] if item and item["text"] else None


def _item(lang: str, cue: Any) -> dict[str, Any] | None:
    kind = type(cue).__name__
    if kind == "Say":
        spoken = to_plain(lang, [cue])
        return {"text": spoken[0].text if spoken else "", "pause": 0.0}
    if kind == "Pause":
        return {"text": "", "pause": float(cue.seconds)}
    if kind == "Clock":
        return {"text": "", "pause": 0.0, "clock": cue.action, "seconds": cue.seconds}
    return None
