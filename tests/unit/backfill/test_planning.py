"""Listing a range, cutting it into partitions, choosing start states, narrowing to blocks, retention."""

from __future__ import annotations

import threading
import time
from collections.abc import Generator, Iterator
from pathlib import Path

import pytest
from hedera_history.backfill.partitioning import (
    MIN_PERIODS_PER_PARTITION,
    assumed_starts,
    default_partition_count,
    narrow_to_blocks,
    partition_periods,
    refuse_outside_retention,
)
from hedera_history.backfill.resume_rows import BookCheckpoint
from hedera_history.books.codec import BookState
from hedera_history.books.parse import parse_address_book
from hedera_history.config import Settings
from hedera_history.errors import ConfigError, RetentionWindowError, SourceUnavailableError
from hedera_history.formats.stream_paths import BucketLayout, NodeIdentity
from hedera_history.gen import GeneratedStream, drop_signatures, write_stream
from hedera_history.sources.base import ObjectInfo
from hedera_history.sources.local import LocalSource
from hedera_history.sources.period_files import StreamLocation
from hedera_history.sources.period_listing import (
    ListedPeriod,
    common_name_prefix,
    list_periods,
    name_chunks,
    node_folder,
)
from hedera_history.store.chaintime import NS_PER_DAY

NS = 1_000_000_000
ACCOUNT = StreamLocation(BucketLayout.ACCOUNT)


def _listed(count: int, start_ns: int = 1_000 * NS) -> list[ListedPeriod]:
    return [ListedPeriod(f"p{i:03d}", start_ns + i * 2 * NS, 4) for i in range(count)]


# ---- listing -------------------------------------------------------------------------------------


def test_common_name_prefix() -> None:
    hour = 3600 * NS
    start = 1_717_200_000 * NS  # 2024-06-01T00:00:00Z
    assert common_name_prefix(start, start + hour) == "2024-06-01T00_"
    assert common_name_prefix(start, start + 24 * hour) == "2024-06-01T"
    assert common_name_prefix(start, start + 30 * 24 * hour) == "2024-06-"
    assert common_name_prefix(start, start + 2 * NS) == "2024-06-01T00_00_0"


def test_name_chunks_cut_the_range_at_day_boundaries() -> None:
    day = 86_400 * NS
    start = 1_717_200_000 * NS + 3600 * NS  # 2024-06-01T01:00:00Z
    chunks = name_chunks(start, start + 2 * day)
    assert [c.prefix for c in chunks] == ["2024-06-01T", "2024-06-02T", "2024-06-03T00_"]
    assert [(c.start_ns, c.end_ns) for c in chunks] == [
        (start, start + 23 * 3600 * NS),
        (start + 23 * 3600 * NS, start + 47 * 3600 * NS),
        (start + 47 * 3600 * NS, start + 2 * day),
    ]
    assert [c.prefix for c in name_chunks(start, start + 60 * NS)] == ["2024-06-01T01_00_"]
    assert name_chunks(start, start) == []
    # Chunks that would list with one prefix are listed once.
    assert [c.prefix for c in name_chunks(start + 10 * NS, start + 18 * NS, 5 * NS)] == ["2024-06-01T01_00_1"]


def test_node_folders_in_both_layouts() -> None:
    assert node_folder(ACCOUNT, NodeIdentity(account="0.0.3")) == "recordstreams/record0.0.3/"
    node_id = StreamLocation(BucketLayout.NODE_ID, "streams/", "mainnet", 0)
    assert node_folder(node_id, NodeIdentity(node_id=7)) == "streams/mainnet/0/7/record/"


def test_every_period_of_the_range_in_time_order(small_stream: GeneratedStream, small_dir: Path) -> None:
    book = parse_address_book(small_stream.address_book)
    periods = small_stream.periods
    start, end = periods[2].record_name.consensus_ns, periods[9].record_name.consensus_ns
    # Chunks of 5 s: periods are 2 s apart, so several chunks and their edges are exercised.
    listed = list(list_periods(LocalSource(small_dir), ACCOUNT, ACCOUNT.identities(book), start, end, chunk_ns=5 * NS))
    assert [p.period_key for p in listed] == [p.record_name.period_key for p in periods[2:9]]
    assert all(p.signatures == 4 for p in listed)


def test_a_period_signed_by_one_node_only_is_still_listed(small_stream: GeneratedStream, tmp_path: Path) -> None:
    write_stream(drop_signatures(small_stream, nodes=[0, 1, 2], periods=[3]), tmp_path)
    book = parse_address_book(small_stream.address_book)
    listed = list(list_periods(LocalSource(tmp_path), ACCOUNT, ACCOUNT.identities(book), *_whole(small_stream)))
    assert len(listed) == len(small_stream.periods)
    assert listed[3].signatures == 1


class _BrokenFolder(LocalSource):
    """Lists every folder but one normally."""

    def list(
        self, prefix: str = "", *, delimiter: str | None = None, start_after: str | None = None
    ) -> Iterator[ObjectInfo]:
        if prefix.startswith("recordstreams/record0.0.5/"):
            raise SourceUnavailableError("listing timed out", file=prefix)
        return super().list(prefix, delimiter=delimiter, start_after=start_after)


def test_a_folder_that_cannot_be_listed_fails_the_listing(small_stream: GeneratedStream, small_dir: Path) -> None:
    book = parse_address_book(small_stream.address_book)
    with pytest.raises(SourceUnavailableError, match="timed out"):
        list(list_periods(_BrokenFolder(small_dir), ACCOUNT, ACCOUNT.identities(book), *_whole(small_stream)))


def test_stopping_early_stops_the_listing_threads(small_stream: GeneratedStream, small_dir: Path) -> None:
    book = parse_address_book(small_stream.address_book)
    before = threading.active_count()
    # A range of many days, so the threads are still listing when the consumer stops.
    start, end = _whole(small_stream)
    periods = list_periods(LocalSource(small_dir), ACCOUNT, ACCOUNT.identities(book), start, end + 3650 * NS_PER_DAY)
    assert next(periods).period_key == small_stream.periods[0].record_name.period_key
    assert isinstance(periods, Generator)
    periods.close()
    deadline = time.monotonic() + 5
    while threading.active_count() > before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert threading.active_count() <= before


# ---- partitions and start states -----------------------------------------------------------------


def test_partitions_are_contiguous_and_near_equal() -> None:
    periods = _listed(10)
    plans = partition_periods(periods, partitions=3, start_block=100)
    assert [len(p.periods) for p in plans] == [3, 3, 4]
    assert [p.start_block for p in plans] == [100, 103, 106]
    assert [q for p in plans for q in p.periods] == periods
    assert len(partition_periods(periods, periods_per_partition=4)) == 3
    assert len(partition_periods(periods, partitions=50)) == 10
    assert partition_periods([], partitions=3) == []
    with pytest.raises(ConfigError):
        partition_periods(periods, partitions=0)


def test_the_default_partitioning_gives_every_core_a_task() -> None:
    """At least one partition per core, in whole rounds over the cores, never below the minimum
    size; a long range is cut by the largest size."""
    per_partition = 500
    for periods, cores, expected in (
        (40, 1, 1),
        (40, 2, 2),
        (40, 8, 4),  # 10 periods each at least
        (15, 2, 1),
        (1_000, 2, 2),
        (1_500, 2, 4),  # 3 partitions of 500 would leave a core idle in the second round
        (1_500, 4, 4),
        (10_000, 4, 20),
        (10_000, 64, 64),
    ):
        assert default_partition_count(periods, per_partition, cores) == expected, (periods, cores)
        plans = partition_periods(_listed(periods), periods_per_partition=per_partition, parallelism=cores)
        assert len(plans) == expected
        assert min(len(p.periods) for p in plans) >= min(MIN_PERIODS_PER_PARTITION, periods)
        assert max(len(p.periods) for p in plans) <= per_partition
    assert len(partition_periods(_listed(40), partitions=3, parallelism=8)) == 3  # a named number wins
    with pytest.raises(ConfigError):
        partition_periods(_listed(4), parallelism=0)


def test_partitions_start_from_the_latest_checkpoint_before_them(small_stream: GeneratedStream) -> None:
    bootstrap = BookState.of(parse_address_book(small_stream.address_book))
    changed = BookState.of(parse_address_book(small_stream.address_books[-1].book), {102: b"x"})
    plans = partition_periods(_listed(9), partitions=3)
    checkpoint = BookCheckpoint(plans[1].periods[1].consensus_ns, bootstrap.fingerprint, changed)
    runs = assumed_starts(plans, bootstrap, {checkpoint.consensus_ns: checkpoint})
    assert [run.start for run in runs] == [bootstrap, bootstrap, changed]


def test_narrowing_to_blocks_by_binary_search() -> None:
    periods = _listed(100)
    asked: list[int] = []

    def number_of(index: int) -> int:
        asked.append(index)
        return 500 + index

    chosen, offset = narrow_to_blocks(periods, 520, 529, number_of)
    assert (list(chosen), offset) == (periods[20:30], 20)
    assert len(asked) <= 16
    assert narrow_to_blocks(periods, None, 504, number_of)[0] == periods[:5]
    assert narrow_to_blocks(periods, 590, None, number_of) == (periods[90:], 90)
    assert list(narrow_to_blocks(periods, 700, 800, number_of)[0]) == []


# ---- retention -----------------------------------------------------------------------------------


def test_retention_refuses_a_range_older_than_the_window() -> None:
    now = 1_800_000_000 * NS
    settings = Settings(retention_days=7)
    refuse_outside_retention(now - 6 * NS_PER_DAY, settings, now)
    refuse_outside_retention(0, Settings(), now)  # no window: everything is kept
    with pytest.raises(RetentionWindowError) as caught:
        refuse_outside_retention(now - 8 * NS_PER_DAY, settings, now)
    message = str(caught.value)
    assert "7-day retention window" in message and "HEDERA_HISTORY_RETENTION_DAYS" in message


def _whole(stream: GeneratedStream) -> tuple[int, int]:
    return stream.periods[0].record_name.consensus_ns, stream.periods[-1].record_name.consensus_ns + 1
