"""Block file names: the bucket layout's folders, flat numbers, and names without a number."""

from __future__ import annotations

import pytest
from hedera_history.errors import FileNameError
from hedera_history.formats.names import block_file_path, is_block_file_name, parse_block_file_name


@pytest.mark.parametrize(
    ("path", "number", "compression"),
    [
        ("mainnet/block/0000/0000/0000/0000/007.blk.zstd", 7, "zstd"),
        ("0000/0000/0001/2345/678.blk.zstd", 12_345_678, "zstd"),
        ("x/0000000000000000007.blk.zstd", 7, "zstd"),
        ("16.blk.gz", 16, "gz"),
        ("/data/blocks/82297471.blk", 82_297_471, ""),
        ("wrapped-mainnet/v2-block.blk.gz", None, "gz"),
        ("0000/0000/0000/0000/1234.blk.gz", 1234, "gz"),  # not the bucket shape: the name alone
    ],
)
def test_the_number_a_path_gives(path: str, number: int | None, compression: str) -> None:
    parsed = parse_block_file_name(path)
    assert (parsed.number, parsed.compression, parsed.name) == (number, compression, path.rsplit("/", 1)[-1])
    assert is_block_file_name(path)


@pytest.mark.parametrize("path", ["7.rcd.gz", "7.blk.bz2", "7.blk.zstd.tmp", "blk", ".blk"])
def test_other_names_are_not_block_files(path: str) -> None:
    assert not is_block_file_name(path)
    with pytest.raises(FileNameError):
        parse_block_file_name(path)


def test_paths_are_written_as_the_buckets_and_the_block_node_name_them() -> None:
    assert block_file_path(7) == "0000/0000/0000/0000/007.blk.zstd"
    assert block_file_path(82_297_471, compression="gz", bucket=False) == "0000000000082297471.blk.gz"
    assert block_file_path(1, compression="") == "0000/0000/0000/0000/001.blk"
    for number in (0, 999, 1000, 10**18 + 5):
        assert parse_block_file_name(block_file_path(number)).number == number
    with pytest.raises(FileNameError):
        block_file_path(10**19)
