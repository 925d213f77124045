"""The block backfill's driver: list the blocks, find the TSS trust root, split by number, run, report.

The driver holds block numbers and names only (and block 0's bytes when that is the trust root);
the tasks read, verify and write (:mod:`hedera_history.backfill.block_task`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from hedera_history.backfill.block_plan import (
    BlockJob,
    BlockPartition,
    ListedBlock,
    TssRoot,
    list_blocks,
    node_blocks,
    partition_blocks,
    partition_count,
)
from hedera_history.backfill.block_task import BlockSummary, run_block_partition
from hedera_history.backfill.report import number_ranges
from hedera_history.logs import event
from hedera_history.sources.base import ObjectSource, open_source
from hedera_history.sources.ledger_trust import ledger_publication_of
from hedera_history.store.gateway import BigtableGateway
from hedera_history.store.original_blocks import original_block
from hedera_history.store.reader import HistoryReader

logger = logging.getLogger(__name__)

BlockExecutor = Callable[[BlockJob, Sequence[BlockPartition]], list[BlockSummary]]
"""Runs the job's partitions (in any order, in parallel) and returns their summaries."""


@dataclass(frozen=True)
class BlockBackfillReport:
    summaries: tuple[BlockSummary, ...]
    planned: int
    """Blocks planned (listed, or asked of the block nodes), the link-check predecessor left out."""
    tss_origin: str
    missing: tuple[int, ...] = ()
    """Numbers in the range no file was listed for (a bucket or directory)."""

    @property
    def ok(self) -> bool:
        return not self.missing and all(summary.ok for summary in self.summaries)

    @property
    def written(self) -> int:
        return sum(summary.written for summary in self.summaries)

    @property
    def skipped(self) -> int:
        """Blocks already stored complete with the same hash (a rerun), not written again."""
        return sum(summary.skipped for summary in self.summaries)

    @property
    def transactions(self) -> int:
        return sum(summary.transactions for summary in self.summaries)

    def to_json(self) -> dict[str, object]:
        return {
            "ok": self.ok,
            "planned": self.planned,
            "written": self.written,
            "skipped": self.skipped,
            "transactions": self.transactions,
            "tss_trust": self.tss_origin,
            "missing": list(self.missing),
            "partitions": [
                {
                    "index": s.index,
                    "first": s.first,
                    "last": s.last,
                    "written": s.written,
                    "skipped": s.skipped,
                    "failures": list(s.failures),
                }
                for s in self.summaries
            ],
        }

    def summary_lines(self) -> list[str]:
        lines = [
            f"blocks: {self.planned} planned, {self.written} written, {self.skipped} already complete,"
            f" in {len(self.summaries)} partition(s)",
            f"transactions: {self.transactions}",
            f"TSS trust: {self.tss_origin}",
        ]
        if self.missing:
            lines.append(f"missing from the listing: {number_ranges(self.missing)}")
        lines += [failure for summary in self.summaries for failure in summary.failures]
        return lines


def plan_block_job(
    job: BlockJob, parallelism: int, source: ObjectSource | None = None
) -> tuple[list[ListedBlock], list[BlockPartition]]:
    """The blocks listed (from ``source``, default the job's) or asked of the block nodes, and their partitions."""
    if job.block_nodes:
        assert job.last_block is not None  # BlockJob refuses a node range without its end
        listed = node_blocks(job.first_block, job.last_block)
    else:
        objects = source if source is not None else open_source(job.source_url, job.settings)
        listed = list_blocks(objects, job.folder, job.first_block, job.last_block)
    kept = sum(1 for block in listed if block.number >= job.first_block)
    count = job.partitions or partition_count(kept, job.settings.backfill_periods_per_partition, parallelism)
    return listed, partition_blocks(listed, job.first_block, count)


def tss_root(job: BlockJob, listed: Sequence[ListedBlock], gateway: BigtableGateway) -> TssRoot:
    """Where the tasks' TSS trust comes from: the settings' ledger publication, else block 0 in the
    source, else the block 0 stored before; none when there is neither."""
    publication = ledger_publication_of(job.settings)
    if publication is not None:
        return TssRoot(ledger_publication=publication, origin="settings (HEDERA_HISTORY_LEDGER_PUBLICATION)")
    if listed and listed[0].number == 0 and job.source_url:
        block_zero = open_source(job.source_url, job.settings).read(listed[0].name)
        return TssRoot(block_zero=block_zero, origin="block 0 of the source")
    stored = original_block(HistoryReader(gateway), 0)
    if stored is not None:
        return TssRoot(block_zero=stored, origin="block 0 in the store")
    return TssRoot()


def run_block_backfill(
    job: BlockJob, execute: BlockExecutor, gateway: BigtableGateway, *, parallelism: int = 1
) -> BlockBackfillReport:
    """Plan ``job``, hand its partitions to ``execute`` with the TSS root, and combine the summaries."""
    listed, partitions = plan_block_job(job, parallelism)
    shipped = replace(job, tss=tss_root(job, listed, gateway))
    planned = sum(len(partition.blocks) for partition in partitions)
    event(logger, "block backfill planned", blocks=planned, partitions=len(partitions), tss=shipped.tss.origin)
    summaries = execute(shipped, partitions) if partitions else []
    return BlockBackfillReport(
        tuple(sorted(summaries, key=lambda summary: summary.index)),
        planned,
        shipped.tss.origin,
        _missing(job, listed),
    )


def in_process(gateway: BigtableGateway) -> BlockExecutor:
    """Runs the partitions one after another in this process (tests, and ``--local`` without Spark)."""

    def execute(job: BlockJob, partitions: Sequence[BlockPartition]) -> list[BlockSummary]:
        return [run_block_partition(job, partition, gateway=gateway) for partition in partitions]

    return execute


def _missing(job: BlockJob, listed: Sequence[ListedBlock]) -> tuple[int, ...]:
    if job.block_nodes:
        return ()
    have = {block.number for block in listed}
    last = job.last_block if job.last_block is not None else max(have, default=job.first_block - 1)
    return tuple(number for number in range(job.first_block, last + 1) if number not in have)
