"""The block root hash: the streaming tree, the two mountain-top layouts and the forward-compatibility rule."""

from __future__ import annotations

import hashlib

import pytest
from hedera_history.errors import UnsupportedItemError
from hedera_history.formats.block import serialize_block
from hedera_history.formats.block_hash import (
    EMPTY_TREE_HASH,
    AllBlockHashesTree,
    Layout,
    Subtree,
    block_hashes,
    internal_hash,
    layout_for,
    leaf_hash,
    single_child_hash,
    streaming_root,
)

from .block_files import body_items, footer_item, header_item, item, parsed, tss_proof_item


def _h(data: bytes) -> bytes:
    return hashlib.sha384(data).digest()


def _reference_root(nodes: list[bytes]) -> bytes:
    """The streaming tree's shape, stated directly: the largest power of two on the left, the rest on the right."""
    if not nodes:
        return EMPTY_TREE_HASH
    if len(nodes) == 1:
        return nodes[0]
    split = 1 << ((len(nodes) - 1).bit_length() - 1)
    return _h(b"\x02" + _reference_root(nodes[:split]) + _reference_root(nodes[split:]))


@pytest.mark.parametrize("count", range(34))
def test_the_streaming_tree_is_the_left_full_tree(count: int) -> None:
    nodes = [_h(bytes([i])) for i in range(count)]
    assert streaming_root(nodes) == _reference_root(nodes)


def test_domain_separation_prefixes() -> None:
    assert _h(b"\x00") == EMPTY_TREE_HASH
    assert leaf_hash(b"item") == _h(b"\x00item")
    assert internal_hash(b"l", b"r") == _h(b"\x02lr")
    assert single_child_hash(b"c") == _h(b"\x01c")


def _block(*middle: bytes, minor: int = 78) -> bytes:
    return serialize_block([header_item(3, minor=minor), *middle, footer_item(), tss_proof_item(3)])


def _eight(header: bytes, body: list[bytes]) -> list[bytes]:
    """The 8 mountain-top values of a block of ``header``, ``body``, and a footer of empty-tree hashes."""
    header_leaf, round_header, *rest = [leaf_hash(i) for i in (header, *body)]
    consensus = _reference_root([round_header, rest[0], rest[5]])
    inputs = _reference_root([rest[1], rest[6]])
    outputs = _reference_root([header_leaf, rest[2], rest[3], rest[7], rest[8]])
    state = _reference_root([rest[4], rest[9]])
    return [EMPTY_TREE_HASH, EMPTY_TREE_HASH, EMPTY_TREE_HASH, consensus, inputs, outputs, state, EMPTY_TREE_HASH]


def test_the_root_by_hand_in_both_layouts() -> None:
    body = body_items(1, 2)
    l16 = parsed(_block(*body))
    l8 = parsed(_block(*body, minor=76))
    assert (layout_for(l16), layout_for(l8)) == (Layout.L16, Layout.L8)
    top16 = _reference_root(_eight(header_item(3), body) + [EMPTY_TREE_HASH] * 8)
    assert block_hashes(l16).root == internal_hash(leaf_hash(l16.timestamp_bytes), top16)
    top8 = single_child_hash(_reference_root(_eight(header_item(3, minor=76), body)))
    assert block_hashes(l8).root == internal_hash(leaf_hash(l8.timestamp_bytes), top8)
    assert block_hashes(l16, Layout.L8).root != block_hashes(l16).root


def test_the_layout_changes_at_hapi_0_77_and_wrapped_blocks_are_always_l16() -> None:
    assert layout_for(parsed(_block(minor=77))) is Layout.L16
    assert layout_for(parsed(_block(minor=76))) is Layout.L8
    wrapped = parsed(_block(item(10, b"\x0a\x00"), minor=3))
    assert wrapped.wrapped and layout_for(wrapped) is Layout.L16


def test_footer_and_proofs_are_not_hashed_but_the_footer_hashes_are() -> None:
    base = block_hashes(parsed(_block()))
    other_proof = serialize_block([header_item(3), footer_item(), tss_proof_item(3, b"\x01" * 10)])
    assert block_hashes(parsed(other_proof)).root == base.root
    other_footer = serialize_block([header_item(3), footer_item(previous=b"\x01" * 48), tss_proof_item(3)])
    assert block_hashes(parsed(other_footer)).root != base.root
    no_state = serialize_block([header_item(3), footer_item(state=b""), tss_proof_item(3)])
    assert block_hashes(parsed(no_state)).root == base.root  # an empty state root counts as the empty tree


@pytest.mark.parametrize(
    ("number", "subtree"),
    [(23, Subtree.CONSENSUS_HEADERS), (24, Subtree.INPUTS), (45, Subtree.OUTPUTS), (27, Subtree.TRACE_DATA)],
)
def test_a_future_item_hashes_where_its_category_puts_it(number: int, subtree: Subtree) -> None:
    known = {Subtree.CONSENSUS_HEADERS: 3, Subtree.INPUTS: 4, Subtree.OUTPUTS: 5, Subtree.TRACE_DATA: 11}[subtree]
    payload = b"\x0a\x03abc"
    future = block_hashes(parsed(_block(item(number, payload))))
    # Same leaf position, different bytes: only that subtree's root differs from the known kind's.
    same_place = block_hashes(parsed(_block(item(known, payload))))
    differing = [
        i for i, (a, b) in enumerate(zip(future.subtree_roots, same_place.subtree_roots, strict=True)) if a != b
    ]
    assert differing == [subtree.value]
    assert future.subtree_roots[subtree.value] == leaf_hash(item(number, payload)) or subtree is Subtree.OUTPUTS


def test_future_items_of_categories_0_and_19_are_not_hashed() -> None:
    base = block_hashes(parsed(_block())).root
    assert block_hashes(parsed(_block(item(20, b"x"), item(39, b"y"), item(40, b"z")))).root == base


def test_extension_subtrees_exist_only_in_l16() -> None:
    extended = block_hashes(parsed(_block(item(28, b"x"))))
    assert extended.subtree_roots[Subtree.EXTENSION_0.value] == leaf_hash(item(28, b"x"))
    with pytest.raises(UnsupportedItemError, match="extension subtree 0"):
        block_hashes(parsed(_block(item(28, b"x"), minor=73)))


@pytest.mark.parametrize("number", [8, 19, 13, 18, 21, 22, 36, 37, 38])
def test_items_whose_place_is_not_known_are_refused(number: int) -> None:
    with pytest.raises(UnsupportedItemError, match=r"items\[1\]"):
        block_hashes(parsed(_block(item(number, b"x"))))


def test_the_all_block_hashes_tree_adds_roots_as_nodes() -> None:
    tree = AllBlockHashesTree()
    assert tree.root() == EMPTY_TREE_HASH
    roots = [_h(bytes([i])) for i in range(5)]
    for count, root in enumerate(roots, start=1):
        tree.add(root)
        assert tree.count == count
        assert tree.root() == _reference_root(roots[:count])
    assert tree.root() != streaming_root(leaf_hash(root) for root in roots)
