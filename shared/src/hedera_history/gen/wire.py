"""Protobuf wire encoding for the few container messages the generator writes by hand.

A record file's items must stand in the file exactly as the running hash saw them, and a period
can hold thousands of items; so the containers (``RecordStreamFile``, ``RecordStreamItem``,
``SidecarFile``) are concatenated from already serialised parts instead of being rebuilt as
messages. Fields are written in field-number order, as protobuf itself serialises them.
"""

from __future__ import annotations

_LENGTH_DELIMITED = 2
_VARINT = 0


def varint(value: int) -> bytes:
    """Base-128 varint; negative numbers as their 64-bit two's complement, as protobuf does."""
    if value < 0:
        value += 1 << 64
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def length_delimited(field_number: int, payload: bytes) -> bytes:
    """A bytes, string or sub-message field."""
    return varint(field_number << 3 | _LENGTH_DELIMITED) + varint(len(payload)) + payload


def varint_field(field_number: int, value: int) -> bytes:
    """An integer or enum field; proto3 omits zero."""
    if value == 0:
        return b""
    return varint(field_number << 3 | _VARINT) + varint(value)
