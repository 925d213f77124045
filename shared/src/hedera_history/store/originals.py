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

from hedera_history import hapi
from hedera_history.formats.hashing import HASH_SIZE, RECORD_STREAM_OBJECT_HEADER
from hedera_history.formats.model import RecordFile
from hedera_history.store.row_codec import encode_varint

_INT32 = struct.Struct(">i")
# A V5 hash object: class id, version, digest type (SHA-384), length; then the digest.
_HASH_OBJECT_PREFIX = bytes.fromhex("f422da83a251741e") + struct.pack(">iii", 1, 0x58FF811B, HASH_SIZE)
_SHA_384 = 1


def signed_file_bytes(record: RecordFile) -> bytes | None:
    """The exact bytes the file hash covers (V6: the decompressed file), or None if unknown."""
    data = rebuild_file_bytes(record)
    if data is None or file_hash_of(record.version, data) != record.file_hash:
        return None
    return data


def rebuild_file_bytes(record: RecordFile) -> bytes | None:
    """The file laid out from ``record``'s fields, not yet checked against its file hash."""
    if record.version == 6:
        return _rebuild_v6(record)
    if record.version == 5:
        return _rebuild_v5(record)
    if record.version in (1, 2):
        return _rebuild_v2(record)
    return None


def file_hash_of(version: int, data: bytes) -> bytes:
    """The file hash as ``version`` defines it over the signed bytes."""
    if version == 2:
        header_size = 4 + 4 + 1 + HASH_SIZE
        return hashlib.sha384(data[:header_size] + hashlib.sha384(data[header_size:]).digest()).digest()
    return hashlib.sha384(data).digest()


def encode_item_list(record: RecordFile) -> bytes:
    """The fallback: ``u32 count`` then per item ``u32 length + transaction, u32 length + record``."""
    parts = [struct.pack(">I", len(record.items))]
    for item in record.items:
        parts.append(struct.pack(">I", len(item.transaction_bytes)) + item.transaction_bytes)
        parts.append(struct.pack(">I", len(item.record_bytes)) + item.record_bytes)
    return b"".join(parts)


def _rebuild_v6(record: RecordFile) -> bytes | None:
    if record.start_running_hash is None or record.end_running_hash is None or record.block_number is None:
        return None
    major, minor, patch = record.hapi_version
    head = hapi.RecordStreamFile(
        hapi_proto_version=hapi.basic_types.SemanticVersion(major=major, minor=minor, patch=patch),
        start_object_running_hash=_hash_object(record.start_running_hash),
    )
    tail = hapi.RecordStreamFile(
        end_object_running_hash=_hash_object(record.end_running_hash),
        block_number=record.block_number,
        sidecars=[
            hapi.SidecarMetadata(hash=_hash_object(s.hash), id=s.id, types=list(s.types)) for s in record.sidecars
        ],
    )
    items = b"".join(
        _length_delimited(3, _length_delimited(1, i.transaction_bytes) + _length_delimited(2, i.record_bytes))
        for i in record.items
    )
    # Concatenated protobuf encodings merge into one message; fields stay in number order.
    head_bytes: bytes = head.SerializeToString(deterministic=True)
    tail_bytes: bytes = tail.SerializeToString(deterministic=True)
    return _INT32.pack(6) + head_bytes + items + tail_bytes


def _rebuild_v5(record: RecordFile) -> bytes | None:
    if record.start_running_hash is None or record.end_running_hash is None:
        return None
    header = struct.pack(">iiiii", 5, *record.hapi_version, record.object_stream_version or 1)
    body = b"".join(
        RECORD_STREAM_OBJECT_HEADER
        + _INT32.pack(len(i.record_bytes))
        + i.record_bytes
        + _INT32.pack(len(i.transaction_bytes))
        + i.transaction_bytes
        for i in record.items
    )
    return (
        header + _HASH_OBJECT_PREFIX + record.start_running_hash + body + _HASH_OBJECT_PREFIX + record.end_running_hash
    )


def _rebuild_v2(record: RecordFile) -> bytes | None:
    if record.previous_file_hash is None:
        return None
    header = struct.pack(">ii", record.version, record.header_hapi_int or 0) + b"\x01" + record.previous_file_hash
    body = b"".join(
        b"\x02"
        + _INT32.pack(len(i.transaction_bytes))
        + i.transaction_bytes
        + _INT32.pack(len(i.record_bytes))
        + i.record_bytes
        for i in record.items
    )
    return header + body


def _hash_object(digest: bytes) -> object:
    return hapi.HashObject(algorithm=_SHA_384, length=len(digest), hash=digest)


def _length_delimited(field_number: int, payload: bytes) -> bytes:
    return encode_varint(field_number << 3 | 2) + encode_varint(len(payload)) + payload
