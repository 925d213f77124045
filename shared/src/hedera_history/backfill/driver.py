"""The backfill driver: plan the range, run the partitions in waves, check the boundaries, report.

The driver holds the listing (period names, never file contents), hands partitions to an
executor (Spark in production, a plain loop in unit tests) and receives only small summaries.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from hedera_history.backfill.boundaries import broken_links, check_boundaries, check_stored_neighbours
from hedera_history.backfill.partition_messages import BackfillJob, PartitionPlan, PartitionRun, PartitionSummary
from hedera_history.backfill.partitioning import (
    assumed_starts,
    narrow_to_blocks,
    partition_periods,
    refuse_outside_retention,
)
from hedera_history.backfill.report import BackfillReport, block_span, combine
from hedera_history.backfill.resume_rows import ProgressStore
from hedera_history.backfill.task import run_partition
from hedera_history.backfill.waves import partitions_to_rerun
from hedera_history.books.address_book import AddressBook
from hedera_history.books.codec import BookState
from hedera_history.books.parse import parse_address_book
from hedera_history.errata.network_pass import network_errata_pass
from hedera_history.errors import BackfillError
from hedera_history.formats.stream_paths import NodeIdentity
from hedera_history.logs import event
from hedera_history.networks.block_numbers import BlockPin
from hedera_history.sources.base import ObjectSource
from hedera_history.sources.period_files import StreamLocation
from hedera_history.sources.period_listing import ListedPeriod, list_periods
from hedera_history.sources.pinned_numbers import StreamAccess, range_numbering
from hedera_history.store import schema as s
from hedera_history.store.chain_links import broken_link_row
from hedera_history.store.gateway import BigtableGateway, write_or_raise
from hedera_history.store.reader import HistoryReader
from hedera_history.store.writer import BlockWriter

logger = logging.getLogger(__name__)

Executor = Callable[[Sequence[PartitionRun], Callable[[int], None]], list[PartitionSummary]]
"""Runs partitions (in any order, in parallel) and returns their summaries; calls the callback
with the number of partitions finished so far whenever it knows more."""


@dataclass(frozen=True)
class ParallelExecutor:
    """An executor that knows how many partitions it runs at once (Spark's default parallelism:
    the cores of ``local[N]``, or of the cluster's executors), so the default partitioning can
    give every core a task."""

    run: Executor
    parallelism: int

    def __call__(self, runs: Sequence[PartitionRun], done: Callable[[int], None]) -> list[PartitionSummary]:
        return self.run(runs, done)


class BackfillListener(Protocol):
    """Progress as the run goes (the CLI draws it; logs are written either way)."""

    def listed(self, periods: int) -> None: ...

    def wave_started(self, wave: int, partitions: int) -> None: ...

    def partitions_done(self, done: int) -> None: ...


class QuietListener:
    def listed(self, periods: int) -> None:
        pass

    def wave_started(self, wave: int, partitions: int) -> None:
        pass

    def partitions_done(self, done: int) -> None:
        pass


def run_backfill(
    job: BackfillJob,
    execute: Executor,
    *,
    gateway: BigtableGateway,
    source: ObjectSource,
    listener: BackfillListener | None = None,
    now_ns: Callable[[], int] = time.time_ns,
) -> BackfillReport:
    """Backfill ``job``'s range; the tables must exist (``schema.ensure_tables``)."""
    started = time.monotonic()
    shown = listener or QuietListener()
    settings = job.settings
    refuse_outside_retention(job.start_ns, settings, now_ns())
    bootstrap_book = parse_address_book(job.book, "bootstrap address book")
    bootstrap = BookState.of(bootstrap_book)
    progress = ProgressStore(gateway, BlockWriter(gateway, settings))
    # Earlier runs' checkpoints are only guesses of each partition's starting book (confirmed after
    # each wave), so they serve a --reprocess run as well.
    checkpoints = progress.checkpoints(job.start_ns, job.end_ns - 1)
    books = [bootstrap_book, *(checkpoint.state.address_book() for checkpoint in checkpoints.values())]
    stream = StreamAccess(
        source, job.location, _identities(job.location, books), bootstrap_book, settings.max_decompressed_bytes
    )
    periods, plans = _plan(job, stream, _listed_periods(job, stream, shown), execute)
    event(logger, "backfill planned", source=job.source_url, periods=len(periods), partitions=len(plans))

    waves = _run_waves(plans, assumed_starts(plans, bootstrap, checkpoints), execute, shown, bootstrap)
    final = [waves.summaries[plan.index] for plan in plans]
    counts, failures, failures_total, problems, unverifiable = combine(final)
    report = BackfillReport(
        source=job.source_url,
        start_ns=job.start_ns,
        end_ns=job.end_ns,
        first_block=job.first_block,
        last_block=job.last_block,
        periods=len(periods),
        partitions=len(plans),
        waves=waves.count,
        reran=tuple(sorted(waves.reran)),
        counts=counts,
        blocks=block_span(final),
        failures=failures,
        failures_total=failures_total,
        block_problems=problems,
        boundaries=(*check_boundaries(final), *check_stored_neighbours(final, HistoryReader(gateway))),
        unverifiable_links=unverifiable,
        seconds=time.monotonic() - started,
        reprocess=job.reprocess,
        task_seconds=waves.task_seconds,
        task_cpu_seconds=waves.task_cpu_seconds,
    )
    _record_broken_links(gateway, report)
    errata_pass = network_errata_pass(gateway, settings)
    if errata_pass is not None and report.blocks is not None:
        errata_pass.apply_blocks(*report.blocks)  # the stream's pass applies them alike (errata.network_pass)
    event(
        logger,
        "backfill finished",
        ok=report.ok,
        periods=report.periods,
        written=counts.written,
        skipped=counts.skipped,
        failed=failures_total,
        seconds=round(report.seconds, 3),
    )
    return report


def _listed_periods(job: BackfillJob, stream: StreamAccess, shown: BackfillListener) -> list[ListedPeriod]:
    """The range's periods in time order, the listener told the count as it grows."""
    listed: list[ListedPeriod] = []
    for period in list_periods(stream.source, stream.location, stream.nodes, job.start_ns, job.end_ns):
        listed.append(period)
        if len(listed) % 1000 == 0:
            shown.listed(len(listed))
    shown.listed(len(listed))
    listed.sort(key=lambda period: (period.consensus_ns, period.period_key))
    return listed


def _plan(
    job: BackfillJob, stream: StreamAccess, listed: list[ListedPeriod], execute: Executor
) -> tuple[Sequence[ListedPeriod], list[PartitionPlan]]:
    """The periods to backfill (narrowed to the job's blocks, if it names any) and their partitions,
    numbered from the range's first block; the partition holding the pinned file knows it."""
    settings = job.settings
    numbering = range_numbering(
        listed,
        pin=BlockPin.parse(settings.block_pin),
        start_block=settings.start_block,
        start_ns=job.start_ns,
        end_ns=job.end_ns,
        stream=stream,
    )
    periods: Sequence[ListedPeriod] = listed
    offset = 0
    if job.first_block is not None or job.last_block is not None:

        def block_number_of(index: int) -> int:
            # Unverified: for choosing periods only. Before V6 a file states no number.
            record = stream.record(listed[index])
            return record.block_number if record.block_number is not None else numbering.start_block + index

        periods, offset = narrow_to_blocks(listed, job.first_block, job.last_block, block_number_of)
    plans = partition_periods(
        periods,
        partitions=job.partitions,
        periods_per_partition=settings.backfill_periods_per_partition,
        start_block=numbering.start_block + offset,
        parallelism=execute.parallelism if isinstance(execute, ParallelExecutor) else 1,
    )
    if numbering.pinned_key is not None:
        key = numbering.pinned_key
        plans = [
            replace(plan, pinned_key=key) if any(p.period_key == key for p in plan.periods) else plan for plan in plans
        ]
    return periods, plans


@dataclass(frozen=True, slots=True)
class _Waves:
    summaries: dict[int, PartitionSummary]
    count: int
    reran: set[int]
    """Partitions run again because the book they assumed at their start was wrong."""
    task_seconds: float
    task_cpu_seconds: float


def _run_waves(
    plans: Sequence[PartitionPlan],
    runs: list[PartitionRun],
    execute: Executor,
    shown: BackfillListener,
    bootstrap: BookState,
) -> _Waves:
    """Run the partitions, then again those whose starting book turned out wrong, until every
    partition ran from the book in force at its start."""
    summaries: dict[int, PartitionSummary] = {}
    wave = 0
    reran: set[int] = set()
    task_seconds = task_cpu_seconds = 0.0
    while runs:
        wave += 1
        if wave > len(plans) + 1:
            raise BackfillError(f"address-book states did not settle after {wave - 1} waves")
        if wave > 1:
            reran.update(run.plan.index for run in runs)
        shown.wave_started(wave, len(runs))
        event(logger, "backfill wave started", wave=wave, partitions=len(runs))
        for summary in execute(runs, shown.partitions_done):
            summaries[summary.index] = summary
            task_seconds += summary.seconds
            task_cpu_seconds += summary.cpu_seconds
        runs = partitions_to_rerun(plans, summaries, bootstrap)
    return _Waves(summaries, wave, reran, task_seconds, task_cpu_seconds)


def _record_broken_links(gateway: BigtableGateway, report: BackfillReport) -> None:
    breaks = broken_links(report.block_problems, report.boundaries)
    if breaks:
        # Recorded where the stream records its breaks, so status and alerts see both paths alike.
        rows = [broken_link_row(number, reason) for number, reason in sorted(breaks.items())]
        write_or_raise(gateway, s.CHAIN_LINKS, rows, "recording broken chain links")
        for number, reason in sorted(breaks.items()):
            event(logger, "chain link broken", logging.ERROR, block=number, reason=reason)


def run_in_process(
    job: BackfillJob, *, source: ObjectSource | None = None, gateway: BigtableGateway | None = None
) -> Executor:
    """An executor that runs the partitions one after another in this process (tests, tiny ranges)."""

    def execute(runs: Sequence[PartitionRun], done: Callable[[int], None]) -> list[PartitionSummary]:
        summaries = []
        for run in runs:
            summaries.append(run_partition(job, run, source=source, gateway=gateway))
            done(len(summaries))
        return summaries

    return execute


def _identities(location: StreamLocation, books: Sequence[AddressBook]) -> list[NodeIdentity]:
    return list(dict.fromkeys(identity for book in books for identity in location.identities(book)))
