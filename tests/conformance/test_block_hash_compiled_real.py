"""Every real block file's subtree roots, by the compiled core and by the Python code, in both
layouts: the same bytes (the roots themselves are checked against the README in test_blocks_real)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hedera_history import speedups
from hedera_history.formats.block import ITEM_SLOTS, BlockItem, parse_block_file
from hedera_history.formats.block_hash import _COMPILED_POSITIONS, Layout, Subtree, block_hashes, subtree_roots

from .block_golden import ALL_BLOCKS, BLOCKS, BlockGolden


@pytest.mark.parametrize("golden", ALL_BLOCKS, ids=lambda g: g.path.removeprefix(f"{BLOCKS}/"))
def test_the_compiled_subtree_roots_are_the_python_ones(hedera_data: Path, golden: BlockGolden) -> None:
    assert speedups.block_subtree_roots is not None, "the compiled core did not build"
    block = parse_block_file((hedera_data / golden.path).read_bytes(), golden.path)
    compiled = speedups.block_subtree_roots(BlockItem, ITEM_SLOTS[:2], block.items, _COMPILED_POSITIONS, len(Subtree))
    assert compiled is not None  # every real item is of a kind the compiled core places
    one_by_one = speedups.block_subtree_roots(
        BlockItem, ITEM_SLOTS[:2], block.items, _COMPILED_POSITIONS, len(Subtree), False
    )
    assert one_by_one == compiled
    for layout in Layout:
        assert compiled == subtree_roots(block, layout)
        hashes = block_hashes(block, layout)
        assert (hashes.subtree_roots, hashes.hashed_items) == compiled
