"""Writing blocks: size-bounded MutateRows batches, retries of exactly the failed entries, and each
block's completion cell only after every other row of that block has landed.

Rows of several small blocks share batches; at most about ``max_group_bytes`` of rows (or one
larger block) are held at a time. Each block's rows are encoded once, as they arrive, into the
bytes of their MutateRows entries, a buffer per run of one table (``store.mutation_wire``):
batches are cut on those exact sizes, sent as slices of the buffers, and a retry sends the same
bytes again. A group's batches go out on sender threads, ``IN_FLIGHT`` at once,
while the next rows are encoded, and a batch goes early whenever a sender would wait
(``store.batch_sender``); its completion cells wait until all have landed.
A block whose rows did not all land gets no completion cell, so readers keep it invisible;
writing it again later completes it (every cell is deterministic).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

from hedera_history.block import VerifiedBlock
from hedera_history.config import Settings
from hedera_history.errors import RetentionWindowError, StoreError, StoreUnavailableError
from hedera_history.store.batch_sender import Batch, BatchSender, TableBatches, run_totals
from hedera_history.store.chaintime import check_history_retention, sidecars_retained
from hedera_history.store.duplicates import complete_duplicates
from hedera_history.store.gateway import UNAVAILABLE, BigtableGateway, MutationFailure
from hedera_history.store.model import BlockRows, Row
from hedera_history.store.mutation_wire import EncodedRows, MutationEncoder
from hedera_history.store.rows import block_to_rows
from hedera_history.store.schema import SIDECARS

MAX_BATCH_BYTES = 4 * 1024 * 1024
MAX_BATCH_CELLS = 20_000
"""Bigtable allows 100,000 mutations per MutateRows; each cell is one."""
MAX_GROUP_BYTES = 32 * 1024 * 1024
IN_FLIGHT = 2
"""MutateRows requests a write keeps in flight at once: while one is answered and the next is
handed over, the other keeps Bigtable busy."""
MAX_ATTEMPTS = 8
FIRST_BACKOFF_SECONDS = 0.05
MAX_BACKOFF_SECONDS = 5.0


@dataclass(frozen=True, slots=True)
class BlockWriteResult:
    block_number: int
    complete: bool
    """True when every row and then the completion cell landed."""
    rows: int
    cells: int
    sidecars_skipped: bool = False
    """Sidecar rows left out because they were older than the sidecar retention window."""
    error: StoreError | None = None


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    max_attempts: int = MAX_ATTEMPTS
    first_backoff_seconds: float = FIRST_BACKOFF_SECONDS
    max_backoff_seconds: float = MAX_BACKOFF_SECONDS
    sleep: Callable[[float], None] = time.sleep
    """How the writer waits out a backoff (tests record the delays instead)."""


class BlockWriter:
    """Writes rows through a ``BigtableGateway``."""

    def __init__(
        self,
        gateway: BigtableGateway,
        settings: Settings,
        *,
        retry: RetryPolicy = RetryPolicy(),
        max_batch_bytes: int = MAX_BATCH_BYTES,
        max_batch_cells: int = MAX_BATCH_CELLS,
        max_group_bytes: int = MAX_GROUP_BYTES,
        in_flight: int = IN_FLIGHT,
        now_ns: Callable[[], int] = time.time_ns,
    ) -> None:
        self.gateway = gateway
        self.settings = settings
        self.retry = retry
        self.max_batch_bytes = max_batch_bytes
        self.max_batch_cells = max_batch_cells
        self.max_group_bytes = max_group_bytes
        self.in_flight = in_flight
        self._now_ns = now_ns
        self._encoder = MutationEncoder()

    # ---- blocks ----------------------------------------------------------------------------------

    def write_blocks(self, blocks: Iterable[VerifiedBlock]) -> list[BlockWriteResult]:
        """Write every block; one result per block, in order."""
        return list(self.iter_write(blocks))

    def iter_write(self, blocks: Iterable[VerifiedBlock]) -> Iterator[BlockWriteResult]:
        """Like ``write_blocks``, yielding each result as soon as its group is done."""
        return self.iter_write_rows(block_to_rows(block, self.settings) for block in blocks)

    def iter_write_rows(self, blocks: Iterable[BlockRows]) -> Iterator[BlockWriteResult]:
        """Write blocks already turned into rows (e.g. by a backfill stage)."""
        sender = BatchSender(self._mutate_with_retries, background=True, in_flight=self.in_flight)
        try:
            yield from self._write_groups(blocks, sender)
        finally:
            sender.close()

    def _write_groups(self, blocks: Iterable[BlockRows], sender: BatchSender) -> Iterator[BlockWriteResult]:
        group: list[BlockRows] = []
        cells: list[int] = []  # of each block, counted as its rows are batched rather than after they landed
        batches = TableBatches(self.max_batch_bytes, self.max_batch_cells, sender.submit, sender.idle)
        skipped: set[int] = set()
        size = 0
        for built in blocks:
            now = self._now_ns()
            try:
                check_history_retention(built.block_number, built.block_time_ns, self.settings, now)
            except RetentionWindowError as e:
                yield BlockWriteResult(built.block_number, False, 0, 0, error=e)
                continue
            owner = len(group)
            if not sidecars_retained(built.block_time_ns, self.settings, now):
                skipped.add(owner)
                built = replace(built, rows=tuple(r for r in built.rows if r.table != SIDECARS))  # noqa: PLW2901
            group.append(built)
            runs = self._encoder.runs(built.rows)
            batches.add(owner, built.rows, runs)
            block_size, block_cells = run_totals(runs)
            size += block_size
            cells.append(block_cells)
            if size >= self.max_group_bytes:
                yield from self._write_group(group, cells, batches, sender, skipped)
                group, cells, skipped, size = [], [], set(), 0
        if group:
            yield from self._write_group(group, cells, batches, sender, skipped)

    def _write_group(
        self,
        group: list[BlockRows],
        cells: list[int],
        batches: TableBatches,
        sender: BatchSender,
        skipped: set[int],
    ) -> Iterator[BlockWriteResult]:
        batches.flush()
        errors = sender.wait()
        done = [i for i in range(len(group)) if i not in errors]
        errors.update(self._write_now([(i, group[i].completion) for i in done]))
        self.complete_duplicates([group[i].completion for i in done if i not in errors])
        for i, block_rows in enumerate(group):
            yield BlockWriteResult(
                block_rows.block_number,
                complete=i not in errors,
                rows=len(block_rows.rows),
                cells=cells[i],
                sidecars_skipped=i in skipped,
                error=errors.get(i),
            )

    # ---- rows ------------------------------------------------------------------------------------

    def complete_duplicates(self, completions: list[Row]) -> None:
        """Complete the duplicate blocks whose parts are now all written (``store.duplicates``)."""
        merged = complete_duplicates(self.gateway, completions)
        if merged:
            self.write_rows(merged)

    def write_rows(self, rows: Sequence[Row]) -> None:
        """Write ``rows`` (any tables); raise if any did not land after the retries."""
        errors = self._write_owned([(0, rows)])
        if errors:
            raise errors[0]

    def _write_now(self, owned: Sequence[tuple[int, Row]]) -> dict[int, StoreError]:
        """Write (owner, row) pairs in this thread; the errors of the owners some of whose rows
        did not land."""
        runs = _owner_runs(owned)
        return self._write_owned([(owned[start][0], [row for _, row in owned[start:end]]) for start, end in runs])

    def _write_owned(self, owned: Sequence[tuple[int, Sequence[Row]]]) -> dict[int, StoreError]:
        """Write each owner's rows in this thread (a store call's tens of thousands of rows are
        handed over as they are, not row by row); the errors of the owners some of whose rows
        did not land."""
        sender = BatchSender(self._mutate_with_retries, background=False)
        batches = TableBatches(self.max_batch_bytes, self.max_batch_cells, sender.submit)
        for owner, rows in owned:
            if rows:
                batches.add(owner, rows, self._encoder.runs(rows))
        batches.flush()
        return sender.wait()

    def _mutate_with_retries(self, batch: Batch) -> dict[int, StoreError]:
        """Errors by row index for the rows that never landed."""
        table, rows = batch.table, batch.rows
        pending: Sequence[int] = range(len(rows))  # a list only once some rows are retried
        entries: list[memoryview] = []  # each row's, once some are retried
        errors: dict[int, StoreError] = {}
        delay = self.retry.first_backoff_seconds
        for attempt in range(1, self.retry.max_attempts + 1):
            try:
                if attempt == 1:
                    sent = EncodedRows(rows, batch.chunks())
                else:
                    entries = entries or batch.entries()
                    sent = EncodedRows([rows[i] for i in pending], [entries[i] for i in pending])
                failures = self.gateway.mutate_rows(table, sent)
            except StoreUnavailableError as e:
                failures = [MutationFailure(j, UNAVAILABLE, str(e)) for j in range(len(pending))]
            except StoreError as e:
                errors.update({i: e for i in pending})
                return errors
            retry: list[int] = []
            for failure in failures:
                row_index = pending[failure.index]
                if failure.retryable:
                    retry.append(row_index)
                    if attempt == self.retry.max_attempts:
                        errors[row_index] = StoreUnavailableError(
                            f"{table}: row {rows[row_index].key!r} still failing after {attempt} attempts "
                            f"(code {failure.code}: {failure.message})"
                        )
                else:
                    key = rows[row_index].key
                    errors[row_index] = StoreError(
                        f"{table}: row {key!r} rejected (code {failure.code}: {failure.message})"
                    )
            if not retry or attempt == self.retry.max_attempts:
                break
            self.retry.sleep(delay)
            delay = min(delay * 2, self.retry.max_backoff_seconds)
            pending = sorted(retry)
        return errors


def _owner_runs(owned: Sequence[tuple[int, Row]]) -> Iterator[tuple[int, int]]:
    """(start, end) of each run of pairs with one owner."""
    start = 0
    for end in range(1, len(owned) + 1):
        if end == len(owned) or owned[end][0] != owned[start][0]:
            yield start, end
            start = end
