"""Reassembling one block in memory from its Batch and the messages that follow it (the spec's rules)."""

from __future__ import annotations

from dataclasses import dataclass, field

from hedera_history.cardinal.chain_blocks import Block
from hedera_history.cardinal.conflicts import conflict
from hedera_history.cardinal.identity import sub_batch_id
from hedera_history.cardinal.messages import (
    Batch,
    BatchDeleteMsg,
    BatchMsg,
    BlockDataMessage,
    InlineDelete,
    InlineValue,
    PrefixCount,
    SubBatchHeader,
    SubBatchMsg,
    SubBatchRef,
)
from hedera_history.cardinal.subscription import Subscription


@dataclass(slots=True)
class _SubBatch:
    prefix: str
    item_count: int | None = None
    processed: dict[int, bytes] = field(default_factory=dict)
    """Index -> SHA-256 of the message's value."""
    waiting: dict[int, tuple[SubBatchMsg, bytes]] = field(default_factory=dict)
    """Messages (and their digests) that came before the header."""


class PendingBatch:
    """A block whose Batch arrived and whose content is being collected.

    :meth:`apply` discards duplicates and raises
    :class:`~hedera_history.errors.ConflictingProducersError` on content that contradicts what
    was collected; the caller then drops the whole batch, so nothing is merged.
    """

    def __init__(self, batch: Batch, subscription: Subscription, *, verify_sub_batch_ids: bool = True) -> None:
        self.batch = batch
        self._subscription = subscription
        self._verify_ids = verify_sub_batch_ids
        self._values: dict[str, bytes] = {}
        self._deletes: set[str] = set()
        self._remaining: dict[str, int] = {}
        """Counted prefix -> messages still expected (untracked prefixes too: they own their keys)."""
        self._tracked_counts: set[str] = set()
        self._counted: dict[str, bytes | None] = {}
        """Key -> value (None for a delete) of each BatchMsg / BatchDeleteMsg taken."""
        self._sub_batches: dict[bytes, _SubBatch] = {}
        self._ignored_sub_batches: set[bytes] = set()
        for name, entry in batch.entries.items():
            match entry:
                case InlineValue(value):
                    self._set(name, value)
                case InlineDelete():
                    self._delete(name)
                case PrefixCount(count):
                    self._remaining[name] = count
                    if subscription.tracks_group(name):
                        self._tracked_counts.add(name)
                case SubBatchRef(batch_id):
                    if subscription.tracks_group(name):
                        self._sub_batches[batch_id] = _SubBatch(name)
                    else:
                        self._ignored_sub_batches.add(batch_id)

    @property
    def complete(self) -> bool:
        return all(self._remaining[prefix] == 0 for prefix in self._tracked_counts) and all(
            sub.item_count is not None and len(sub.processed) == sub.item_count for sub in self._sub_batches.values()
        )

    def finish(self) -> Block:
        """The block, once :attr:`complete`; a conflict if a sub-batch is not the one announced."""
        b = self.batch
        if self._verify_ids:
            for batch_id, sub in self._sub_batches.items():
                digests = [sub.processed[index] for index in range(len(sub.processed))]
                if sub_batch_id(b.block_hash, sub.prefix, digests) != batch_id:
                    raise conflict(b.block_hash, f"sub-batch {batch_id.hex()} content does not match its id")
        return Block(b.block_hash, b.number, b.parent, b.weight, dict(self._values), frozenset(self._deletes))

    def apply(self, message: BlockDataMessage, value_digest: bytes) -> None:
        """Take one message; ``value_digest`` is the SHA-256 of its value as received."""
        match message:
            case SubBatchHeader():
                self._header(message)
            case SubBatchMsg():
                self._sub_batch_msg(message, value_digest)
            case BatchMsg(_, key, value):
                self._counted_msg(key, value)
            case BatchDeleteMsg(_, key):
                self._counted_msg(key, None)

    def _sub_batch(self, batch_id: bytes) -> _SubBatch | None:
        if batch_id in self._ignored_sub_batches:
            return None
        sub = self._sub_batches.get(batch_id)
        if sub is None:
            raise conflict(self.batch.block_hash, f"sub-batch {batch_id.hex()} is not announced by the Batch")
        return sub

    def _header(self, header: SubBatchHeader) -> None:
        sub = self._sub_batch(header.batch_id)
        if sub is None:
            return
        if sub.item_count is not None:
            if sub.item_count != header.item_count:
                raise conflict(
                    self.batch.block_hash,
                    f"sub-batch {header.batch_id.hex()} announced with {sub.item_count} "
                    f"and with {header.item_count} items",
                )
            return
        sub.item_count = header.item_count
        waiting, sub.waiting = sub.waiting, {}
        for index in sorted(waiting):
            self._sub_batch_msg(*waiting[index])

    def _sub_batch_msg(self, message: SubBatchMsg, digest: bytes) -> None:
        sub = self._sub_batch(message.batch_id)
        if sub is None:
            return
        seen = sub.processed.get(message.index)
        if seen is None and message.index in sub.waiting:
            seen = sub.waiting[message.index][1]
        if seen is not None:
            if seen != digest:
                raise conflict(self.batch.block_hash, f"two different sub-batch messages at index {message.index}")
            return
        if sub.item_count is None:
            sub.waiting[message.index] = (message, digest)
            return
        if message.index >= sub.item_count:
            raise conflict(
                self.batch.block_hash,
                f"sub-batch message {message.index} beyond the header's {sub.item_count} items",
            )
        for key in message.deletes:
            self._delete(key)
        for key, value in message.updates.items():
            self._set(key, value)
        sub.processed[message.index] = digest

    def _counted_msg(self, key: str, value: bytes | None) -> None:
        hash_ = self.batch.block_hash
        prefix = next((prefix for prefix in self._remaining if key.startswith(prefix)), None)
        if prefix is None:
            if self._subscription.tracks_key(key):
                raise conflict(hash_, f"key {key!r} is under no prefix the Batch counts")
            return
        if prefix not in self._tracked_counts:
            return
        if key in self._counted:
            if self._counted[key] != value:
                raise conflict(hash_, f"key {key!r} arrived with two different contents")
            return
        if self._remaining[prefix] == 0:
            raise conflict(hash_, f"more messages under prefix {prefix!r} than the Batch counts")
        self._remaining[prefix] -= 1
        self._counted[key] = value
        if value is None:
            self._delete(key)
        else:
            self._set(key, value)

    def _set(self, key: str, value: bytes) -> None:
        if not self._subscription.tracks_key(key):
            return
        if key in self._deletes or self._values.get(key, value) != value:
            raise conflict(self.batch.block_hash, f"key {key!r} is given two different contents")
        self._values[key] = value

    def _delete(self, key: str) -> None:
        if not self._subscription.tracks_key(key):
            return
        if key in self._values:
            raise conflict(self.batch.block_hash, f"key {key!r} is both set and deleted")
        self._deletes.add(key)
