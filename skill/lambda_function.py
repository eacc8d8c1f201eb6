"""AWS Lambda entry point: `skill.lambda_function.lambda_handler`.

Where games are stored is one environment variable, `WOLFVILLAGE_STORE`:
`dynamodb://TABLE` (what template.yaml sets) or `sqlite:///path/to/file.db`; unset, the
SQLite default of `store/`. The skill is built once per Lambda instance.
"""

from __future__ import annotations

from typing import Any

from skill.builder import build_skill_builder

_handler: Any = None


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    global _handler
    if _handler is None:
        _handler = build_skill_builder().lambda_handler()
    return _handler(event, context)
