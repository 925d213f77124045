"""The compiled block hashing (``speedups.block_subtree_roots``) against the Python code: its
SHA-384 against hashlib's, and the subtree roots of any items against ``block_hash.subtree_roots``;
where the compiled core leaves a block to the Python code (an item number it does not place), the
Python code decides."""

from __future__ import annotations

import dataclasses
import hashlib
import platform
from pathlib import Path

import pytest
from hedera_history import _speedups, speedups
from hedera_history.errors import UnsupportedItemError
from hedera_history.formats.block import ITEM_SLOTS, BlockItem, ItemKind, serialize_block
from hedera_history.formats.block_hash import (
    _COMPILED_POSITIONS,
    EMPTY_TREE_HASH,
    Layout,
    Subtree,
    block_hashes,
    leaf_hash,
    streaming_root,
    subtree_roots,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from .block_files import body_items, footer_item, header_item, parsed, tss_proof_item

_SUBTREES = len(Subtree)


def _compiled(items: tuple[BlockItem, ...], *, lanes: bool = True) -> tuple[tuple[bytes, ...], int] | None:
    """The compiled roots, with eight digests side by side where the processor has AVX-512
    (``lanes``), or one at a time."""
    assert speedups.block_subtree_roots is not None, "the compiled core did not build"
    return speedups.block_subtree_roots(BlockItem, ITEM_SLOTS[:2], items, _COMPILED_POSITIONS, _SUBTREES, lanes)


def _data(size: int) -> bytes:
    return bytes((7 * i + size) % 256 for i in range(size))


@pytest.mark.parametrize("size", [*range(0, 300), 1000, 4096, 100_000])
def test_a_single_leaf_is_hashlibs_sha384(size: int) -> None:
    result = _compiled((BlockItem(ItemKind.TRANSACTION_RESULT, _data(size), 0),))
    assert result is not None
    roots, hashed = result
    assert hashed == 1
    assert roots[Subtree.OUTPUTS.value] == hashlib.sha384(b"\x00" + _data(size)).digest()
    assert roots[: Subtree.OUTPUTS.value] == (EMPTY_TREE_HASH,) * Subtree.OUTPUTS.value


@pytest.mark.parametrize("lanes", [False, True])
def test_leaves_of_every_length_side_by_side_are_hashlibs(lanes: bool) -> None:
    # One subtree per length's place mod 5, so that each tree's root is checked against hashlib's.
    kinds = (ItemKind.ROUND_HEADER, ItemKind.SIGNED_TRANSACTION, ItemKind.TRANSACTION_RESULT, ItemKind.STATE_CHANGES)
    for sizes in (range(0, 300), range(300, 1100, 7), (5, 100_000, 3, 4096, 111, 112, 113, 240)):
        items = tuple(BlockItem(kinds[index % 4], _data(size), 0) for index, size in enumerate(sizes))
        result = _compiled(items, lanes=lanes)
        assert result is not None
        tree = {kind: [leaf_hash(item.data) for item in items if item.kind == kind] for kind in kinds}
        positions = (Subtree.CONSENSUS_HEADERS, Subtree.INPUTS, Subtree.OUTPUTS, Subtree.STATE_CHANGES)
        assert [result[0][p.value] for p in positions] == [streaming_root(tree[kind]) for kind in kinds]


_ITEM = st.builds(
    BlockItem,
    st.sampled_from([*range(1, 13), 19, 20, 23, 27, 35, 39, 40, 41, 59]),
    st.binary(max_size=300),
    st.just(0),
)


@settings(max_examples=300, deadline=None)
@given(items=st.lists(_ITEM, max_size=80), layout=st.sampled_from(list(Layout)))
def test_the_compiled_roots_are_the_python_ones(items: list[BlockItem], layout: Layout) -> None:
    block = dataclasses.replace(
        parsed(serialize_block([header_item(1), footer_item(), tss_proof_item(1)])), items=tuple(items)
    )
    compiled = _compiled(block.items)
    assert _compiled(block.items, lanes=False) == compiled
    try:
        python = subtree_roots(block, layout)
    except UnsupportedItemError:
        assert compiled is None  # an item the compiled core cannot place: it leaves the block to Python
        return
    if compiled is not None:
        assert compiled == python
    else:
        assert any(item.kind not in range(1, 13) or item.kind == ItemKind.FILTERED_SINGLE_ITEM for item in items)


@pytest.mark.parametrize("count", [0, 1, 2, 3, 7, 64, 65, 1000, 1025])
def test_a_block_hashes_the_same_with_and_without_the_compiled_core(
    count: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    block = parsed(serialize_block([header_item(1), *body_items(count, count), footer_item(), tss_proof_item(1)]))
    compiled = block_hashes(block)
    assert _compiled(block.items) == (compiled.subtree_roots, compiled.hashed_items)
    assert _compiled(block.items, lanes=False) == (compiled.subtree_roots, compiled.hashed_items)
    monkeypatch.setattr("hedera_history.formats.block_hash.compiled_subtree_roots", None)
    assert block_hashes(block) == compiled


@pytest.mark.parametrize("lanes", [False, True])
def test_subtrees_without_items_are_the_empty_tree(lanes: bool) -> None:
    # The empty tree's root hashes a message of no data bytes (a null pointer, once copied by
    # memcpy: undefined behaviour that UBSan reports); an empty block, every subtree empty.
    assert _compiled((), lanes=lanes) == ((streaming_root([]),) * _SUBTREES, 0)
    assert streaming_root([]) == EMPTY_TREE_HASH


@pytest.mark.skipif(not Path("/proc/cpuinfo").exists(), reason="Linux tells the processor's usable features")
def test_eight_lanes_run_exactly_where_the_system_lets_avx512_run() -> None:
    # Linux lists avx512f only where the processor has it and the kernel saves its registers
    # (XCR0): the same two checks the core makes before it runs the lanes.
    flags = {
        word
        for line in Path("/proc/cpuinfo").read_text().splitlines()
        if line.startswith("flags")
        for word in line.split()
    }
    assert _speedups.sha384_lanes() == (8 if "avx512f" in flags and platform.machine() == "x86_64" else 1)
