"""Record file V6: int32 6, then a ``RecordStreamFile`` protobuf (already decompressed here).

upb parses the whole message once (which also checks every nested message); the items' exact
bytes and consensus times come from ``v6_items`` (compiled or Python) and the running hash is
recomputed over those bytes.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterable, Sequence
from typing import Any

from google.protobuf.message import DecodeError

from hedera_history import hapi
from hedera_history.errors import CorruptFileError, TruncatedFileError
from hedera_history.formats.hashing import HASH_SIZE, running_hash_over, v6_metadata_hash
from hedera_history.formats.parsed_files import ItemBytes, RecordFile, SidecarMetadata
from hedera_history.formats.v6_items import item_columns, record_items
from hedera_history.formats.wire import length_delimited, varint, varint_field

VERSION = 6
VERSION_PREFIX = struct.pack(">i", VERSION)
SHA_384 = 1  # HashAlgorithm.SHA_384


def parse_record_v6(content: bytes, name: str, *, size: int | None = None) -> RecordFile:
    """Parse decompressed V6 bytes; ``size`` is the stored (compressed) size."""
    if len(content) < 4:
        raise TruncatedFileError(f"field version: expected 4 bytes but only {len(content)} remain", file=name)
    if content[:4] != VERSION_PREFIX:
        raise CorruptFileError(f"field version: expected {VERSION} but got {content[:4].hex()}", file=name)
    try:
        message = hapi.RecordStreamFile.FromString(memoryview(content)[4:])
    except DecodeError as e:
        raise CorruptFileError(f"RecordStreamFile protobuf does not parse: {e}", file=name) from e

    if not message.HasField("hapi_proto_version"):
        raise CorruptFileError("field hapi_proto_version: expected a value but got none", file=name)
    version = message.hapi_proto_version
    hapi_version = (version.major, version.minor, version.patch)
    start = _hash_of(message, "start_object_running_hash", name)
    end = _hash_of(message, "end_object_running_hash", name)
    block_number: int = message.block_number

    transactions, records, times = item_columns(content, message.record_stream_items, name)

    return RecordFile(
        name=name,
        version=VERSION,
        hapi_version=hapi_version,
        items=record_items(transactions, records, times),
        file_hash=hashlib.sha384(content).digest(),
        metadata_hash=v6_metadata_hash(hapi_version, start, end, block_number),
        start_running_hash=start,
        end_running_hash=end,
        computed_end_running_hash=running_hash_over(start, records, transactions),
        previous_file_hash=None,
        block_number=block_number,
        sidecars=tuple(_sidecar_of(sidecar, name) for sidecar in message.sidecars),
        size=len(content) if size is None else size,
    )


def _hash_of(message: Any, field: str, name: str) -> bytes:
    if not message.HasField(field):
        raise CorruptFileError(f"field {field}: expected a value but got none", file=name)
    return hash_object_bytes(getattr(message, field), field, name)


def hash_object_bytes(hash_object: Any, field: str, name: str) -> bytes:
    """The 48 bytes of a SHA-384 ``HashObject``; anything else is corrupt."""
    if hash_object.algorithm != SHA_384:
        raise CorruptFileError(
            f"field {field}.algorithm: expected {SHA_384} (SHA_384) but got {hash_object.algorithm}",
            file=name,
        )
    value: bytes = hash_object.hash
    if len(value) != HASH_SIZE:
        raise CorruptFileError(f"field {field}.hash: expected {HASH_SIZE} bytes but got {len(value)}", file=name)
    if hash_object.length != HASH_SIZE:
        raise CorruptFileError(f"field {field}.length: expected {HASH_SIZE} but got {hash_object.length}", file=name)
    return value


def _sidecar_of(sidecar: Any, name: str) -> SidecarMetadata:
    return SidecarMetadata(
        id=sidecar.id,
        types=tuple(int(t) for t in sidecar.types),
        hash=hash_object_bytes(sidecar.hash, "sidecars.hash", name),
    )


def encode_hash_object(digest: bytes) -> bytes:
    """A serialised ``HashObject`` holding a SHA-384 digest."""
    return varint_field(1, SHA_384) + varint_field(2, len(digest)) + length_delimited(3, digest)


def record_stream_item(transaction_bytes: bytes, record_bytes: bytes) -> bytes:
    """A serialised ``RecordStreamItem`` holding exactly these two serialised messages."""
    return length_delimited(1, transaction_bytes) + length_delimited(2, record_bytes)


def write_record_v6(
    items: Iterable[ItemBytes],
    *,
    hapi_version: tuple[int, int, int],
    start_running_hash: bytes,
    end_running_hash: bytes,
    block_number: int,
    sidecars: Sequence[SidecarMetadata] = (),
) -> bytes:
    """Decompressed V6 bytes: int32 6, then the ``RecordStreamFile`` as protobuf serialises it.

    The items are concatenated from their exact bytes (the running hash covers those bytes, and a
    period can hold thousands of them); every field is written in field-number order, as the
    nodes' canonical encoding does, so a parsed real file is rebuilt byte for byte.
    """
    major, minor, patch = hapi_version
    parts = [
        VERSION_PREFIX,
        length_delimited(1, varint_field(1, major) + varint_field(2, minor) + varint_field(3, patch)),
        length_delimited(2, encode_hash_object(start_running_hash)),
    ]
    parts.extend(length_delimited(3, record_stream_item(i.transaction_bytes, i.record_bytes)) for i in items)
    parts.append(length_delimited(4, encode_hash_object(end_running_hash)))
    parts.append(varint_field(5, block_number))
    for sidecar in sidecars:
        metadata = length_delimited(1, encode_hash_object(sidecar.hash)) + varint_field(2, sidecar.id)
        if sidecar.types:
            metadata += length_delimited(3, b"".join(varint(t) for t in sidecar.types))
        parts.append(length_delimited(6, metadata))
    return b"".join(parts)
