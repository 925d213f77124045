"""One block-backfill task: verify a partition's blocks in order and write them. Runs in a Spark executor.

The blocks are verified as ``load`` verifies a folder of blocks (:func:`~hedera_history.verify.blocks.
verify_blocks`: root hash, footer links, wrapped record blocks' RSA signatures with the book given,
native blocks' TSS proofs against the job's :class:`~hedera_history.backfill.block_plan.TssRoot`),
turned into a :class:`~hedera_history.block.VerifiedBlock` the same way and written by the same
``BlockWriter`` (completion cell last), so the cells are the stream's. The block before the
partition is verified first and not written: the first block's link into the partition is checked
here, and every boundary of the job is covered by the task after it.

A rerun resumes: a block already stored complete with the hash the file gives (a wrapped block's
running hash, a native block's root) is read, hashed and linked, but neither proof-checked nor
written again (``skipped``); one stored with another hash is ``ConflictingBlockError``, never
written (``BlockCheckOptions.stored``). A block stored unsigned is checked again by a run that does
not take unsigned blocks.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from hedera_history.backfill.block_plan import BlockJob, BlockPartition, ListedBlock, TssRoot
from hedera_history.block import VerifiedBlock
from hedera_history.books.parse import parse_address_book
from hedera_history.collector import task_collector
from hedera_history.errors import HistoryError, SourceError
from hedera_history.formats.block import parse_block
from hedera_history.sources.base import ObjectSource, open_source
from hedera_history.sources.block_node import BlockNodeClient
from hedera_history.sources.ledger_trust import ledger_id_of
from hedera_history.store.bigtable_client import open_gateway
from hedera_history.store.gateway import BigtableGateway
from hedera_history.store.reader import HistoryReader
from hedera_history.store.writer import BlockWriter
from hedera_history.verify.block_tss import LedgerTssCheck, ledger_check
from hedera_history.verify.block_verified import verified_block
from hedera_history.verify.blocks import BlockCheckOptions, BlockReport, verify_blocks


@dataclass(frozen=True, slots=True)
class BlockSummary:
    """What a task sends back to the driver: counts and the blocks that failed, never block data."""

    index: int
    first: int
    last: int
    verified: int = 0
    written: int = 0
    transactions: int = 0
    failures: tuple[str, ...] = field(default_factory=tuple)
    skipped: int = 0
    """Blocks already stored complete with the same hash (a rerun): not written again."""

    @property
    def ok(self) -> bool:
        return not self.failures and self.written + self.skipped == self.last - self.first + 1


class _Read:
    """One block to verify, read when ``verify_blocks`` asks (a ``BlockSource``)."""

    __slots__ = ("_fetch", "name", "number")

    def __init__(self, listed: ListedBlock, fetch: _Fetcher) -> None:
        self.number: int | None = listed.number
        self.name = listed.name or f"{listed.number:019d}.blk"
        self._fetch = fetch

    def read(self) -> bytes:
        return self._fetch.read(self.number or 0, self.name)


class _Fetcher:
    def __init__(self, job: BlockJob) -> None:
        self._objects: ObjectSource | None = open_source(job.source_url, job.settings) if job.source_url else None
        self._nodes: BlockNodeClient | None = None
        if job.block_nodes:
            self._nodes = BlockNodeClient.from_settings(replace(job.settings, block_nodes=job.block_nodes))

    def read(self, number: int, name: str) -> bytes:
        if self._objects is not None:
            return self._objects.read(name)
        if self._nodes is None:
            raise SourceError("no block source", file=name)
        try:
            return self._nodes.get_block(number).content
        except HistoryError as e:
            raise SourceError(f"block {number} from the block nodes: {e}", file=name) from e

    def close(self) -> None:
        if self._nodes is not None:
            self._nodes.close()


def tss_check(job: BlockJob) -> LedgerTssCheck:
    """The TSS check a task verifies native blocks with, from the root the driver shipped."""
    pinned = ledger_id_of(job.settings)
    root: TssRoot = job.tss
    if root.ledger_publication is not None:
        return ledger_check(root.ledger_publication, pinned)
    check = LedgerTssCheck(pinned)
    if root.block_zero is not None:
        check.block_zero = parse_block(root.block_zero, "block 0 (trust root)")
    return check


def run_block_partition(
    job: BlockJob, partition: BlockPartition, *, gateway: BigtableGateway | None = None
) -> BlockSummary:
    """Verify and write ``partition``'s blocks (Spark maps this over the partitions)."""
    fetcher = _Fetcher(job)
    store = gateway if gateway is not None else open_gateway(job.settings)
    counts = _Counts()
    listed = ([partition.before] if partition.before is not None else []) + list(partition.blocks)
    stored = _resumable(HistoryReader(store), listed, partition, job.settings.unsigned_blocks)
    try:
        with task_collector():
            blocks = _verified(job, listed, partition, fetcher, counts, stored)
            for written in BlockWriter(store, job.settings).iter_write(blocks):
                if written.complete:
                    counts.written += 1
                else:
                    counts.failures.append(f"block {written.block_number} not written: {written.error}")
    finally:
        fetcher.close()
    return BlockSummary(
        partition.index,
        partition.first,
        partition.last,
        counts.verified,
        counts.written,
        counts.transactions,
        tuple(counts.failures),
        counts.skipped,
    )


@dataclass
class _Counts:
    verified: int = 0
    written: int = 0
    transactions: int = 0
    failures: list[str] = field(default_factory=list)
    skipped: int = 0


def _resumable(
    reader: HistoryReader, listed: list[ListedBlock], partition: BlockPartition, unsigned_taken: bool
) -> dict[int, bytes]:
    """The hash each listed block is stored complete with: those a rerun skips. A block of the
    partition stored unsigned is not skipped by a run that does not take unsigned blocks: its proof
    was never checked, so it is checked now (and refused, as it would have been)."""
    stored = reader.shown_hashes(block.number for block in listed)
    if not unsigned_taken:
        for number in reader.unsigned_blocks(block.number for block in partition.blocks if block.number in stored):
            del stored[number]
    return stored


def _verified(
    job: BlockJob,
    listed: list[ListedBlock],
    partition: BlockPartition,
    fetcher: _Fetcher,
    counts: _Counts,
    stored: dict[int, bytes],
) -> Iterator[VerifiedBlock]:
    book = parse_address_book(job.book, "the backfill's address book") if job.book is not None else None
    options = BlockCheckOptions(
        ratio=job.ratio, tss=tss_check(job), max_decompressed=job.settings.max_decompressed_bytes, stored=stored.get
    )
    for report in verify_blocks((_Read(block, fetcher) for block in listed), book, options):
        number = report.block.number if report.block is not None else None
        if partition.before is not None and number == partition.before.number:
            if not report.ok:
                counts.failures.append(f"block {number} (before the partition): {_reason(report)}")
            continue
        block = _block(report, job, counts)
        if block is not None:
            yield block


def _block(report: BlockReport, job: BlockJob, counts: _Counts) -> VerifiedBlock | None:
    if report.already_stored:
        counts.skipped += 1
        return None
    try:
        block = verified_block(report, accept_unsigned=job.settings.unsigned_blocks)
    except HistoryError as e:
        counts.failures.append(f"{report.name}: {e.kind}: {e}")
        return None
    counts.verified += 1
    counts.transactions += len(block.record.items)
    return block


def _reason(report: BlockReport) -> str:
    return f"{report.error.kind}: {report.error}" if report.error is not None else "not verified"
