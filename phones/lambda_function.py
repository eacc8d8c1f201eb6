"""AWS Lambda entry point of the phone relay: `phones.lambda_function.handler`.

The relay's Flask app (`phones.web.create_app`) behind API Gateway's HTTP API (payload
format 2.0, also REST API v1 and ALB events), through apig-wsgi. The app is built once per
Lambda instance, over the store that `WOLFVILLAGE_STORE` names (template.yaml sets
`dynamodb://TABLE`).

The Flask secret (CSRF tokens) must be the same on every instance: `WOLFVILLAGE_SECRET`
itself, or else the Secrets Manager secret named by `WOLFVILLAGE_SECRET_ARN` (what
template.yaml sets), read once per instance. Without either the handler refuses to start
rather than invent a secret per instance (every other instance would reject its forms).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

SECRET_ENV = "WOLFVILLAGE_SECRET"
SECRET_ARN_ENV = "WOLFVILLAGE_SECRET_ARN"

_app: Any = None
_handler: Callable[[dict[str, Any], Any], dict[str, Any]] | None = None


def relay_secret() -> str:
    given = os.environ.get(SECRET_ENV)
    if given:
        return given
    arn = os.environ.get(SECRET_ARN_ENV)
    if not arn:
        raise RuntimeError(
            f"set {SECRET_ENV} (a long random string) or {SECRET_ARN_ENV} (a Secrets Manager "
            "secret): every relay instance must share one secret"
        )
    import boto3

    value = boto3.client("secretsmanager").get_secret_value(SecretId=arn)["SecretString"]
    if not value:
        raise RuntimeError(f"the secret {arn} is empty")
    return str(value)


def build_app() -> Any:
    from phones.web import create_app
    from store import open_store

    # API Gateway only speaks https: the session (CSRF) cookie never travels in clear
    return create_app(open_store(os.environ.get("WOLFVILLAGE_STORE") or None),
                      SECRET_KEY=relay_secret(), SESSION_COOKIE_SECURE=True,
                      SESSION_COOKIE_SAMESITE="Lax", PREFERRED_URL_SCHEME="https")


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    global _app, _handler
    if _handler is None:
        from apig_wsgi import make_lambda_handler

        _app = build_app()
        # binary_support: the QR codes are PNG images
        _handler = make_lambda_handler(_app, binary_support=True)
    return _handler(event, context)
