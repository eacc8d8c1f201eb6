"""Werewords' part of the host's set-up form (seed 004; see narrator/setup_form.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from narrator.cues import Host
from narrator.setup_form import FormError, GameForm, SetupForm
from narrator.table import TableConfig
from rules.werewords.options import DAY_SECONDS, WORDS_OFFERED, Options
from rules.werewords.setup import standard_deck
from rules.werewords.wordlists import LEVELS


def _form() -> GameForm:
    """Seed 004's table options: the words' difficulty, the day's length (whole minutes, 2 to
    10), how many words the mayor chooses from, the minion and the beholder. The deck is the
    seed's own for the count (no presets, no rating). Each choice's id is prefixed (its
    words are the game's own page words, phones/text/werewords/)."""

    defaults = Options()
    days = range(DAY_SECONDS[0] // 60, DAY_SECONDS[1] // 60 + 1)
    offers = range(WORDS_OFFERED[0], WORDS_OFFERED[1] + 1)
    # form id -> (the rules' option, its choices as form values, form value -> option value)
    fields_: dict[str, tuple[str, list[str] | None, Callable[[Any], Any]]] = {
        "ww_difficulty": ("difficulty", [f"ww_{level}" for level in LEVELS],
                          lambda v: v.removeprefix("ww_")),
        "ww_day": ("day_seconds", [f"ww_day_{m}" for m in days],
                   lambda v: int(v.removeprefix("ww_day_")) * 60),
        "ww_words": ("words_offered", [f"ww_offer_{n}" for n in offers],
                     lambda v: int(v.removeprefix("ww_offer_"))),
        "ww_minion": ("minion", None, bool),
        "ww_beholder": ("beholder", None, bool),
    }
    shown = {"difficulty": lambda v: f"ww_{v}", "day_seconds": lambda v: f"ww_day_{v // 60}",
             "words_offered": lambda v: f"ww_offer_{v}", "minion": bool, "beholder": bool}

    def value(config: TableConfig, option: str) -> Any:
        return config.options.get(option, getattr(defaults, option))

    def deck_of(config: TableConfig) -> dict[str, int] | None:
        if config.deck is not None:
            return {r: c for r, c in config.deck.items() if c}
        count = len(config.players)
        if count < 1:
            return None
        options = Options(minion=bool(value(config, "minion")),
                          beholder=bool(value(config, "beholder")))
        return {r: c for r, c in standard_deck(count, options).items() if c > 0}

    def describe_ww(config: TableConfig) -> dict[str, Any]:
        items = []
        for ident, (option, choices, _) in fields_.items():
            items.append({
                "id": ident, "kind": "switch" if choices is None else "choice",
                "value": shown[option](value(config, option)),
                "default": shown[option](getattr(defaults, option)),
                "choices": choices or [], "group": "house" if choices else "cards",
            })
        deck = deck_of(config)
        return {"choice": None, "presets": [], "deck": deck,
                "cards": sum((deck or {}).values()), "rating": None, "roles": [],
                "options": items, "clocks": []}

    def check_ww(config: TableConfig, form: SetupForm) -> None:
        if form.deck is not None:
            raise FormError("bad_deck", "deck")
        for key, raw in form.options.items():
            if key not in fields_:
                raise FormError("bad_option", key)
            choices = fields_[key][1]
            if (choices is None and not isinstance(raw, bool)) or (
                    choices is not None and raw not in choices):
                raise FormError("bad_option", key)

    def inputs_ww(config: TableConfig, form: SetupForm) -> list[Host]:
        out: list[Host] = []
        for key, raw in form.options.items():
            option, _, read = fields_[key]
            wanted = read(raw)
            if wanted != value(config, option):
                out.append(Host("option", [option, wanted]))
        return out

    return GameForm(describe_ww, check_ww, inputs_ww)


SETUP_FORM = _form()
