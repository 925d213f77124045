"""The follower's block sources: the bucket read at each block's name, block nodes first, a block
one source lacks (or a source that fails) asked of the next; the name of the block after an
uploaded one."""

from __future__ import annotations

from pathlib import Path

import pytest
from hedera_history.config import Settings
from hedera_history.errors import SourceUnavailableError
from hedera_history.follow.block_sources import BucketBlocks, CompositeBlocks, FetchedBlock, NodeBlocks, with_registered
from hedera_history.formats.names import block_file_path
from hedera_history.pipeline.ingest_block import successor_name
from hedera_history.sources.local import LocalSource


class _Fixed:
    def __init__(self, kind: str, blocks: dict[int, bytes], *, failing: bool = False) -> None:
        self.kind, self.blocks, self.failing, self.asked = kind, blocks, failing, 0

    def fetch(self, number: int) -> FetchedBlock | None:
        self.asked += 1
        if self.failing:
            raise SourceUnavailableError("down")
        data = self.blocks.get(number)
        return None if data is None else FetchedBlock(number, f"{number}.blk", data, self.kind)

    def newest(self) -> int | None:
        if self.failing:
            raise SourceUnavailableError("down")
        return max(self.blocks, default=None)


def test_the_bucket_is_read_at_the_block_name_and_a_missing_block_is_none(tmp_path: Path) -> None:
    path = tmp_path / "demo" / "block" / "0000" / "0000" / "0000" / "0001" / "002.blk.zstd"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"block 1002")
    bucket = BucketBlocks(LocalSource(str(tmp_path)), "demo/block/")
    fetched = bucket.fetch(1002)
    assert fetched == FetchedBlock(1002, "demo/block/0000/0000/0000/0001/002.blk.zstd", b"block 1002", "bucket")
    assert bucket.fetch(1003) is None


def test_block_nodes_first_and_a_block_one_source_lacks_comes_from_the_next() -> None:
    node = _Fixed("block node", {1: b"from the node"})
    bucket = _Fixed("bucket", {1: b"from the bucket", 2: b"only in the bucket"})
    sources = CompositeBlocks([node, bucket])
    first, second = sources.fetch(1), sources.fetch(2)
    assert first is not None and (first.source, first.data) == ("block node", b"from the node")
    assert second is not None and (second.source, second.data) == ("bucket", b"only in the bucket")
    assert sources.fetch(3) is None
    assert sources.kinds == "block node, bucket"


def test_a_failing_source_is_passed_over_and_counted() -> None:
    sources = CompositeBlocks([_Fixed("block node", {}, failing=True), _Fixed("bucket", {5: b"five"})])
    fetched = sources.fetch(5)
    assert fetched is not None and fetched.source == "bucket"
    assert sources.errors == 1


def test_the_newest_block_of_a_bucket_is_found_down_the_last_number_folders(tmp_path: Path) -> None:
    for number in (7, 1002, 10_000_001):
        path = tmp_path / "demo" / "block" / block_file_path(number)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"block")
    (path.parent / "notes.txt").write_bytes(b"not a block")
    assert BucketBlocks(LocalSource(str(tmp_path)), "demo/block/").newest() == 10_000_001
    assert BucketBlocks(LocalSource(str(tmp_path)), "other/block/").newest() is None


def test_the_newest_block_of_the_sources_is_the_highest_any_has_and_a_failing_one_is_passed_over() -> None:
    sources = CompositeBlocks(
        [_Fixed("block node", {}, failing=True), _Fixed("block node", {9: b""}), _Fixed("bucket", {8: b""})]
    )
    assert sources.newest() == 9
    assert sources.errors == 1
    assert CompositeBlocks([_Fixed("bucket", {})]).newest() is None


@pytest.mark.parametrize(
    ("name", "number", "expected"),
    [
        ("demo/block/0000/0000/0000/0000/003.blk.zstd", 4, "demo/block/0000/0000/0000/0000/004.blk.zstd"),
        ("demo/block/0000/0000/0000/0000/999.blk.zstd", 1000, "demo/block/0000/0000/0000/0001/000.blk.zstd"),
        ("blocks/0000000000000000007.blk.gz", 8, "blocks/0000000000000000008.blk.gz"),
        ("blocks/7.blk", 8, "blocks/8.blk"),
    ],
)
def test_the_block_after_an_uploaded_one_is_named_as_it_is(name: str, number: int, expected: str) -> None:
    assert successor_name(name, number) == expected


def test_registered_block_nodes_are_not_asked_where_unsigned_blocks_are_taken() -> None:
    """A placeholder proof is anyone's to make: a registrant's blocks would be taken as they are."""
    sources = CompositeBlocks([])
    assert with_registered(sources, ["good.example:40840"], Settings(unsigned_blocks=True)) is sources


def test_a_registered_endpoint_that_does_not_parse_is_left_out_not_raised() -> None:
    """The registry is read from the chain and kept: one bad entry (kept before names were checked)
    must not stop the follower; the others are read."""
    settings = Settings(block_node_discovery=True)
    found = with_registered(CompositeBlocks([]), ["bad,host:1", "x:1:2", "good.example:40840"], settings)
    (nodes,) = found.sources
    assert isinstance(nodes, NodeBlocks)
    assert [(n.endpoint.host, n.endpoint.port) for n in nodes.client.nodes] == [("good.example", 40840)]
