"""Block files found under a folder: one run per chain folder, in block order."""

from __future__ import annotations

from pathlib import Path

import pytest
from hedera_history.errors import SourceError
from hedera_history.sources.local_blocks import find_block_runs

from tests.unit.formats.block_files import gz, linked_blocks, zst


def test_runs_by_folder_in_block_order(tmp_path: Path) -> None:
    blocks = linked_blocks(3)
    bucket = tmp_path / "mainnet" / "block" / "0000" / "0000" / "0000" / "0000"
    bucket.mkdir(parents=True)
    for number in (2, 0, 1):
        (bucket / f"{number:03d}.blk.zstd").write_bytes(zst(blocks[number]))
    flat = tmp_path / "solo"
    flat.mkdir()
    (flat / "10.blk.gz").write_bytes(gz(blocks[0]))
    (flat / "9.blk").write_bytes(blocks[1])
    (flat / "unnamed.blk.gz").write_bytes(gz(blocks[2]))  # block 2 by its header
    (flat / "broken.blk").write_bytes(b"not a block")
    (flat / "2022-01-01T00_00_00Z.rcd").write_bytes(b"a record file")
    runs = find_block_runs(tmp_path)
    assert [[(block.run, block.name, block.number) for block in run] for run in runs] == [
        [
            ("mainnet/block", "mainnet/block/0000/0000/0000/0000/000.blk.zstd", 0),
            ("mainnet/block", "mainnet/block/0000/0000/0000/0000/001.blk.zstd", 1),
            ("mainnet/block", "mainnet/block/0000/0000/0000/0000/002.blk.zstd", 2),
        ],
        [
            ("solo", "solo/unnamed.blk.gz", None),
            ("solo", "solo/9.blk", 9),
            ("solo", "solo/10.blk.gz", 10),
            ("solo", "solo/broken.blk", None),
        ],
    ]
    assert runs[0][1].read() == zst(blocks[1])


def test_a_missing_folder_or_file_is_a_source_error(tmp_path: Path) -> None:
    with pytest.raises(SourceError):
        find_block_runs(tmp_path / "missing")
    (tmp_path / "0.blk").write_bytes(linked_blocks(1)[0])
    (block,) = find_block_runs(tmp_path)[0]
    (tmp_path / "0.blk").unlink()
    with pytest.raises(SourceError):
        block.read()
