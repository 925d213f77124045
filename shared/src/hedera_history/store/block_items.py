"""A block's items as the items row holds them: where a ``transactions`` pointer (block, index)
finds the transaction and record bytes (layout 2, ``values.COMPLETION_LAYOUT``).

The items row keeps the record file's signed bytes (V6: the decompressed file) or, when those could
not be rebuilt, the item list; either way the items come back in file order with their exact bytes.
A V6 file is read through the raw view (no hashing, no nested parse); the older versions are short
and go through their parsers.
"""

from __future__ import annotations

from typing import Any

from google.protobuf.message import DecodeError

from hedera_history.errors import FormatError, RowDecodeError
from hedera_history.formats.dispatch import parse_record_file
from hedera_history.formats.raw_view import RawRecordStreamFile
from hedera_history.store.decode import BlockFile
from hedera_history.store.originals import decode_item_list

ItemBytes = tuple[bytes, bytes]
"""``(transaction bytes, record bytes)`` of one item."""

_V6_PREFIX = (6).to_bytes(4, "big")


def file_item_bytes(file: BlockFile, what: str) -> tuple[ItemBytes, ...]:
    """Every item of ``file`` in order; RowDecodeError naming ``what`` when it does not parse."""
    try:
        if file.kind == "items":
            return tuple((i.transaction_bytes, i.record_bytes) for i in decode_item_list(file.data, what))
        if file.data[:4] == _V6_PREFIX:
            raw = _raw_items(file.data)
            if raw is not None:
                return raw
        return tuple((i.transaction_bytes, i.record_bytes) for i in parse_record_file(file.data, what).items)
    except FormatError as e:
        raise RowDecodeError(f"{what}: the stored items do not parse: {e.reason}") from e


def _raw_items(data: bytes) -> tuple[ItemBytes, ...] | None:
    """The V6 items through the raw view; None when it cannot vouch for the bytes (then parse)."""
    try:
        raw: Any = RawRecordStreamFile.FromString(memoryview(data)[4:])
    except DecodeError:
        return None
    if raw.ByteSize() != len(data) - 4:
        return None
    return tuple((item.transaction, item.record) for item in raw.record_stream_items)
