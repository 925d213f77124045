"""Packing a prefix group's deletes and updates into SubBatchMsg values under a byte budget."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from hedera_history.cardinal.avro_schemas import varint_size

# A SubBatchMsg value is an array then a map; each is written as one block: a count, the items, and
# a terminating zero. Counting 10 bytes for each count keeps the estimate an upper bound.
_CONTAINER_OVERHEAD = 2 * (10 + 1)


@dataclass(slots=True)
class Chunk:
    deletes: list[str] = field(default_factory=list)
    updates: dict[str, bytes] = field(default_factory=dict)
    size: int = _CONTAINER_OVERHEAD


def delete_size(key: str) -> int:
    encoded = len(key.encode())
    return varint_size(encoded) + encoded


def update_size(key: str, value: bytes) -> int:
    return delete_size(key) + varint_size(len(value)) + len(value)


def pack_chunks(deletes: Sequence[str], updates: Mapping[str, bytes], budget: int) -> list[Chunk]:
    """Deletes then updates, each in sorted key order, filled greedily into chunks of at most
    ``budget`` encoded bytes. An entry larger than the budget gets a chunk of its own.

    The order is deterministic so that redundant producers emit byte-identical messages.
    """
    chunks: list[Chunk] = []
    current = Chunk()

    def place(size: int) -> Chunk:
        nonlocal current
        if current.size + size > budget and (current.deletes or current.updates):
            chunks.append(current)
            current = Chunk()
        current.size += size
        return current

    for key in sorted(deletes):
        place(delete_size(key)).deletes.append(key)
    for key in sorted(updates):
        value = updates[key]
        place(update_size(key, value)).updates[key] = value
    if current.deletes or current.updates:
        chunks.append(current)
    return chunks
