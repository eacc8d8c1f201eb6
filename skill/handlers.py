"""ask-sdk handlers over the narrator. The skill holds no game flow: every request becomes
narrator inputs, every answer is the narrator's cues shaped for Alexa.

A table belongs to an Echo device (its device id points at the table's stored game). The
phones move the table on between requests, so each answer starts with what the voice has
not said yet (`TableSession.cues_since`), then the answer to what was just said.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from ask_sdk_core.dispatch_components import (
    AbstractExceptionHandler,
    AbstractRequestHandler,
    AbstractRequestInterceptor,
    AbstractResponseInterceptor,
)
from ask_sdk_core.handler_input import HandlerInput
from ask_sdk_core.utils import get_device_id, get_locale, is_intent_name, is_request_type
from ask_sdk_model import Response
from ask_sdk_model.dialog import DynamicEntitiesDirective
from ask_sdk_model.er.dynamic import Entity, EntityListItem, EntityValueAndSynonyms, UpdateBehavior
from ask_sdk_model.ui import SimpleCard

from narrator import Heard, Tick
from narrator.cues import Say, Wait
from skill.apl import qr_document, supports_apl
from skill.responses import shape
from skill.tables import Table, Tables
from speech import line
from speech.understanding import resolve_player

log = logging.getLogger("wolfvillage.skill")

LANG_OF_LOCALE = {"en": "en", "es": "es", "de": "de", "fr": "fr", "nl": "nl"}
ENDING = ("AMAZON.StopIntent", "AMAZON.CancelIntent", "AMAZON.NavigateHomeIntent")
CONTINUE = ("ReadyIntent", "AMAZON.ResumeIntent", "AMAZON.YesIntent")


def lang_of(handler_input: HandlerInput) -> str:
    locale = (get_locale(handler_input) or "en-US").split("-")[0]
    return LANG_OF_LOCALE.get(locale, "en")


def attrs(handler_input: HandlerInput) -> dict[str, Any]:
    return handler_input.attributes_manager.request_attributes


# ---------------------------------------------------------------------- interceptors


class LoadTable(AbstractRequestInterceptor):
    """Finds this device's table in the store before any handler runs."""

    def __init__(self, tables: Tables):
        self.tables = tables

    def process(self, handler_input: HandlerInput) -> None:
        device = get_device_id(handler_input) or "unknown-device"
        a = attrs(handler_input)
        a["lang"] = lang_of(handler_input)
        a["device"] = device
        a["table"] = self.tables.find(device)
        a["started"] = time.perf_counter()


class SaveTable(AbstractResponseInterceptor):
    """Remembers how far the voice has spoken (every accepted input is already stored)."""

    def __init__(self, tables: Tables):
        self.tables = tables

    def process(self, handler_input: HandlerInput, response: Response) -> None:
        table: Table | None = attrs(handler_input).get("table")
        if table is not None:
            self.tables.spoken(table)


class LogRequest(AbstractRequestInterceptor):
    def process(self, handler_input: HandlerInput) -> None:
        request = handler_input.request_envelope.request
        intent = getattr(getattr(request, "intent", None), "name", None)
        log.info("request %s %s", request.object_type, intent or "")


# ---------------------------------------------------------------------- helpers


def respond(handler_input: HandlerInput, table: Table, cues: list[Any],
            tables: Tables | None = None) -> Response:
    lang = table.session.narrator.lang
    narrator = table.session.narrator
    spoken = shape(cues, narrator.current_prompt(), lang, narrator.phase)
    builder = handler_input.response_builder
    builder.speak(spoken.ssml)
    if spoken.reprompt:
        builder.ask(spoken.reprompt)
    builder.set_should_end_session(spoken.end_session)
    if tables is not None and (spoken.clock_seconds or any(
            isinstance(c, Wait) and c.verb == "call" for c in cues)):
        # the narrator's timer (the debate clock, a night call held open) starts when the
        # table hears it start (perhaps on a "continue" after the phones' night), not at
        # the last thing said by voice
        tables.clock_mark(table)
    roster = table.roster()
    if roster and roster != table.sent_roster:
        builder.add_directive(player_entities(roster))
        table.sent_roster = roster
    if supports_apl(handler_input) and table.code and tables is not None:
        builder.add_directive(qr_document(tables.qr_url(table), table.code,
                                          spoken.clock_seconds))
    return builder.response


def player_entities(names: list[str]) -> DynamicEntitiesDirective:
    """The table's names as PLAYER_NAME values, so spoken votes resolve to a player."""
    values = [EntityValueAndSynonyms(value=name, synonyms=[name.lower()]) for name in names]
    entities = [Entity(id=name, name=value) for name, value in zip(names, values, strict=True)]
    return DynamicEntitiesDirective(
        update_behavior=UpdateBehavior.REPLACE,
        types=[EntityListItem(name="PLAYER_NAME", values=entities)],
    )


def slot_values(handler_input: HandlerInput, names: list[str], lang: str) -> dict[str, Any]:
    """Slots by name; a player slot is mapped to the player entity resolution found."""
    intent = handler_input.request_envelope.request.intent
    out: dict[str, Any] = {}
    for name, slot in (intent.slots or {}).items():
        value = slot.value
        resolved = None
        authorities = getattr(getattr(slot, "resolutions", None), "resolutions_per_authority",
                              None) or []
        # dynamic entities first (the players at this table), then the model's own values
        for authority in sorted(authorities, key=lambda a: "dynamic" not in (a.authority or "")):
            code = getattr(getattr(authority, "status", None), "code", None)
            if getattr(code, "value", code) == "ER_SUCCESS_MATCH" and authority.values:
                best = authority.values[0].value
                resolved = best.id or best.name
                break
        if name in ("player", "other"):
            candidate = resolved if resolved in names else None
            if candidate is None and value:
                candidate, _ = resolve_player(lang, value, names)
            value = candidate or value
        elif resolved is not None:
            value = resolved
        if value is not None:
            out[name] = value
    return out


# ---------------------------------------------------------------------- handlers


class LaunchHandler(AbstractRequestHandler):
    """"Alexa, open Wolf Village": a new room, or the game in progress on this device."""

    def __init__(self, tables: Tables):
        self.tables = tables

    def can_handle(self, handler_input: HandlerInput) -> bool:
        return is_request_type("LaunchRequest")(handler_input)

    def handle(self, handler_input: HandlerInput) -> Response:
        a = attrs(handler_input)
        table: Table | None = a["table"]
        if table is None or table.session.narrator.phase == "over":
            table = self.tables.open_room(a["device"], a["lang"])
            a["table"] = table
            cues: list[Any] = [Say("welcome", {"url": self.tables.join_url(table),
                                               "code": table.code})]
            handler_input.response_builder.set_card(SimpleCard(
                title="Wolf Village",
                content=f"{self.tables.join_url(table)}\n{table.code}"))
            return respond(handler_input, table, cues, self.tables)
        news = table.news()
        cues = [Say("welcome_back"), *news] if news else [Say("welcome_back"),
                                                          *table.session.narrator.current_prompt()]
        return respond(handler_input, table, cues, self.tables)


class IntentHandler(AbstractRequestHandler):
    """Every intent of the interaction model and the built-ins the narrator understands."""

    def __init__(self, tables: Tables):
        self.tables = tables

    def can_handle(self, handler_input: HandlerInput) -> bool:
        return is_request_type("IntentRequest")(handler_input) and not any(
            is_intent_name(name)(handler_input) for name in ENDING
        )

    def handle(self, handler_input: HandlerInput) -> Response:
        a = attrs(handler_input)
        table: Table | None = a["table"]
        if table is None:
            table = self.tables.open_room(a["device"], a["lang"])
            a["table"] = table
        narrator = table.session.narrator
        intent = handler_input.request_envelope.request.intent.name
        cues = table.news()
        if narrator.timer is not None:
            elapsed = self.tables.elapsed(table)
            if elapsed > 0:
                cues += table.session.handle(Tick(elapsed)).cues
                self.tables.clock_mark(table)  # that time is counted now
        names = list(narrator.game.players if narrator.game else narrator.config.players)
        slots = slot_values(handler_input, names if narrator.game else [], narrator.lang)
        if intent in CONTINUE and narrator.phase == "night":
            # "continue" at night: tell what the phones did, then keep waiting
            return respond(handler_input, table, cues or narrator.current_prompt(), self.tables)
        if intent in CONTINUE and cues:
            # "continue" asks for what the phones did: the news is the whole answer (fed
            # to the narrator, it would answer a question the table has not heard yet)
            return respond(handler_input, table, cues, self.tables)
        reply = table.session.handle(Heard(intent, slots))
        return respond(handler_input, table, cues + reply.cues, self.tables)


class EndHandler(AbstractRequestHandler):
    """Stop, cancel, home: the session ends, the game stays stored for "continue"."""

    def can_handle(self, handler_input: HandlerInput) -> bool:
        return any(is_intent_name(name)(handler_input) for name in ENDING)

    def handle(self, handler_input: HandlerInput) -> Response:
        lang = attrs(handler_input)["lang"]
        builder = handler_input.response_builder
        builder.speak(line(lang, "goodbye")).set_should_end_session(True)
        return builder.response


class SessionEndedHandler(AbstractRequestHandler):
    def can_handle(self, handler_input: HandlerInput) -> bool:
        return is_request_type("SessionEndedRequest")(handler_input)

    def handle(self, handler_input: HandlerInput) -> Response:
        request = handler_input.request_envelope.request
        log.info("session ended: %s", getattr(request, "reason", None))
        return handler_input.response_builder.response


class FriendlyErrors(AbstractExceptionHandler):
    """Something broke: say so kindly; every accepted input is already stored."""

    def can_handle(self, handler_input: HandlerInput, exception: Exception) -> bool:
        return True

    def handle(self, handler_input: HandlerInput, exception: Exception) -> Response:
        log.exception("skill error")
        lang = attrs(handler_input).get("lang", "en")
        text = line(lang, "not_understood") + " " + line(lang, "say_continue")
        builder = handler_input.response_builder
        return builder.speak(text).ask(line(lang, "say_continue")).response
