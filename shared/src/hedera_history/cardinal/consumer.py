"""The in-memory consumer: messages in any order, with duplicates, out come chain updates in order.

It holds every incomplete block, messages that came before their Batch (queued per hash), a
cache of recently completed hashes (so late duplicates are discarded) and the chain orderer.
A block whose producers disagree is dropped and reported, never emitted with mixed content.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict, defaultdict
from typing import TypeVar

from hedera_history.cardinal.assembly import PendingBatch
from hedera_history.cardinal.chain_blocks import BlockHeader, ChainUpdate
from hedera_history.cardinal.conflicts import ConflictPolicy, conflict
from hedera_history.cardinal.messages import (
    Batch,
    BlockDataMessage,
    Reorg,
    ReorgComplete,
    WireMessage,
    decode_message,
)
from hedera_history.cardinal.ordering import ChainOrderer
from hedera_history.cardinal.subscription import EVERYTHING, Subscription
from hedera_history.errors import ConflictingProducersError

DEFAULT_REORG_THRESHOLD = 128

_V = TypeVar("_V")


class InMemoryConsumer:
    """Feed it every message of the topics it reads with :meth:`receive`; act on what it returns.

    Messages of a Reorg channel are passed with ``reorg_channel=True``: from the Reorg message to
    its ReorgComplete only those are processed, and the others wait and are replayed after.
    """

    def __init__(
        self,
        *,
        reorg_threshold: int = DEFAULT_REORG_THRESHOLD,
        subscription: Subscription = EVERYTHING,
        start: BlockHeader | None = None,
        conflicts: ConflictPolicy | None = None,
        recent_capacity: int | None = None,
        verify_sub_batch_ids: bool = True,
    ) -> None:
        self._threshold = reorg_threshold
        self._subscription = subscription
        self._verify_ids = verify_sub_batch_ids
        self._conflicts = conflicts or ConflictPolicy()
        self._orderer = ChainOrderer(reorg_threshold, start)
        self._pending: dict[bytes, PendingBatch] = {}
        self._batch_digests: dict[bytes, bytes] = {}
        self._early: defaultdict[bytes, list[tuple[BlockDataMessage, bytes]]] = defaultdict(list)
        self._recent_capacity = recent_capacity or 2 * reorg_threshold
        self._recent: OrderedDict[bytes, bytes] = OrderedDict()
        """Completed block hash -> digest of its Batch value, newest last."""
        self._poisoned: OrderedDict[bytes, None] = OrderedDict()
        self._reorg: Reorg | None = None
        self._finished_reorgs: OrderedDict[bytes, None] = OrderedDict()
        self._held: list[WireMessage] = []

    @property
    def head(self) -> BlockHeader | None:
        return self._orderer.head

    @property
    def pending_count(self) -> int:
        """Blocks announced and not complete yet."""
        return len(self._pending)

    def receive(self, message: WireMessage, *, reorg_channel: bool = False) -> list[ChainUpdate]:
        """Process one message; the chain updates it completes, oldest first.

        Raises :class:`~hedera_history.errors.MessageFormatError` for a malformed message, and
        :class:`~hedera_history.errors.ConflictingProducersError` when conflicts are fatal.
        """
        decoded = decode_message(message)
        if isinstance(decoded, Reorg):
            return self._begin_reorg(decoded)
        if isinstance(decoded, ReorgComplete):
            return self._end_reorg(decoded)
        if self._reorg is not None and not reorg_channel:
            self._held.append(message)
            return []
        if self._reorg is None and reorg_channel:
            return []  # the channel's ReorgComplete was processed: the rest is a late duplicate
        digest = hashlib.sha256(message.value).digest()
        if isinstance(decoded, Batch):
            return self._on_batch(decoded, digest, reorg_channel)
        return self._on_data(decoded, digest)

    # ---- reorg channel ---------------------------------------------------------------------------

    def _begin_reorg(self, reorg: Reorg) -> list[ChainUpdate]:
        if reorg.block_hash in self._finished_reorgs or reorg == self._reorg:
            return []
        self._reorg = reorg
        return [self._orderer.revert_to(reorg.block_hash, reorg.number)]

    def _end_reorg(self, done: ReorgComplete) -> list[ChainUpdate]:
        if self._reorg is None or done.block_hash != self._reorg.block_hash:
            return []
        _remember(self._finished_reorgs, done.block_hash, None, self._recent_capacity)
        self._reorg = None
        held, self._held = self._held, []
        updates: list[ChainUpdate] = []
        for message in held:
            updates.extend(self.receive(message))
        return updates

    # ---- batches ---------------------------------------------------------------------------------

    def _on_batch(self, batch: Batch, digest: bytes, reorg_channel: bool) -> list[ChainUpdate]:
        block_hash = batch.block_hash
        if block_hash in self._poisoned:
            return []
        seen = self._recent.get(block_hash)
        if seen is not None and seen != digest:
            self._conflicts.report(conflict(block_hash, "a second, different Batch after the block completed"))
        if self._orderer.holds(block_hash):
            # A Reorg channel re-sends blocks this consumer may already hold (as a side branch).
            return _listed(self._orderer.extend_with_held(block_hash)) if reorg_channel else []
        if seen is not None and not reorg_channel:
            return []
        pending = self._pending.get(block_hash)
        if pending is not None:
            if pending.batch != batch:
                self._poison(block_hash, conflict(block_hash, "two different Batch messages"))
            return []
        try:
            pending = PendingBatch(batch, self._subscription, verify_sub_batch_ids=self._verify_ids)
            for message, message_digest in self._early.pop(block_hash, []):
                pending.apply(message, message_digest)
        except ConflictingProducersError as e:
            self._poison(block_hash, e)
            return []
        self._pending[block_hash] = pending
        self._batch_digests[block_hash] = digest
        return self._finish_if_complete(pending)

    def _on_data(self, message: BlockDataMessage, digest: bytes) -> list[ChainUpdate]:
        block_hash = message.block_hash
        pending = self._pending.get(block_hash)
        if pending is None:
            if not (block_hash in self._poisoned or block_hash in self._recent or self._orderer.holds(block_hash)):
                self._early[block_hash].append((message, digest))
            return []
        try:
            pending.apply(message, digest)
        except ConflictingProducersError as e:
            self._poison(block_hash, e)
            return []
        return self._finish_if_complete(pending)

    def _finish_if_complete(self, pending: PendingBatch) -> list[ChainUpdate]:
        if not pending.complete:
            return []
        block_hash = pending.batch.block_hash
        try:
            block = pending.finish()
        except ConflictingProducersError as e:
            self._poison(block_hash, e)
            return []
        del self._pending[block_hash]
        _remember(self._recent, block_hash, self._batch_digests.pop(block_hash), self._recent_capacity)
        update = self._orderer.add(block)
        if update is not None:
            self._drop_hopeless()
        return _listed(update)

    def _poison(self, block_hash: bytes, error: ConflictingProducersError) -> None:
        self._pending.pop(block_hash, None)
        self._batch_digests.pop(block_hash, None)
        self._early.pop(block_hash, None)
        _remember(self._poisoned, block_hash, None, self._recent_capacity)
        self._conflicts.report(error)

    def _drop_hopeless(self) -> None:
        """Incomplete blocks the orderer would drop anyway: lighter than the head and too deep."""
        head = self._orderer.head
        assert head is not None
        for block_hash, pending in list(self._pending.items()):
            batch = pending.batch
            if batch.weight < head.weight and head.number - batch.number > self._threshold:
                del self._pending[block_hash]
                del self._batch_digests[block_hash]


def _remember(cache: OrderedDict[bytes, _V], key: bytes, value: _V, capacity: int) -> None:
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > capacity:
        cache.popitem(last=False)


def _listed(update: ChainUpdate | None) -> list[ChainUpdate]:
    return [] if update is None else [update]
