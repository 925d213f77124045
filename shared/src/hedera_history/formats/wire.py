"""Protobuf wire-format walking: find where fields stand, to hash their exact bytes.

Parsing into messages is upb's job; these helpers only locate length-delimited fields
(``(start, end)`` offsets into the buffer), skip every other field properly, and raise
:class:`CorruptFileError` or :class:`TruncatedFileError` for wire data that cannot be right.
As in protobuf parsers, a field whose wire type differs from its declaration is an unknown
field, so these helpers find exactly the fields upb finds.

The writers (``varint``, ``length_delimited``, ``varint_field``) go the other way for the
container messages the format writers assemble from already serialised parts, in field-number
order as protobuf itself serialises them.
"""

from __future__ import annotations

from hedera_history.errors import CorruptFileError, TruncatedFileError

VARINT = 0
FIXED64 = 1
LEN = 2
FIXED32 = 5

_MAX_VARINT_BYTES = 10

Span = tuple[int, int]


def read_varint(data: bytes, pos: int, end: int, field: str, name: str) -> tuple[int, int]:
    """The varint at ``pos`` and the offset after it."""
    value = 0
    shift = 0
    start = pos
    while True:
        if pos >= end:
            raise TruncatedFileError(f"field {field}: varint at offset {start} runs past the end", file=name)
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7
        if pos - start >= _MAX_VARINT_BYTES:
            raise CorruptFileError(
                f"field {field}: expected a varint of at most 10 bytes at offset {start} but got more",
                file=name,
            )


def read_length(data: bytes, pos: int, end: int, field: str, name: str) -> tuple[int, int]:
    """A length prefix at ``pos``: the end offset of the payload and its start."""
    byte = data[pos] if pos < end else 0x80
    if byte < 0x80:
        length, pos = byte, pos + 1
    else:
        length, pos = read_varint(data, pos, end, f"{field} length", name)
    stop = pos + length
    if stop > end:
        raise TruncatedFileError(
            f"field {field}: expected {length} bytes at offset {pos} but only {end - pos} remain", file=name
        )
    return stop, pos


def skip_field(data: bytes, pos: int, end: int, wire_type: int, *, field: str, name: str) -> int:
    """The offset after the value of a field of ``wire_type`` that starts at ``pos``."""
    if wire_type == VARINT:
        return read_varint(data, pos, end, field, name)[1]
    if wire_type == LEN:
        return read_length(data, pos, end, field, name)[0]
    if wire_type == FIXED64:
        stop = pos + 8
    elif wire_type == FIXED32:
        stop = pos + 4
    else:
        # Groups (3, 4) are not used by any HAPI message; 6 and 7 do not exist.
        raise CorruptFileError(
            f"field {field}: expected wire type 0, 1, 2 or 5 but got {wire_type} at offset {pos}", file=name
        )
    if stop > end:
        raise TruncatedFileError(f"field {field}: fixed-size value at offset {pos} runs past the end", file=name)
    return stop


def read_tag(data: bytes, pos: int, end: int, field: str, name: str) -> tuple[int, int, int]:
    """Field number, wire type and the offset after the tag."""
    byte = data[pos]
    if byte < 0x80:
        tag, pos = byte, pos + 1
    else:
        tag, pos = read_varint(data, pos, end, f"{field} tag", name)
    number = tag >> 3
    if number == 0:
        raise CorruptFileError(f"field {field}: expected a field number >= 1 but got 0 at offset {pos}", file=name)
    return number, tag & 7, pos


def repeated_spans(data: bytes, start: int, end: int, number: int, *, field: str, name: str) -> list[Span]:
    """Where every occurrence of length-delimited field ``number`` stands in ``data[start:end]``."""
    spans: list[Span] = []
    pos = start
    while pos < end:
        field_number, wire_type, pos = read_tag(data, pos, end, field, name)
        if field_number == number and wire_type == LEN:
            stop, pos = read_length(data, pos, end, field, name)
            spans.append((pos, stop))
            pos = stop
        else:
            pos = skip_field(data, pos, end, wire_type, field=f"{field} (unknown field {field_number})", name=name)
    return spans


def singular_spans(
    data: bytes, start: int, end: int, fields: tuple[tuple[int, str], ...], *, what: str, name: str
) -> list[Span | None]:
    """Where each length-delimited field of ``fields`` (number, name) stands, once at most.

    A field that occurs twice is corrupt here: the bytes to hash would be ambiguous.
    """
    found: list[Span | None] = [None] * len(fields)
    pos = start
    while pos < end:
        field_number, wire_type, pos = read_tag(data, pos, end, what, name)
        for index, (number, label) in enumerate(fields):
            if number == field_number and wire_type == LEN:
                if found[index] is not None:
                    raise CorruptFileError(f"field {what}.{label}: expected once but got it twice", file=name)
                stop, pos = read_length(data, pos, end, f"{what}.{label}", name)
                found[index] = (pos, stop)
                pos = stop
                break
        else:
            pos = skip_field(data, pos, end, wire_type, field=f"{what} (unknown field {field_number})", name=name)
    return found


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
    return varint(field_number << 3 | LEN) + varint(len(payload)) + payload


def varint_field(field_number: int, value: int) -> bytes:
    """An integer or enum field; proto3 omits zero."""
    if value == 0:
        return b""
    return varint(field_number << 3 | VARINT) + varint(value)
