"""Record file V6: int32 6, then a ``RecordStreamFile`` protobuf (already decompressed here).

upb parses the whole message once (which also checks every nested message) and a raw view of
the same bytes (``raw_view``) yields each item's transaction (field 1) and record (field 2)
exactly as they stand; the running hash is recomputed over those bytes. Encodings the raw view
cannot vouch for (a field given twice, a non-minimal length) are walked field by field instead.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Callable, Iterable, Sequence
from dataclasses import fields
from typing import Any

from google.protobuf.message import DecodeError

from hedera_history import hapi
from hedera_history.errors import CorruptFileError, TruncatedFileError
from hedera_history.formats.hashing import (
    HASH_OBJECT_HEADER_LE,
    HASH_SIZE,
    RECORD_STREAM_OBJECT_HEADER,
    v6_metadata_hash,
)
from hedera_history.formats.model import ItemBytes, RecordFile, RecordItem, SidecarMetadata
from hedera_history.formats.raw_view import RawRecordStreamFile
from hedera_history.formats.wire import length_delimited, repeated_spans, singular_spans, varint, varint_field

VERSION = 6
VERSION_PREFIX = struct.pack(">i", VERSION)
SHA_384 = 1  # HashAlgorithm.SHA_384

_ITEMS_FIELD = 3
_ITEM_FIELDS = ((1, "transaction"), (2, "record"))
_int32 = struct.Struct(">i").pack


def _record_item_factory() -> Callable[[bytes, bytes, int], RecordItem]:
    """A constructor for :class:`RecordItem` that costs half of the frozen dataclass ``__init__``.

    A frozen dataclass sets each field through ``object.__setattr__`` by name; the slot
    descriptors store the same values directly. Used only while the class still has exactly
    these three slot fields and no ``__post_init__``; otherwise the ordinary constructor.
    """
    names = [f.name for f in fields(RecordItem)]
    if names != ["transaction_bytes", "record_bytes", "consensus_ns"] or hasattr(RecordItem, "__post_init__"):
        return RecordItem
    new = object.__new__
    slots = vars(RecordItem)
    set_transaction = slots["transaction_bytes"].__set__
    set_record = slots["record_bytes"].__set__
    set_consensus = slots["consensus_ns"].__set__

    def make(transaction_bytes: bytes, record_bytes: bytes, consensus_ns: int) -> RecordItem:
        item = new(RecordItem)
        set_transaction(item, transaction_bytes)
        set_record(item, record_bytes)
        set_consensus(item, consensus_ns)
        return item

    return make


new_record_item = _record_item_factory()


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

    parsed_items = message.record_stream_items
    pairs = _raw_item_bytes(content, name)
    if pairs is None:
        pairs = _walked_item_bytes(content, name)
    if len(pairs) != len(parsed_items):
        raise CorruptFileError(
            f"field record_stream_items: expected {len(parsed_items)} items but got {len(pairs)}", file=name
        )
    items, computed_end = _items_and_running_hash(pairs, parsed_items, start, name)

    return RecordFile(
        name=name,
        version=VERSION,
        hapi_version=hapi_version,
        items=items,
        file_hash=hashlib.sha384(content).digest(),
        metadata_hash=v6_metadata_hash(hapi_version, start, end, block_number),
        start_running_hash=start,
        end_running_hash=end,
        computed_end_running_hash=computed_end,
        previous_file_hash=None,
        block_number=block_number,
        sidecars=tuple(_sidecar_of(sidecar, name) for sidecar in message.sidecars),
        size=len(content) if size is None else size,
    )


def _raw_item_bytes(content: bytes, name: str) -> list[tuple[bytes, bytes]] | None:
    """(transaction, record) of every item through the raw view; None if it dropped anything."""
    try:
        raw: Any = RawRecordStreamFile.FromString(memoryview(content)[4:])
    except DecodeError as e:
        raise CorruptFileError(f"RecordStreamFile protobuf does not parse: {e}", file=name) from e
    if raw.ByteSize() != len(content) - 4:
        return None
    return [(item.transaction, item.record) for item in raw.record_stream_items]


def _walked_item_bytes(content: bytes, name: str) -> list[tuple[bytes, bytes]]:
    """(transaction, record) of every item by walking the wire format; any valid encoding."""
    pairs: list[tuple[bytes, bytes]] = []
    spans = repeated_spans(content, 4, len(content), _ITEMS_FIELD, field="record_stream_items", name=name)
    for index, (start, end) in enumerate(spans):
        what = f"record_stream_items[{index}]"
        transaction, record = singular_spans(content, start, end, _ITEM_FIELDS, what=what, name=name)
        if transaction is None or record is None:
            missing = "transaction" if transaction is None else "record"
            raise CorruptFileError(f"field {what}.{missing}: expected a value but got none", file=name)
        pairs.append((content[transaction[0] : transaction[1]], content[record[0] : record[1]]))
    return pairs


def _items_and_running_hash(
    pairs: list[tuple[bytes, bytes]], parsed_items: Any, running: bytes, name: str
) -> tuple[tuple[RecordItem, ...], bytes]:
    """Hash each item into the running hash and keep it with its consensus time.

    This loop is the codec's bound: names are bound to locals and nothing else is allocated
    per item beyond the hashes' inputs and the :class:`RecordItem`.
    """
    sha384 = hashlib.sha384
    header = RECORD_STREAM_OBJECT_HEADER
    hash_header = HASH_OBJECT_HEADER_LE
    int32 = _int32
    join = b"".join
    make_item = new_record_item
    items: list[RecordItem] = []
    append = items.append
    for (transaction_bytes, record_bytes), parsed in zip(pairs, parsed_items, strict=True):
        if not transaction_bytes or not record_bytes:
            missing = "transaction" if not transaction_bytes else "record"
            raise CorruptFileError(
                f"field record_stream_items[{len(items)}].{missing}: expected a value but got none", file=name
            )
        item_hash = sha384(
            join((header, int32(len(record_bytes)), record_bytes, int32(len(transaction_bytes)), transaction_bytes))
        ).digest()
        running = sha384(join((hash_header, running, hash_header, item_hash))).digest()
        timestamp = parsed.record.consensusTimestamp
        seconds = timestamp.seconds
        if not seconds and not parsed.record.HasField("consensusTimestamp"):
            raise CorruptFileError(
                f"field record_stream_items[{len(items)}].record.consensusTimestamp: expected a value but got none",
                file=name,
            )
        append(make_item(transaction_bytes, record_bytes, seconds * 1_000_000_000 + timestamp.nanos))
    return tuple(items), running


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
