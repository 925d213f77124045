"""Putting complete blocks in chain order, with reorgs by weight, for the in-memory consumer.

Rules: a child of the head is emitted at once (with any of its descendants already waiting);
a block whose parent is unknown waits; a block on a side branch takes over only when the
heaviest block it leads to is strictly heavier than the head (equal weight: the head, seen
first, stays). Blocks lighter than the head and more than ``threshold`` numbers below it are
dropped, and so is history that deep: a fork from further back needs the Reorg channel.
"""

from __future__ import annotations

from collections import defaultdict

from hedera_history.cardinal.chain_blocks import Block, BlockHeader, BlockRef, ChainUpdate
from hedera_history.cardinal.messages import HASH_SIZE
from hedera_history.errors import ConfigError

_UNKNOWN_PARENT = bytes(HASH_SIZE)


class ChainOrderer:
    """The canonical chain (the last ``threshold`` numbers of it), side branches and waiting blocks.

    ``start`` is a block the application already holds (its children are emitted first); without
    it, the first block offered becomes the head, and its siblings may still compete with it.
    """

    def __init__(self, threshold: int, start: BlockHeader | None = None) -> None:
        if threshold < 1:
            raise ConfigError(f"reorg threshold must be at least 1, got {threshold}")
        self._threshold = threshold
        self._root = start
        """The parent of the oldest canonical block held: known by hash, not held itself."""
        self._canonical: list[Block] = []
        self._index: dict[bytes, int] = {}
        """Canonical block hash -> its position in ``_canonical``."""
        self._blocks: dict[bytes, Block] = {}
        self._children: defaultdict[bytes, list[bytes]] = defaultdict(list)

    @property
    def head(self) -> BlockHeader | None:
        return self._canonical[-1].header if self._canonical else self._root

    def holds(self, block_hash: bytes) -> bool:
        return block_hash in self._blocks

    def add(self, block: Block) -> ChainUpdate | None:
        """Offer a complete block; the chain change it causes, if any."""
        if block.hash in self._blocks or (self._root is not None and block.hash == self._root.hash):
            return None
        head = self.head
        if head is None:
            self._root = BlockHeader(block.parent, max(block.number - 1, 0), _UNKNOWN_PARENT, 0)
            head = self._root
        elif block.weight < head.weight and head.number - block.number > self._threshold:
            return None
        self._blocks[block.hash] = block
        self._children[block.parent].append(block.hash)
        return self._place(block)

    def extend_with_held(self, block_hash: bytes) -> ChainUpdate | None:
        """Make a held side block (and what it leads to) the head's continuation, if it is the
        head's child: a Reorg channel re-sending a block this consumer completed before."""
        block = self._blocks.get(block_hash)
        head = self.head
        if block is None or head is None or block.parent != head.hash or block_hash in self._index:
            return None
        return self._extend(self._heaviest_path(block))

    def revert_to(self, ancestor_hash: bytes, ancestor_number: int) -> ChainUpdate:
        """A Reorg message: the head goes back to the common ancestor."""
        position = self._index.get(ancestor_hash)
        if position is not None:
            removed = tuple(self._canonical[position + 1 :])
            del self._canonical[position + 1 :]
            ancestor = self._canonical[position].header
        else:
            removed = tuple(b for b in self._canonical if b.number > ancestor_number)
            known = self._blocks.get(ancestor_hash)
            if known is not None:
                ancestor = known.header
            elif self._root is not None and self._root.hash == ancestor_hash:
                ancestor = self._root
            else:
                ancestor = BlockHeader(ancestor_hash, ancestor_number, _UNKNOWN_PARENT, 0)
            self._canonical.clear()
            self._root = ancestor
        self._reindex()
        return ChainUpdate(removed=removed, reverted_to=BlockRef(ancestor.hash, ancestor.number))

    # ---- internals -------------------------------------------------------------------------------

    def _connected(self, block: Block) -> bool:
        """Whether ``block`` descends from the canonical chain (or its root)."""
        current = block
        while True:
            if current.parent in self._index or (self._root is not None and current.parent == self._root.hash):
                return True
            parent = self._blocks.get(current.parent)
            if parent is None:
                return False
            current = parent

    def _heaviest_path(self, start: Block) -> list[Block]:
        """From ``start`` down to the heaviest block it leads to (first seen on a tie)."""
        best_path = [start]
        stack = [[start]]
        while stack:
            path = stack.pop()
            if path[-1].weight > best_path[-1].weight:
                best_path = path
            # Reversed so that earlier children are explored, and so win ties, first.
            for child_hash in reversed(self._children.get(path[-1].hash, [])):
                stack.append([*path, self._blocks[child_hash]])
        return best_path

    def _place(self, block: Block) -> ChainUpdate | None:
        if not self._connected(block):
            return None
        path = self._heaviest_path(block)
        head = self.head
        assert head is not None
        if block.parent == head.hash:
            return self._extend(path)
        if path[-1].weight <= head.weight:
            return None
        # A heavier side branch: walk up to where it leaves the canonical chain.
        branch = list(path)
        while branch[0].parent not in self._index and not (
            self._root is not None and branch[0].parent == self._root.hash
        ):
            branch.insert(0, self._blocks[branch[0].parent])
        fork_point = self._index.get(branch[0].parent, -1)
        removed = tuple(self._canonical[fork_point + 1 :])
        del self._canonical[fork_point + 1 :]
        return self._extend(branch, removed)

    def _extend(self, path: list[Block], removed: tuple[Block, ...] = ()) -> ChainUpdate:
        self._canonical.extend(path)
        self._prune()
        self._reindex()
        return ChainUpdate(added=tuple(path), removed=removed)

    def _prune(self) -> None:
        head = self._canonical[-1]
        floor = head.number - self._threshold
        cut = 0
        while cut < len(self._canonical) - 1 and self._canonical[cut].number < floor:
            cut += 1
        if cut:
            self._root = self._canonical[cut - 1].header
            del self._canonical[:cut]
        stale = [h for h, b in self._blocks.items() if b.number < floor and b.weight < head.weight]
        for block_hash in stale:
            block = self._blocks.pop(block_hash)
            siblings = self._children.get(block.parent)
            if siblings is not None:
                siblings.remove(block_hash)
                if not siblings:
                    del self._children[block.parent]

    def _reindex(self) -> None:
        self._index = {block.hash: position for position, block in enumerate(self._canonical)}
