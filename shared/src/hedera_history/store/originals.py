"""The record file's signed bytes, rebuilt from a parsed file, so the items table can keep them.

The parsed file keeps each item's exact bytes and every header field, and every version's layout
is fixed (V6: canonical protobuf, checked against real files), so the file can be rebuilt byte
for byte. A rebuild counts only when its hash equals the file hash the nodes signed; otherwise
the caller stores the item list instead (still re-verifiable through the running hash and the
signed metadata hash for V5 and V6).
"""

from __future__ import annotations

import hashlib
import struct

from hedera_history.errors import CorruptFileError
from hedera_history.formats.items import parse_record_item
from hedera_history.formats.model import RecordFile, RecordItem
from hedera_history.formats.record_v2 import file_hash_v2, write_record_v2
from hedera_history.formats.record_v5 import write_record_v5
from hedera_history.formats.record_v6 import write_record_v6


def signed_file_bytes(record: RecordFile) -> bytes | None:
    """The exact bytes the file hash covers (V6: the decompressed file), or None if unknown."""
    data = rebuild_file_bytes(record)
    if data is None or file_hash_of(record.version, data) != record.file_hash:
        return None
    return data


def rebuild_file_bytes(record: RecordFile) -> bytes | None:
    """The file laid out from ``record``'s fields by the format writers, not yet checked against
    its file hash."""
    if record.version == 6:
        if record.start_running_hash is None or record.end_running_hash is None or record.block_number is None:
            return None
        return write_record_v6(
            record.items,
            hapi_version=record.hapi_version,
            start_running_hash=record.start_running_hash,
            end_running_hash=record.end_running_hash,
            block_number=record.block_number,
            sidecars=record.sidecars,
        )
    if record.version == 5:
        if record.start_running_hash is None or record.end_running_hash is None:
            return None
        return write_record_v5(
            record.items,
            hapi_version=record.hapi_version,
            start_running_hash=record.start_running_hash,
            end_running_hash=record.end_running_hash,
            object_stream_version=record.object_stream_version or 1,
        )
    if record.version in (1, 2):
        if record.previous_file_hash is None:
            return None
        return write_record_v2(
            record.items,
            previous_file_hash=record.previous_file_hash,
            version=record.version,
            header_hapi_int=record.header_hapi_int or 0,
        )
    return None


def file_hash_of(version: int, data: bytes) -> bytes:
    """The file hash as ``version`` defines it over the signed bytes."""
    if version in (1, 2):
        return file_hash_v2(version, data)
    return hashlib.sha384(data).digest()


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
