"""The host's set-up form as the narrator knows it: what a table's set-up looks like as plain
data, and the narrator's Host inputs that one submitted form makes.

The host's page is built from `describe(narrator)`, never from fields written into a
template: the game-neutral part (the game, voting, clock, language) comes from the
narrator's table, and each game's own part (presets and what they deal at the table's count,
the balance rating, the cards a custom deck may hold, the switches with their real values)
from that game's script (`Script.setup_form`, narrator/scripts/<game>_setup.py, written
against its ruleset). A new game plugs in its own; the page renders whatever fields it lists.

A submitted form (`SetupForm`, read by the phone relay from the page's fields or the API's
JSON: phones/setup_form.py) is checked completely first (bad input changes nothing), and
turned into the inputs that take the table from its set-up to the one submitted: only what
changed, in an order the narrator accepts. Seed 000: «cualquier cambio en las cartas de un
reparto (un rol, el interruptor de un rol, el número de hombres lobo o el alguacil) lo
convierte en el tuyo: Personalizado», so a changed card count or card switch on a preset
sends the deck it now is, as a custom deck.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from narrator.cues import Host
from narrator.scripts import SCRIPTS, script_class
from narrator.table import CLOCKS, LANGUAGES, PROTOCOLS, TableConfig
from rules.core import SetupError
from rules.replay import start as start_game

if TYPE_CHECKING:
    from narrator.narrator import Narrator

CUSTOM = "custom"


class FormError(ValueError):
    """A submitted form that cannot be a set-up; `reason` is a stable key for the page and
    `field` the form field it is about."""

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
    """One game's part of the form (a script's `setup_form`): `describe` what the page shows
    of the game's set-up, `check` a submitted form (FormError), and the `inputs` it makes."""

    describe: Callable[[TableConfig], dict[str, Any]]
    check: Callable[[TableConfig, SetupForm], None]
    inputs: Callable[[TableConfig, SetupForm], list[Host]]


def game_form(ruleset: str) -> GameForm | None:
    """A game's own part of the form (None: the game has no set-up of its own to show)."""
    return script_class(ruleset).setup_form


# ---------------------------------------------------------------------- what the page shows


def describe(narrator: Narrator) -> dict[str, Any]:
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
        **problem_fields(start_problem(narrator)),
    }
    own = game_form(config.ruleset)
    if own is not None:
        described.update(own.describe(config))
    return described


def start_problem(narrator: Narrator) -> SetupError | None:
    """Why the table could not start as it is set up now: the rules' own reason (None: it
    can). The deal is only tried, on a copy of the set-up: nothing is stored."""
    config: TableConfig = narrator.config
    script = script_class(config.ruleset)
    if len(config.players) < script.min_players:
        return SetupError(
            f"at least {script.min_players} players are needed, not {len(config.players)}",
            "too_few", min=script.min_players, count=len(config.players))
    try:
        start_game(config.setup_doc(narrator.seed + narrator.games_started))
    except SetupError as problem:
        return problem
    return None


def problem_fields(problem: SetupError | None) -> dict[str, Any]:
    """The problem as plain data: the rules' English sentence (`problem`, for logs and
    the terminal), and its stable code and values (for each page to say in its language;
    code "" when the rules gave none)."""
    if problem is None:
        return {"problem": None, "problem_code": None, "problem_params": {}}
    return {"problem": problem.reason, "problem_code": problem.code,
            "problem_params": dict(problem.params)}


# ---------------------------------------------------------------------- what a form changes


def inputs_for(narrator: Narrator, form: SetupForm) -> list[Host]:
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
        own = game_form(config.ruleset)
        if own is not None:
            own.check(config, form)
            inputs += own.inputs(config, form)
    if protocol is not None and protocol != config.protocol:
        inputs.append(Host("protocol", protocol))
    if clock is not None and clock != config.clock:
        inputs.append(Host("clock", clock))
    if form.language is not None and form.language != narrator.lang:
        inputs.append(Host("language", form.language))
    return inputs
