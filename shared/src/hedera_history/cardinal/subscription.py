"""Which keys a consumer wants: a subset of the application's prefixes, or everything."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from hedera_history.cardinal.chain_blocks import Block


@dataclass(frozen=True, slots=True)
class Subscription:
    """``prefixes=None`` tracks every key; otherwise only keys beginning with one of ``prefixes``."""

    prefixes: tuple[str, ...] | None = None

    def tracks_key(self, key: str) -> bool:
        return self.prefixes is None or key.startswith(self.prefixes)

    def tracks_group(self, prefix: str) -> bool:
        """Whether a producer's prefix group may hold tracked keys (so it must be collected)."""
        if self.prefixes is None:
            return True
        return any(prefix.startswith(mine) or mine.startswith(prefix) for mine in self.prefixes)

    def filter_updates(self, updates: Mapping[str, bytes]) -> dict[str, bytes]:
        return {key: value for key, value in updates.items() if self.tracks_key(key)}

    def filter_block(self, block: Block) -> Block:
        """``block`` with only the keys this subscription tracks."""
        if self.prefixes is None:
            return block
        deletes = frozenset(key for key in block.deletes if self.tracks_key(key))
        return Block(block.hash, block.number, block.parent, block.weight, self.filter_updates(block.updates), deletes)


EVERYTHING = Subscription()
