"""The same skill as a web service: POST /alexa beside the phone relay.

Every request is verified by ask-sdk-webservice-support (signature and certificate chain,
timestamp within 150 s; the certificate URL by our own rule first, `skill.verification`) and
the skill id is checked by ask-sdk. The endpoint is only mounted for a skill with an id:
without one, any skill's signed requests would be answered. Verification is on unless a
development flag explicitly turns it off. Bodies are bounded as the relay's are (the app's
MAX_CONTENT_LENGTH, and JSON no deeper than `phones.limits.MAX_JSON_DEPTH`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

from ask_sdk_core.exceptions import AskSdkException
from flask import Flask, Response, request

from phones.limits import strict_loads

# first: its import shim lets oscrypto load before the library's handler imports it
from skill.verification import AlexaRequestVerifier, TimestampVerifier, VerificationException

from ask_sdk_webservice_support.webservice_handler import WebserviceSkillHandler  # isort: skip

log = logging.getLogger("wolfvillage.skill")


def init_alexa(
    app: Flask,
    skill: Any,
    verify: bool = True,
    trust_roots: list[bytes] | None = None,
    fetch_chain: Callable[[str], bytes] | None = None,
) -> None:
    if not getattr(skill, "skill_id", None):
        raise ValueError("the Alexa endpoint needs the skill's id (WOLFVILLAGE_SKILL_ID): "
                         "without it, it would answer requests meant for any skill")
    if verify:
        verifiers = [AlexaRequestVerifier(trust_roots, fetch_chain), TimestampVerifier()]
    else:
        log.warning("Alexa request verification is OFF (development only)")
        verifiers = []
    handler = WebserviceSkillHandler(skill, verify_signature=False, verify_timestamp=False,
                                     verifiers=verifiers)

    def alexa() -> Response:
        body = request.get_data(as_text=True)
        try:
            strict_loads(body)
        except ValueError as problem:
            log.info("refused a malformed Alexa request: %s", problem)
            return Response(json.dumps({"error": "malformed request"}), 400,
                            mimetype="application/json")
        try:
            answer = handler.verify_request_and_dispatch(dict(request.headers), body)
        except VerificationException as problem:
            log.info("refused an unverified Alexa request: %s", problem)
            return Response(json.dumps({"error": "verification failed"}), 400,
                            mimetype="application/json")
        except AskSdkException as problem:
            log.info("refused an Alexa request: %s", problem)
            return Response(json.dumps({"error": "refused"}), 400, mimetype="application/json")
        except (ValueError, TypeError, KeyError) as problem:
            log.info("malformed Alexa request: %s", problem)
            return Response(json.dumps({"error": "malformed request"}), 400,
                            mimetype="application/json")
        return Response(json.dumps(answer), 200, mimetype="application/json")

    app.add_url_rule("/alexa", "alexa", alexa, methods=["POST"])
    csrf = app.extensions.get("csrf")
    if csrf is not None:
        csrf.exempt(alexa)
