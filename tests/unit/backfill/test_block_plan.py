"""Planning a backfill over blocks: partitions by block number, each with the block before it; a job
through a network's cutover plans its blocks from the block bucket after the last record file's block."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hedera_history.backfill.block_driver import plan_block_job
from hedera_history.backfill.block_plan import BlockJob, ListedBlock, node_blocks, partition_blocks
from hedera_history.backfill.cutover import blocks_after_records
from hedera_history.backfill.partition_messages import BackfillJob
from hedera_history.config import Settings
from hedera_history.errors import JobArgumentError
from hedera_history.formats.names import block_file_path
from hedera_history.formats.stream_paths import BucketLayout
from hedera_history.sources.base import ObjectSource, PassThroughSource
from hedera_history.sources.local import LocalSource
from hedera_history.sources.period_files import StreamLocation
from hedera_history.times import parse_time


class ListingRecorder(PassThroughSource):
    """A source that records how it was listed."""

    def __init__(self, inner: ObjectSource) -> None:
        super().__init__(inner)
        self.listed: list[tuple[str, str | None]] = []

    def list(self, prefix: str = "", *, delimiter: str | None = None, start_after: str | None = None) -> Iterator[Any]:
        self.listed.append((prefix, start_after))
        return super().list(prefix, delimiter=delimiter, start_after=start_after)


def _listed(*numbers: int) -> list[ListedBlock]:
    return [ListedBlock(number, f"{number}.blk") for number in numbers]


def test_partitions_are_contiguous_ranges_each_with_the_block_before_it() -> None:
    plans = partition_blocks(_listed(9, 10, 11, 12, 13, 14, 15), 10, 3)
    assert [[block.number for block in plan.blocks] for plan in plans] == [[10, 11], [12, 13], [14, 15]]
    assert [plan.before.number if plan.before else None for plan in plans] == [9, 11, 13]


def test_the_first_partition_has_no_predecessor_when_none_was_listed() -> None:
    (plan,) = partition_blocks(_listed(10, 11), 10, 1)
    assert plan.before is None and (plan.first, plan.last) == (10, 11)
    assert partition_blocks(_listed(9), 10, 4) == []
    assert [block.number for block in node_blocks(10, 12)] == [10, 11, 12]  # a record file may precede 10


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"source_url": "", "block_nodes": ""}, "exactly one"),
        ({"block_nodes": "localhost:40840"}, "exactly one"),
        ({"first_block": 5, "last_block": 4}, "empty"),
        ({"source_url": "", "block_nodes": "localhost:40840", "last_block": None}, "--last-block"),
    ],
)
def test_a_block_job_is_checked(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(JobArgumentError, match=message):
        BlockJob(**{"settings": Settings(), "first_block": 0, "last_block": 9, "source_url": "/d", **changes})


def test_mainnet_through_the_cutover_lists_the_block_bucket_after_the_last_record_files_block(tmp_path: Path) -> None:
    settings = Settings.from_env(network="mainnet", project="p")
    job = BackfillJob(
        source_url="gs://hedera-mainnet-streams",
        location=StreamLocation(BucketLayout.NODE_ID, "", "mainnet"),
        settings=settings,
        book=b"book",
        start_ns=parse_time("2019-09-13"),
        end_ns=parse_time("2027-01-01"),
        ratio=Fraction(1, 3),
    )
    blocks = blocks_after_records(job)
    assert blocks is not None
    assert (blocks.source_url, blocks.folder) == ("gs://hedera-mainnet-recent-block-streams", "mainnet/block/")
    assert (blocks.book, blocks.ratio) == (b"book", Fraction(1, 3))

    last_record_block = 90_000_000
    for number in range(last_record_block - 5, last_record_block + 7):
        path = tmp_path / "mainnet" / "block" / block_file_path(number)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"")
    bucket = ListingRecorder(LocalSource(str(tmp_path)))
    listed, plans = plan_block_job(replace(blocks, first_block=last_record_block + 1), 2, source=bucket)
    ((prefix, after),) = bucket.listed
    assert (prefix, after) == ("mainnet/block/", f"mainnet/block/{block_file_path(last_record_block - 1)}")
    assert listed[0].number == last_record_block  # the link into the first block
    assert [plan.first for plan in plans] == [last_record_block + 1, last_record_block + 4]
    assert plans[-1].last == last_record_block + 6

    # A range that ends before the announced cutover, or reads another source, has no block part.
    assert blocks_after_records(replace(job, end_ns=parse_time("2026-01-01"))) is None
    assert blocks_after_records(replace(job, source_url="/mirror/copy")) is None
