"""A topic's running hash, as consensus nodes compute it for each ConsensusSubmitMessage (running
hash version 3, in use since 2020): SHA-384 over what Java's ``ObjectOutputStream`` writes for the
previous running hash (a ``byte[]`` object), the version, the payer's and the topic's shard, realm
and number, the consensus seconds and nanos, the new sequence number (one block of primitive data),
and the SHA-384 of the message (a second ``byte[]``, naming the first's class by reference). A
topic's first message starts from 48 zero bytes. Checked against consecutive messages of mainnet
record files (``tests/unit/verify/test_topic_running_hash.py``).
"""

from __future__ import annotations

import hashlib
import struct

RUNNING_HASH_VERSION = 3
HASH_BYTES = 48
INITIAL_RUNNING_HASH = bytes(HASH_BYTES)
_STREAM_HEADER = b"\xac\xed\x00\x05"
_BYTE_ARRAY_CLASS = b"\x72\x00\x02[B" + bytes.fromhex("acf317f8060854e0") + b"\x02\x00\x00\x78\x70"
"""TC_CLASSDESC ``[B``, its serialVersionUID, SC_SERIALIZABLE, no fields, end of block data, no superclass."""
_TC_ARRAY, _TC_REFERENCE, _TC_BLOCKDATA = b"\x75", b"\x71", b"\x77"
_FIRST_HANDLE = b"\x00\x7e\x00\x00"
"""The wire handle the ``[B`` class descriptor gets (the first object written)."""
_PRIMITIVES = struct.Struct(">qqqqqqqqiq")

Entity = tuple[int, int, int]


def next_running_hash(
    previous: bytes, payer: Entity, topic: Entity, consensus_ns: int, sequence_number: int, message: bytes
) -> bytes:
    """The running hash after ``message``, the topic's ``sequence_number``-th, reached consensus."""
    seconds, nanos = divmod(consensus_ns, 1_000_000_000)
    primitives = _PRIMITIVES.pack(RUNNING_HASH_VERSION, *payer, *topic, seconds, nanos, sequence_number)
    digest = hashlib.sha384(message).digest()
    serialized = b"".join(
        (
            _STREAM_HEADER,
            _TC_ARRAY + _BYTE_ARRAY_CLASS + struct.pack(">i", len(previous)) + previous,
            _TC_BLOCKDATA + bytes([len(primitives)]) + primitives,
            _TC_ARRAY + _TC_REFERENCE + _FIRST_HANDLE + struct.pack(">i", len(digest)) + digest,
        )
    )
    return hashlib.sha384(serialized).digest()
