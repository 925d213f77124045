"""A backfill over block streams: what a job says, how its blocks are listed and split by number.

Blocks come from a bucket or a directory (``gs://``, ``s3://``, a folder: one file per block, in the
public buckets' layout ``<network>/block/0000/0000/0000/0000/007.blk.zstd`` or flat), or from block
nodes over gRPC (``getBlock`` by number). Partitions are contiguous ranges of block numbers; each
task also reads the block just before its range, so the chain link across every partition boundary
is checked inside a task (that block is verified, never written there). The job's own first block is
linked to its predecessor only when a listing holds it (as ``load`` links a folder's first block).

TSS trust: a native block's proof is checked against the roster of the ledger id block 0 publishes.
The driver finds that publication once (:class:`TssRoot`) and every task gets its bytes with the
job: from ``HEDERA_HISTORY_LEDGER_PUBLICATION`` (the settings), else block 0 itself when the source
holds it, else the block 0 a load or backfill stored before; always pinned by the ledger id when one
is configured. Without any, native blocks are refused as unverifiable, never passed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from hedera_history.config import Settings
from hedera_history.errors import FileNameError, JobArgumentError
from hedera_history.formats.names import block_file_path, parse_block_file_name
from hedera_history.sources.base import ObjectSource
from hedera_history.verify.consensus import DEFAULT_RATIO


@dataclass(frozen=True, slots=True)
class TssRoot:
    """Where native blocks' TSS proofs are checked from, shipped to every task."""

    ledger_publication: bytes | None = None
    """Block 0's ledger id publication (the ``SignedTransaction`` bytes), from the settings."""
    block_zero: bytes | None = None
    """Block 0's file (as stored, possibly compressed), from the source or the store."""
    origin: str = "none"
    """``settings``, ``source``, ``store`` or ``none``: what the report says."""


@dataclass(frozen=True, slots=True)
class BlockJob:
    """A backfill of the blocks ``first_block`` to ``last_block`` (inclusive)."""

    settings: Settings
    first_block: int
    last_block: int | None
    """None: through the last block listed (a bucket or a directory only)."""
    source_url: str = ""
    """Bucket root or directory whose block files are read (below ``folder``); empty: block nodes."""
    folder: str = ""
    """The block files' folder below ``source_url`` (``<network>/block/`` in the public buckets)."""
    block_nodes: str = ""
    """Block nodes read by number, ``[tls://]host[:port][@priority]`` comma separated."""
    book: bytes | None = None
    """The ``NodeAddressBook`` wrapped record blocks are verified with (in force at the range's first)."""
    ratio: Fraction = DEFAULT_RATIO
    partitions: int | None = None
    """None: one per ``settings.backfill_periods_per_partition`` blocks, at least one per core."""
    tss: TssRoot = TssRoot()

    def __post_init__(self) -> None:
        if bool(self.source_url) == bool(self.block_nodes):
            raise JobArgumentError("a block backfill reads a bucket or directory, or block nodes: give exactly one")
        if self.first_block < 0 or (self.last_block is not None and self.last_block < self.first_block):
            raise JobArgumentError(f"block range {self.first_block}..{self.last_block} is empty")
        if self.block_nodes and self.last_block is None:
            raise JobArgumentError("a block-node range needs its last block (--last-block)")


@dataclass(frozen=True, slots=True)
class ListedBlock:
    number: int
    name: str
    """The object's name below the source's root (empty for a block node's block)."""


@dataclass(frozen=True, slots=True)
class BlockPartition:
    index: int
    blocks: tuple[ListedBlock, ...]
    """The blocks to verify and write, ascending."""
    before: ListedBlock | None
    """The block just before the first, read to check the link into this partition."""

    @property
    def first(self) -> int:
        return self.blocks[0].number

    @property
    def last(self) -> int:
        return self.blocks[-1].number


def list_blocks(source: ObjectSource, folder: str, first: int, last: int | None) -> list[ListedBlock]:
    """The block files under ``folder`` numbered ``first - 1`` (the link into the range) to ``last``,
    ascending; names that give no number are left out (the block-number index is the name). In the
    buckets' layout (zero-padded numbers) the listing starts after block ``first - 2``'s name."""
    found: dict[int, ListedBlock] = {}
    after = folder + block_file_path(first - 2) if first >= 2 else None
    for info in source.list(folder, start_after=after):
        try:
            number = parse_block_file_name(info.name).number
        except FileNameError:
            continue
        if number is not None and first - 1 <= number and (last is None or number <= last):
            found.setdefault(number, ListedBlock(number, info.name))
    return [found[number] for number in sorted(found)]


def node_blocks(first: int, last: int) -> list[ListedBlock]:
    """Blocks ``first`` to ``last`` from block nodes, asked by number. The block before ``first`` is
    not asked: it may be a record file (the first block after the cutover), which no block node has."""
    return [ListedBlock(number, "") for number in range(first, last + 1)]


def partition_blocks(listed: Sequence[ListedBlock], first: int, partitions: int) -> list[BlockPartition]:
    """``listed`` (with the block before ``first`` if it was there) in ``partitions`` contiguous
    ranges of nearly equal size, each with its predecessor when listed."""
    by_number = {block.number: block for block in listed}
    kept = [block for block in listed if block.number >= first]
    if not kept:
        return []
    count = max(1, min(partitions, len(kept)))
    size, extra = divmod(len(kept), count)
    plans: list[BlockPartition] = []
    start = 0
    for index in range(count):
        end = start + size + (1 if index < extra else 0)
        blocks = tuple(kept[start:end])
        plans.append(BlockPartition(index, blocks, by_number.get(blocks[0].number - 1)))
        start = end
    return plans


def partition_count(blocks: int, per_partition: int, parallelism: int) -> int:
    """At most ``per_partition`` blocks each, at least one partition per core."""
    return max(parallelism, -(-blocks // max(1, per_partition)), 1)


def numbers(blocks: Iterable[ListedBlock]) -> list[int]:
    return [block.number for block in blocks]
