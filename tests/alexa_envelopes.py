"""Real Alexa request envelopes (the JSON Alexa POSTs to a skill), for the skill's tests.

The shapes follow the Alexa Skills Kit request reference: `version`, `session` (new, id,
application, user, attributes), `context.System` (application, user, device with its
`supportedInterfaces`, apiEndpoint) and `request` (type, requestId, timestamp, locale, and
for intents the intent with its slots and their entity resolutions).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

SKILL_ID = "amzn1.ask.skill.test-id"
USER_ID = "amzn1.ask.account.TESTUSER"
APL = {"Alexa.Presentation.APL": {"runtime": {"maxVersion": "2023.3"}}}
NO_SCREEN: dict[str, Any] = {}


def timestamp(age_seconds: float = 0.0) -> str:
    when = datetime.now(UTC) - timedelta(seconds=age_seconds)
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def dynamic_authority(slot_type: str = "PLAYER_NAME", skill_id: str = SKILL_ID) -> str:
    return f"amzn1.er-authority.echo-sdk.dynamic.{skill_id}.{slot_type}"


def static_authority(slot_type: str, skill_id: str = SKILL_ID) -> str:
    return f"amzn1.er-authority.echo-sdk.{skill_id}.{slot_type}"


def resolution(authority: str, value_id: str | None, name: str | None = None
               ) -> dict[str, Any]:
    """One authority's answer: a match (`value_id`) or ER_SUCCESS_NO_MATCH (None)."""
    if value_id is None:
        return {"authority": authority, "status": {"code": "ER_SUCCESS_NO_MATCH"}}
    return {"authority": authority, "status": {"code": "ER_SUCCESS_MATCH"},
            "values": [{"value": {"name": name or value_id, "id": value_id}}]}


def slot(name: str, value: str | None, *resolutions: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, "confirmationStatus": "NONE"}
    if value is not None:
        out["value"] = value
        out["source"] = "USER"
    if resolutions:
        out["resolutions"] = {"resolutionsPerAuthority": list(resolutions)}
    return out


def static_slot(name: str, slot_type: str, spoken: str, value_id: str | None) -> dict[str, Any]:
    """A slot of one of the model's own types, resolved by the static authority."""
    return slot(name, spoken, resolution(static_authority(slot_type), value_id, spoken))


def player_slot(name: str, spoken: str, player: str | None = None,
                skill_id: str = SKILL_ID) -> dict[str, Any]:
    """A PLAYER_NAME slot: the static authority (the model's sample names) finds nothing,
    the dynamic one (the table's names) maps what was heard to `player` if given."""
    return slot(name, spoken,
                resolution(static_authority("PLAYER_NAME", skill_id), None),
                resolution(dynamic_authority("PLAYER_NAME", skill_id), player))


@dataclass
class Echo:
    """One Echo device talking to the skill: keeps its session and builds envelopes."""

    device_id: str = field(default_factory=lambda: f"amzn1.ask.device.{uuid.uuid4().hex}")
    locale: str = "en-US"
    interfaces: dict[str, Any] = field(default_factory=lambda: dict(APL))
    skill_id: str = SKILL_ID
    session_id: str = ""
    new: bool = True
    attributes: dict[str, Any] = field(default_factory=dict)
    age_seconds: float = 0.0  # how old the requests' timestamps are

    def __post_init__(self) -> None:
        if not self.session_id:
            self.new_session()

    def new_session(self) -> None:
        self.session_id = f"amzn1.echo-api.session.{uuid.uuid4()}"
        self.new = True
        self.attributes = {}

    def envelope(self, request: dict[str, Any]) -> dict[str, Any]:
        application = {"applicationId": self.skill_id}
        user = {"userId": USER_ID}
        env: dict[str, Any] = {
            "version": "1.0",
            "session": {
                "new": self.new,
                "sessionId": self.session_id,
                "application": application,
                "attributes": dict(self.attributes),
                "user": user,
            },
            "context": {
                "System": {
                    "application": application,
                    "user": user,
                    "device": {"deviceId": self.device_id,
                               "supportedInterfaces": dict(self.interfaces)},
                    "apiEndpoint": "https://api.amazonalexa.com",
                    "apiAccessToken": "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.test.token",
                },
            },
            "request": {
                "requestId": f"amzn1.echo-api.request.{uuid.uuid4()}",
                "timestamp": timestamp(self.age_seconds),
                "locale": self.locale,
                **request,
            },
        }
        if "Alexa.Presentation.APL" in self.interfaces:
            env["context"]["Viewport"] = {
                "experiences": [{"canRotate": False, "canResize": False}],
                "shape": "RECTANGLE", "pixelWidth": 1280, "pixelHeight": 800, "dpi": 160,
                "currentPixelWidth": 1280, "currentPixelHeight": 800,
                "touch": ["SINGLE"], "keyboard": [],
            }
        return env

    def sent(self, response: dict[str, Any]) -> None:
        """After an answer: the session goes on (not new) unless the skill ended it."""
        self.attributes = dict(response.get("sessionAttributes") or {})
        if response.get("response", {}).get("shouldEndSession"):
            self.new_session()
        else:
            self.new = False

    # ------------------------------------------------------------------ requests

    def launch(self) -> dict[str, Any]:
        return self.envelope({"type": "LaunchRequest"})

    def intent(self, name: str, slots: dict[str, dict[str, Any]] | None = None
               ) -> dict[str, Any]:
        return self.envelope({
            "type": "IntentRequest",
            "dialogState": "COMPLETED" if slots else "STARTED",
            "intent": {"name": name, "confirmationStatus": "NONE", "slots": slots or {}},
        })

    def ended(self, reason: str = "USER_INITIATED") -> dict[str, Any]:
        req: dict[str, Any] = {"type": "SessionEndedRequest", "reason": reason}
        if reason == "ERROR":
            req["error"] = {"type": "INVALID_RESPONSE", "message": "test"}
        return self.envelope(req)


# ---------------------------------------------------------------------- the answers


def speech(response: dict[str, Any]) -> str:
    return response["response"].get("outputSpeech", {}).get("ssml", "")


def reprompt(response: dict[str, Any]) -> str | None:
    r = response["response"].get("reprompt")
    return r["outputSpeech"].get("ssml") if r else None


def directives(response: dict[str, Any], kind: str | None = None) -> list[dict[str, Any]]:
    found = response["response"].get("directives") or []
    return [d for d in found if kind is None or d.get("type") == kind]
