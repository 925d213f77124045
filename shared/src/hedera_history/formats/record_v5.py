"""Record file V5: the object stream layout of 2021-2022.

``int32 5 | hapi major, minor, patch | int32 object stream version | start hash object |
record stream objects ... | end hash object``. A hash object is ``class id f422da83a251741e |
int32 version 1 | int32 digest type 58ff811b | int32 length 48 | 48 bytes``; a record stream
object is ``class id e370929ba5429d8b | int32 version 1 | int32 length + record | int32 length +
transaction``, which is also exactly what the item hash covers.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterable

from hedera_history.errors import CorruptFileError
from hedera_history.formats.hashing import HASH_SIZE, RECORD_STREAM_OBJECT_HEADER, next_running_hash
from hedera_history.formats.items import parse_record_item
from hedera_history.formats.parsed_files import ItemBytes, RecordFile, RecordItem
from hedera_history.formats.reader import ByteReader

VERSION = 5
HASH_CLASS_ID = bytes.fromhex("f422da83a251741e")
HASH_CLASS_VERSION = 1
SHA_384_DIGEST_TYPE = 0x58FF811B
ITEM_CLASS_ID = RECORD_STREAM_OBJECT_HEADER[:8]
ITEM_CLASS_VERSION = 1
HEADER_SIZE = 20  # five int32
HASH_OBJECT_SIZE = 8 + 4 + 4 + 4 + HASH_SIZE
_int32 = struct.Struct(">i").pack


def read_hash_object(reader: ByteReader, what: str) -> bytes:
    """A V5 hash object (also used by V5 signature files); returns its 48 hash bytes."""
    reader.expect_bytes(f"{what} class id", HASH_CLASS_ID)
    reader.expect_int32(f"{what} class version", HASH_CLASS_VERSION)
    reader.expect_int32(f"{what} digest type", SHA_384_DIGEST_TYPE)
    reader.expect_int32(f"{what} hash length", HASH_SIZE)
    return reader.read_bytes(HASH_SIZE, f"{what} hash")


def parse_record_v5(data: bytes, name: str) -> RecordFile:
    reader = ByteReader(data, name)
    reader.expect_int32("version", VERSION)
    hapi_version = (
        reader.read_int32("hapi major"),
        reader.read_int32("hapi minor"),
        reader.read_int32("hapi patch"),
    )
    object_stream_version = reader.read_int32("object stream version")
    start = read_hash_object(reader, "start running hash object")

    items: list[RecordItem] = []
    running = start
    while reader.peek_bytes(8, "record stream object class id") != HASH_CLASS_ID:
        index = len(items)
        item_start = reader.position
        reader.expect_bytes(f"items[{index}] class id", ITEM_CLASS_ID)
        reader.expect_int32(f"items[{index}] class version", ITEM_CLASS_VERSION)
        record_bytes = reader.read_length_prefixed(f"items[{index}] record", min_length=1)
        transaction_bytes = reader.read_length_prefixed(f"items[{index}] transaction", min_length=1)
        item_hash = hashlib.sha384(memoryview(data)[item_start : reader.position]).digest()
        running = next_running_hash(running, item_hash)
        items.append(parse_record_item(transaction_bytes, record_bytes, f"items[{index}]", name))
    if not items:
        raise CorruptFileError("field items: expected at least one record stream object but got none", file=name)

    end = read_hash_object(reader, "end running hash object")
    reader.expect_end()

    return RecordFile(
        name=name,
        version=VERSION,
        hapi_version=hapi_version,
        items=tuple(items),
        file_hash=hashlib.sha384(data).digest(),
        metadata_hash=metadata_hash_v5(data),
        start_running_hash=start,
        end_running_hash=end,
        computed_end_running_hash=running,
        previous_file_hash=None,
        block_number=None,
        size=len(data),
        object_stream_version=object_stream_version,
    )


def metadata_hash_v5(data: bytes) -> bytes:
    """SHA-384 of the header, the start hash object and the end hash object (the last bytes)."""
    metadata = hashlib.sha384(memoryview(data)[: HEADER_SIZE + HASH_OBJECT_SIZE])
    metadata.update(memoryview(data)[len(data) - HASH_OBJECT_SIZE :])
    return metadata.digest()


def v5_metadata_hash(
    hapi_version: tuple[int, int, int], object_stream_version: int, start_running_hash: bytes, end_running_hash: bytes
) -> bytes:
    """What :func:`metadata_hash_v5` reads from a file, from the fields it is made of."""
    header = _metadata_header(hapi_version, object_stream_version, start_running_hash)
    return hashlib.sha384(header + hash_object(end_running_hash)).digest()


def _metadata_header(
    hapi_version: tuple[int, int, int], object_stream_version: int, start_running_hash: bytes
) -> bytes:
    """The file's first bytes, the first part of the signed metadata: the five ints and the start hash."""
    return struct.pack(">iiiii", VERSION, *hapi_version, object_stream_version) + hash_object(start_running_hash)


def hash_object(value: bytes) -> bytes:
    """A V5 hash object holding ``value`` (a SHA-384 digest)."""
    return HASH_CLASS_ID + struct.pack(">iii", HASH_CLASS_VERSION, SHA_384_DIGEST_TYPE, len(value)) + value


def write_record_v5(
    items: Iterable[ItemBytes],
    *,
    hapi_version: tuple[int, int, int],
    start_running_hash: bytes,
    end_running_hash: bytes,
    object_stream_version: int = 1,
) -> bytes:
    """A V5 record file with exactly these fields; the end hash is written as given."""
    parts = [_metadata_header(hapi_version, object_stream_version, start_running_hash)]
    for item in items:
        record, transaction = item.record_bytes, item.transaction_bytes
        parts += [RECORD_STREAM_OBJECT_HEADER, _int32(len(record)), record, _int32(len(transaction)), transaction]
    parts.append(hash_object(end_running_hash))
    return b"".join(parts)
