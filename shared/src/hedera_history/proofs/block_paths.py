"""Merkle paths in a native block (HIP-1424): from an item's leaf to the block root, and from the
block root to the root a later block's state proof has signed. Pure: no I/O.

A path is a list of :class:`Step` (the sibling's hash and whether it goes first), folded from the
leaf ``SHA-384(0x00 ‖ item)`` upwards: ``SHA-384(0x02 ‖ left ‖ right)``, or for an empty sibling a
one-child node ``SHA-384(0x01 ‖ child)``. An item's path is its subtree's streaming tree, then the
mountain top (L16: a streaming tree of 16 positions; L8: a perfect tree of 8 under a one-child
node), then the timestamp leaf on the left (``formats.block_hash`` builds the same tree).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hedera_history.errors import TssStateProofError
from hedera_history.formats.block import BlockFile
from hedera_history.formats.block_hash import (
    EMPTY_TREE_HASH,
    BlockHashes,
    Layout,
    internal_hash,
    leaf_hash,
    single_child_hash,
    streaming_root,
    subtree_of,
)
from hedera_history.verify.tss.state_proof import MerklePath, walk_state_proof

_MOUNTAIN_VALUES = 3
"""The footer's three hashes come first on the mountain top, before the subtree roots."""
_DEFINED_SUBTREES = 5


@dataclass(frozen=True, slots=True)
class Step:
    sibling: bytes
    """Empty: a one-child node."""
    is_first: bool
    """The sibling is the left child."""


def fold(value: bytes, steps: Sequence[Step]) -> bytes:
    """The root ``steps`` lead to from the node ``value``."""
    for step in steps:
        if not step.sibling:
            value = single_child_hash(value)
        elif step.is_first:
            value = internal_hash(step.sibling, value)
        else:
            value = internal_hash(value, step.sibling)
    return value


def streaming_path(nodes: Sequence[bytes], index: int) -> list[Step]:
    """The path of node ``index`` to the root of the streaming tree over ``nodes``
    (``formats.block_hash.StreamingTree``): perfect subtrees by the binary digits of the count,
    largest first, folded from the right."""
    if not 0 <= index < len(nodes):
        raise IndexError(f"node {index} of a tree of {len(nodes)}")
    spans: list[tuple[int, int]] = []
    start, count = 0, len(nodes)
    for bit in reversed(range(count.bit_length())):
        size = 1 << bit
        if count & size:
            spans.append((start, size))
            start += size
    which = next(k for k, (first, size) in enumerate(spans) if first <= index < first + size)
    first, size = spans[which]
    steps = _perfect_path(nodes[first : first + size], index - first)
    if which + 1 < len(spans):
        # The spans after it are the streaming tree of the nodes after it.
        steps.append(Step(streaming_root(nodes[spans[which + 1][0] :]), is_first=False))
    for earlier in reversed(spans[:which]):
        steps.append(Step(streaming_root(nodes[earlier[0] : earlier[0] + earlier[1]]), is_first=True))
    return steps


@dataclass(frozen=True, slots=True)
class ItemPaths:
    """Paths of some of a block's items to its root."""

    root: bytes
    top: list[bytes]
    """The mountain top's leaves: the footer's three hashes, then the subtree roots (16 in all for
    L16, 8 for L8)."""
    paths: dict[int, list[Step]]
    """Item index -> its path to ``root``."""


def item_paths(block: BlockFile, hashes: BlockHashes, indexes: Sequence[int]) -> ItemPaths:
    """The path of each item at ``indexes`` (hashed items only) to the block root ``hashes`` names."""
    leaves: list[list[bytes]] = [[] for _ in hashes.subtree_roots]
    where: dict[int, tuple[int, int]] = {}
    for index, item in enumerate(block.items):
        subtree = subtree_of(item, index, block.name)
        if subtree is None:
            continue
        where[index] = (subtree.value, len(leaves[subtree.value]))
        leaves[subtree.value].append(leaf_hash(item.data))
    footer = block.footer
    top = [
        footer.previous_block_root_hash,
        footer.root_hash_of_all_block_hashes_tree,
        footer.start_of_block_state_root_hash or EMPTY_TREE_HASH,
        *hashes.subtree_roots,
    ]
    if hashes.layout is Layout.L8:
        top = top[: _MOUNTAIN_VALUES + _DEFINED_SUBTREES]
    paths = {}
    for index in indexes:
        if index not in where:
            raise ValueError(f"items[{index}] ({block.items[index].name}) is not hashed into the block root")
        tree, position = where[index]
        steps = streaming_path(leaves[tree], position)
        paths[index] = steps + top_path(top, tree, hashes.layout, hashes.timestamp_leaf)
    return ItemPaths(hashes.root, top, paths)


def top_path(top: Sequence[bytes], subtree: int, layout: Layout, timestamp_leaf: bytes) -> list[Step]:
    """From subtree ``subtree``'s root (its place on the mountain top) to the block root."""
    position = _MOUNTAIN_VALUES + subtree
    if layout is Layout.L16:
        steps = streaming_path(top, position)
    else:
        steps = [*_perfect_path(top, position), Step(b"", is_first=False)]
    return [*steps, Step(timestamp_leaf, is_first=True)]


def top_size(layout: Layout) -> int:
    return 2 * (_MOUNTAIN_VALUES + _DEFINED_SUBTREES) if layout is Layout.L16 else _MOUNTAIN_VALUES + _DEFINED_SUBTREES


def state_proof_path(paths: Sequence[MerklePath], block_root: bytes) -> list[Step]:
    """A block state proof's paths as one path from ``block_root`` to the root they lead to (the
    later block's, which the proof's signature signs): the walk of
    ``verify.tss.state_proof.walk_state_proof``, remembering the siblings met by the value that
    started from the block root's hash leaf. TssStateProofError when the proof does not hold."""
    signed = walk_state_proof(paths, block_root)
    walker = _TrackingWalk(paths, block_root)
    steps = walker.run()
    if fold(block_root, steps) != signed.root:
        raise TssStateProofError("the state proof's paths do not form one path from the block root")
    return steps


class _TrackingWalk:
    """The state proof walk with each value carrying its path from the block root (or None)."""

    def __init__(self, paths: Sequence[MerklePath], block_root: bytes) -> None:
        self.paths = paths
        self.block_root = block_root
        self.waiting: dict[int, tuple[int, bytes, list[Step] | None]] = {}
        self.result: list[Step] | None = None

    def run(self) -> list[Step]:
        for start, path in enumerate(self.paths):
            if self.result is not None:
                break
            if not path.is_leaf:
                continue
            tracked: list[Step] | None = [] if path.content_kind == "hash" and path.content == self.block_root else None
            value = path.content if path.content_kind == "hash" else leaf_hash(path.content)
            value, tracked = _fold_tracked(value, tracked, path)
            self._follow(start, value, tracked)
        if self.result is None:
            raise TssStateProofError("no path from the block root reaches the final join")
        return self.result

    def _follow(self, start: int, value: bytes, tracked: list[Step] | None) -> None:
        lowest = start
        index = self.paths[start].next_path_index
        while index >= 0:
            if index not in self.waiting:
                self.waiting[index] = (lowest, value, tracked)
                return
            other_start, other_value, other_tracked = self.waiting.pop(index)
            if other_start < lowest:
                left, right, lowest = (other_value, other_tracked), (value, tracked), other_start
            else:
                left, right = (value, tracked), (other_value, other_tracked)
            if left[1] is not None:
                tracked = [*left[1], Step(right[0], is_first=False)]
            elif right[1] is not None:
                tracked = [*right[1], Step(left[0], is_first=True)]
            else:
                tracked = None
            value = internal_hash(left[0], right[0])
            join = self.paths[index]
            value, tracked = _fold_tracked(value, tracked, join)
            index = join.next_path_index
        if tracked is not None:
            self.result = tracked


def _fold_tracked(value: bytes, tracked: list[Step] | None, path: MerklePath) -> tuple[bytes, list[Step] | None]:
    steps = [Step(sibling.hash, is_first=sibling.is_left) for sibling in path.siblings]
    return fold(value, steps), None if tracked is None else [*tracked, *steps]


def _perfect_path(nodes: Sequence[bytes], index: int) -> list[Step]:
    steps = []
    level = list(nodes)
    while len(level) > 1:
        sibling = index ^ 1
        steps.append(Step(level[sibling], is_first=sibling < index))
        level = [internal_hash(level[i], level[i + 1]) for i in range(0, len(level), 2)]
        index >>= 1
    return steps
