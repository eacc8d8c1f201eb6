"""Wolf Village's part of the host's set-up form (seed 000): the presets and what each deals
at the table's count, the balance rating, the cards a custom deck may hold, the switches
with their real values, and the Host inputs one submitted form makes (see
narrator/setup_form.py)."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from narrator.cues import Host
from narrator.setup_form import CUSTOM, FormError, GameForm, SetupForm
from narrator.table import TableConfig
from rules.core import SetupError
from rules.wolf_village.balance import rating
from rules.wolf_village.options import NIGHT_MODES, Options, build_options
from rules.wolf_village.presets import PRESETS
from rules.wolf_village.roles import ROLES


def _form() -> GameForm:

    defaults = Options()
    # the switches that belong to the cards (seed 000: a role's switch, or the sheriff):
    # changing one makes a preset Custom. The others are the table's house rules.
    card_switches = ("sheriff", "doctor_self_protect", "doctor_repeat", "minion_knows_wolves")
    house_switches = ("reveal_dead_roles",)
    choices = {"night_mode": NIGHT_MODES}
    # the table's voting protocol sets this one (TableConfig.protocol), not a switch
    not_options = ("show_of_hands",)

    def option_ids() -> list[str]:
        return [f.name for f in fields(Options) if f.name not in not_options]

    def preset_deck(name: str, count: int) -> dict[str, int] | None:
        spec = PRESETS[name]
        return spec.deck(count) if spec.min_players <= count <= spec.max_players else None

    def effective(config: TableConfig) -> dict[str, Any]:
        """Every switch's value at this table: the rules' defaults, the preset's own, the
        host's changes (what the game would be dealt with)."""
        base = {} if config.deck is not None else PRESETS[config.preset or "basic"].options
        try:
            return build_options(base, config.options).to_json()
        except SetupError:
            return {**defaults.to_json(), **base}

    def current_deck(config: TableConfig) -> dict[str, int] | None:
        if config.deck is not None:
            return {r: c for r, c in config.deck.items() if c}
        return preset_deck(config.preset or "basic", len(config.players))

    def describe_wv(config: TableConfig) -> dict[str, Any]:
        count = len(config.players)
        deck = current_deck(config)
        values = effective(config)
        presets = []
        for name, spec in PRESETS.items():
            dealt = preset_deck(name, count)
            presets.append({"id": name, "min": spec.min_players, "max": spec.max_players,
                            "deck": dealt, "rating": rating(dealt) if dealt else None})
        switches = []
        for ident in option_ids():
            kind = "choice" if ident in choices else "switch"
            switches.append({
                "id": ident, "kind": kind, "value": values[ident],
                "default": getattr(defaults, ident),
                "choices": list(choices.get(ident, ())),
                "group": "cards" if ident in card_switches else (
                    "house" if ident in house_switches else "night"),
            })
        roles = [{"id": r.name, "max": r.max_copies, "step": r.exact_copies or 1,
                  "count": (deck or {}).get(r.name, 0)} for r in ROLES.values()]
        return {
            "choice": CUSTOM if config.deck is not None else config.preset,
            "presets": presets,
            "deck": deck,
            "cards": sum((deck or {}).values()),
            "rating": rating(deck) if deck else None,
            "roles": roles,
            "options": switches,
        }

    def check_wv(config: TableConfig, form: SetupForm) -> None:
        if form.choice is not None and form.choice != CUSTOM and form.choice not in PRESETS:
            raise FormError("unknown_preset", "preset")
        for role in form.deck or {}:
            if role not in ROLES:
                raise FormError("bad_count", f"count_{role}")
        known = option_ids()
        for key, value in form.options.items():
            if key not in known:
                raise FormError("bad_option", key)
            if key in choices and value not in choices[key]:
                raise FormError("bad_option", key)
            if key not in choices and not isinstance(value, bool):
                raise FormError("bad_option", key)

    def inputs_wv(config: TableConfig, form: SetupForm) -> list[Host]:
        was = CUSTOM if config.deck is not None else (config.preset or "basic")
        chosen = form.choice or was
        values = effective(config)
        out: list[Host] = []
        if chosen != CUSTOM and chosen != was:
            # another preset: its own cards and card switches (the counts and switches
            # the form sent were the old set-up's); the house rules are as submitted
            out.append(Host("preset", chosen))
            wanted = {**values, **{k: v for k, v in form.options.items()
                                   if k not in card_switches}}
            for key in card_switches:
                wanted[key] = PRESETS[chosen].options.get(key, getattr(defaults, key))
            result = chosen
        else:
            wanted = {**values, **form.options}
            dealt = preset_deck(chosen, len(config.players)) if chosen != CUSTOM else None
            submitted = ({r: c for r, c in form.deck.items() if c} if form.deck is not None
                         else current_deck(config))
            custom = (chosen == CUSTOM or (form.deck is not None and submitted != dealt)
                      or any(wanted[k] != values[k] for k in card_switches))
            result = CUSTOM if custom else was
            if custom:
                deck = dict(submitted or {})
                if config.deck is None or {r: c for r, c in config.deck.items() if c} != deck:
                    out.append(Host("deck", deck))
        # what each switch will be once the cards are set (a custom deck starts from the
        # rules' defaults, a preset from its own switches; the host's changes stay on top)
        base = {} if result == CUSTOM else PRESETS[result].options
        for key in option_ids():
            after = config.options.get(key, base.get(key, getattr(defaults, key)))
            if wanted[key] != after:
                out.append(Host("option", [key, wanted[key]]))
        return out

    return GameForm(describe_wv, check_wv, inputs_wv)


SETUP_FORM = _form()
