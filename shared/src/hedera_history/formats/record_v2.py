"""Record files V1 and V2 (2019-2020).

``int32 version | int32 hapi version | byte 1 | 48-byte previous file hash`` then, until the
end, ``byte 2 | int32 length + transaction | int32 length + record``. V1's file hash is SHA-384
of the whole file; V2's is ``SHA-384(header || SHA-384(body))``.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterable

from hedera_history.formats.hashing import HASH_SIZE
from hedera_history.formats.items import parse_record_item
from hedera_history.formats.parsed_files import ItemBytes, RecordFile, RecordItem
from hedera_history.formats.reader import ByteReader

PREVIOUS_HASH_MARKER = 1
RECORD_MARKER = 2
HEADER_SIZE = 4 + 4 + 1 + HASH_SIZE
_int32 = struct.Struct(">i").pack


def parse_record_v2(data: bytes, name: str) -> RecordFile:
    """Parse a V1 or V2 record file (the leading int32 says which)."""
    reader = ByteReader(data, name)
    version = reader.read_int32("version")
    if version not in (1, 2):
        reader.expect("version", "1 or 2", version)
    header_hapi_int = reader.read_int32("hapi version")
    reader.expect_byte("previous hash marker", PREVIOUS_HASH_MARKER)
    previous_file_hash = reader.read_bytes(HASH_SIZE, "previous file hash")

    items: list[RecordItem] = []
    while not reader.at_end:
        field = f"items[{len(items)}]"
        reader.expect_byte(f"{field} record marker", RECORD_MARKER)
        transaction_bytes = reader.read_length_prefixed(f"{field} transaction", min_length=1)
        record_bytes = reader.read_length_prefixed(f"{field} record", min_length=1)
        items.append(parse_record_item(transaction_bytes, record_bytes, field, name))

    return RecordFile(
        name=name,
        version=version,
        hapi_version=(0, 0, 0),
        items=tuple(items),
        file_hash=file_hash_v2(version, data),
        metadata_hash=None,
        start_running_hash=None,
        end_running_hash=None,
        computed_end_running_hash=None,
        previous_file_hash=previous_file_hash,
        block_number=None,
        size=len(data),
        header_hapi_int=header_hapi_int,
    )


def file_hash_v2(version: int, data: bytes) -> bytes:
    """V1: SHA-384 of the file; V2: ``SHA-384(header || SHA-384(body))``."""
    if version == 1:
        return hashlib.sha384(data).digest()
    body_hash = hashlib.sha384(memoryview(data)[HEADER_SIZE:]).digest()
    return hashlib.sha384(data[:HEADER_SIZE] + body_hash).digest()


def write_record_v2(
    items: Iterable[ItemBytes], *, previous_file_hash: bytes, version: int = 2, header_hapi_int: int = 0
) -> bytes:
    """A V1 or V2 record file; ``header_hapi_int`` is the header's second int32.

    Writes what it is given (any version, any hash length), so tests can build broken files too.
    """
    parts = [_int32(version), _int32(header_hapi_int), bytes([PREVIOUS_HASH_MARKER]), previous_file_hash]
    for item in items:
        transaction, record = item.transaction_bytes, item.record_bytes
        parts += [bytes([RECORD_MARKER]), _int32(len(transaction)), transaction, _int32(len(record)), record]
    return b"".join(parts)
