"""A wrapped record block without the record file it wraps: what the block adds to that file.

A wrapped record block (HIP-1427) is a header, a ``RecordFileItem`` (``creation_time`` 1,
``record_file_contents`` 2, ``sidecar_file_contents`` 3, ``amendments`` 4), a footer and a
proof. Stored as the record file it wraps, the block keeps its original bytes through its
*envelope*: the serialised ``Block`` with ``record_file_contents`` left out of its record file
item. For V6 the contents are the record file's bytes after ``int32 6`` (what the items row keeps),
so :func:`restore_block` gives the block back byte for byte; :func:`block_envelope` leaves the
contents out only when that restore gives the original, else the envelope is the block whole.
"""

from __future__ import annotations

from hedera_history.errors import CorruptFileError
from hedera_history.formats.block import BlockItem, ItemKind, parse_block, serialize_block
from hedera_history.formats.wire import LEN, length_delimited, read_length, read_tag, skip_field

_CONTENTS = 2
"""``RecordFileItem.record_file_contents``."""


def block_envelope(content: bytes, contents: bytes | None, name: str) -> bytes:
    """``content`` (a serialised wrapped ``Block``) without its record file contents, when they
    are ``contents`` and putting them back gives ``content`` again; else ``content`` itself."""
    if contents is None:
        return content
    block = parse_block(content, name)
    items = [_without_contents(item, contents) for item in block.items]
    envelope = serialize_block(items)
    if envelope == content or restore_block(envelope, contents, name) != content:
        return content
    return envelope


def restore_block(envelope: bytes, contents: bytes, name: str) -> bytes:
    """The wrapped block an envelope was cut from, ``contents`` put back in its record file item
    (an envelope that kept them is returned as it stands)."""
    block = parse_block(envelope, name)
    return serialize_block(_with_contents(item, contents) for item in block.items)


def _without_contents(item: BlockItem, contents: bytes) -> bytes:
    if item.kind != ItemKind.RECORD_FILE:
        return item.data
    fields = _fields(item.payload)
    kept = b"".join(data for number, data, value in fields if not (number == _CONTENTS and value == contents))
    return length_delimited(ItemKind.RECORD_FILE, kept)


def _with_contents(item: BlockItem, contents: bytes) -> bytes:
    if item.kind != ItemKind.RECORD_FILE:
        return item.data
    fields = _fields(item.payload)
    if any(number == _CONTENTS for number, _, _ in fields):
        return item.data
    before = b"".join(data for number, data, _ in fields if number < _CONTENTS)
    after = b"".join(data for number, data, _ in fields if number > _CONTENTS)
    return length_delimited(ItemKind.RECORD_FILE, before + length_delimited(_CONTENTS, contents) + after)


def _fields(payload: bytes) -> list[tuple[int, bytes, bytes]]:
    """Each top-level field of a message: its number, its bytes as they stand, its value (for a
    length-delimited field; else empty)."""
    fields = []
    position, end = 0, len(payload)
    while position < end:
        start = position
        number, wire_type, position = read_tag(payload, position, end, "record_file", "wrapped block")
        value = b""
        if wire_type == LEN:
            stop, value_start = read_length(payload, position, end, f"record_file field {number}", "wrapped block")
            value, position = payload[value_start:stop], stop
        else:
            position = skip_field(payload, position, end, wire_type, field="record_file", name="wrapped block")
        fields.append((number, payload[start:position], value))
    if not fields:
        raise CorruptFileError("field record_file: expected its fields but got none", file="wrapped block")
    return fields
