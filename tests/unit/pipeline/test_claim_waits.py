"""What a run costs the state table while another verifies its period, and once the period is
published: one read of the period's row a look (its claim cell is in it), looks spaced further
and further apart and shared by the instance's threads for a moment, no address-book read
for a file that is never read late, and one delete of its pending mark an instance."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, cast

import pytest
from hedera_history.books.address_book import AddressBook
from hedera_history.config import Settings
from hedera_history.formats.stream_paths import parse_object_path
from hedera_history.pipeline.ingest import IngestContext, Outcome
from hedera_history.pipeline.ingest_record import LATE_BOOK_SECONDS, ingest_period
from hedera_history.pipeline.period_state import (
    CLAIM_POLL_MAX_SECONDS,
    CLAIM_POLL_SECONDS,
    SETTLE_SECONDS,
    SHARED_LOOK_SECONDS,
    PeriodProgress,
    Stage,
)
from hedera_history.pipeline.recent_reads import RecentReads
from hedera_history.pipeline.state_cells import PENDING, PERIOD, Q_LOCATION, Q_PERIOD, Q_PUBLISHED, location_to_json
from hedera_history.store import schema as s
from hedera_history.store.keys import hex16

from tests.unit.pipeline.test_period_state import LOCATION, PERIOD_KEY, PUBLISHED, new_state

SIDECAR = parse_object_path(f"recordstreams/record0.0.3/sidecar/{PERIOD_KEY}_01.rcd.gz")


SIGNERS_RECORD = parse_object_path(f"recordstreams/record0.0.3/{PERIOD_KEY}.rcd.gz")


class CountingBooks:
    """An address-book history that counts its lookups (and, unless ``book`` is given, expects none)."""

    def __init__(self, book: AddressBook | None = None) -> None:
        self.lookups = 0
        self.book = book

    def consensus_book_at(self, consensus_ns: int) -> AddressBook:
        self.lookups += 1
        if self.book is None:
            raise AssertionError(f"book looked up for {consensus_ns}")
        return self.book


def context(state: Any, books: CountingBooks) -> IngestContext:
    return cast(IngestContext, _Context(state, books))


class _Context:
    def __init__(self, state: Any, books: CountingBooks) -> None:
        self.state, self.books = state, books
        self.settings = Settings()
        self.recent_books: RecentReads[AddressBook] = RecentReads()


def publish(state: Any) -> None:
    signed = replace(PUBLISHED, signers=frozenset({"0.0.3"}))
    cells = [(Q_LOCATION, location_to_json(LOCATION)), (Q_PUBLISHED, signed.to_json())]
    state.put(PERIOD + hex16(PUBLISHED.block_time_ns), cells, 1)


def progress_reads(gateway: Any) -> int:
    return sum(1 for table, _ in gateway.read_queries if table == s.INGEST_PROGRESS)


def test_a_late_sidecar_of_a_published_period_reads_its_row_once_and_no_book() -> None:
    state, gateway = new_state()
    publish(state)
    books = CountingBooks()
    result = ingest_period(context(state, books), PERIOD_KEY, LOCATION, trigger=SIDECAR)
    assert (result.outcome, result.block_number) == (Outcome.ALREADY_PUBLISHED, PUBLISHED.block_number)
    assert progress_reads(gateway) == 1
    assert books.lookups == 0


def test_a_waiting_run_reads_the_row_once_a_look_and_backs_off(monkeypatch: pytest.MonkeyPatch) -> None:
    state, gateway = new_state()
    holder = PeriodProgress.of(state, PERIOD_KEY, LOCATION, Stage.NEW)
    assert holder.claim()  # another run verifies the period
    gateway.read_queries.clear()
    pauses: list[float] = []

    def pause(seconds: float) -> None:
        pauses.append(seconds)
        if len(pauses) == 5:
            publish(state)  # the other run published it meanwhile

    monkeypatch.setattr("hedera_history.pipeline.period_state.time.sleep", pause)
    monkeypatch.setattr("hedera_history.pipeline.recent_reads.time.monotonic", lambda: 1000.0 + sum(pauses))
    result = ingest_period(context(state, CountingBooks()), PERIOD_KEY, LOCATION, trigger=SIDECAR)
    assert result.outcome is Outcome.ALREADY_PUBLISHED
    assert pauses == [CLAIM_POLL_SECONDS, 2 * CLAIM_POLL_SECONDS, 4 * CLAIM_POLL_SECONDS] + 2 * [CLAIM_POLL_MAX_SECONDS]
    assert progress_reads(gateway) == len(pauses) + 1, "one read of the period's row a look, none of its claim"


def test_looks_of_one_instance_share_a_read_until_it_writes_the_row(monkeypatch: pytest.MonkeyPatch) -> None:
    state, gateway = new_state()
    now = [1000.0]
    monkeypatch.setattr("hedera_history.pipeline.recent_reads.time.monotonic", lambda: now[0])
    consensus_ns = PUBLISHED.block_time_ns
    first = state.period_and_claim(consensus_ns, max_age=SHARED_LOOK_SECONDS)
    now[0] += SHARED_LOOK_SECONDS / 2
    assert state.period_and_claim(consensus_ns, max_age=SHARED_LOOK_SECONDS) == first
    assert progress_reads(gateway) == 1, "a look another thread made a moment ago answers"
    assert state.period_and_claim(consensus_ns) == first and progress_reads(gateway) == 2, "a plain read reads"
    publish(state)  # this instance wrote the row: what it remembered of it goes
    known, _ = state.period_and_claim(consensus_ns, max_age=SHARED_LOOK_SECONDS)
    assert known is not None and known.published is not None and progress_reads(gateway) == 3
    now[0] += 2 * SHARED_LOOK_SECONDS
    state.period_and_claim(consensus_ns, max_age=SHARED_LOOK_SECONDS)
    assert progress_reads(gateway) == 4, "an older look reads again"


def test_the_late_files_of_a_period_a_publication_wakes_share_one_read_of_the_book(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state, _ = new_state()
    publish(state)
    now = [1000.0]
    monkeypatch.setattr("hedera_history.pipeline.recent_reads.time.monotonic", lambda: now[0])
    books = CountingBooks(cast(AddressBook, object()))  # never consulted: the path names the node's account
    ctx = context(state, books)
    for _ in range(3):  # the signer's own copy: checked against nothing, but its node's account is looked up
        result = ingest_period(ctx, PERIOD_KEY, LOCATION, trigger=SIGNERS_RECORD)
        assert result.outcome is Outcome.ALREADY_PUBLISHED
        now[0] += LATE_BOOK_SECONDS / 4
    assert books.lookups == 1
    now[0] += LATE_BOOK_SECONDS
    ingest_period(ctx, PERIOD_KEY, LOCATION, trigger=SIGNERS_RECORD)
    assert books.lookups == 2, "an older read is not taken"


def test_the_runs_a_publication_wakes_delete_its_pending_mark_once_an_instance(monkeypatch: pytest.MonkeyPatch) -> None:
    state, gateway = new_state()
    publish(state)
    now = [1000.0]
    monkeypatch.setattr("hedera_history.pipeline.recent_reads.time.monotonic", lambda: now[0])
    ctx = context(state, CountingBooks())

    def pending_deletes() -> int:
        return sum(1 for _, keys in gateway.deleted for key in keys if key.startswith(PENDING))

    for _ in range(3):
        ingest_period(ctx, PERIOD_KEY, LOCATION, trigger=SIDECAR)
        now[0] += SETTLE_SECONDS / 4
    assert pending_deletes() == 1
    state.put(PENDING + hex16(PUBLISHED.block_time_ns), [(Q_PERIOD, PERIOD_KEY.encode())], 1)  # this instance wrote it
    ingest_period(ctx, PERIOD_KEY, LOCATION, trigger=SIDECAR)
    assert pending_deletes() == 2 and state.pending(10) == []
    now[0] += SETTLE_SECONDS
    ingest_period(ctx, PERIOD_KEY, LOCATION, trigger=SIDECAR)
    assert pending_deletes() == 3, "a delete older than the window is made again"


def test_a_recent_read_answers_within_its_age_and_a_fresh_one_is_remembered() -> None:
    reads: list[int] = []

    def read() -> int:
        reads.append(len(reads))
        return len(reads)

    recent: RecentReads[int] = RecentReads()
    assert recent.read_through(b"k", 0.0, read) == 1  # no age: always read, and remembered
    assert recent.read_through(b"k", 60.0, read) == 1
    assert recent.read_through(b"k", 0.0, read) == 2
    recent.forget(b"k")
    assert recent.read_through(b"k", 60.0, read) == 3
    assert len(reads) == 3
