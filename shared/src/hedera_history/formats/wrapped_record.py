"""Wrapped record blocks (HIP-1427): the record file a ``RecordFileItem`` wraps, rebuilt byte for byte.

``RecordFileItem`` = ``creation_time`` (1, the record file's name time), ``record_file_contents``
(2, a ``RecordStreamFile``), ``sidecar_file_contents`` (3, ``SidecarFile`` each) and ``amendments``
(4, ``RecordStreamItem`` each). The original file is laid out from the contents' exact wire bytes
(never from re-serialised messages), in the layout of the version the block's
``SignedRecordFileProof`` names:

- V6: ``int32 6`` then the ``record_file_contents`` bytes as they stand;
- V5: ``int32 5``, the HAPI version, object stream version 1, the start running hash object, each
  item as a record stream object, the end running hash object (:func:`record_v5.write_record_v5`);
- V2: ``int32 2``, the HAPI minor version, the start running hash as the previous file hash, then
  each item (:func:`record_v2.write_record_v2`). The contents' ``block_number`` is not in V2 or V5
  files.

The rebuilt bytes are then read by the record file readers, so a wrapped block and the file it
wraps give the same file hash (what the nodes signed), running hashes and items. Each
``sidecar_file_contents`` is a V6 sidecar file's bytes, read by the sidecar reader under the id of
the ``SidecarMetadata`` in the same position. Amendments are kept as they stand: they are not part
of the signed file (the block's root hash covers them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from hedera_history import hapi
from hedera_history.errors import CorruptFileError, SidecarMismatchError, UnsupportedVersionError
from hedera_history.formats.block import parse_message
from hedera_history.formats.dispatch import parse_record_file
from hedera_history.formats.names import format_instant
from hedera_history.formats.parsed_files import RecordFile, SidecarFile
from hedera_history.formats.record_v2 import write_record_v2
from hedera_history.formats.record_v5 import write_record_v5
from hedera_history.formats.record_v6 import VERSION_PREFIX, hash_object_bytes
from hedera_history.formats.sidecar import parse_sidecar_content
from hedera_history.formats.v6_items import item_bytes
from hedera_history.formats.wire import repeated_spans, singular_spans

WRAPPED_VERSIONS = (2, 5, 6)
_NS_PER_SECOND = 1_000_000_000
_V2 = 2
_V5 = 5
_OBJECT_STREAM_VERSION = 1


class _Item(NamedTuple):
    transaction_bytes: bytes
    record_bytes: bytes


@dataclass(frozen=True, slots=True)
class WrappedRecordFile:
    """A wrapped record file, rebuilt and read."""

    version: int
    creation_ns: int
    data: bytes
    """The record file as its nodes signed it (V6: decompressed), byte for byte."""
    record: RecordFile
    sidecar_data: tuple[bytes, ...]
    """Each sidecar file's bytes (decompressed), in the order of ``record.sidecars``."""
    sidecars: tuple[SidecarFile, ...]
    amendments: tuple[bytes, ...]
    """Each amendment's serialised ``RecordStreamItem``."""
    contents_block_number: int
    """The ``block_number`` the contents state (V2 and V5 files have none of their own)."""


def rebuild_wrapped_record(record_file_item: bytes, version: int, name: str) -> WrappedRecordFile:
    """The record file of a serialised ``RecordFileItem`` in record format ``version`` (2, 5 or 6,
    from the block's ``SignedRecordFileProof``); ``name`` names the block file in errors."""
    if version not in WRAPPED_VERSIONS:
        raise UnsupportedVersionError(
            f"field signed_record_file_proof.version: expected 2, 5 or 6 but got {version}", file=name
        )
    fields = ((1, "creation_time"), (2, "record_file_contents"))
    creation, contents_span = singular_spans(
        record_file_item, 0, len(record_file_item), fields, what="record_file", name=name
    )
    if creation is None or contents_span is None:
        missing = "creation_time" if creation is None else "record_file_contents"
        raise CorruptFileError(f"field record_file.{missing}: expected a value but got none", file=name)
    contents = record_file_item[contents_span[0] : contents_span[1]]
    creation_ns = _timestamp_ns(record_file_item[creation[0] : creation[1]], name)
    file_name = f"{format_instant(creation_ns)}.rcd"
    message = parse_message(hapi.RecordStreamFile, contents, "record_file.record_file_contents", name)
    data = _layout(version, contents, message, name)
    record = parse_record_file(data, file_name, max_decompressed=len(data))
    sidecar_data = _spans(record_file_item, 3, "sidecar_file_contents", name)
    if len(sidecar_data) != len(record.sidecars):
        raise SidecarMismatchError(
            f"field record_file.sidecar_file_contents: the record file names {len(record.sidecars)} sidecars "
            f"but the block holds {len(sidecar_data)}",
            file=name,
        )
    sidecars = tuple(
        parse_sidecar_content(raw, f"{format_instant(creation_ns)}_{meta.id:02d}.rcd", id=meta.id)
        for raw, meta in zip(sidecar_data, record.sidecars, strict=True)
    )
    return WrappedRecordFile(
        version=version,
        creation_ns=creation_ns,
        data=data,
        record=record,
        sidecar_data=sidecar_data,
        sidecars=sidecars,
        amendments=_spans(record_file_item, 4, "amendments", name),
        contents_block_number=message.block_number,
    )


def _layout(version: int, contents: bytes, message: Any, name: str) -> bytes:
    v6 = VERSION_PREFIX + contents
    if version == 6:
        return v6
    transactions, records = item_bytes(v6, name)
    items = [_Item(transaction, record) for transaction, record in zip(transactions, records, strict=True)]
    start = _running_hash(message, "start_object_running_hash", name)
    version_message = message.hapi_proto_version
    if version == _V2:
        return write_record_v2(items, previous_file_hash=start, version=_V2, header_hapi_int=version_message.minor)
    return write_record_v5(
        items,
        hapi_version=(version_message.major, version_message.minor, version_message.patch),
        start_running_hash=start,
        end_running_hash=_running_hash(message, "end_object_running_hash", name),
        object_stream_version=_OBJECT_STREAM_VERSION,
    )


def _running_hash(message: Any, field: str, name: str) -> bytes:
    if not message.HasField(field):
        raise CorruptFileError(f"field record_file_contents.{field}: expected a value but got none", file=name)
    return hash_object_bytes(getattr(message, field), f"record_file_contents.{field}", name)


def _timestamp_ns(data: bytes, name: str) -> int:
    timestamp = parse_message(hapi.Timestamp, data, "record_file.creation_time", name)
    return int(timestamp.seconds) * _NS_PER_SECOND + int(timestamp.nanos)


def _spans(data: bytes, number: int, field: str, name: str) -> tuple[bytes, ...]:
    spans = repeated_spans(data, 0, len(data), number, field=f"record_file.{field}", name=name)
    return tuple(data[start:end] for start, end in spans)
