"""A record file's signed bytes laid out again from its parsed fields, by the format writers.

The parsed file keeps each item's exact bytes and every header field, and every version's layout
is fixed (V6: canonical protobuf, checked against real files), so the file can be rebuilt byte
for byte. A rebuild counts only when its hash equals the file hash the nodes signed
(:func:`file_hash_of`); callers check that before trusting it.
"""

from __future__ import annotations

from collections.abc import Callable

from hedera_history.formats.hashing import sha384
from hedera_history.formats.parsed_files import RecordFile
from hedera_history.formats.record_v2 import file_hash_v2, write_record_v2
from hedera_history.formats.record_v5 import write_record_v5
from hedera_history.formats.record_v6 import write_record_v6


def rebuild_file_bytes(record: RecordFile) -> bytes | None:
    """The file laid out from ``record``'s fields by the format writers, not yet checked against
    its file hash; None when the parsed file lacks a field its version's layout needs."""
    rebuild = _REBUILDERS.get(record.version)
    return rebuild(record) if rebuild is not None else None


def _rebuild_v6(record: RecordFile) -> bytes | None:
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


def _rebuild_v5(record: RecordFile) -> bytes | None:
    if record.start_running_hash is None or record.end_running_hash is None:
        return None
    return write_record_v5(
        record.items,
        hapi_version=record.hapi_version,
        start_running_hash=record.start_running_hash,
        end_running_hash=record.end_running_hash,
        object_stream_version=record.object_stream_version or 1,
    )


def _rebuild_v2(record: RecordFile) -> bytes | None:
    if record.previous_file_hash is None:
        return None
    return write_record_v2(
        record.items,
        previous_file_hash=record.previous_file_hash,
        version=record.version,
        header_hapi_int=record.header_hapi_int or 0,
    )


_REBUILDERS: dict[int, Callable[[RecordFile], bytes | None]] = {
    1: _rebuild_v2,
    2: _rebuild_v2,
    5: _rebuild_v5,
    6: _rebuild_v6,
}
"""Each record file version's writer, by the version the file states (V1 and V2 share a layout)."""


def file_hash_of(version: int, data: bytes) -> bytes:
    """The file hash as ``version`` defines it over the signed bytes."""
    if version in (1, 2):
        return file_hash_v2(version, data)
    return sha384(data)


def signed_file_bytes(record: RecordFile) -> bytes | None:
    """The exact bytes the file hash covers (V6: the decompressed file), or None if they cannot be
    rebuilt to that hash."""
    data = rebuild_file_bytes(record)
    if data is None or file_hash_of(record.version, data) != record.file_hash:
        return None
    return data
