"""The Avro schemas of the Cardinal Streams spec and the one place that calls fastavro.

Values are schemaless Avro (no container file), so the ``avro.codec`` attribute the spec puts on
the batch schema has no effect and is left out. Every decode must consume the whole input.
"""

from __future__ import annotations

import io
from typing import Any, Final

from fastavro import parse_schema, schemaless_reader, schemaless_writer

from hedera_history.errors import MessageFormatError

BATCH_SCHEMA: Final[dict[str, Any]] = {
    "type": "record",
    "name": "batch",
    "namespace": "cloud.rivet.cardinal",
    "fields": [
        {"name": "num", "type": "long"},
        {"name": "weight", "type": "bytes"},
        {"name": "parent", "type": {"name": "par", "type": "fixed", "size": 32}},
        {
            "name": "updates",
            "type": {
                "name": "upd",
                "type": "map",
                "values": {
                    "type": "record",
                    "name": "update",
                    "fields": [
                        {"name": "value", "type": "bytes"},
                        {"name": "count", "type": "int"},
                        {"name": "delete", "type": "boolean"},
                        {"name": "subbatch", "type": {"name": "subb", "type": "fixed", "size": 32}},
                    ],
                },
            },
        },
    ],
}

SUB_BATCH_SCHEMA: Final[dict[str, Any]] = {
    "type": "record",
    "name": "update",
    "fields": [
        {"name": "delete", "type": {"name": "del", "type": "array", "items": "string"}},
        {"name": "updates", "type": {"name": "upd", "type": "map", "values": "bytes"}},
    ],
}

_BATCH = parse_schema(BATCH_SCHEMA)
_SUB_BATCH = parse_schema(SUB_BATCH_SCHEMA)
_INT = parse_schema("int")
_LONG = parse_schema("long")

INT_MAX: Final = 2**31 - 1
LONG_MAX: Final = 2**63 - 1

# What fastavro raises on truncated or malformed input (UnicodeDecodeError is a ValueError).
_READ_ERRORS = (EOFError, ValueError, IndexError, OverflowError, TypeError)


def _write(schema: Any, datum: Any) -> bytes:
    buffer = io.BytesIO()
    schemaless_writer(buffer, schema, datum)
    return buffer.getvalue()


def _read(schema: Any, data: bytes, what: str) -> Any:
    buffer = io.BytesIO(data)
    try:
        datum = schemaless_reader(buffer, schema, None)
    except _READ_ERRORS as e:
        raise MessageFormatError(f"{what}: not valid Avro ({type(e).__name__}: {e})") from e
    if buffer.tell() != len(data):
        raise MessageFormatError(f"{what}: {len(data) - buffer.tell()} bytes left after the Avro value")
    return datum


def encode_batch_record(record: dict[str, Any]) -> bytes:
    return _write(_BATCH, record)


def decode_batch_record(data: bytes) -> dict[str, Any]:
    record = _read(_BATCH, data, "batch value")
    assert isinstance(record, dict)
    return record


def encode_sub_batch_record(record: dict[str, Any]) -> bytes:
    return _write(_SUB_BATCH, record)


def decode_sub_batch_record(data: bytes) -> dict[str, Any]:
    record = _read(_SUB_BATCH, data, "sub-batch value")
    assert isinstance(record, dict)
    return record


def encode_int(value: int) -> bytes:
    """Avro ``int``: a zig-zag varint of a signed 32-bit integer."""
    if not -INT_MAX - 1 <= value <= INT_MAX:
        raise MessageFormatError(f"{value} does not fit an Avro int")
    return _write(_INT, value)


def decode_int(data: bytes, what: str) -> int:
    value = _read(_INT, data, what)
    if not isinstance(value, int) or not -INT_MAX - 1 <= value <= INT_MAX:
        raise MessageFormatError(f"{what}: {value!r} does not fit an Avro int")
    _require_canonical(data, encode_int(value), what)
    return value


def encode_long(value: int) -> bytes:
    """Avro ``long``: a zig-zag varint of a signed 64-bit integer."""
    if not -LONG_MAX - 1 <= value <= LONG_MAX:
        raise MessageFormatError(f"{value} does not fit an Avro long")
    return _write(_LONG, value)


def decode_long(data: bytes, what: str) -> int:
    value = _read(_LONG, data, what)
    if not isinstance(value, int) or not -LONG_MAX - 1 <= value <= LONG_MAX:
        raise MessageFormatError(f"{what}: {value!r} does not fit an Avro long")
    _require_canonical(data, encode_long(value), what)
    return value


def _require_canonical(data: bytes, canonical: bytes, what: str) -> None:
    # fastavro accepts over-long varints and wraps overflowing ones: only the shortest form is accepted,
    # so that one number has one encoding (keys are compared as bytes).
    if data != canonical:
        raise MessageFormatError(f"{what}: not the canonical varint encoding")


def varint_size(value: int) -> int:
    """Bytes taken by the zig-zag varint of ``value`` (a length or count, so ``value >= 0``)."""
    zigzag = value << 1
    size = 1
    while zigzag >= 0x80:
        zigzag >>= 7
        size += 1
    return size
