"""A block's root hash (HIP-1424), and the streaming tree of all block hashes its footer names.

SHA-384 throughout, with domain separation: a leaf is ``H(0x00 ‖ data)``, a node with two children
``H(0x02 ‖ left ‖ right)``, with one child ``H(0x01 ‖ child)``; the empty tree is ``H(0x00)``.

1. Every hashed item is a leaf over its exact wire bytes (the whole ``BlockItem`` message).
2. Items go to five subtrees in stream order: consensus headers (round and event headers), inputs
   (signed transactions), outputs (block header, transaction results and outputs, record file),
   state changes, trace data. The footer and the proofs are not hashed. An item number newer than
   the protobufs goes where the block stream's forward-compatibility rule puts it (below).
3. Each subtree is a streaming binary tree (:class:`StreamingTree`): no padding.
4. The mountain top over the footer's three hashes and the five subtree roots, in one of two layouts:
   - ``L16`` (HIP-1424's fixed 16 positions): those 8 values and 8 extension subtree roots (the
     empty tree's hash unless a newer item fills one), fed to a streaming tree;
   - ``L8`` (blocks of HAPI before 0.77): a perfect tree of the 8 values under a one-child node.
5. The block root: ``H(0x02 ‖ H(0x00 ‖ Timestamp bytes) ‖ mountain top)``.

Which layout: the consensus node replaced L8 by L16 in 0.77 (hiero-consensus-node #26918, first in
v0.77.0-rc.9; the block node from 0.41 and the mirror node from 0.162 read L16 only, and neither
reads both). So a native block of HAPI 0.77 or later uses L16 and an earlier one L8. Wrapped record
blocks (HIP-1427) are built by software of the L16 era whatever HAPI version they carry, so they are
always L16 (the real files: wrapped mainnet blocks of HAPI 0.3 to 0.63 hash with L16).

Forward compatibility (the block node's ``BlockHasher``): an item number from 20 on hashes by its
number modulo 20: 0 and 19 are not hashed, 3 to 7 go to the five subtrees in the order above, 8 to 15
to the extension subtrees 0 to 7 (L16 only); 1, 2 and 16 to 18 need handling of their own. Those,
item numbers 13 to 18 (reserved for such items), and filtered or redacted items are refused with
:class:`UnsupportedItemError`: their place in the hash is not known, so any root would be a guess.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

from hedera_history.errors import UnsupportedItemError
from hedera_history.formats.block import ITEM_SLOTS, BlockFile, BlockItem, ItemKind
from hedera_history.speedups import block_subtree_roots as compiled_subtree_roots

EMPTY_TREE_HASH = hashlib.sha384(b"\x00").digest()
_LEAF = hashlib.sha384(b"\x00")
_PAIR = b"\x02"
_SINGLE = b"\x01"
_sha384 = hashlib.sha384

L16_CUTOVER = (0, 77)
"""The first HAPI (major, minor) whose native blocks hash with the 16-position mountain top."""
FIRST_FORWARD_COMPATIBLE_ITEM = 20
_CATEGORIES = 20


class Subtree(Enum):
    """The item subtrees, in mountain-top order (positions 3 to 7, then the extensions 8 to 15)."""

    CONSENSUS_HEADERS = 0
    INPUTS = 1
    OUTPUTS = 2
    STATE_CHANGES = 3
    TRACE_DATA = 4
    EXTENSION_0 = 5
    EXTENSION_1 = 6
    EXTENSION_2 = 7
    EXTENSION_3 = 8
    EXTENSION_4 = 9
    EXTENSION_5 = 10
    EXTENSION_6 = 11
    EXTENSION_7 = 12


_DEFINED_SUBTREES = 5
_SUBTREE_OF_KIND: dict[int, Subtree | None] = {
    ItemKind.ROUND_HEADER: Subtree.CONSENSUS_HEADERS,
    ItemKind.EVENT_HEADER: Subtree.CONSENSUS_HEADERS,
    ItemKind.SIGNED_TRANSACTION: Subtree.INPUTS,
    ItemKind.BLOCK_HEADER: Subtree.OUTPUTS,
    ItemKind.TRANSACTION_RESULT: Subtree.OUTPUTS,
    ItemKind.TRANSACTION_OUTPUT: Subtree.OUTPUTS,
    ItemKind.RECORD_FILE: Subtree.OUTPUTS,
    ItemKind.STATE_CHANGES: Subtree.STATE_CHANGES,
    ItemKind.TRACE_DATA: Subtree.TRACE_DATA,
    ItemKind.BLOCK_FOOTER: None,
    ItemKind.BLOCK_PROOF: None,
}


_POSITION_OF_KIND: dict[int, int | None] = {
    kind: None if subtree is None else subtree.value for kind, subtree in _SUBTREE_OF_KIND.items()
}
_UNKNOWN = -1
_NOT_HASHED = 0xFF
_ASK_PYTHON = 0xFE
_COMPILED_POSITIONS = bytes(
    _NOT_HASHED if position is None else position
    for position in (_POSITION_OF_KIND.get(kind, _ASK_PYTHON) for kind in range(FIRST_FORWARD_COMPATIBLE_ITEM))
)
"""For the compiled core: each item number's subtree, 0xFF for the footer and proofs; 0xFE (and any
number from 20 on) for the numbers :func:`subtree_of` decides, so that the Python loop does."""
_KIND_AND_DATA = ITEM_SLOTS[:2]


class Layout(Enum):
    L8 = "L8"
    L16 = "L16"


def leaf_hash(data: bytes) -> bytes:
    hasher = _LEAF.copy()
    hasher.update(data)
    return hasher.digest()


def internal_hash(left: bytes, right: bytes) -> bytes:
    return _sha384(_PAIR + left + right).digest()


def single_child_hash(child: bytes) -> bytes:
    return _sha384(_SINGLE + child).digest()


class StreamingTree:
    """A binary Merkle tree built as nodes arrive, holding one node per level: each new node
    merges with the ones before it while its index (0-based) is odd at that level; the root
    folds what remains from the right. No padding: one node is its own root, none the empty tree's."""

    __slots__ = ("_count", "_stack")

    def __init__(self) -> None:
        self._stack: list[bytes] = []
        self._count = 0

    def add(self, node: bytes) -> None:
        """Add a node (a leaf hash, or any 48-byte value taken as a node)."""
        _push(self._stack, node, self._count)
        self._count += 1

    @property
    def count(self) -> int:
        return self._count

    def root(self) -> bytes:
        return _fold(self._stack)


def streaming_root(nodes: Iterable[bytes]) -> bytes:
    """:class:`StreamingTree`'s root over ``nodes``."""
    stack: list[bytes] = []
    for index, node in enumerate(nodes):
        _push(stack, node, index)
    return _fold(stack)


def _push(stack: list[bytes], node: bytes, index: int) -> None:
    """Add node number ``index`` to the tree's stack, merging while its index is odd."""
    stack.append(node)
    while index & 1:
        right = stack.pop()
        stack[-1] = _sha384(_PAIR + stack[-1] + right).digest()
        index >>= 1


def _fold(stack: list[bytes]) -> bytes:
    """The root over what the stack holds, folded from the right."""
    if not stack:
        return EMPTY_TREE_HASH
    root = stack[-1]
    for node in reversed(stack[:-1]):
        root = _sha384(_PAIR + node + root).digest()
    return root


@dataclass(frozen=True, slots=True)
class BlockHashes:
    """A block's root hash and what it is made of."""

    root: bytes
    layout: Layout
    subtree_roots: tuple[bytes, ...]
    """The five subtree roots (consensus headers, inputs, outputs, state changes, trace data), then
    the eight extension roots."""
    timestamp_leaf: bytes
    mountain_top: bytes
    hashed_items: int
    """Items hashed into the subtrees (the rest: footer, proofs, items the rule leaves out)."""


def layout_for(block: BlockFile) -> Layout:
    """L16 for wrapped record blocks and for native blocks of HAPI 0.77 on; L8 before."""
    if block.wrapped:
        return Layout.L16
    version = block.hapi_version
    return Layout.L16 if (version.major, version.minor) >= L16_CUTOVER else Layout.L8


def block_hashes(block: BlockFile, layout: Layout | None = None) -> BlockHashes:
    """The block's root hash in ``layout`` (default: the block's own, :func:`layout_for`)."""
    layout = layout_for(block) if layout is None else layout
    computed = (
        None
        if compiled_subtree_roots is None
        else compiled_subtree_roots(BlockItem, _KIND_AND_DATA, block.items, _COMPILED_POSITIONS, len(Subtree))
    )
    roots, hashed = subtree_roots(block, layout) if computed is None else computed
    footer = block.footer
    top_leaves = (
        footer.previous_block_root_hash,
        footer.root_hash_of_all_block_hashes_tree,
        footer.start_of_block_state_root_hash or EMPTY_TREE_HASH,
        *roots[:_DEFINED_SUBTREES],
    )
    if layout is Layout.L16:
        mountain_top = streaming_root((*top_leaves, *roots[_DEFINED_SUBTREES:]))
    else:
        mountain_top = single_child_hash(_perfect_root(top_leaves))
    timestamp_leaf = leaf_hash(block.timestamp_bytes)
    root = internal_hash(timestamp_leaf, mountain_top)
    return BlockHashes(root, layout, roots, timestamp_leaf, mountain_top, hashed)


def subtree_roots(block: BlockFile, layout: Layout) -> tuple[tuple[bytes, ...], int]:
    """The root of each subtree (:class:`Subtree` order) over its items' leaves, and how many items
    were hashed: the Python code, run where the compiled core is absent or leaves a block to it."""
    leaves: list[list[bytes]] = [[] for _ in Subtree]
    positions = _POSITION_OF_KIND
    leaf = _LEAF.copy
    for index, item in enumerate(block.items):
        position = positions.get(item.kind, _UNKNOWN)
        if position is _UNKNOWN:
            subtree = subtree_of(item, index, block.name)
            if subtree is None:
                continue
            position = subtree.value
            if layout is Layout.L8 and position >= _DEFINED_SUBTREES:
                raise UnsupportedItemError(
                    f"field items[{index}]: {item.name} belongs to extension subtree {position - _DEFINED_SUBTREES}, "
                    f"which blocks of HAPI {block.hapi_version} (8-position mountain top) do not have",
                    file=block.name,
                )
        elif position is None:
            continue
        hasher = leaf()
        hasher.update(item.data)
        leaves[position].append(hasher.digest())
    hashed = sum(map(len, leaves))
    return tuple(streaming_root(subtree) for subtree in leaves), hashed


def block_root_hash(block: BlockFile) -> bytes:
    return block_hashes(block).root


def subtree_of(item: BlockItem, index: int, name: str) -> Subtree | None:
    """Where ``item`` is hashed (None: not hashed); UnsupportedItemError where that is not known."""
    kind = item.kind
    if kind in _SUBTREE_OF_KIND:
        return _SUBTREE_OF_KIND[kind]
    if kind >= FIRST_FORWARD_COMPATIBLE_ITEM:
        category = kind % _CATEGORIES
        if category in (0, 19):
            return None
        if 3 <= category <= 15:
            return Subtree(category - 3)
    reason = (
        f"{item.name} items are not hashed by this project yet"
        if kind in (ItemKind.FILTERED_SINGLE_ITEM, ItemKind.REDACTED_ITEM)
        else f"item number {kind} needs handling of its own (block stream forward-compatibility rule)"
    )
    raise UnsupportedItemError(f"field items[{index}]: {reason}", file=name)


def _perfect_root(leaves: tuple[bytes, ...]) -> bytes:
    level = list(leaves)
    while len(level) > 1:
        level = [internal_hash(level[i], level[i + 1]) for i in range(0, len(level), 2)]
    return level[0]


class AllBlockHashesTree:
    """``root_hash_of_all_block_hashes_tree``: the streaming tree of every earlier block's root, each
    added as a node (not re-hashed as a leaf). Block N's footer names the tree over blocks 0..N-1;
    block 0's names the empty tree's hash."""

    __slots__ = ("_tree",)

    def __init__(self) -> None:
        self._tree = StreamingTree()

    def add(self, block_root: bytes) -> None:
        self._tree.add(block_root)

    @property
    def count(self) -> int:
        return self._tree.count

    def root(self) -> bytes:
        return self._tree.root()
