"""The follower's listing cost, counted on its real loop with the default settings: one minute of
an idle 30-node bucket costs (30 + 19 x 3) list calls per 10 s, the figure docs/follow.md prices
(751,680 a day against the reference's 5,184,000)."""

from __future__ import annotations

import re
from typing import Any, cast

import pytest
from hedera_history.config import Settings
from hedera_history.follow.follower import Follower, FollowerClock
from hedera_history.formats.names import format_timestamp
from hedera_history.pipeline.address_books import AddressBookHistory
from hedera_history.pipeline.ingest import IngestContext
from hedera_history.store import schema as s

from tests.unit.deploy.infra import REPO
from tests.unit.store.fakes import MemoryGateway

from .memory_source import MemorySource
from .test_follower_loop import HeldLease

NODES = 30
FOLDERS = [f"recordstreams/record0.0.{n}/" for n in range(3, 3 + NODES)]
T0 = 1_717_200_000_000_000_000
SECONDS_A_DAY = 86_400


def lists_in(seconds: float, settings: Settings, monkeypatch: pytest.MonkeyPatch) -> int:
    source = MemorySource()
    for folder in FOLDERS:  # every node has uploaded up to the start; nothing new comes
        source.put(f"{folder}{format_timestamp(T0)}.rcd_sig")
    now = [0.0]

    def sleep(duration: float) -> None:
        now[0] += duration

    monkeypatch.setattr(Follower, "_book_folders", lambda self, consensus_ns: FOLDERS)
    unused: Any = None  # nothing is handed to ingest: the bucket is idle
    gateway = MemoryGateway([s.INGEST_PROGRESS, s.ADDRESS_BOOKS])
    books = AddressBookHistory(cast(Any, gateway), unused)
    ctx = IngestContext(settings, unused, source, unused, books, cast(Any, gateway), unused, unused)
    follower = Follower(
        ctx,
        settings,
        lease=cast(Any, HeldLease()),
        start=format_timestamp(T0 + 1),
        clock=FollowerClock(monotonic=lambda: now[0], sleep=sleep),
    )
    follower.run(lambda: now[0] >= seconds)
    return len(source.lists)


def test_a_minute_of_listing_with_the_default_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = Settings()
    assert (settings.follow_poll_seconds, settings.follow_hot_nodes, settings.follow_full_listing_seconds) == (
        0.5,
        3,
        10.0,
    )
    per_ten_seconds = NODES + 19 * 3  # one full listing, then 19 polls of the hot folders
    assert lists_in(60, settings, monkeypatch) == 6 * per_ten_seconds
    per_day = per_ten_seconds * SECONDS_A_DAY // 10
    reference = NODES * 2 * SECONDS_A_DAY  # every folder every 0.5 s
    doc = (REPO / "docs" / "follow.md").read_text()
    figures = {int(n.replace(",", "")) for n in re.findall(r"\| ([0-9,]+) \| \$", doc)}
    assert {per_day, reference} <= figures, "docs/follow.md prices other list counts"


def test_listing_every_folder_every_poll_is_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    every_folder = Settings(follow_hot_nodes=0)
    assert lists_in(60, every_folder, monkeypatch) == NODES * 120
