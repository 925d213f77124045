"""What travels between the backfill driver and its tasks: plain, picklable, small.

A task gets a :class:`PartitionRun` (its periods and the address-book state to start from) and
returns a :class:`PartitionSummary`: counts, failures, and only its edge blocks' chain data, so the
driver checks the links between partitions without ever holding a block.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from hedera_history.books.codec import BookState
from hedera_history.config import Settings
from hedera_history.errors import RowDecodeError
from hedera_history.formats.parsed_files import RecordFile
from hedera_history.sources.period_files import StreamLocation
from hedera_history.sources.period_listing import ListedPeriod
from hedera_history.store import schema as s
from hedera_history.store.decode import StoredBlock
from hedera_history.store.schema import TableAccess
from hedera_history.store.writer import MAX_GROUP_BYTES
from hedera_history.verify.consensus import DEFAULT_RATIO

MAX_FAILURES_KEPT = 200
"""Failures a partition reports in full; beyond that only the count grows."""

TABLES = TableAccess.of(
    writes=(
        *s.HISTORY_TABLES,
        s.INGEST_PROGRESS,  # each partition's checkpoints and the periods it completed
        s.CHAIN_LINKS,  # broken links found at the partitions' boundaries
        s.ADDRESS_BOOKS,  # the books and node stakes the range puts in force
        s.ERRATA_LOG,  # the network's known errata, applied over the blocks written
    )
)
"""The Bigtable tables a backfill batch writes (``infra/iam.tf`` grants its identity these alone)."""


@dataclass(frozen=True, slots=True)
class BackfillJob:
    """Everything a run needs, driver and tasks alike."""

    source_url: str
    """``gs://bucket/prefix``, ``s3://bucket/prefix`` or a local directory: the level above the layout."""
    location: StreamLocation
    settings: Settings
    book: bytes
    """The ``NodeAddressBook`` in force at the range's first period (the bootstrap book)."""
    start_ns: int
    """Periods whose name time is in ``[start_ns, end_ns)``."""
    end_ns: int
    ratio: Fraction = DEFAULT_RATIO
    first_block: int | None = None
    """Narrow the time range further to these block numbers (inclusive)."""
    last_block: int | None = None
    reprocess: bool = False
    """Verify and write every period again, even those already complete."""
    partitions: int | None = None
    """Number of partitions; None: at most ``settings.backfill_periods_per_partition`` periods each
    and at least one per core the executor runs at once (see ``plan.partition_periods``)."""
    write_group_bytes: int = MAX_GROUP_BYTES
    """Rows a task holds before writing them (the writer's group size)."""
    fail_after_blocks: int | None = None
    """Test hook: each task stops with InjectedFaultError once it has written this many blocks."""


@dataclass(frozen=True, slots=True)
class PartitionPlan:
    index: int
    periods: tuple[ListedPeriod, ...]
    start_block: int
    """Block number of the first period for files before V6 (V6 files carry their own)."""
    pinned_key: str | None = None
    """The period the planner took for the block pin's file, when this partition holds it: once
    verified it must end at the pin (``verify.block_pin``)."""

    @property
    def first_ns(self) -> int:
        return self.periods[0].consensus_ns

    @property
    def last_ns(self) -> int:
        return self.periods[-1].consensus_ns


@dataclass(frozen=True, slots=True)
class PartitionRun:
    """One task: a partition and the address-book state assumed in force at its first period."""

    plan: PartitionPlan
    start: BookState
    confirmed: bool = False
    """``start`` is known to be the state in force (the first partition, or a rerun the driver's
    walk reached without guessing). An unconfirmed run writes only the blocks every book node
    signed (valid whatever the nodes weigh) and defers the others to a confirmed run."""


@dataclass(frozen=True, slots=True)
class BlockEdge:
    """What a chain link needs of a block."""

    number: int
    version: int
    name: str
    previous_hash: bytes
    """What the block says its predecessor ended with."""
    hash: bytes
    """What its successor must name."""

    @classmethod
    def of_record(cls, number: int, record: RecordFile) -> BlockEdge:
        return cls(number, record.version, record.name.rsplit("/", 1)[-1], record.previous_hash, record.hash)

    @classmethod
    def of_stored(cls, block: StoredBlock) -> BlockEdge:
        following = block.following_hash
        if following is None:
            raise RowDecodeError(f"block {block.number}: a V{block.version} block row without an end running hash")
        return cls(block.number, block.version, block.name, block.previous_hash, following)


@dataclass(frozen=True, slots=True)
class PeriodFailure:
    period_key: str
    kind: str
    """The error's stable kind, e.g. ``hash_mismatch``, ``no_consensus``, ``broken_chain``."""
    reason: str
    block_number: int | None = None


@dataclass(frozen=True, slots=True)
class PartitionCounts:
    periods: int = 0
    verified: int = 0
    written: int = 0
    """Blocks written completely (completion cell included) in this run."""
    skipped: int = 0
    """Periods already complete (with the same book) and left alone."""
    failed: int = 0
    """Periods that did not verify, or whose block was not written completely."""
    forks: int = 0
    """Of the failed: periods where two file hashes each reach the threshold (held, never written)."""
    transactions: int = 0
    """Items of the blocks written."""
    sidecar_records: int = 0
    bytes_read: int = 0
    """Bytes read from the source (signatures, record copies, sidecars)."""
    rows: int = 0
    cells: int = 0

    def __add__(self, other: PartitionCounts) -> PartitionCounts:
        return PartitionCounts(
            *(getattr(self, name) + getattr(other, name) for name in PartitionCounts.__dataclass_fields__)
        )


@dataclass(frozen=True, slots=True)
class PartitionSummary:
    index: int
    start: BookState
    """The address-book state the task started from."""
    end: BookState
    book_files_touched: bool
    """Whether a block of the partition changed the book files (then the end state depends on the start)."""
    first: BlockEdge | None
    """The first block verified or found complete; None when every period failed."""
    last: BlockEdge | None
    leading_failures: int
    """Failed periods before ``first``."""
    trailing_failures: int
    """Failed periods after ``last``."""
    counts: PartitionCounts
    failures: tuple[PeriodFailure, ...] = ()
    failures_total: int = 0
    block_problems: tuple[PeriodFailure, ...] = ()
    """Errors of blocks that verified and were written all the same: a broken link to the block
    before (its own signatures vouch for it), an address-book update that does not parse."""
    unverifiable_links: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    """CPU time of the process that ran the task while it ran (its threads included)."""
    deferred: int = 0
    """Verified blocks an unconfirmed run did not write (not every book node signed them)."""
    stakes_updated: bool = False
    """Whether a block of the partition put new node stakes in force (a whole table: the end
    stakes are the partition's last update, whatever it started from)."""
