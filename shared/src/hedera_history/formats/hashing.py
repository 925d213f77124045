"""The stream's hash recipes, shared by the readers, the generator and verification."""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterable, Iterator, Sequence
from itertools import repeat
from operator import methodcaller

HASH_SIZE = 48
EMPTY_HASH = bytes(HASH_SIZE)

# RecordStreamObject class id and version, big-endian, as they precede each item in V5 files and
# in the item hash of V5 and V6.
RECORD_STREAM_OBJECT_HEADER = bytes.fromhex("e370929ba5429d8b00000001")
# Hash object class id and version, little-endian, as the running-hash recipe mixes them in.
HASH_OBJECT_HEADER_LE = bytes.fromhex("1e7451a283da22f401000000")

_int32 = struct.Struct(">i")
_digest = methodcaller("digest")


def sha384(data: bytes) -> bytes:
    return hashlib.sha384(data).digest()


def hex_or_none(value: bytes | None) -> str | None:
    """A hash (or signature) as lower-case hex for reports and JSON; a missing one stays None."""
    return None if value is None else value.hex()


def item_hash(record_bytes: bytes, transaction_bytes: bytes) -> bytes:
    """SHA-384 of one record stream object: header, then record, then transaction."""
    h = hashlib.sha384(RECORD_STREAM_OBJECT_HEADER)
    h.update(_int32.pack(len(record_bytes)))
    h.update(record_bytes)
    h.update(_int32.pack(len(transaction_bytes)))
    h.update(transaction_bytes)
    return h.digest()


def next_running_hash(running: bytes, item: bytes) -> bytes:
    """``SHA-384(H || running || H || item)`` with ``H`` the little-endian hash object header."""
    return hashlib.sha384(HASH_OBJECT_HEADER_LE + running + HASH_OBJECT_HEADER_LE + item).digest()


def running_hash(start: bytes, items: Iterable[tuple[bytes, bytes]]) -> bytes:
    """The running hash after ``items`` (pairs of record bytes, transaction bytes) from ``start``."""
    running = start
    for record_bytes, transaction_bytes in items:
        running = next_running_hash(running, item_hash(record_bytes, transaction_bytes))
    return running


def item_hashes(records: Sequence[bytes], transactions: Sequence[bytes]) -> Iterator[bytes]:
    """``item_hash`` of each (record, transaction) pair, in passes of C functions over the lists:
    no bytecode runs per item."""
    int32 = _int32.pack
    hashed = map(
        hashlib.sha384,
        map(
            b"".join,
            zip(
                repeat(RECORD_STREAM_OBJECT_HEADER),
                map(int32, map(len, records)),
                records,
                map(int32, map(len, transactions)),
                transactions,
            ),
        ),
    )
    return map(_digest, hashed)


def running_hash_over(start: bytes, records: Sequence[bytes], transactions: Sequence[bytes]) -> bytes:
    """``running_hash`` over items given as two lists; the fastest recipe (the file readers')."""
    sha384_of = hashlib.sha384
    header = HASH_OBJECT_HEADER_LE
    join = b"".join
    running = start
    for item in item_hashes(records, transactions):
        running = sha384_of(join((header, running, header, item))).digest()
    return running


def v6_metadata_hash(
    hapi_version: tuple[int, int, int], start_running_hash: bytes, end_running_hash: bytes, block_number: int
) -> bytes:
    """SHA-384 of int32 6, hapi major/minor/patch, start hash, end hash, int64 block number."""
    major, minor, patch = hapi_version
    return sha384(
        struct.pack(">iiii", 6, major, minor, patch)
        + start_running_hash
        + end_running_hash
        + struct.pack(">q", block_number)
    )
