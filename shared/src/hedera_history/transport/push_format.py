"""The two shapes in which Pub/Sub hands a message to an HTTP endpoint, both ways (sans-I/O).

- The push JSON envelope of a push subscription:
  ``{"message": {"data", "attributes", "messageId", "publishTime"}, "subscription", "deliveryAttempt"}``.
- The CloudEvent a Pub/Sub-triggered function (gen2, through Eventarc) receives: type
  ``google.cloud.pubsub.topic.v1.messagePublished``, whose data is ``{"message": {...},
  "subscription"}`` — the envelope without ``deliveryAttempt``.

Both decode into one :class:`ReceivedMessage`; anything malformed is a :class:`MessageFormatError`.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from hedera_history.errors import MessageFormatError
from hedera_history.transport.message import ReceivedMessage, decode_message

MESSAGE_PUBLISHED = "google.cloud.pubsub.topic.v1.messagePublished"
CLOUD_EVENT_SPEC_VERSION = "1.0"

_RFC3339 = re.compile(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)")


class CloudEventLike(Protocol):
    """What functions-framework hands a CloudEvent function (``cloudevents.http.CloudEvent``)."""

    data: Any

    def __getitem__(self, key: str) -> Any: ...


def decode_push_envelope(body: bytes | str | Mapping[str, Any]) -> ReceivedMessage:
    """The message in a push subscription's request body (raw JSON or already parsed)."""
    envelope = _json_object(body, "push envelope")
    attempt = envelope.get("deliveryAttempt")
    if attempt is not None and (not isinstance(attempt, int) or isinstance(attempt, bool) or attempt < 1):
        raise MessageFormatError(f"deliveryAttempt is not a positive integer: {attempt!r}")
    return _decode_wrapped_message(envelope, attempt)


def decode_cloud_event(event: CloudEventLike) -> ReceivedMessage:
    """The message in a ``messagePublished`` CloudEvent."""
    event_type = event["type"]
    if event_type != MESSAGE_PUBLISHED:
        raise MessageFormatError(f"CloudEvent type {event_type!r} is not {MESSAGE_PUBLISHED}")
    data = _json_object(event.data, "CloudEvent data")
    return _decode_wrapped_message(data, None)


def decode_http_delivery(headers: Mapping[str, str], body: bytes) -> ReceivedMessage:
    """The message of an HTTP delivery in either shape: a binary-mode ``messagePublished``
    CloudEvent (``ce-*`` headers) or a push subscription's JSON envelope."""
    lowered = {k.lower(): v for k, v in headers.items()}
    if "ce-type" in lowered:
        event_type = lowered["ce-type"]
        if event_type != MESSAGE_PUBLISHED:
            raise MessageFormatError(f"CloudEvent type {event_type!r} is not {MESSAGE_PUBLISHED}")
        return _decode_wrapped_message(_json_object(body, "CloudEvent data"), None)
    return decode_push_envelope(body)


@dataclass(frozen=True, slots=True)
class PublishedMessage:
    """A message as Pub/Sub delivers it, in either shape."""

    data: bytes
    attributes: Mapping[str, str]
    message_id: str
    publish_time: datetime
    ordering_key: str = ""

    def wire(self) -> dict[str, Any]:
        """The ``message`` object of both shapes (with both spellings of the ids, as Pub/Sub writes them)."""
        published = format_time(self.publish_time)
        message: dict[str, Any] = {
            "data": base64.b64encode(self.data).decode("ascii"),
            "attributes": dict(self.attributes),
            "messageId": self.message_id,
            "message_id": self.message_id,
            "publishTime": published,
            "publish_time": published,
        }
        if self.ordering_key:
            message["orderingKey"] = self.ordering_key
        return message


def push_envelope(message: PublishedMessage, *, subscription: str, delivery_attempt: int | None) -> dict[str, Any]:
    """The JSON body a push subscription sends."""
    envelope: dict[str, Any] = {"message": message.wire(), "subscription": subscription}
    if delivery_attempt is not None:
        envelope["deliveryAttempt"] = delivery_attempt
    return envelope


def cloud_event_request(message: PublishedMessage, *, subscription: str, topic: str) -> tuple[dict[str, str], bytes]:
    """Headers and body of the binary-mode HTTP request Eventarc sends for a published message.

    ``topic`` and ``subscription`` are full paths (``projects/<p>/topics/<t>``)."""
    headers = {
        "ce-id": message.message_id,
        "ce-source": f"//pubsub.googleapis.com/{topic}",
        "ce-specversion": CLOUD_EVENT_SPEC_VERSION,
        "ce-type": MESSAGE_PUBLISHED,
        "ce-time": format_time(message.publish_time),
        "Content-Type": "application/json; charset=utf-8",
    }
    body = {"message": message.wire(), "subscription": subscription}
    return headers, json.dumps(body, separators=(",", ":")).encode()


def format_time(moment: datetime) -> str:
    """RFC 3339 in UTC with microseconds and a ``Z``, as Pub/Sub writes publish times."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_time(text: str) -> datetime:
    """An RFC 3339 time; digits past microseconds are dropped."""
    match = _RFC3339.fullmatch(text)
    if match is None:
        raise MessageFormatError(f"publishTime is not an RFC 3339 time: {text[:40]!r}")
    seconds, fraction, zone = match.groups()
    micros = (fraction or "0")[:6].ljust(6, "0")
    try:
        return datetime.fromisoformat(f"{seconds}.{micros}{'+00:00' if zone == 'Z' else zone}")
    except ValueError as e:
        raise MessageFormatError(f"publishTime is not a valid time: {text[:40]!r}") from e


def _decode_wrapped_message(wrapper: Mapping[str, Any], delivery_attempt: int | None) -> ReceivedMessage:
    message = wrapper.get("message")
    if not isinstance(message, dict):
        raise MessageFormatError("no 'message' object in the delivery")
    message_id = message.get("messageId", message.get("message_id"))
    if not isinstance(message_id, str) or not message_id:
        raise MessageFormatError("the delivered message has no messageId")
    encoded = message.get("data", "")
    if not isinstance(encoded, str):
        raise MessageFormatError(f"message {message_id}: 'data' is not a base64 string")
    try:
        data = base64.b64decode(encoded, validate=True)
    except ValueError as e:  # binascii.Error, or a plain ValueError for text that is not ASCII
        raise MessageFormatError(f"message {message_id}: 'data' is not valid base64") from e
    attributes = message.get("attributes") or {}
    if not isinstance(attributes, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in attributes.items()
    ):
        raise MessageFormatError(f"message {message_id}: 'attributes' is not a map of strings")
    published = message.get("publishTime", message.get("publish_time"))
    if published is not None and not isinstance(published, str):
        raise MessageFormatError(f"message {message_id}: 'publishTime' is not a string")
    return decode_message(
        data,
        attributes,
        message_id=message_id,
        delivery_attempt=delivery_attempt,
        publish_time=parse_time(published) if published else None,
    )


def _json_object(payload: bytes | str | Mapping[str, Any] | Any, what: str) -> Mapping[str, Any]:
    if isinstance(payload, bytes | str):
        try:
            payload = json.loads(payload)
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise MessageFormatError(f"{what} is not JSON") from e
    if not isinstance(payload, Mapping):
        raise MessageFormatError(f"{what} is not a JSON object")
    return payload
