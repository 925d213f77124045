"""The follower's loop on an in-memory bucket that grows between ticks, with ingest replaced by a
recording fake: hand-offs in order, a failing hand-off retried, late files, the stored position."""

from __future__ import annotations

from collections import Counter
from typing import Any, cast

import pytest
from hedera_history.config import Settings
from hedera_history.follow import follower as follower_module
from hedera_history.follow.follower import Follower, FollowerClock
from hedera_history.follow.position import read_position
from hedera_history.formats.names import format_timestamp
from hedera_history.pipeline.address_books import AddressBookHistory, StreamStart
from hedera_history.pipeline.ingest import IngestContext, IngestResult, Outcome
from hedera_history.store import schema as s

from tests.unit.store.fakes import ConditionalMemoryGateway

from .memory_source import MemorySource

T0 = 1_717_200_000_000_000_000
FOLDERS = [f"recordstreams/record0.0.{n}/" for n in (3, 4, 5)]
SETTINGS = Settings(
    follow_poll_seconds=0.01,
    follow_full_listing_seconds=0.05,
    follow_settle_seconds=0.0,
    follow_hot_nodes=1,
    follow_workers=2,
)


class HeldLease:
    held = True

    def acquire(self) -> bool:
        return True

    def keep(self) -> bool:
        return True

    def release(self) -> None:
        pass


def key(index: int) -> str:
    return format_timestamp(T0 + index * 2_000_000_000)


def test_the_loop_follows_a_growing_bucket(monkeypatch: pytest.MonkeyPatch) -> None:
    source = MemorySource()
    gateway = ConditionalMemoryGateway([s.INGEST_PROGRESS, s.ADDRESS_BOOKS])
    handed: Counter[str] = Counter()
    late: list[str] = []
    published: set[str] = set()

    def ingest_period(ctx: Any, period_key: str, location: Any, **_: Any) -> IngestResult:
        handed[period_key] += 1
        if period_key == key(1) and handed[period_key] == 1:
            raise RuntimeError("a bug in one run")  # retried, never dropped
        published.add(period_key)
        return IngestResult(Outcome.PUBLISHED, period_key)

    def ingest_object(ctx: Any, name: str) -> IngestResult:
        late.append(name)
        return IngestResult(Outcome.SIGNATURE_ADDED)

    monkeypatch.setattr(follower_module, "ingest_period", ingest_period)
    monkeypatch.setattr(follower_module, "ingest_object", ingest_object)
    monkeypatch.setattr(Follower, "_book_folders", lambda self, consensus_ns: FOLDERS)
    unused: Any = None  # parts of the context only ingest (faked here) uses
    books = AddressBookHistory(cast(Any, gateway), unused)
    ctx = IngestContext(SETTINGS, unused, source, unused, books, cast(Any, gateway), unused, unused)
    follower = Follower(
        ctx,
        SETTINGS,
        lease=cast(Any, HeldLease()),
        start=format_timestamp(T0 - 1),
        clock=FollowerClock(sleep=lambda _: None),
    )

    ticks = 0

    def until() -> bool:
        nonlocal ticks
        ticks += 1
        if ticks <= 3:  # one period a tick, the last node's folder behind by a tick
            for folder in FOLDERS[:2]:
                source.put(f"{folder}{key(ticks - 1)}.rcd_sig")
            if ticks > 1:
                source.put(f"{FOLDERS[2]}{key(ticks - 2)}.rcd_sig")
        if ticks == 4:
            source.put(f"{FOLDERS[2]}{key(2)}.rcd_sig")
        # The failed hand-off is retried after a second of backoff: ticks are 10 ms apart.
        return ticks > 20_000 or (len(published) == 3 and len(late) >= 1 and ticks > 20)

    report = follower.run(until)
    assert report.followed and report.errors and "a bug in one run" in report.errors[0]
    assert published == {key(0), key(1), key(2)}
    assert handed[key(1)] == 2 and handed[key(0)] == handed[key(2)] == 1
    position = read_position(gateway)
    assert position is not None and position.period_key == key(2)
    # An empty store: the first period handed off is recorded as where the history begins.
    assert books.stream_start() == StreamStart(key(0), None)
    assert position.listed[FOLDERS[2]] == f"{FOLDERS[2]}{key(2)}.rcd_sig"
