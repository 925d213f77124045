"""How a Cardinal Streams message (binary key, binary value) maps onto a Pub/Sub message.

``data`` is the value; the key travels base64url-encoded (no padding) in the attribute ``k``,
since attributes are strings; readable attributes (message type, block number, block hash) ride
beside it for filtering and debugging. The full rules and their reasons: ``docs/transport.md``.
Sans-I/O: nothing here talks to Pub/Sub.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from hedera_history.errors import MessageFormatError

ATTR_KEY = "k"
"""The message key, base64url without padding."""
ATTR_TYPE = "type"
"""Readable: the Cardinal message type (e.g. ``SubBatchMsg``)."""
ATTR_BLOCK = "block"
"""Readable: the block number, decimal."""
ATTR_BLOCK_HASH = "block_hash"
"""Readable: the block identity, lowercase hex."""
REPLAYS_ATTRIBUTE = "replays"
"""How often a dead letter was replayed (readable; consumers ignore it). Here rather than in
``dead_letters`` so the store function reads it without importing the Pub/Sub client."""

# Pub/Sub limits on attributes (https://cloud.google.com/pubsub/quotas#resource_limits).
MAX_ATTRIBUTES = 100
MAX_ATTRIBUTE_NAME_BYTES = 256
MAX_ATTRIBUTE_VALUE_BYTES = 1024
MAX_KEY_BYTES = MAX_ATTRIBUTE_VALUE_BYTES * 3 // 4
"""Longest key whose base64 form fits one attribute value."""

_BASE64URL = re.compile(r"[A-Za-z0-9_-]*")


@dataclass(frozen=True)
class OutgoingMessage:
    """A message to publish: topic id (without the deployment's prefix), key, value."""

    topic: str
    key: bytes
    value: bytes
    attributes: Mapping[str, str] = field(default_factory=dict)
    """Readable attributes only; the key's attribute is added on publish."""
    ordering_key: str = ""
    """Used only by a publisher with message ordering enabled (see docs/transport.md)."""


@dataclass(frozen=True)
class ReceivedMessage:
    """A delivered message, whichever way it came (pull, push envelope, CloudEvent)."""

    key: bytes
    value: bytes
    attributes: Mapping[str, str]
    """The readable attributes (the key's attribute removed)."""
    message_id: str
    delivery_attempt: int | None
    """Counts from 1; None when the subscription has no dead-letter policy (or for a CloudEvent)."""
    publish_time: datetime | None = None


def encode_key(key: bytes) -> str:
    return base64.urlsafe_b64encode(key).rstrip(b"=").decode("ascii")


def decode_key(text: str) -> bytes:
    if not _BASE64URL.fullmatch(text) or len(text) % 4 == 1:
        raise MessageFormatError(f"attribute {ATTR_KEY!r} is not base64url: {text[:40]!r}")
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except binascii.Error as e:
        raise MessageFormatError(f"attribute {ATTR_KEY!r} is not base64url: {text[:40]!r}") from e


def pubsub_attributes(key: bytes, attributes: Mapping[str, str]) -> dict[str, str]:
    """The attributes of the Pub/Sub message carrying ``key``; checks Pub/Sub's limits up front so
    a bad message fails here, by name, not as an opaque server error."""
    if len(key) > MAX_KEY_BYTES:
        raise MessageFormatError(f"message key of {len(key)} bytes exceeds {MAX_KEY_BYTES}")
    if ATTR_KEY in attributes:
        raise MessageFormatError(f"attribute {ATTR_KEY!r} is reserved for the message key")
    if len(attributes) + 1 > MAX_ATTRIBUTES:
        raise MessageFormatError(f"{len(attributes)} attributes exceed Pub/Sub's limit")
    for name, value in attributes.items():
        if not name or name.startswith("goog") or len(name.encode()) > MAX_ATTRIBUTE_NAME_BYTES:
            raise MessageFormatError(f"attribute name {name[:40]!r} is not allowed by Pub/Sub")
        if len(value.encode()) > MAX_ATTRIBUTE_VALUE_BYTES:
            raise MessageFormatError(f"attribute {name!r} is longer than {MAX_ATTRIBUTE_VALUE_BYTES} bytes")
    return {**attributes, ATTR_KEY: encode_key(key)}


def decode_message(
    data: bytes,
    attributes: Mapping[str, str],
    *,
    message_id: str,
    delivery_attempt: int | None = None,
    publish_time: datetime | None = None,
) -> ReceivedMessage:
    """The Cardinal key and value of a Pub/Sub message; :class:`MessageFormatError` without a key."""
    encoded = attributes.get(ATTR_KEY)
    if encoded is None:
        raise MessageFormatError(f"message {message_id} has no {ATTR_KEY!r} attribute (the message key)")
    return ReceivedMessage(
        key=decode_key(encoded),
        value=data,
        attributes={k: v for k, v in attributes.items() if k != ATTR_KEY},
        message_id=message_id,
        delivery_attempt=delivery_attempt,
        publish_time=publish_time,
    )
