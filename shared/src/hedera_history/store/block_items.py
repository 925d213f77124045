"""A block's items as the items row holds them: where a ``transactions`` pointer (block, index)
finds the transaction and record bytes (layout 2, ``values.COMPLETION_LAYOUT``).

The items row keeps the record file's signed bytes (V6: the decompressed file) or, when those could
not be rebuilt, the item list; either way the items come back in file order with their exact bytes.
A V6 file is read through the raw view (no hashing, no nested parse); the older versions are short
and go through their parsers.
"""

from __future__ import annotations

import struct
from typing import Any

from google.protobuf.message import DecodeError

from hedera_history.errors import FormatError, RowDecodeError
from hedera_history.formats.dispatch import parse_record_file
from hedera_history.formats.raw_view import RawRecordStreamFile
from hedera_history.store.decode import BlockFile

ItemBytes = tuple[bytes, bytes]
"""``(transaction bytes, record bytes)`` of one item."""

_V6_PREFIX = (6).to_bytes(4, "big")
_U32 = struct.Struct(">I")


def file_item_bytes(file: BlockFile, what: str) -> tuple[ItemBytes, ...]:
    """Every item of ``file`` in order; RowDecodeError naming ``what`` when it does not parse."""
    try:
        if file.kind == "items":
            return _split_item_list(file.data, what)
        if file.data[:4] == _V6_PREFIX:
            raw = _raw_items(file.data)
            if raw is not None:
                return raw
        return tuple((i.transaction_bytes, i.record_bytes) for i in parse_record_file(file.data, what).items)
    except FormatError as e:
        raise RowDecodeError(f"{what}: the stored items do not parse: {e.reason}") from e


def _split_item_list(data: bytes, what: str) -> tuple[ItemBytes, ...]:
    """The pairs of ``originals.encode_item_list`` as stored, none parsed: the list is kept when a
    block's file cannot be rebuilt, which is also when an item does not decode."""
    try:
        (count,) = _U32.unpack_from(data)
        position, pairs = 4, []
        for _ in range(count):
            parts = []
            for _ in range(2):
                (length,) = _U32.unpack_from(data, position)
                if position + 4 + length > len(data):
                    raise RowDecodeError(f"{what}: the item list is truncated")
                parts.append(data[position + 4 : position + 4 + length])
                position += 4 + length
            pairs.append((parts[0], parts[1]))
    except struct.error as e:
        raise RowDecodeError(f"{what}: the item list is truncated: {e}") from e
    if position != len(data):
        raise RowDecodeError(f"{what}: {len(data) - position} byte(s) after the item list")
    return tuple(pairs)


def _raw_items(data: bytes) -> tuple[ItemBytes, ...] | None:
    """The V6 items through the raw view; None when it cannot vouch for the bytes (then parse)."""
    try:
        raw: Any = RawRecordStreamFile.FromString(memoryview(data)[4:])
    except DecodeError:
        return None
    if raw.ByteSize() != len(data) - 4:
        return None
    return tuple((item.transaction, item.record) for item in raw.record_stream_items)
