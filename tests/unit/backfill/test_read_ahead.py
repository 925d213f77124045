"""The next period's files are read while a task verifies the current one, under the right book."""

from __future__ import annotations

import threading
from typing import Any

from hedera_history.backfill.driver import run_backfill, run_in_process
from hedera_history.backfill.read_ahead import ReadAhead, ReadAheadPeriod
from hedera_history.books.parse import parse_address_book
from hedera_history.errors import SourceUnavailableError
from hedera_history.formats.stream_paths import BucketLayout
from hedera_history.sources.base import DEFAULT_MAX_OBJECT_BYTES, PassThroughSource
from hedera_history.sources.local import LocalSource
from hedera_history.sources.period_files import SourcePeriod, StreamLocation

from .conftest import InProcess

LOCATION = StreamLocation(BucketLayout.ACCOUNT)
PATIENCE_SECONDS = 60.0
"""How long a read waits for another one to start before the test gives up (a busy machine)."""


class _WaitsForTheNextPeriod(PassThroughSource):
    """Reading the first period's record file waits until a file of the second period is read."""

    def __init__(self, inner: LocalSource, first: str, second: str) -> None:
        super().__init__(inner)
        self.first, self.second = first, second
        self.second_started = threading.Event()
        self.overlapped = False

    def read(self, name: str, *, max_bytes: int = DEFAULT_MAX_OBJECT_BYTES) -> bytes:
        if self.second in name:
            self.second_started.set()
        elif self.first in name and ".rcd" in name:
            self.overlapped = self.second_started.wait(PATIENCE_SECONDS)
        return self.inner.read(name, max_bytes=max_bytes)


def test_the_next_periods_files_are_read_while_the_current_one_is_verified(
    backfill: InProcess, small_reference: dict[str, Any]
) -> None:
    first, second = (period.record_name.period_key for period in backfill.stream.periods[:2])
    source = _WaitsForTheNextPeriod(LocalSource(backfill.folder), first, second)
    job = backfill.job(partitions=1)
    report = run_backfill(
        job, run_in_process(job, source=source, gateway=backfill.gateway), gateway=backfill.gateway, source=source
    )
    assert report.ok, report.summary_lines()
    assert source.overlapped
    assert backfill.history() == small_reference


def test_a_period_read_ahead_under_another_book_is_read_again(backfill: InProcess) -> None:
    book = parse_address_book(backfill.stream.address_book)
    other = parse_address_book(backfill.stream.address_book)  # equal, but not the book in force
    first, second, third = (period.record_name.period_key for period in backfill.stream.periods[:3])
    ahead = ReadAhead(LocalSource(backfill.folder), LOCATION)
    try:
        assert isinstance(ahead.period(first, book, second), SourcePeriod)
        read_ahead = ahead.period(second, book, third)
        assert isinstance(read_ahead, ReadAheadPeriod) and read_ahead.period_key == second
        again = ahead.period(third, other, None)
        assert isinstance(again, SourcePeriod) and again.period_key == third
    finally:
        ahead.close()


class _FailsOnce(PassThroughSource):
    def __init__(self, inner: LocalSource) -> None:
        super().__init__(inner)
        self.failed = False

    def read(self, name: str, *, max_bytes: int = DEFAULT_MAX_OBJECT_BYTES) -> bytes:
        if not self.failed:
            self.failed = True
            raise SourceUnavailableError(f"{name}: the bucket did not answer")
        return self.inner.read(name, max_bytes=max_bytes)


def test_a_read_that_failed_in_the_background_is_done_again_when_asked(backfill: InProcess) -> None:
    book = parse_address_book(backfill.stream.address_book)
    first, second = (period.record_name.period_key for period in backfill.stream.periods[:2])
    source = _FailsOnce(LocalSource(backfill.folder))
    ahead = ReadAhead(source, LOCATION)
    try:
        ahead.period(first, book, second)
        files = ahead.period(second, book, None)
        assert isinstance(files, ReadAheadPeriod)
        node = files.nodes()[0]
        signature, record = files.signature(node), files.record(node)
    finally:
        ahead.close()
    assert source.failed
    assert signature is not None and signature.data
    assert record is not None and record.data


class _Counting(PassThroughSource):
    def __init__(self, inner: LocalSource) -> None:
        super().__init__(inner)
        self.reads = 0

    def read(self, name: str, *, max_bytes: int = DEFAULT_MAX_OBJECT_BYTES) -> bytes:
        self.reads += 1
        return self.inner.read(name, max_bytes=max_bytes)


def test_the_first_nodes_record_and_first_sidecar_come_from_the_read_ahead(backfill: InProcess) -> None:
    book = parse_address_book(backfill.stream.address_book)
    first, second = (period.record_name.period_key for period in backfill.stream.periods[:2])
    for sidecars, sidecar_reads in ((True, 0), (False, 1)):
        source = _Counting(LocalSource(backfill.folder))
        ahead = ReadAhead(source, LOCATION, sidecars=sidecars)
        try:
            ahead.period(first, book, second)
            files = ahead.period(second, book, None)
            node = files.nodes()[0]
            assert files.signature(node) is not None  # waits for the read ahead
            before = source.reads
            assert files.record(node) is not None
            files.sidecar(node, 1)
        finally:
            ahead.close()
        assert source.reads - before == sidecar_reads, sidecars
