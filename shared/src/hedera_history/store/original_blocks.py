"""A block-stream block's original bytes, read back from the store: what its root hash and its
proof cover, for an audit or a proof.

A native block's items row is the serialised ``Block`` itself (kind ``block``); a wrapped record
block is restored from the envelope in its ``blocks`` row and the record file its items row keeps
(``formats.wrapped_envelope``). A block stored from a record file has no block form: None.
"""

from __future__ import annotations

from hedera_history.formats.record_v6 import VERSION_PREFIX
from hedera_history.formats.wrapped_envelope import restore_block
from hedera_history.store import schema as s
from hedera_history.store.reader import HistoryReader


def original_block(reader: HistoryReader, number: int) -> bytes | None:
    """The serialised ``Block`` of block ``number`` as the network wrote it; None when the block is
    not complete or was stored from a record file."""
    block = reader.get_block(number)
    stored = reader.block_file(number) if block is not None else None
    if block is None or stored is None:
        return None
    if stored.kind == s.ITEMS_BLOCK_KIND.decode("ascii"):
        return stored.data
    if block.wrapped_envelope is None:
        return None
    contents = stored.data[len(VERSION_PREFIX) :] if stored.data.startswith(VERSION_PREFIX) else b""
    return restore_block(block.wrapped_envelope, contents, f"block {number}")
