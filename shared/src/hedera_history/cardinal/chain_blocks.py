"""Blocks as the application hands them to a producer and gets them back from a consumer."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from hedera_history.cardinal.messages import HASH_SIZE, MAX_NUMBER, MAX_WEIGHT
from hedera_history.errors import MessageFormatError


@dataclass(frozen=True, slots=True)
class BlockHeader:
    """What identifies a block and places it in a chain."""

    hash: bytes
    number: int
    parent: bytes
    weight: int

    def __post_init__(self) -> None:
        for name, value in (("hash", self.hash), ("parent", self.parent)):
            if len(value) != HASH_SIZE:
                raise MessageFormatError(f"block {name}: expected {HASH_SIZE} bytes, got {len(value)}")
        if not 0 <= self.number <= MAX_NUMBER:
            raise MessageFormatError(f"block number {self.number} is outside 0..2^63-1")
        if not 0 <= self.weight <= MAX_WEIGHT:
            raise MessageFormatError(f"block weight {self.weight} is outside 0..2^256-1")


@dataclass(frozen=True, slots=True)
class BlockRef:
    """A block known only by hash and number (a Reorg's common ancestor)."""

    hash: bytes
    number: int


@dataclass(frozen=True, slots=True)
class Block:
    """A Cardinal Streams payload: a block's identity and the keys it sets and deletes."""

    hash: bytes
    number: int
    parent: bytes
    weight: int
    updates: Mapping[str, bytes] = field(default_factory=dict)
    deletes: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        BlockHeader(self.hash, self.number, self.parent, self.weight)
        both = self.deletes.intersection(self.updates)
        if both:
            raise MessageFormatError(f"block {self.hash.hex()} both sets and deletes {sorted(both)[:3]}")

    @property
    def header(self) -> BlockHeader:
        return BlockHeader(self.hash, self.number, self.parent, self.weight)


@dataclass(frozen=True, slots=True)
class ChainUpdate:
    """What a consumer emits: blocks that left the chain and blocks that joined it, both oldest first.

    ``reverted_to`` is set when a Reorg message moved the head back to a common ancestor: every
    block above it on the previous chain is gone, including any older than the history the
    consumer holds (``removed`` lists only those it holds).
    """

    added: tuple[Block, ...] = ()
    removed: tuple[Block, ...] = ()
    reverted_to: BlockRef | None = None
