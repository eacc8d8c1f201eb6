"""One Night's part of the host's set-up form (seed 001; see narrator/setup_form.py)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from narrator.cues import Host
from narrator.setup_form import CUSTOM, FormError, GameForm, SetupForm
from narrator.table import TableConfig
from rules.one_night.balance import rating
from rules.one_night.presets import MAX_PLAYERS, MIN_PLAYERS, suggested_deck
from rules.one_night.roles import ROLES


def _form() -> GameForm:
    """Seed 001: the suggested balanced deck for the count, or the host's own cards (a
    count per card; players + 3 of them, checked by the rules when the table starts); no
    switches (the debate clock is the table's)."""

    suggested = "suggested"

    def counts(cards: list[str]) -> dict[str, int]:
        return dict(Counter(cards))

    def suggested_for(count: int) -> dict[str, int] | None:
        return counts(suggested_deck(count)) if MIN_PLAYERS <= count <= MAX_PLAYERS else None

    def current_deck(config: TableConfig) -> dict[str, int] | None:
        if config.deck is not None:
            return {r: c for r, c in config.deck.items() if c}
        return suggested_for(len(config.players))

    def describe_on(config: TableConfig) -> dict[str, Any]:
        count = len(config.players)
        deck = current_deck(config)
        offered = suggested_for(count)
        cards = [r for r, c in (deck or {}).items() for _ in range(c)]
        return {
            "choice": CUSTOM if config.deck is not None else suggested,
            "presets": [{"id": suggested, "min": MIN_PLAYERS, "max": MAX_PLAYERS,
                         "deck": offered,
                         "rating": rating(suggested_deck(count)) if offered else None}],
            "deck": deck,
            "cards": len(cards),
            "needed": count + 3,  # «tres cartas más que jugadores»
            "rating": rating(cards) if cards else None,
            "roles": [{"id": r.name, "max": r.max_copies, "step": 1,
                       "count": (deck or {}).get(r.name, 0)} for r in ROLES.values()],
            "options": [],
        }

    def check_on(config: TableConfig, form: SetupForm) -> None:
        if form.choice is not None and form.choice not in (CUSTOM, suggested):
            raise FormError("unknown_preset", "preset")
        for role in form.deck or {}:
            if role not in ROLES:
                raise FormError("bad_count", f"count_{role}")
        if form.options:
            raise FormError("bad_option", next(iter(form.options)))

    def inputs_on(config: TableConfig, form: SetupForm) -> list[Host]:
        was = CUSTOM if config.deck is not None else suggested
        chosen = form.choice or was
        if chosen == suggested and was != suggested:
            return [Host("preset", suggested)]  # the counts sent were the host's deck's
        submitted = ({r: c for r, c in form.deck.items() if c} if form.deck is not None
                     else current_deck(config))
        if chosen == suggested and submitted == current_deck(config):
            return []
        # a count changed (or the host chose their own cards): it is the host's deck now
        deck = dict(submitted or {})
        if config.deck is not None and {r: c for r, c in config.deck.items() if c} == deck:
            return []
        return [Host("deck", deck)] if deck else []

    return GameForm(describe_on, check_on, inputs_on)


SETUP_FORM = _form()
