"""Specific behaviours of both consumers: waiting for sub-batches, duplicates, conflicts, subsets."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

import pytest
from hedera_history.cardinal.chain_blocks import Block
from hedera_history.cardinal.conflicts import ConflictPolicy
from hedera_history.cardinal.consumer import InMemoryConsumer
from hedera_history.cardinal.identity import sub_batch_id
from hedera_history.cardinal.messages import (
    Batch,
    BatchDeleteMsg,
    BatchMsg,
    InlineValue,
    PrefixCount,
    SubBatchHeader,
    SubBatchMsg,
    SubBatchRef,
    WireMessage,
)
from hedera_history.cardinal.producer import BatchProducer
from hedera_history.cardinal.routing import Routing
from hedera_history.cardinal.subscription import Subscription
from hedera_history.cardinal.tracking import Disposition, InMemoryTrackingStore
from hedera_history.errors import ConfigError, ConflictingProducersError, MessageFormatError

from .chains import GENESIS, START, block_hash, completions, feed, new_tracker

H = block_hash("h")


def sub_batch(prefix: str, chunks: Sequence[tuple[Sequence[str], dict[str, bytes]]]) -> tuple[bytes, list[WireMessage]]:
    """A sub-batch's id and its header and chunk messages, built by hand."""
    values = [SubBatchMsg(H, b"\x01" * 32, i, tuple(d), u).encode().value for i, (d, u) in enumerate(chunks)]
    batch_id = sub_batch_id(H, prefix, [hashlib.sha256(v).digest() for v in values])
    messages = [SubBatchHeader(H, batch_id, len(chunks)).encode()]
    messages += [SubBatchMsg(H, batch_id, i, tuple(d), u).encode() for i, (d, u) in enumerate(chunks)]
    return batch_id, messages


A_ID, A_MESSAGES = sub_batch("a/", [(["a/gone"], {"a/1": b"one"}), ([], {"a/2": b"two"})])
BATCH = Batch(H, 1, 1, GENESIS, {"a/": SubBatchRef(A_ID), "b/": PrefixCount(2), "zz": InlineValue(b"inline")})
B_MESSAGES = [BatchMsg(H, "b/1", b"b-one").encode(), BatchDeleteMsg(H, "b/2").encode()]
BLOCK = Block(
    H,
    1,
    GENESIS,
    1,
    {"a/1": b"one", "a/2": b"two", "b/1": b"b-one", "zz": b"inline"},
    frozenset({"a/gone", "b/2"}),
)
ALL = [BATCH.encode(), *A_MESSAGES, *B_MESSAGES]


class Reported:
    def __init__(self) -> None:
        self.errors: list[ConflictingProducersError] = []

    def policy(self, fatal: bool = False) -> ConflictPolicy:
        return ConflictPolicy(fatal=fatal, on_conflict=self.errors.append)


def test_a_block_waits_for_its_sub_batch_then_has_exactly_its_content() -> None:
    consumer = InMemoryConsumer(start=START)
    assert feed(consumer, [BATCH.encode(), *B_MESSAGES, A_MESSAGES[1], A_MESSAGES[2]]) == []
    assert consumer.pending_count == 1
    [update] = feed(consumer, [A_MESSAGES[0]])
    assert update.added == (BLOCK,) and update.removed == ()
    assert feed(consumer, ALL) == []  # everything again: discarded as duplicates


def test_messages_before_their_batch_are_queued() -> None:
    consumer = InMemoryConsumer(start=START)
    assert feed(consumer, [*reversed(A_MESSAGES), *B_MESSAGES]) == []
    [update] = feed(consumer, [BATCH.encode()])
    assert update.added == (BLOCK,)


def test_stateless_tracker_records_one_cell_per_message_and_writes_values_first() -> None:
    tracker, store, sink = new_tracker()
    outcomes = [tracker.receive(m) for m in [*ALL[1:], ALL[0]]]
    assert [o.disposition for o in outcomes] == [Disposition.RECORDED] * 5 + [Disposition.COMPLETED]
    assert outcomes[-1].completed == BLOCK.header and outcomes[-1].watermark == BLOCK.header
    assert sink.block(BLOCK) == BLOCK and sink.finished[H] == 1
    assert isinstance(store, InMemoryTrackingStore)
    row = store.rows()[tracker.block_row(H)]
    assert sorted(row) == sorted(
        [
            b"batch",
            b"header/" + A_ID.hex().encode(),
            b"sub/" + A_ID.hex().encode() + b"/0",
            b"sub/" + A_ID.hex().encode() + b"/1",
            b"key/b/1",
            b"key/b/2",
            b"done",
            b"connected",
            b"linked",
        ]
    )
    assert max(len(v) for v in row.values()) < 200  # values live in the sink, not in the row
    assert [tracker.receive(m).disposition for m in ALL] == [Disposition.ALREADY_COMPLETE] * 6
    assert sink.finished[H] == 1


def _both_report_conflict(messages: Sequence[WireMessage]) -> None:
    reported = Reported()
    consumer = InMemoryConsumer(start=START, conflicts=reported.policy())
    assert feed(consumer, messages) == []
    assert reported.errors, "the in-memory consumer did not report the conflict"
    assert consumer.pending_count == 0

    reported = Reported()
    tracker, _, _ = new_tracker(conflicts=reported.policy())
    outcomes = [tracker.receive(m) for m in messages]
    assert not completions(outcomes)
    assert reported.errors, "the stateless consumer did not report the conflict"
    assert outcomes[-1].disposition is Disposition.CONFLICT


CONFLICTS: dict[str, list[WireMessage]] = {
    "two different batches": [Batch(H, 1, 2, GENESIS, BATCH.entries).encode(), *ALL],
    "two values for one key": [BATCH.encode(), BatchMsg(H, "b/1", b"other").encode(), *ALL[1:]],
    "a key both set and deleted": [BATCH.encode(), BatchDeleteMsg(H, "b/1").encode(), *ALL[1:]],
    # Counts cannot tell a stray key from a real one: a surplus shows only before completion.
    "counter below zero": [BATCH.encode(), *B_MESSAGES, BatchMsg(H, "b/3", b"x").encode(), *A_MESSAGES],
    "key under no counted prefix": [BATCH.encode(), BatchMsg(H, "q/1", b"x").encode(), *ALL[1:]],
    "header count differs": [BATCH.encode(), SubBatchHeader(H, A_ID, 3).encode(), *ALL[1:]],
    "index beyond the header": [BATCH.encode(), SubBatchMsg(H, A_ID, 2).encode(), *ALL[1:]],
    "two chunks at one index": [BATCH.encode(), SubBatchMsg(H, A_ID, 0).encode(), *ALL[1:]],
    "unannounced sub-batch": [BATCH.encode(), SubBatchHeader(H, b"\x07" * 32, 1).encode(), *ALL[1:]],
    "sub-batch content not matching its id": [
        Batch(H, 1, 1, GENESIS, {"a/": SubBatchRef(b"\x09" * 32)}).encode(),
        SubBatchHeader(H, b"\x09" * 32, 1).encode(),
        SubBatchMsg(H, b"\x09" * 32, 0, (), {"a/1": b"x"}).encode(),
    ],
}


@pytest.mark.parametrize("messages", list(CONFLICTS.values()), ids=list(CONFLICTS))
def test_conflicting_producers_are_reported_and_the_block_is_not_emitted(messages: list[WireMessage]) -> None:
    _both_report_conflict(messages)


def test_conflicts_can_be_fatal() -> None:
    messages = CONFLICTS["two values for one key"]
    consumer = InMemoryConsumer(start=START, conflicts=ConflictPolicy(fatal=True))
    with pytest.raises(ConflictingProducersError, match="two different contents"):
        feed(consumer, messages)
    tracker, _, _ = new_tracker(conflicts=ConflictPolicy(fatal=True))
    with pytest.raises(ConflictingProducersError):
        for message in messages:
            tracker.receive(message)


def test_a_different_batch_after_completion_is_reported() -> None:
    reported = Reported()
    consumer = InMemoryConsumer(start=START, conflicts=reported.policy())
    assert len(feed(consumer, ALL)) == 1
    feed(consumer, [Batch(H, 1, 5, GENESIS, BATCH.entries).encode()])
    assert len(reported.errors) == 1


def test_foreign_sub_batch_ids_are_accepted_when_verification_is_off() -> None:
    messages = CONFLICTS["sub-batch content not matching its id"]
    consumer = InMemoryConsumer(start=START, verify_sub_batch_ids=False)
    [update] = feed(consumer, messages)
    assert update.added[0].updates == {"a/1": b"x"}
    tracker, store, sink = new_tracker()
    tracker = type(tracker)(store, sink, first_number=1, verify_sub_batch_ids=False)
    assert [tracker.receive(m).disposition for m in messages][-1] is Disposition.COMPLETED


def test_an_empty_sub_batch_completes_with_its_header() -> None:
    empty_id = sub_batch_id(H, "a/", [])
    batch = Batch(H, 1, 1, GENESIS, {"a/": SubBatchRef(empty_id)})
    consumer = InMemoryConsumer(start=START)
    assert feed(consumer, [batch.encode()]) == []
    [update] = feed(consumer, [SubBatchHeader(H, empty_id, 0).encode()])
    assert update.added[0].updates == {}


@pytest.mark.parametrize("prefixes", [("a/",), ("b/",), ("zz",), ("a/2",)])
def test_a_subset_consumer_skips_what_it_does_not_track(prefixes: tuple[str, ...]) -> None:
    subscription = Subscription(prefixes)
    expected = subscription.filter_block(BLOCK)
    wanted = [BATCH.encode(), *(A_MESSAGES if subscription.tracks_group("a/") else [])]
    wanted += B_MESSAGES if subscription.tracks_group("b/") else []
    consumer = InMemoryConsumer(start=START, subscription=subscription)
    [update] = feed(consumer, wanted)
    assert update.added == (expected,)
    tracker, _, sink = new_tracker(subscription=subscription)
    assert completions(tracker.receive(m) for m in wanted) == {H: 1}
    assert sink.block(BLOCK) == expected


def test_a_subset_consumer_given_untracked_messages_ignores_them() -> None:
    subscription = Subscription(("b/",))
    consumer = InMemoryConsumer(start=START, subscription=subscription)
    [update] = feed(consumer, [*A_MESSAGES, *ALL])
    assert update.added == (subscription.filter_block(BLOCK),)


def test_malformed_messages_raise() -> None:
    with pytest.raises(MessageFormatError):
        InMemoryConsumer().receive(WireMessage(b"\x09", b""))
    tracker, _, _ = new_tracker()
    with pytest.raises(MessageFormatError):
        tracker.receive(WireMessage(b"\x02" + H, b""))


def test_late_duplicates_after_the_recent_cache_forgot_a_block_are_not_emitted_again() -> None:
    consumer = InMemoryConsumer(start=START, reorg_threshold=1, recent_capacity=1)
    chain, parent = [], GENESIS
    for number in range(1, 8):
        block = Block(block_hash(f"n{number}"), number, parent, number, {f"k{number}": b"v"})
        chain.append(block)
        parent = block.hash
    producer = BatchProducer(Routing("batches"))
    messages = [m for block in chain for ms in producer.produce(block).values() for m in ms]
    first = feed(consumer, messages)
    assert [b for u in first for b in u.added] == chain
    assert feed(consumer, messages) == []
    assert consumer.pending_count == 0


@pytest.mark.parametrize("make", [lambda: InMemoryConsumer(reorg_threshold=0)])
def test_threshold_must_be_positive(make: Callable[[], object]) -> None:
    with pytest.raises(ConfigError):
        make()
