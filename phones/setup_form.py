"""The host's set-up form over HTTP: the page's posted fields or the API's JSON read into a
`SetupForm`, and the narrator asked what it shows and what inputs it makes.

What the form holds and what it changes is the narrator's (narrator/setup_form.py: the
game-neutral part, and each game's own part beside its script,
narrator/scripts/<game>_setup.py). Here is only the reading of a request: a field that is
not a number, a deck that is not an object, refused as a `FormError` that names its field,
before anything is sent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# what the form holds and what it changes are the narrator's; the relay asks them here
from narrator.setup_form import (
    CUSTOM,
    FormError,
    SetupForm,
    describe,
    inputs_for,
    start_problem,
)

__all__ = [
    "CUSTOM", "FormError", "SetupForm", "describe", "form_from_fields", "form_from_json",
    "inputs_for", "start_problem",
]


# ---------------------------------------------------------------------- reading a form


def form_from_fields(fields_: Mapping[str, Any]) -> SetupForm:
    """The page's form fields (a werkzeug MultiDict or a plain mapping of strings)."""
    deck = {key[6:]: _count(value, key) for key, value in fields_.items()
            if key.startswith("count_")} or None
    options: dict[str, Any] = {}
    # a checkbox that is not ticked is not sent: `switches` lists the ones the form showed
    shown = str(fields_.get("switches", "")).split()
    for name in shown:
        options[name] = fields_.get(f"opt_{name}") in ("on", "true", "1")
    for key, value in fields_.items():
        if key.startswith("choice_"):
            options[key[7:]] = str(value)
    clock = fields_.get("clock")
    return SetupForm(
        game=_text(fields_.get("game")),
        choice=_text(fields_.get("preset")),
        deck=deck,
        options=options,
        protocol=_text(fields_.get("protocol")),
        clock=_clock(clock),
        language=_text(fields_.get("language")),
    )


def form_from_json(data: Mapping[str, Any]) -> SetupForm:
    """The API's JSON: {"game", "preset", "deck": {role: n}, "options": {id: value},
    "protocol", "clock", "language"}, each optional."""
    deck = data.get("deck")
    options = data.get("options", {})
    if deck is not None and not isinstance(deck, dict):
        raise FormError("bad_deck", "deck")
    if not isinstance(options, dict):
        raise FormError("bad_option", "options")
    clock = data.get("clock")
    if clock is not None and (not isinstance(clock, int) or isinstance(clock, bool)):
        raise FormError("bad_clock", "clock")
    return SetupForm(
        game=_text(data.get("game")),
        choice=_text(data.get("preset")),
        deck=None if deck is None else {str(k): _count(v, f"deck.{k}") for k, v in deck.items()},
        options=dict(options),
        protocol=_text(data.get("protocol")),
        clock=clock,
        language=_text(data.get("language")),
    )


def _text(value: Any) -> str | None:
    return None if value in (None, "") else str(value)


def _clock(value: Any) -> int | None:
    if value in (None, ""):
        return None
    if not (isinstance(value, str) and value.strip().isdigit()):
        raise FormError("bad_clock", "clock")
    return int(value.strip())


def _count(value: Any, name: str) -> int:
    if isinstance(value, bool):
        raise FormError("bad_count", name)
    if isinstance(value, int):
        number = value
    elif isinstance(value, str) and value.strip().isdigit():
        number = int(value.strip())
    else:
        raise FormError("bad_count", name)
    if not 0 <= number <= 99:
        raise FormError("bad_count", name)
    return number
