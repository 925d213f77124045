"""Synthetic blocks, forks and message delivery shared by the cardinal tests."""

from __future__ import annotations

import hashlib
import threading
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor

from hedera_history.cardinal.chain_blocks import Block, BlockHeader, ChainUpdate
from hedera_history.cardinal.conflicts import ConflictPolicy
from hedera_history.cardinal.consumer import InMemoryConsumer
from hedera_history.cardinal.messages import WireMessage
from hedera_history.cardinal.producer import BatchProducer
from hedera_history.cardinal.routing import Delivery, PrefixRoute, Routing
from hedera_history.cardinal.subscription import EVERYTHING, Subscription
from hedera_history.cardinal.tracking import (
    Disposition,
    InMemoryTrackingStore,
    StatelessTracker,
    TrackingOutcome,
    TrackingStore,
)

GENESIS = hashlib.sha256(b"genesis").digest()
START = BlockHeader(GENESIS, 0, bytes(32), 0)
"""A block the application holds before the tests' chains (numbered from 1) begin."""

ROUTING = Routing(
    "batches",
    (
        PrefixRoute("a/", "core"),
        PrefixRoute("b/", "core", Delivery.PER_KEY),
        PrefixRoute("c/", "side"),
    ),
)


def block_hash(label: str) -> bytes:
    return hashlib.sha256(b"block " + label.encode()).digest()


def make_block(label: str, parent: bytes, number: int, weight: int) -> Block:
    """A block with a little content under every route and one inline key."""
    updates = {
        f"a/{label}/1": f"a1-{label}".encode(),
        f"a/{label}/2": f"a2-{label}".encode() * 3,
        f"b/{label}": f"b-{label}".encode(),
        f"c/{label}": f"c-{label}".encode(),
        f"z{label}": b"inline",
    }
    return Block(block_hash(label), number, parent, weight, updates, frozenset({f"a/old-{label}", f"b/old-{label}"}))


def linear_chain(prefix: str, length: int, parent: bytes = GENESIS, first_number: int = 1) -> list[Block]:
    blocks = []
    for i in range(length):
        block = make_block(f"{prefix}{i}", parent, first_number + i, first_number + i)
        blocks.append(block)
        parent = block.hash
    return blocks


def tree(shape: Mapping[str, tuple[str | None, int, int]]) -> dict[str, Block]:
    """Blocks by label from ``label -> (parent label or None for GENESIS, number, weight)``."""
    blocks: dict[str, Block] = {}
    for label, (parent, number, weight) in shape.items():
        parent_hash = GENESIS if parent is None else blocks[parent].hash
        blocks[label] = make_block(label, parent_hash, number, weight)
    return blocks


def all_messages(producer: BatchProducer, block: Block) -> list[WireMessage]:
    return [message for messages in producer.produce(block).values() for message in messages]


def labels(updates: Iterable[ChainUpdate], names: Mapping[bytes, str]) -> list[str]:
    """Chain updates as compact text: ``-JK+GHI`` removes J, K and adds G, H, I."""
    out = []
    for update in updates:
        text = ""
        if update.removed:
            text += "-" + "".join(names[b.hash] for b in update.removed)
        if update.added:
            text += "+" + "".join(names[b.hash] for b in update.added)
        out.append(text)
    return out


def feed(consumer: InMemoryConsumer, messages: Iterable[WireMessage], reorg_channel: bool = False) -> list[ChainUpdate]:
    updates: list[ChainUpdate] = []
    for message in messages:
        updates.extend(consumer.receive(message, reorg_channel=reorg_channel))
    return updates


def replay(updates: Iterable[ChainUpdate], start: Sequence[Block] = ()) -> list[Block]:
    """The chain an application ends with after applying ``updates``; checks each is consistent."""
    chain = list(start)
    for update in updates:
        if update.removed:
            assert chain[-len(update.removed) :] == list(update.removed), "removed blocks are not the chain's tip"
            del chain[-len(update.removed) :]
        if update.reverted_to is not None:
            hashes = [block.hash for block in chain]
            if update.reverted_to.hash in hashes:
                del chain[hashes.index(update.reverted_to.hash) + 1 :]
            else:
                chain = [block for block in chain if block.number <= update.reverted_to.number]
        for block in update.added:
            assert not chain or block.parent == chain[-1].hash, "an added block does not extend the chain"
            chain.append(block)
    return chain


class RecordingSink:
    """A :class:`BlockSink` that keeps what it is given."""

    def __init__(self) -> None:
        self.values: defaultdict[bytes, dict[str, bytes]] = defaultdict(dict)
        self.deletes: defaultdict[bytes, set[str]] = defaultdict(set)
        self.finished: Counter[bytes] = Counter()

    def write(self, block_hash: bytes, updates: Mapping[str, bytes], deletes: Collection[str]) -> None:
        self.values[block_hash].update(updates)
        self.deletes[block_hash].update(deletes)

    def finish(self, block: BlockHeader) -> None:
        self.finished[block.hash] += 1

    def block(self, header: Block | BlockHeader) -> Block:
        values = self.values.get(header.hash, {})
        deletes = frozenset(self.deletes.get(header.hash, set()))
        return Block(header.hash, header.number, header.parent, header.weight, dict(values), deletes)


def new_tracker(
    store: TrackingStore | None = None,
    *,
    first_number: int = 1,
    subscription: Subscription = EVERYTHING,
    conflicts: ConflictPolicy | None = None,
) -> tuple[StatelessTracker, TrackingStore, RecordingSink]:
    store = store if store is not None else InMemoryTrackingStore()
    sink = RecordingSink()
    tracker = StatelessTracker(store, sink, first_number=first_number, subscription=subscription, conflicts=conflicts)
    return tracker, store, sink


def completions(outcomes: Iterable[TrackingOutcome]) -> Counter[bytes]:
    return Counter(o.block_hash for o in outcomes if o.disposition is Disposition.COMPLETED)


class SchedulerStoppedError(Exception):
    """The test's scheduler stopped while this worker waited for its turn."""


class SteppingStore:
    """A :class:`TrackingStore` that lets the test choose which thread performs the next operation,
    so concurrent stateless instances interleave at every store call in a chosen order."""

    def __init__(self, inner: TrackingStore) -> None:
        self._inner = inner
        self._cond = threading.Condition()
        self._local = threading.local()
        self._waiting: set[str] = set()
        self._finished: set[str] = set()
        self._granted: str | None = None
        self._stopped = False

    def _turn(self) -> None:
        me: str = self._local.name
        with self._cond:
            self._waiting.add(me)
            self._cond.notify_all()
            self._cond.wait_for(lambda: self._granted == me or self._stopped)
            if self._granted != me:
                raise SchedulerStoppedError
            self._granted = None

    def read_row(self, row: bytes) -> Mapping[bytes, bytes]:
        self._turn()
        return self._inner.read_row(row)

    def check_and_set(self, row: bytes, column: bytes, expected: bytes | None, value: bytes) -> bool:
        self._turn()
        return self._inner.check_and_set(row, column, expected, value)

    def run(self, jobs: Mapping[str, Callable[[], None]], choose: Callable[[list[str]], str]) -> None:
        """Run each job in its own thread; before every store operation ``choose`` picks who goes."""

        def named(name: str, job: Callable[[], None]) -> Callable[[], None]:
            def run_job() -> None:
                self._local.name = name
                job()

            return run_job

        def done(name: str) -> Callable[[Future[None]], None]:
            def mark(_: Future[None]) -> None:
                with self._cond:
                    self._finished.add(name)
                    self._cond.notify_all()

            return mark

        with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
            futures = []
            for name, job in jobs.items():
                future = pool.submit(named(name, job))
                future.add_done_callback(done(name))
                futures.append(future)
            with self._cond:
                try:
                    while True:
                        # Everyone is parked at a store call or finished: exactly one runs at a time.
                        self._cond.wait_for(lambda: len(self._waiting) + len(self._finished) == len(jobs))
                        if not self._waiting:
                            break
                        chosen = choose(sorted(self._waiting))
                        self._waiting.discard(chosen)
                        self._granted = chosen
                        self._cond.notify_all()
                finally:
                    # Whatever ends the loop, no worker may stay parked (the pool waits for them).
                    self._stopped = True
                    self._cond.notify_all()
        for future in futures:
            future.result()
