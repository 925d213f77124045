"""Reading the next period's files while a task verifies and writes the current one.

A task goes through its periods one after another, and from a bucket each period costs a few round
trips (every node's signature file, a record copy, its sidecars) that would leave the task's core
idle. :class:`ReadAhead` hands out each period's files and, in one background thread, reads the
next period's signature files, the record copy verification reads first (the first node's: it
takes the agreeing nodes in node order) and that node's first sidecar file (a period with contract
calls has one; where there is none the read finds nothing and verification does not ask for it),
so they are there when verification asks.

The files of a period are those of the address book in force at it, which the blocks before it may
change: a period read ahead under another book than the one in force when it is handed out is
dropped and read as usual. A read that fails in the background is done again, and fails, where
verification handles its error.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
from collections.abc import Sequence

from hedera_history.books.address_book import AddressBook
from hedera_history.errors import HistoryError
from hedera_history.formats.stream_paths import NodeIdentity
from hedera_history.sources.base import ObjectSource
from hedera_history.sources.period_files import SourcePeriod, StreamLocation
from hedera_history.verify.period import FetchedFile

FIRST_SIDECAR = 1
"""Sidecar files of a period are numbered from 1 (``..._01.rcd.gz``)."""


class ReadAheadPeriod:
    """A period's files (:class:`~hedera_history.verify.period.PeriodFiles`) being read in the
    background; every question waits for that read to end first."""

    def __init__(
        self, period: SourcePeriod, book: AddressBook, pool: concurrent.futures.Executor, *, sidecars: bool
    ) -> None:
        self.period = period
        self.book = book
        nodes = period.nodes()
        self._node = nodes[0] if nodes else None
        self._sidecars = sidecars
        self._record: FetchedFile | None = None
        self._record_read = False
        self._sidecar: FetchedFile | None = None
        self._sidecar_read = False
        self._reading = pool.submit(self._read)

    def _read(self) -> None:
        self.period.prefetch_signatures()
        if self._node is None:
            return
        self._record = self.period.record(self._node)
        self._record_read = True
        if self._sidecars and self._record is not None:
            self._sidecar = self.period.sidecar(self._node, FIRST_SIDECAR)
            self._sidecar_read = True

    def _wait(self) -> None:
        # A read that failed is done again when asked, where verification handles its error.
        with contextlib.suppress(HistoryError):
            self._reading.result()

    @property
    def period_key(self) -> str:
        return self.period.period_key

    @property
    def consensus_ns(self) -> int:
        return self.period.consensus_ns

    def nodes(self) -> Sequence[NodeIdentity]:
        return self.period.nodes()

    def signature(self, node: NodeIdentity) -> FetchedFile | None:
        self._wait()
        return self.period.signature(node)

    def record(self, node: NodeIdentity) -> FetchedFile | None:
        self._wait()
        if self._record_read and node == self._node:
            return self._record
        return self.period.record(node)

    def sidecar(self, node: NodeIdentity, sidecar_id: int) -> FetchedFile | None:
        self._wait()
        if self._sidecar_read and node == self._node and sidecar_id == FIRST_SIDECAR:
            return self._sidecar
        return self.period.sidecar(node, sidecar_id)


class ReadAhead:
    """Hands out periods in order, the next one read ahead; close it when done."""

    def __init__(self, source: ObjectSource, location: StreamLocation, *, sidecars: bool = True) -> None:
        """``sidecars``: whether verification reads sidecar files (``Settings.sidecars_enabled``)."""
        self.source = source
        self.location = location
        self.sidecars = sidecars
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="read-ahead")
        self._next: ReadAheadPeriod | None = None

    def period(self, period_key: str, book: AddressBook, next_key: str | None) -> SourcePeriod | ReadAheadPeriod:
        """The files of ``period_key`` under ``book`` (the book in force there); starts reading
        those of ``next_key`` (None: nothing follows) under the same book."""
        ahead, self._next = self._next, None
        files: SourcePeriod | ReadAheadPeriod
        if ahead is not None and ahead.period_key == period_key and ahead.book is book:
            files = ahead
        else:
            files = SourcePeriod.for_book(self.source, self.location, period_key, book)
        if next_key is not None:
            upcoming = SourcePeriod.for_book(self.source, self.location, next_key, book)
            self._next = ReadAheadPeriod(upcoming, book, self._pool, sidecars=self.sidecars)
        return files

    def close(self) -> None:
        """Stop: a read under way ends, none starts."""
        self._next = None
        self._pool.shutdown(wait=True, cancel_futures=True)
