"""One backfill task: verify a partition's periods and write their blocks. Runs in a Spark executor.

The partition is walked in order. Periods already done (a progress row, the block still complete,
verified with the book now in force) are skipped in stretches; the others are verified in runs by
``verify_stream`` over lazily read :class:`~hedera_history.sources.period_files.SourcePeriod`\\ s
(the next period's read ahead: ``backfill.read_ahead``) and written by the shared ``BlockWriter``
(completion cell last), exactly as the single-process path does. Links are checked inside runs by
``verify_stream`` and here between stretches (from the stored block rows); the driver checks the
links between partitions from the edges returned.

Address books: the task starts from the state it is given and follows the updates its blocks
carry (a skipped block's update comes from its checkpoint). Every verified period records the
book it was verified with, so one verified under a book that turns out outdated is done again.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, replace

from hedera_history import logs
from hedera_history.backfill.boundaries import link_edges
from hedera_history.backfill.partition_messages import (
    MAX_FAILURES_KEPT,
    BackfillJob,
    BlockEdge,
    PartitionCounts,
    PartitionRun,
    PartitionSummary,
    PeriodFailure,
)
from hedera_history.backfill.read_ahead import ReadAhead
from hedera_history.backfill.resume_rows import BookCheckpoint, PeriodDone, ProgressStore
from hedera_history.block import VerifiedBlock
from hedera_history.books.address_book import AddressBook
from hedera_history.books.codec import BookState
from hedera_history.books.stakes import NodeStakes
from hedera_history.books.updates import AddressBookTracker
from hedera_history.collector import task_collector
from hedera_history.errors import (
    BackfillError,
    BlockPinMismatchError,
    BrokenChainError,
    ConsensusForkError,
    HistoryError,
    StoreError,
)
from hedera_history.logs import event
from hedera_history.networks.block_numbers import BlockPin
from hedera_history.sources.base import DEFAULT_MAX_OBJECT_BYTES, ObjectSource, PassThroughSource, open_source
from hedera_history.sources.period_listing import ListedPeriod
from hedera_history.store.bigtable_client import open_gateway
from hedera_history.store.book_rows import write_changes
from hedera_history.store.gateway import BigtableGateway
from hedera_history.store.reader import HistoryReader
from hedera_history.store.writer import BlockWriter, BlockWriteResult
from hedera_history.verify.block_pin import Numbering, with_pin_checks
from hedera_history.verify.chain import LinkStatus
from hedera_history.verify.period import PeriodFiles
from hedera_history.verify.stream import PeriodResult, verify_stream

logger = logging.getLogger(__name__)

DONE_FLUSH_SIZE = 100
"""Progress rows gathered before they are written (a killed task redoes at most these periods)."""


class InjectedFaultError(BackfillError):
    """The test hook ``BackfillJob.fail_after_blocks`` stopped the task, as a crash would."""


def run_partition(
    job: BackfillJob,
    run: PartitionRun,
    *,
    source: ObjectSource | None = None,
    gateway: BigtableGateway | None = None,
) -> PartitionSummary:
    """Verify and write one partition; the clients are created here unless given (tests)."""
    if not logging.getLogger().handlers:
        # A fresh executor worker: its log lines go to the executor's stderr as JSON.
        logs.configure("backfill-task", job.settings.log_level)
    own_gateway = gateway is None
    cpu_started = time.process_time()
    store = gateway if gateway is not None else open_gateway(job.settings)
    try:
        metered = MeteredSource(source if source is not None else open_source(job.source_url, job.settings))
        writer = BlockWriter(store, job.settings, max_group_bytes=job.write_group_bytes)
        task = _PartitionTask(
            job, run, source=metered, writer=writer, reader=HistoryReader(store), progress=ProgressStore(store, writer)
        )
        with task_collector():
            summary = task.run()
    finally:
        if own_gateway:
            store.close()
    # The worker process's CPU, the writer's sender threads included (one task at a time per worker).
    return replace(summary, cpu_seconds=time.process_time() - cpu_started)


class MeteredSource(PassThroughSource):
    """An ObjectSource that counts the bytes read through it (from several threads)."""

    def __init__(self, inner: ObjectSource) -> None:
        super().__init__(inner)
        self.bytes_read = 0
        self._lock = threading.Lock()

    def read(self, name: str, *, max_bytes: int = DEFAULT_MAX_OBJECT_BYTES) -> bytes:
        data = self.inner.read(name, max_bytes=max_bytes)
        with self._lock:
            self.bytes_read += len(data)
        return data


@dataclass(frozen=True, slots=True)
class _Pending:
    """A verified block on its way through the writer."""

    block_number: int
    done: PeriodDone
    items: int
    sidecar_records: int


class _PartitionTask:
    def __init__(
        self,
        job: BackfillJob,
        run: PartitionRun,
        *,
        source: MeteredSource,
        writer: BlockWriter,
        reader: HistoryReader,
        progress: ProgressStore,
    ) -> None:
        self.job = job
        self.plan = run.plan
        self.start = run.start
        self.confirmed = run.confirmed
        self.source = source
        self.writer = writer
        self.reader = reader
        self.progress = progress
        self._set_state(run.start)
        self.touched = False
        self.restaked = False
        self.deferred = 0
        self.counts: dict[str, int] = {}
        self.failures: list[PeriodFailure] = []
        self.failures_total = 0
        self.block_problems: list[PeriodFailure] = []
        self.unverifiable = 0
        self.first: BlockEdge | None = None
        self.last: BlockEdge | None = None
        self.leading_failures = 0
        self.failures_since = 0
        self.done_buffer: list[PeriodDone] = []
        self.blocks_written = 0
        self.done: dict[int, PeriodDone] = {}
        self.checkpoints: dict[int, BookCheckpoint] = {}
        self.complete: set[int] = set()
        self._tracked_book: AddressBook | None = None
        self._tracked_contents: dict[int, bytes] = {}
        self._tracked_stakes: NodeStakes | None = None
        self.consensus_of = {period.period_key: period.consensus_ns for period in run.plan.periods}
        self.key_of = {period.consensus_ns: period.period_key for period in run.plan.periods}

    # ---- the walk --------------------------------------------------------------------------------

    def run(self) -> PartitionSummary:
        started = time.monotonic()
        plan = self.plan
        if not self.job.reprocess:
            self.done = self.progress.done_periods(plan.first_ns, plan.last_ns)
            self.checkpoints = self.progress.checkpoints(plan.first_ns, plan.last_ns)
            self.complete = self.reader.complete_blocks(done.block_number for done in self.done.values())
        index, next_block = 0, plan.start_block
        while index < len(plan.periods):
            if self._skippable(plan.periods[index]):
                index, next_block = self._skip_stretch(index)
            else:
                index, next_block = self._verify_run(index, next_block)
        self._flush_done()
        summary = self._summary(time.monotonic() - started)
        event(
            logger,
            "backfill partition finished",
            partition=plan.index,
            periods=summary.counts.periods,
            written=summary.counts.written,
            skipped=summary.counts.skipped,
            failed=summary.counts.failed,
            seconds=round(summary.seconds, 3),
        )
        return summary

    def _skippable(self, period: ListedPeriod) -> bool:
        done = self.done.get(period.consensus_ns)
        if done is None or done.block_number not in self.complete or done.book_fingerprint != self.book_fingerprint:
            return False
        if done.after_fingerprint == self.state_fingerprint:
            return True
        checkpoint = self.checkpoints.get(period.consensus_ns)
        return (
            checkpoint is not None
            and checkpoint.prior_fingerprint == self.state_fingerprint
            and checkpoint.state.fingerprint == done.after_fingerprint
        )

    def _skip_stretch(self, index: int) -> tuple[int, int]:
        periods = self.plan.periods
        first_index = index
        while index < len(periods) and self._skippable(periods[index]):
            period = periods[index]
            done = self.done[period.consensus_ns]
            if done.after_fingerprint != self.state_fingerprint:
                self._note_change(self.checkpoints[period.consensus_ns].state)
            index += 1
        first = self.done[periods[first_index].consensus_ns].block_number
        last = self.done[periods[index - 1].consensus_ns].block_number
        stored = self._stored_edge(first)
        broken = self._join(stored)
        if broken is not None:
            # Written by an earlier run that could not see this link: recorded, never taken back.
            key = periods[first_index].period_key
            self.block_problems.append(PeriodFailure(key, broken.kind, str(broken), first))
            self.last, self.failures_since = stored, 0
        self.last = self._stored_edge(last) if last != first else self.last
        self._add("periods", index - first_index)
        self._add("skipped", index - first_index)
        return index, last + 1

    def _verify_run(self, index: int, start_block: int) -> tuple[int, int]:
        """Verify and write from ``index`` until the next skippable period; (next index, next block)."""
        periods = self.plan.periods
        tracker = self.state.tracker()
        self._tracked_book, self._tracked_contents = tracker.book, dict(tracker.contents)
        self._tracked_stakes = tracker.stakes
        run_start = index
        next_block = start_block

        ahead = ReadAhead(self.source, self.job.location, sidecars=self.job.settings.sidecars_enabled)

        def feed() -> Iterator[PeriodFiles]:
            nonlocal index
            while index < len(periods):
                period = periods[index]
                if index > run_start and self._skippable(period):
                    return
                index += 1
                # The book in force here: verify_stream has applied the blocks before it by now.
                upcoming = periods[index].period_key if index < len(periods) else None
                yield ahead.period(period.period_key, tracker.book, upcoming)

        results = with_pin_checks(
            verify_stream(
                feed(),
                tracker.book,
                ratio=self.job.ratio,
                start_block=start_block,
                sidecars=self.job.settings.sidecars_enabled,
                max_decompressed=self.job.settings.max_decompressed_bytes,
                tracker=tracker,
            ),
            Numbering(start_block, BlockPin.parse(self.job.settings.block_pin), self.plan.pinned_key),
        )
        pending: deque[_Pending] = deque()
        first_in_run = True

        def blocks() -> Iterator[VerifiedBlock]:
            nonlocal first_in_run, next_block
            for result in results:
                self._add("periods")
                if result.block_number is not None:
                    next_block = result.block_number + 1
                deferred = self.deferred
                followed = self._follow(result, tracker, first_in_run)
                if followed is None:
                    if self.deferred > deferred:
                        first_in_run = False  # verified, not written: the chain goes on from it
                    continue
                block, done = followed
                first_in_run = False
                records = sum(len(sidecar.records) for sidecar in block.sidecars)
                pending.append(_Pending(block.block_number, done, len(block.record.items), records))
                yield block

        try:
            for written in self.writer.iter_write(blocks()):
                self._on_written(written, pending.popleft())
        finally:
            ahead.close()
        self._flush_done()
        return index, next_block

    def _follow(
        self, result: PeriodResult, tracker: AddressBookTracker, first_in_run: bool
    ) -> tuple[VerifiedBlock, PeriodDone] | None:
        """Account for one verified period: its block and progress row, if it verified."""
        consensus_ns = self.consensus_of[result.period_key]
        used_book, prior = self.book_fingerprint, self.state_fingerprint
        block = result.report.block
        if block is not None and first_in_run and not isinstance(result.error, BlockPinMismatchError):
            broken = self._join(BlockEdge.of_record(block.block_number, block.record))
            if broken is not None:
                # Verified, but it does not follow the block stored before this run: refused, and
                # the book and stake changes verify_stream applied for it are taken back.
                tracker.book, tracker.contents = self._tracked_book or tracker.book, dict(self._tracked_contents)
                tracker.stakes = self._tracked_stakes
                self._refuse(result.period_key, broken, block.block_number)
                return None
        # verify_stream has applied the block's book and stake updates to the tracker by now.
        if block is not None and (
            tracker.book is not self._tracked_book
            or tracker.contents != self._tracked_contents
            or tracker.stakes != self._tracked_stakes
        ):
            state = BookState.of_tracker(tracker)
            self.progress.record_checkpoint(BookCheckpoint(consensus_ns, prior, state))
            self._note_change(state)
            self._tracked_book, self._tracked_contents = tracker.book, dict(tracker.contents)
            self._tracked_stakes = tracker.stakes
        if block is None or isinstance(result.error, BlockPinMismatchError):
            # A block the network's pin contradicts is never written under its number, nor one
            # whose link is broken (verify_stream refuses it).
            error = result.error
            assert error is not None
            if isinstance(error, ConsensusForkError):
                self._add("forks")
            self._refuse(result.period_key, error, result.block_number)
            return None
        self._add("verified")
        edge = BlockEdge.of_record(block.block_number, block.record)
        if not first_in_run:
            if result.link is not None and result.link.status is LinkStatus.UNVERIFIABLE:
                self.unverifiable += 1
            self.last, self.failures_since = edge, 0
        consensus = result.report.consensus
        if not self.confirmed and not (consensus is not None and consensus.unanimous):
            # Verified on a guessed state: written only once the state is confirmed (another
            # weighting could refuse it, and history is never taken back).
            self.deferred += 1
            return None
        if result.error is not None:
            self.block_problems.append(
                PeriodFailure(result.period_key, result.error.kind, str(result.error), block.block_number)
            )
        # So that a stream started after this backfill verifies with the book and stakes it put in force.
        write_changes(self.writer.gateway, result, tracker)
        return block, PeriodDone(consensus_ns, block.block_number, used_book, self.state_fingerprint)

    def _on_written(self, written: BlockWriteResult, pending: _Pending) -> None:
        if written.block_number != pending.block_number:
            raise BackfillError(f"writer answered for block {written.block_number}, expected {pending.block_number}")
        if not written.complete:
            reason = str(written.error) if written.error is not None else "not written completely"
            kind = written.error.kind if written.error is not None else "store"
            key = self.key_of[pending.done.consensus_ns]
            self._fail(PeriodFailure(key, kind, reason, written.block_number))
            return
        self._add("written")
        self._add("transactions", pending.items)
        self._add("sidecar_records", pending.sidecar_records)
        self._add("rows", written.rows + 1)
        self._add("cells", written.cells + 1)
        self.done_buffer.append(pending.done)
        if len(self.done_buffer) >= DONE_FLUSH_SIZE:
            self._flush_done()
        self.blocks_written += 1
        limit = self.job.fail_after_blocks
        if limit is not None and self.blocks_written >= limit:
            self._flush_done()
            raise InjectedFaultError(f"partition {self.plan.index}: stopped on purpose after {limit} block(s)")

    # ---- chain edges -----------------------------------------------------------------------------

    def _join(self, edge: BlockEdge) -> BrokenChainError | None:
        """``edge`` follows whatever came before it in this partition; the break when it does not
        (the edge is then not taken on)."""
        if self.first is None:
            self.first, self.leading_failures = edge, self.failures_since
        elif self.failures_since:
            self.unverifiable += 1
        elif self.last is not None:
            try:
                if not link_edges(self.last, edge).ok:
                    self.unverifiable += 1
            except BrokenChainError as e:
                return e
        self.last, self.failures_since = edge, 0
        return None

    def _refuse(self, period_key: str, error: HistoryError, block_number: int | None) -> None:
        """A period that is not written: failed, and (a broken link) kept for the driver to record
        in the chain-links table, where the stream records its breaks."""
        self._fail(PeriodFailure(period_key, error.kind, str(error), block_number))
        if isinstance(error, BrokenChainError):
            self.block_problems.append(PeriodFailure(period_key, error.kind, str(error), block_number))
        self.failures_since += 1

    def _stored_edge(self, number: int) -> BlockEdge:
        block = self.reader.get_block(number)
        if block is None:
            raise StoreError(f"block {number} was complete a moment ago and is not any more")
        return BlockEdge.of_stored(block)

    # ---- bookkeeping -----------------------------------------------------------------------------

    def _note_change(self, state: BookState) -> None:
        """A block changed the state: the book files (the end then depends on the start), the
        stakes (a whole new table: the end stakes do not), or both."""
        if (state.book, state.contents) != (self.state.book, self.state.contents):
            self.touched = True
        if state.stakes != self.state.stakes:
            self.restaked = True
        self._set_state(state)

    def _set_state(self, state: BookState) -> None:
        self.state = state
        self.book_fingerprint = state.book_fingerprint
        self.state_fingerprint = state.fingerprint

    def _add(self, name: str, amount: int = 1) -> None:
        self.counts[name] = self.counts.get(name, 0) + amount

    def _fail(self, failure: PeriodFailure) -> None:
        self._add("failed")
        self.failures_total += 1
        if len(self.failures) < MAX_FAILURES_KEPT:
            self.failures.append(failure)

    def _flush_done(self) -> None:
        if self.done_buffer:
            self.progress.record_done(self.done_buffer)
            self.done_buffer = []

    def _summary(self, seconds: float) -> PartitionSummary:
        counts = PartitionCounts(**self.counts, bytes_read=self.source.bytes_read)
        return PartitionSummary(
            index=self.plan.index,
            start=self.start,
            end=self.state,
            book_files_touched=self.touched,
            stakes_updated=self.restaked,
            deferred=self.deferred,
            first=self.first,
            last=self.last,
            leading_failures=self.leading_failures if self.first is not None else self.failures_since,
            trailing_failures=self.failures_since,
            counts=counts,
            failures=tuple(self.failures),
            failures_total=self.failures_total,
            block_problems=tuple(self.block_problems),
            unverifiable_links=self.unverifiable,
            seconds=seconds,
        )
