"""MutateRows batches cut per table as encoded rows arrive, sent in order, a few at a time.

Rows come in runs of one table (a block's rows are grouped by table), each encoded into one buffer
(``mutation_wire.TableRun``); a run joins its table's open batch by slices of that buffer, and the
cut points come from the run's running totals and ``bisect``, so that batching costs no Python step
and no object per row. In the background mode the batches go out on sender threads while the
caller encodes the next rows; when a sender would otherwise wait, the fullest open batch goes out
before it is full, so the channel stays busy from the first rows on and batches grow to the limits
only while the senders are behind.
"""

from __future__ import annotations

import threading
from bisect import bisect_right
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from itertools import repeat
from operator import attrgetter

from hedera_history.errors import StoreError
from hedera_history.store.model import Row
from hedera_history.store.mutation_wire import Chunk, TableRun

_size_of = attrgetter("size")


Piece = tuple[TableRun, int, int]
"""Rows ``start`` to ``end`` (exclusive) of a run."""


@dataclass(slots=True)
class Batch:
    """Rows of one table, their encoded MutateRows entries (``pieces`` of runs) and their owners
    (blocks of a group)."""

    table: str
    rows: list[Row] = field(default_factory=list)
    pieces: list[Piece] = field(default_factory=list)
    owners: list[int] = field(default_factory=list)
    size: int = 0
    cells: int = 0

    @classmethod
    def of_entries(cls, table: str, rows: list[Row], entries: Sequence[Chunk], owners: list[int]) -> Batch:
        """A batch of rows whose ``entries`` fields are given one by one."""
        run = TableRun.of_entries(table, rows, entries)
        return cls(table, rows, [(run, 0, len(rows))], owners, run.size, run.cell_count)

    def chunks(self) -> list[memoryview]:
        """The rows' ``entries`` fields, a slice of a run's buffer for each piece."""
        return [run.chunk(start, end) for run, start, end in self.pieces]

    def entries(self) -> list[memoryview]:
        """Each row's ``entries`` field (for a retry of some of them)."""
        return [run.chunk(i, i + 1) for run, start, end in self.pieces for i in range(start, end)]

    def select(self, indexes: Sequence[int]) -> Batch:
        entries = self.entries()
        return Batch.of_entries(
            self.table,
            [self.rows[i] for i in indexes],
            [entries[i] for i in indexes],
            [self.owners[i] for i in indexes],
        )


def run_totals(runs: Sequence[TableRun]) -> tuple[int, int]:
    """Bytes and cells of every row of ``runs``."""
    return sum(run.size for run in runs), sum(run.cell_count for run in runs)


SendBatch = Callable[[Batch], dict[int, StoreError]]
"""Sends one batch (with its retries); the errors by index in the batch."""


MIN_EARLY_BYTES = 64 * 1024
"""The least a batch sent before it is full carries (smaller ones would cost an RPC each)."""


class TableBatches:
    """Open batches by table; a batch goes to ``submit`` once the next row would overflow it, or
    earlier while ``idle()`` says a sender waits for work (the fullest batch, once it holds at
    least ``MIN_EARLY_BYTES``).

    A batch holds several rows only while under both limits; a row over a limit goes alone.
    """

    def __init__(
        self,
        max_bytes: int,
        max_cells: int,
        submit: Callable[[Batch], None],
        idle: Callable[[], bool] | None = None,
    ) -> None:
        self._max_bytes = max_bytes
        self._max_cells = max_cells
        self._submit = submit
        self._idle = idle
        self._open: dict[str, Batch] = {}

    def add(self, owner: int, rows: Sequence[Row], runs: Sequence[TableRun]) -> None:
        """Add ``owner``'s rows, encoded as ``runs`` (``MutationEncoder.runs``)."""
        start = 0
        for run in runs:
            self._add_run(owner, rows[start : run.stop], run)
            start = run.stop
        idle = self._idle
        while idle is not None and idle() and self._submit_fullest():
            pass

    def _submit_fullest(self) -> bool:
        """Hand over the fullest open batch if it is worth an RPC; whether one went."""
        fullest = max(self._open.values(), key=_size_of, default=None)
        if fullest is None or fullest.size < MIN_EARLY_BYTES:
            return False
        self._submit(fullest)
        self._open[fullest.table] = Batch(fullest.table)
        return True

    def _add_run(self, owner: int, rows: Sequence[Row], run: TableRun) -> None:
        table, sizes, cells = run.table, run.ends, run.cells
        batch = self._open.get(table) or self._open.setdefault(table, Batch(table))
        count = len(rows)
        start = 0
        while start < count:
            size_before = sizes[start - 1] if start else 0
            cells_before = cells[start - 1] if start else 0
            end = min(
                bisect_right(sizes, size_before + self._max_bytes - batch.size, start),
                bisect_right(cells, cells_before + self._max_cells - batch.cells, start),
            )
            if end == start:
                if batch.rows:  # full: the next row opens a new batch
                    self._submit(batch)
                    batch = self._open[table] = Batch(table)
                    continue
                end = start + 1  # one row over a limit goes alone
            batch.rows.extend(rows[start:end])
            batch.pieces.append((run, start, end))
            batch.owners.extend(repeat(owner, end - start))
            batch.size += sizes[end - 1] - size_before
            batch.cells += cells[end - 1] - cells_before
            start = end

    def flush(self) -> None:
        """Hand over every open batch."""
        for batch in self._open.values():
            if batch.rows:
                self._submit(batch)
        self._open.clear()


class BatchSender:
    """Sends batches in the order submitted, inline or on up to ``in_flight`` background threads
    (so that much is in flight at once); remembers the owners whose rows failed.

    Once one of an owner's rows has failed for good, its rows in batches not yet started are not
    sent: the block stays incomplete anyway and will be written again whole.
    """

    def __init__(self, send: SendBatch, *, background: bool, in_flight: int = 1) -> None:
        self._send = send
        self._background = background
        self._in_flight = max(1, in_flight)
        self._executor: ThreadPoolExecutor | None = None
        self._pending: list[Future[None]] = []
        self._errors: dict[int, StoreError] = {}
        self._lock = threading.Lock()
        self._active = 0
        """Batches submitted and not yet answered."""

    def idle(self) -> bool:
        """Whether a background sender is waiting for a batch."""
        return self._background and self._active < self._in_flight

    def submit(self, batch: Batch) -> None:
        if not self._background:
            self._send_batch(batch)
            return
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=self._in_flight, thread_name_prefix="bigtable-writer")
        with self._lock:
            self._active += 1
        self._pending.append(self._executor.submit(self._send_counted, batch))

    def _send_counted(self, batch: Batch) -> None:
        try:
            self._send_batch(batch)
        finally:
            with self._lock:
                self._active -= 1

    def _send_batch(self, batch: Batch) -> None:
        errors = self._errors
        if errors:
            with self._lock:
                failed = set(errors)
            batch = batch.select([i for i, owner in enumerate(batch.owners) if owner not in failed])
            if not batch.rows:
                return
        answer = self._send(batch)
        if answer:
            with self._lock:
                for index, error in answer.items():
                    errors.setdefault(batch.owners[index], error)

    def wait(self) -> dict[int, StoreError]:
        """Wait for every submitted batch; the errors by owner, which start over afterwards."""
        pending, self._pending = self._pending, []
        wait(pending)
        for future in pending:
            future.result()  # re-raises what is not a StoreError (a bug), once all are done
        errors, self._errors = self._errors, {}
        return errors

    def close(self) -> None:
        """Let the batches in flight finish and stop the thread."""
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None
