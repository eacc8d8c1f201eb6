"""The host's set-up form: what the page shows of a table's set-up, and the narrator's Host
inputs that one submitted form makes.

The page is built from `describe(narrator)` (in the host's view as `setup`), never from
fields written into a template: the game-neutral part (the game, voting, clock, language)
comes from the narrator's table, and each game's own part (presets and what they deal at
the table's count, the balance rating, the cards a custom deck may hold, the switches with
their real values) from that game's rules, through `GAME_FORMS`. A new game plugs in its own
entry; the page renders whatever fields it lists.

A form is read into a `SetupForm` (from the page's fields or the API's JSON), checked
completely first (bad input changes nothing), and turned into the inputs that take the
table from its set-up to the one submitted: only what changed, in an order the narrator
accepts. Seed 000: «cualquier cambio en las cartas de un reparto (un rol, el interruptor de
un rol, el número de hombres lobo o el alguacil) lo convierte en el tuyo: Personalizado», so
a changed card count or card switch on a preset sends the deck it now is, as a custom deck.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from narrator.cues import Host
from narrator.scripts import SCRIPTS, script_class
from narrator.table import CLOCKS, LANGUAGES, PROTOCOLS, TableConfig
from rules.core import SetupError
from rules.replay import start as start_game

CUSTOM = "custom"


class FormError(ValueError):
    """A submitted form that cannot be a set-up; `reason` is a stable key for the page."""

    def __init__(self, reason: str, field_name: str = ""):
        super().__init__(f"{reason}: {field_name}" if field_name else reason)
        self.reason = reason
        self.field = field_name


@dataclass
class SetupForm:
    """One submitted set-up. None (or a missing key) leaves that part as it is."""

    game: str | None = None
    choice: str | None = None  # a preset's id, or "custom"
    deck: dict[str, int] | None = None  # the card counts the form shows
    options: dict[str, Any] = field(default_factory=dict)
    protocol: str | None = None
    clock: int | None = None
    language: str | None = None


@dataclass(frozen=True)
class GameForm:
    """One game's part of the form (see `wolf_village_form` for Wolf Village's)."""

    describe: Callable[[TableConfig], dict[str, Any]]
    check: Callable[[TableConfig, SetupForm], None]
    inputs: Callable[[TableConfig, SetupForm], list[Host]]


# ---------------------------------------------------------------------- what the page shows


def describe(narrator: Any) -> dict[str, Any]:
    """The set-up as the host's page shows it (all plain data)."""
    config: TableConfig = narrator.config
    script = script_class(config.ruleset)
    described: dict[str, Any] = {
        "game": config.ruleset,
        "games": list(SCRIPTS),
        "count": len(config.players),
        "min": script.min_players,
        "max": script.max_players,
        "protocol": config.protocol,
        "protocols": list(script.protocols),  # the votes this game can take
        "clock": config.clock,
        "clocks": list(script.clocks),
        "language": narrator.lang,
        "languages": list(LANGUAGES),
        "problem": start_problem(narrator),
    }
    game_form = GAME_FORMS.get(config.ruleset)
    if game_form is not None:
        described.update(game_form.describe(config))
    return described


def start_problem(narrator: Any) -> str | None:
    """Why the table could not start as it is set up now: the rules' own reason (None: it
    can). The deal is only tried, on a copy of the set-up: nothing is stored."""
    config: TableConfig = narrator.config
    script = script_class(config.ruleset)
    if len(config.players) < script.min_players:
        return f"at least {script.min_players} players are needed, not {len(config.players)}"
    try:
        start_game(config.setup_doc(narrator.seed + narrator.games_started))
    except SetupError as problem:
        return problem.reason
    return None


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


# ---------------------------------------------------------------------- what a form changes


def inputs_for(narrator: Any, form: SetupForm) -> list[Host]:
    """The Host inputs that make the table's set-up the submitted one (FormError if any
    part of it cannot be; then nothing is sent)."""
    config: TableConfig = narrator.config
    if form.game is not None and form.game not in SCRIPTS:
        raise FormError("unknown_game", "game")
    if form.protocol is not None and form.protocol not in PROTOCOLS:
        raise FormError("bad_protocol", "protocol")
    if form.clock is not None and form.clock not in CLOCKS and not any(
            form.clock in script_class(game).clocks for game in SCRIPTS):
        raise FormError("bad_clock", "clock")
    if form.language is not None and form.language not in LANGUAGES:
        raise FormError("unknown_language", "language")
    inputs: list[Host] = []
    protocol, clock = form.protocol, form.clock
    switching = form.game is not None and form.game != config.ruleset
    script = script_class(form.game if switching else config.ruleset)
    if switching:
        # the rest of the form was the other game's: the new game starts from its defaults,
        # and a vote or a clock it does not offer is left to it
        inputs.append(Host("game", form.game))
        protocol = protocol if protocol in script.protocols else None
        clock = clock if clock in script.clocks else None
    else:
        if protocol is not None and protocol not in script.protocols:
            raise FormError("bad_protocol", "protocol")
        if clock is not None and clock not in script.clocks:
            raise FormError("bad_clock", "clock")
        game_form = GAME_FORMS.get(config.ruleset)
        if game_form is not None:
            game_form.check(config, form)
            inputs += game_form.inputs(config, form)
    if protocol is not None and protocol != config.protocol:
        inputs.append(Host("protocol", protocol))
    if clock is not None and clock != config.clock:
        inputs.append(Host("clock", clock))
    if form.language is not None and form.language != narrator.lang:
        inputs.append(Host("language", form.language))
    return inputs


# ---------------------------------------------------------------------- Wolf Village


def _wolf_village() -> GameForm:
    from rules.wolf_village.balance import rating
    from rules.wolf_village.options import NIGHT_MODES, Options, build_options
    from rules.wolf_village.presets import PRESETS
    from rules.wolf_village.roles import ROLES

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


# ---------------------------------------------------------------------- One Night


def _one_night() -> GameForm:
    """Seed 001: the suggested balanced deck for the count, or the host's own cards (a
    count per card; players + 3 of them, checked by the rules when the table starts); no
    switches (the debate clock is the table's)."""
    from collections import Counter

    from rules.one_night.balance import rating
    from rules.one_night.presets import MAX_PLAYERS, MIN_PLAYERS, suggested_deck
    from rules.one_night.roles import ROLES

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


GAME_FORMS: dict[str, GameForm] = {"wolf-village": _wolf_village(), "one-night": _one_night()}
