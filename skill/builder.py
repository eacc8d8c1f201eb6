"""Building the skill: handlers, interceptors and the exception handler over one store."""

from __future__ import annotations

import os
from typing import Any

from ask_sdk_core.skill_builder import SkillBuilder

from phones.relay import Relay
from skill.handlers import (
    EndHandler,
    FriendlyErrors,
    IntentHandler,
    LaunchHandler,
    LoadTable,
    LogRequest,
    SaveTable,
    SessionEndedHandler,
)
from skill.tables import Tables

DEFAULT_PUBLIC_URL = "http://localhost:8080"


def build_skill_builder(store: Any = None, public_url: str | None = None,
                        skill_id: str | None = None, relay: Relay | None = None
                        ) -> SkillBuilder:
    """The skill over `store` (default: `WOLFVILLAGE_STORE`, else the SQLite default).

    `public_url` is where phones reach the relay (default `WOLFVILLAGE_PUBLIC_URL`);
    `skill_id` (default `WOLFVILLAGE_SKILL_ID`) makes ask-sdk refuse other skills' requests.
    """
    if relay is None:
        if store is None:
            from store import open_store

            store = open_store(os.environ.get("WOLFVILLAGE_STORE") or None)
        relay = Relay(store)
    url = public_url or os.environ.get("WOLFVILLAGE_PUBLIC_URL") or DEFAULT_PUBLIC_URL
    tables = Tables(relay, url)
    sb = SkillBuilder()
    sb.skill_id = skill_id or os.environ.get("WOLFVILLAGE_SKILL_ID") or None
    sb.add_global_request_interceptor(LogRequest())
    sb.add_global_request_interceptor(LoadTable(tables))
    sb.add_global_response_interceptor(SaveTable(tables))
    sb.add_request_handler(LaunchHandler(tables))
    sb.add_request_handler(EndHandler())
    sb.add_request_handler(IntentHandler(tables))
    sb.add_request_handler(SessionEndedHandler())
    sb.add_exception_handler(FriendlyErrors())
    return sb
