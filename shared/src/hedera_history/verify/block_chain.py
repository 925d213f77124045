"""Block footers linked into a chain: each names the root of the block before it, and the root of
the streaming tree of every block root before it (HIP-1056).

Blocks come in ascending order. Block N's ``previous_block_root_hash`` must be block N-1's root
(block 0's: the empty tree's hash), and its ``root_hash_of_all_block_hashes_tree`` the tree over
the roots of blocks 0..N-1 (block 0's: the empty tree's hash). A link that does not hold is a
:class:`BrokenChainError`, as between record files. A link that cannot be checked here is
``unverifiable``, never assumed: block N-1 is not in the run (a gap, a run starting after 0) or
could not be hashed; the all-blocks tree is known only while the run holds every block from 0.

Each block's computed root goes on as the predecessor, whether the block verified or not: a
footer's link is a plain hash commitment, and the next block either names that root or it does not.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from hedera_history.errors import BlockNumberMismatchError, BrokenChainError, VerificationError
from hedera_history.formats.block import BlockFile
from hedera_history.formats.block_hash import EMPTY_TREE_HASH, AllBlockHashesTree


class Link(Enum):
    OK = "ok"
    BROKEN = "broken"
    UNVERIFIABLE = "unverifiable"


@dataclass(frozen=True, slots=True)
class BlockLinks:
    """How a block's footer links to the blocks before it."""

    previous: str
    """The previous block's file name, ``genesis`` for block 0, or the block that is missing."""
    previous_root: Link
    all_block_hashes_root: Link
    reason: str = ""
    """Why a link is unverifiable."""

    @property
    def ok(self) -> bool:
        return self.previous_root is Link.OK and self.all_block_hashes_root is Link.OK


@dataclass(frozen=True, slots=True)
class _Predecessor:
    number: int
    root: bytes
    name: str


class BlockChain:
    """The chain of one run of blocks: the last block's root, and the tree of all roots while whole."""

    __slots__ = ("_previous", "_tree")

    def __init__(self) -> None:
        self._previous: _Predecessor | None = None
        self._tree: AllBlockHashesTree | None = AllBlockHashesTree()

    def link(self, block: BlockFile, root: bytes) -> tuple[BlockLinks, VerificationError | None]:
        """Check ``block``'s footer (``root`` is the block's own) and make the block the predecessor
        of the next; the links, and the first that does not hold (BrokenChainError, or
        BlockNumberMismatchError for a number that does not ascend)."""
        previous, tree = self._previous, self._tree
        self._previous = _Predecessor(block.number, root, block.name)
        expected_tree: bytes | None = None
        if tree is not None and tree.count == block.number:
            expected_tree = tree.root()
            tree.add(root)
        else:
            self._tree = None
        if previous is not None and block.number <= previous.number:
            error = BlockNumberMismatchError(
                f"block {block.number} comes after block {previous.number}: a run of blocks ascends",
                file=f"{previous.name} -> {block.name}",
            )
            return BlockLinks(previous.name, Link.BROKEN, Link.UNVERIFIABLE, str(error)), error
        footer = block.footer
        reasons: list[str] = []
        errors: list[VerificationError] = []
        if previous is not None and previous.number == block.number - 1:
            previous_name, previous_root = previous.name, previous.root
        elif block.number == 0:
            previous_name, previous_root = "genesis", EMPTY_TREE_HASH
        else:
            previous_name, previous_root = f"block {block.number - 1}", None
            reasons.append(f"block {block.number - 1} is not in this run (or could not be hashed)")
        previous_link = _compare(
            footer.previous_block_root_hash, previous_root, "previous_block_root_hash", previous_name, block, errors
        )
        if expected_tree is None:
            reasons.append(f"the roots of blocks 0..{block.number - 1} are not all in this run")
        tree_source = f"blocks 0..{block.number - 1}" if block.number else "genesis"
        tree_link = _compare(
            footer.root_hash_of_all_block_hashes_tree,
            expected_tree,
            "root_hash_of_all_block_hashes_tree",
            tree_source,
            block,
            errors,
        )
        return BlockLinks(previous_name, previous_link, tree_link, "; ".join(reasons)), (errors[0] if errors else None)

    def lose(self) -> None:
        """A block of the run could not be read or hashed: nothing after it links to a known root."""
        self._previous = None
        self._tree = None


def _compare(
    found: bytes, expected: bytes | None, field: str, source: str, block: BlockFile, errors: list[VerificationError]
) -> Link:
    if expected is None:
        return Link.UNVERIFIABLE
    if found == expected:
        return Link.OK
    errors.append(
        BrokenChainError(
            f"footer {field}: expected {expected.hex()} (from {source}), got {found.hex()}",
            file=f"{source} -> {block.name}",
        )
    )
    return Link.BROKEN
