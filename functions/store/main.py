"""Cloud Function ``store``: one Pub/Sub delivery (push envelope or CloudEvent) into Bigtable.

Answers 2xx when the message is recorded (or was already, or its block is in conflict: nothing a
redelivery could change), 400 for a message that can never be decoded (Pub/Sub redelivers it
until the dead-letter policy parks it), 503 when Bigtable did not answer (redelivered later).
"""

from __future__ import annotations

import json
import logging

import functions_framework
from flask import Request, Response
from hedera_history.config import Settings
from hedera_history.errors import HistoryError, MessageFormatError, RowDecodeError, is_transient
from hedera_history.logs import configure, event, traced_http
from hedera_history.pipeline.runtime import Cached, build_store_context
from hedera_history.pipeline.store import StoreContext, store_message
from hedera_history.transport.push_format import decode_http_delivery

CONTEXTS = Cached()
MAX_BODY_BYTES = 12 * 1024 * 1024
logger = logging.getLogger("hedera_history.functions.store")


def _context() -> StoreContext:
    def build() -> StoreContext:
        settings = Settings.from_env()
        configure("store", settings.log_level)
        return build_store_context(settings)

    return CONTEXTS.get("store", build)


def _answer(status: int, **body: object) -> Response:
    return Response(json.dumps(body, default=str), status=status, mimetype="application/json")


@functions_framework.http
@traced_http
def store(request: Request) -> Response:
    if (request.content_length or 0) > MAX_BODY_BYTES:
        return _answer(413, error="body too large")
    try:
        message = decode_http_delivery(dict(request.headers), request.get_data())
    except MessageFormatError as e:
        event(logger, "undecodable delivery", logging.WARNING, reason=str(e))
        return _answer(400, error=str(e))
    try:
        outcome = store_message(_context(), message)
    except (MessageFormatError, RowDecodeError) as e:
        event(logger, "message refused", logging.ERROR, message_id=message.message_id, reason=str(e))
        return _answer(400, error=str(e))
    except HistoryError as e:
        level = logging.WARNING if is_transient(e) else logging.ERROR
        event(logger, "message not stored", level, message_id=message.message_id, reason=str(e))
        return _answer(503 if is_transient(e) else 500, error=str(e))
    return _answer(200, disposition=outcome.disposition.value)
