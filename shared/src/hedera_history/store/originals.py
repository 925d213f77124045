"""What the items table keeps of a record file: its signed bytes, else its item list.

The signed bytes are rebuilt by the format writers (``formats.rebuild``) and count only when
their hash equals the file hash the nodes signed; otherwise the item list is kept instead (still
re-verifiable through the running hash and the signed metadata hash for V5 and V6).
"""

from __future__ import annotations

import struct

from hedera_history.errors import CorruptFileError
from hedera_history.formats.items import parse_record_item
from hedera_history.formats.parsed_files import RecordFile, RecordItem
from hedera_history.formats.rebuild import signed_file_bytes

__all__ = ["decode_item_list", "encode_item_list", "signed_file_bytes"]


def encode_item_list(record: RecordFile) -> bytes:
    """The fallback: ``u32 count`` then per item ``u32 length + transaction, u32 length + record``."""
    parts = [struct.pack(">I", len(record.items))]
    for item in record.items:
        parts.append(struct.pack(">I", len(item.transaction_bytes)) + item.transaction_bytes)
        parts.append(struct.pack(">I", len(item.record_bytes)) + item.record_bytes)
    return b"".join(parts)


def decode_item_list(data: bytes, name: str) -> tuple[RecordItem, ...]:
    """The items :func:`encode_item_list` laid out; CorruptFileError when they do not decode."""
    try:
        (count,) = struct.unpack_from(">I", data)
        position, items = 4, []
        for index in range(count):
            parts = []
            for _ in range(2):
                (length,) = struct.unpack_from(">I", data, position)
                parts.append(data[position + 4 : position + 4 + length])
                position += 4 + length
            items.append(parse_record_item(parts[0], parts[1], f"items[{index}]", name))
    except struct.error as e:
        raise CorruptFileError(f"stored item list: {e}", file=name) from e
    if position != len(data):
        raise CorruptFileError(f"stored item list: {len(data) - position} byte(s) after the last item", file=name)
    return tuple(items)
