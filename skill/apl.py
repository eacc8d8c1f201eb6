"""The screen of an Echo Show: the QR code to join, the room code, and the debate clock."""

from __future__ import annotations

from typing import Any

from ask_sdk_core.handler_input import HandlerInput
from ask_sdk_core.utils import get_supported_interfaces
from ask_sdk_model.interfaces.alexa.presentation.apl import RenderDocumentDirective

TOKEN = "wolfvillage-table"


def supports_apl(handler_input: HandlerInput) -> bool:
    interfaces = get_supported_interfaces(handler_input)
    return getattr(interfaces, "alexa_presentation_apl", None) is not None


def qr_document(qr_url: str, code: str, clock_seconds: int) -> RenderDocumentDirective:
    data: dict[str, Any] = {"code": " ".join(code), "qr": qr_url, "clock": clock_seconds}
    document = {
        "type": "APL",
        "version": "2023.3",
        "mainTemplate": {
            "parameters": ["payload"],
            "items": [{
                "type": "Container",
                "width": "100vw", "height": "100vh",
                "alignItems": "center", "justifyContent": "center",
                "items": [
                    {"type": "Image", "source": "${payload.table.qr}", "width": "40vh",
                     "height": "40vh", "scale": "best-fit"},
                    {"type": "Text", "text": "${payload.table.code}", "fontSize": "72dp",
                     "textAlign": "center"},
                    {"type": "Text", "when": "${payload.table.clock > 0}",
                     "text": "${Math.floor(payload.table.clock / 60)} min", "fontSize": "48dp"},
                ],
            }],
        },
    }
    return RenderDocumentDirective(token=TOKEN, document=document, datasources={"table": data})
