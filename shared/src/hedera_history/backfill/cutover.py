"""A backfill through a network's cutover: its record files, then its blocks, in one job.

A network preset that cuts over (``networks.Cutover``) keeps its record files in its record bucket
and its blocks in ``hedera-<network>-recent-block-streams``. A job whose range ends after the
announced cutover date first backfills the record files (the record job, as before), then the
blocks from the one after the last record file's block on: the block bucket is listed after that
block's name, so nothing before it is listed. Blocks and record files share one numbering.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from hedera_history.backfill.block_driver import BlockBackfillReport, BlockExecutor, run_block_backfill
from hedera_history.backfill.block_plan import BlockJob
from hedera_history.backfill.driver import BackfillListener, Executor, run_backfill
from hedera_history.backfill.partition_messages import BackfillJob
from hedera_history.backfill.report import BackfillReport
from hedera_history.networks import network_named
from hedera_history.sources.base import ObjectSource
from hedera_history.store.gateway import BigtableGateway
from hedera_history.times import parse_time


@dataclass(frozen=True)
class HistoryReport:
    """The record part and, when the range reaches past the cutover, the block part."""

    records: BackfillReport
    blocks: BlockBackfillReport | None

    @property
    def ok(self) -> bool:
        return self.records.ok and (self.blocks is None or self.blocks.ok)

    def to_json(self) -> dict[str, object]:
        return {**self.records.to_json(), "after_cutover": None if self.blocks is None else self.blocks.to_json()}

    def summary_lines(self) -> list[str]:
        lines = self.records.summary_lines()
        if self.blocks is not None:
            lines += ["after the cutover:", *self.blocks.summary_lines()]
        return lines


def blocks_after_records(job: BackfillJob) -> BlockJob | None:
    """The block part of ``job`` (its first block still to be set from the record part), or None
    when the job reads another source than its preset's bucket, or its range ends before the cutover."""
    preset = network_named(job.settings.network)
    if preset is None or preset.cutover is None or not preset.block_bucket:
        return None
    if not job.source_url.startswith(f"gs://{preset.bucket}") or job.end_ns <= parse_time(preset.cutover.planned_utc):
        return None
    return BlockJob(
        job.settings,
        0,
        job.last_block,
        source_url=f"gs://{preset.block_bucket}",
        folder=preset.block_folder,
        book=job.book,
        ratio=job.ratio,
    )


def first_block_after(records: BackfillReport) -> int | None:
    """The block after the record part's last, or None when it reached no block."""
    return None if records.blocks is None else records.blocks[1] + 1


def run_through_cutover(
    job: BackfillJob,
    blocks: BlockJob | None,
    execute: Executor,
    execute_blocks: BlockExecutor,
    *,
    gateway: BigtableGateway,
    source: ObjectSource,
    listener: BackfillListener | None = None,
    parallelism: int = 1,
) -> HistoryReport:
    """Backfill ``job``'s record files, then (with ``blocks``) the blocks after the last one's."""
    records = run_backfill(job, execute, gateway=gateway, source=source, listener=listener)
    first = first_block_after(records)
    if blocks is None or first is None:
        return HistoryReport(records, None)
    after = run_block_backfill(replace(blocks, first_block=first), execute_blocks, gateway, parallelism=parallelism)
    return HistoryReport(records, after)
