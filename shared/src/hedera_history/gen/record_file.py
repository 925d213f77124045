"""V6 record and sidecar file bytes (decompressed), written from serialised items."""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass

from hedera_history.formats.hashing import HASH_SIZE
from hedera_history.gen.wire import length_delimited, varint, varint_field

RECORD_FILE_VERSION = 6
_SHA_384 = 1


@dataclass(frozen=True, slots=True)
class SidecarPromise:
    """What the record file says about one sidecar file (``SidecarMetadata``)."""

    id: int
    hash: bytes
    types: tuple[int, ...]


def _hash_object(digest: bytes) -> bytes:
    return varint_field(1, _SHA_384) + varint_field(2, HASH_SIZE) + length_delimited(3, digest)


def record_stream_item(transaction_bytes: bytes, record_bytes: bytes) -> bytes:
    """A ``RecordStreamItem`` holding exactly these two serialised messages."""
    return length_delimited(1, transaction_bytes) + length_delimited(2, record_bytes)


def record_file_bytes(
    hapi_version: tuple[int, int, int],
    start_running_hash: bytes,
    items: Sequence[bytes],
    *,
    end_running_hash: bytes,
    block_number: int,
    sidecars: Sequence[SidecarPromise],
) -> bytes:
    """int32 6, then a ``RecordStreamFile``; ``items`` are serialised ``RecordStreamItem``s."""
    major, minor, patch = hapi_version
    parts = [
        struct.pack(">i", RECORD_FILE_VERSION),
        length_delimited(1, varint_field(1, major) + varint_field(2, minor) + varint_field(3, patch)),
        length_delimited(2, _hash_object(start_running_hash)),
    ]
    parts.extend(length_delimited(3, item) for item in items)
    parts.append(length_delimited(4, _hash_object(end_running_hash)))
    parts.append(varint_field(5, block_number))
    for sidecar in sidecars:
        packed_types = b"".join(varint(t) for t in sidecar.types)
        metadata = length_delimited(1, _hash_object(sidecar.hash)) + varint_field(2, sidecar.id)
        if packed_types:
            metadata += length_delimited(3, packed_types)
        parts.append(length_delimited(6, metadata))
    return b"".join(parts)


def sidecar_file_bytes(records: Sequence[bytes]) -> bytes:
    """A ``SidecarFile`` of serialised ``TransactionSidecarRecord``s."""
    return b"".join(length_delimited(1, record) for record in records)
