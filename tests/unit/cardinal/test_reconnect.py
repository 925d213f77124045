"""A complete block a crash left unconnected, and no redelivery: ``StatelessTracker.reconnect``
(what the sweep runs) connects it and every complete block waiting below it."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from hedera_history.cardinal.chain_blocks import Block, BlockHeader
from hedera_history.cardinal.messages import WireMessage
from hedera_history.cardinal.producer import BatchProducer
from hedera_history.cardinal.tracking import InMemoryTrackingStore, StatelessTracker

from .chains import ROUTING, RecordingSink, all_messages, linear_chain

PRODUCER = BatchProducer(ROUTING)


class CrashAfterDoneError(Exception):
    """A store call died between a block's ``done`` and its ``connected`` (every call that tries)."""


class CountingStore(InMemoryTrackingStore):
    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    def read_row(self, row: bytes) -> Mapping[bytes, bytes]:
        self.reads += 1
        return super().read_row(row)


def tracker_crashing_after_done(
    store: InMemoryTrackingStore, crash_on: set[int], first_number: int = 1
) -> StatelessTracker:
    def crash(block: BlockHeader) -> None:
        if block.number in crash_on:
            raise CrashAfterDoneError

    return StatelessTracker(store, RecordingSink(), first_number=first_number, before_connect=crash)


def deliver(tracker: StatelessTracker, blocks: list[Block]) -> list[WireMessage]:
    """Every message once; the ones whose call crashed are acknowledged all the same (never again)."""
    crashed = []
    for block in blocks:
        for message in all_messages(PRODUCER, block):
            try:
                tracker.receive(message)
            except CrashAfterDoneError:
                crashed.append(message)
    return crashed


@pytest.mark.parametrize(
    ("crash_on", "order"),
    [
        ({1}, [0, 1, 2, 3]),  # the root: no watermark at all, every later block waits
        ({3}, [0, 1, 2, 3]),  # past the watermark
        ({3}, [3, 2, 1, 0]),  # the walk from block 2 dies before it connects block 3
        ({1, 2}, [1, 0, 3, 2]),  # two in a row, out of order
    ],
)
def test_a_crash_between_done_and_connected_stalls_the_watermark_until_reconnect(
    crash_on: set[int], order: list[int]
) -> None:
    chain = linear_chain("r", 4)
    store = InMemoryTrackingStore()
    assert deliver(tracker_crashing_after_done(store, crash_on), [chain[i] for i in order])
    sweep = StatelessTracker(store, RecordingSink(), first_number=1)  # the sweep's: no crash point
    assert all(sweep.is_complete(block.hash) for block in chain)
    stalled = sweep.watermark()
    assert stalled is None or stalled.number < min(crash_on)

    assert sweep.reconnect() == chain[-1].header
    assert sweep.watermark() == chain[-1].header
    assert sweep.reconnect() is None


def test_a_declared_root_is_found_again_when_its_connection_was_lost() -> None:
    # A stream followed from its middle: its first block (numbered 11 here) is declared a root.
    chain = linear_chain("m", 3, first_number=11)
    store = InMemoryTrackingStore()
    crashing = tracker_crashing_after_done(store, {11}, first_number=0)
    crashing.declare_root(chain[0].header)
    deliver(crashing, chain)
    sweep = StatelessTracker(store, RecordingSink(), first_number=0)
    assert sweep.watermark() is None
    assert sweep.reconnect() == chain[-1].header


def test_with_nothing_to_repair_reconnect_reads_a_few_rows_and_moves_nothing() -> None:
    chain = linear_chain("n", 5)
    store = CountingStore()
    tracker = StatelessTracker(store, RecordingSink(), first_number=1)
    deliver(tracker, chain)
    assert tracker.watermark() == chain[-1].header
    store.reads = 0
    assert tracker.reconnect() is None
    assert store.reads <= 3  # the watermark, its block's children (none yet)


def test_the_crash_hook_runs_before_each_connection_and_never_for_a_connected_block() -> None:
    chain = linear_chain("h", 2)
    seen: list[int] = []
    tracker = StatelessTracker(
        InMemoryTrackingStore(), RecordingSink(), first_number=1, before_connect=lambda b: seen.append(b.number)
    )
    deliver(tracker, chain)
    deliver(tracker, chain)  # everything again: the blocks are complete already
    assert seen == [1, 2]
