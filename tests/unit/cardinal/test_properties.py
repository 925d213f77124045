"""Property tests: any chain, any routing, any interleaving and duplication, both consumers.

Each consumer must emit exactly the original blocks (restricted to what it tracks), each once
and in chain order; the stateless one must complete each block exactly once, however many
instances share the work, and its watermark must reach the last block.
"""

from __future__ import annotations

import contextlib
import hashlib
import random
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

from hedera_history.cardinal.chain_blocks import Block, BlockHeader
from hedera_history.cardinal.conflicts import ConflictPolicy
from hedera_history.cardinal.consumer import InMemoryConsumer
from hedera_history.cardinal.messages import MessageType, WireMessage, decode_message
from hedera_history.cardinal.producer import BatchProducer
from hedera_history.cardinal.routing import Delivery, PrefixRoute, Routing
from hedera_history.cardinal.subscription import EVERYTHING, Subscription
from hedera_history.cardinal.tracking import Disposition, InMemoryTrackingStore, StatelessTracker, TrackingOutcome
from hedera_history.errors import ConflictingProducersError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .chains import GENESIS, START, RecordingSink, SteppingStore, completions, feed, new_tracker

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FEWER = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])

GROUPS = ("a/", "b/", "c/")
keys = st.builds(
    lambda head, tail: head + tail,
    st.sampled_from(["a/", "b/", "c/1/", "c/22/", "c/x", "z", ""]),
    st.text("xyé/", max_size=3),
)


@dataclass(frozen=True)
class Scenario:
    """A chain, its routing, and its messages tagged with their topic, in the order they are delivered."""

    chain: list[Block]
    routing: Routing
    messages: list[tuple[str, WireMessage]]


@st.composite
def blocks_content(draw: st.DrawFn) -> tuple[dict[str, bytes], frozenset[str]]:
    updates = draw(st.dictionaries(keys, st.binary(max_size=60), max_size=8))
    deletes = frozenset(draw(st.sets(keys, max_size=4))) - updates.keys()
    return updates, deletes


@st.composite
def chains(draw: st.DrawFn, max_blocks: int = 5) -> list[Block]:
    salt = draw(st.binary(min_size=4, max_size=4))
    blocks: list[Block] = []
    parent = GENESIS
    for number in range(1, draw(st.integers(1, max_blocks)) + 1):
        updates, deletes = draw(blocks_content())
        block_hash = hashlib.sha256(salt + number.to_bytes(8, "big")).digest()
        blocks.append(Block(block_hash, number, parent, number, updates, deletes))
        parent = block_hash
    return blocks


@st.composite
def routings(draw: st.DrawFn, deliveries: Sequence[Delivery] = tuple(Delivery)) -> Routing:
    def route(prefix: str, regex: bool = False) -> PrefixRoute:
        topic = draw(st.sampled_from(["batches", "t1", "t2"]))
        return PrefixRoute(prefix, topic, draw(st.sampled_from(deliveries)), regex)

    return Routing("batches", (route("a/"), route("b/"), route(r"c/[0-9]+/", regex=True)))


def produce_all(producer: BatchProducer, chain: Sequence[Block]) -> list[tuple[str, WireMessage]]:
    return [
        (topic, message)
        for block in chain
        for topic, messages in producer.produce(block).items()
        for message in messages
    ]


@st.composite
def deliveries(draw: st.DrawFn, routing_strategy: st.SearchStrategy[Routing] | None = None) -> Scenario:
    """Any chain, routing and chunk budget; each message one to three times, in any order,
    sometimes with every Batch after all the rest."""
    chain = draw(chains())
    routing = draw(routing_strategy or routings())
    producer = BatchProducer(routing, chunk_bytes=draw(st.sampled_from([64, 100, 300, 4096])))
    tagged = produce_all(producer, chain)
    copies = draw(st.lists(st.integers(1, 3), min_size=len(tagged), max_size=len(tagged)))
    repeated = [item for item, n in zip(tagged, copies, strict=True) for _ in range(n)]
    order = draw(st.permutations(repeated))
    if draw(st.booleans()):
        order = sorted(order, key=lambda item: item[1].key[0] == MessageType.BATCH)
    return Scenario(chain, routing, order)


def topics_for(subscription: Subscription, routing: Routing) -> set[str]:
    wanted = {routing.default_topic}
    for route in routing.routes:
        literal = "c/" if route.regex else route.prefix
        if subscription.tracks_group(literal):
            wanted.add(route.topic)
    return wanted


def run_in_memory(scenario: Scenario, subscription: Subscription = EVERYTHING, threshold: int = 3) -> list[Block]:
    consumer = InMemoryConsumer(
        start=START,
        reorg_threshold=threshold,
        subscription=subscription,
        conflicts=ConflictPolicy(fatal=True),
    )
    wanted = topics_for(subscription, scenario.routing)
    updates = feed(consumer, [m for topic, m in scenario.messages if topic in wanted])
    assert all(not update.removed for update in updates)
    return [block for update in updates for block in update.added]


def sink_blocks(sink: RecordingSink, chain: Sequence[Block]) -> list[Block]:
    return [sink.block(block) for block in chain]


@FAST
@given(deliveries(), st.integers(1, 4))
def test_in_memory_consumer_emits_each_block_once_in_order(scenario: Scenario, threshold: int) -> None:
    assert run_in_memory(scenario, threshold=threshold) == scenario.chain


@FAST
@given(deliveries(), st.integers(1, 3))
def test_stateless_tracker_completes_each_block_once_and_the_watermark_reaches_the_end(
    scenario: Scenario, instances: int
) -> None:
    store = InMemoryTrackingStore()
    trackers = [new_tracker(store, conflicts=ConflictPolicy(fatal=True)) for _ in range(instances)]
    outcomes = [trackers[i % instances][0].receive(m) for i, (_, m) in enumerate(scenario.messages)]

    assert completions(outcomes) == {block.hash: 1 for block in scenario.chain}
    tracker = trackers[0][0]
    assert tracker.watermark() == scenario.chain[-1].header
    sinks = [sink for _, _, sink in trackers]
    merged = RecordingSink()
    for sink in sinks:
        for block_hash, values in sink.values.items():
            merged.write(block_hash, values, sink.deletes[block_hash])
    assert sink_blocks(merged, scenario.chain) == scenario.chain

    # Everything again, after completion: nothing new is reported or written.
    before = store.rows()
    again = [tracker.receive(m) for _, m in scenario.messages]
    assert {o.disposition for o in again} == {Disposition.ALREADY_COMPLETE}
    assert store.rows() == before


@FAST
@given(deliveries(), st.sets(st.sampled_from(GROUPS), min_size=1, max_size=2))
def test_consumers_tracking_some_prefixes_complete_without_the_rest(scenario: Scenario, groups: set[str]) -> None:
    subscription = Subscription(tuple(sorted(groups)))
    expected = [subscription.filter_block(block) for block in scenario.chain]
    assert run_in_memory(scenario, subscription) == expected

    tracker, _, sink = new_tracker(subscription=subscription, conflicts=ConflictPolicy(fatal=True))
    wanted = topics_for(subscription, scenario.routing)
    outcomes = [tracker.receive(m) for topic, m in scenario.messages if topic in wanted]
    assert completions(outcomes) == {block.hash: 1 for block in scenario.chain}
    assert sink_blocks(sink, scenario.chain) == expected
    assert tracker.watermark() == scenario.chain[-1].header


@FEWER
@given(deliveries(), st.randoms(use_true_random=False))
def test_concurrent_stateless_instances_interleaved_at_every_store_call(scenario: Scenario, rng: random.Random) -> None:
    inner = InMemoryTrackingStore()
    stepping = SteppingStore(inner)
    names = ["i0", "i1", "i2"]
    trackers = {name: new_tracker(stepping, conflicts=ConflictPolicy(fatal=True))[0] for name in names}
    shares: dict[str, list[WireMessage]] = {name: [] for name in names}
    for _, message in scenario.messages:
        shares[rng.choice(names)].append(message)
    outcomes: list[TrackingOutcome] = []

    def job(name: str) -> Callable[[], None]:
        def receive_share() -> None:
            outcomes.extend(trackers[name].receive(message) for message in shares[name])

        return receive_share

    stepping.run({name: job(name) for name in names}, rng.choice)

    assert completions(outcomes) == {block.hash: 1 for block in scenario.chain}
    assert new_tracker(inner)[0].watermark() == scenario.chain[-1].header


class SimulatedCrashError(Exception):
    """The instance died in the middle of a message; the broker will deliver it again."""


class CrashingStore:
    """Fails one chosen operation (store or sink), once."""

    def __init__(self, inner: InMemoryTrackingStore, crash_at: int) -> None:
        self.inner = inner
        self.crash_at = crash_at
        self.calls = 0

    def tick(self) -> None:
        self.calls += 1
        if self.calls == self.crash_at:
            raise SimulatedCrashError

    def read_row(self, row: bytes) -> Mapping[bytes, bytes]:
        self.tick()
        return self.inner.read_row(row)

    def check_and_set(self, row: bytes, column: bytes, expected: bytes | None, value: bytes) -> bool:
        self.tick()
        return self.inner.check_and_set(row, column, expected, value)


class CrashingSink(RecordingSink):
    def __init__(self, clock: CrashingStore) -> None:
        super().__init__()
        self.clock = clock

    def write(self, block_hash: bytes, updates: Mapping[str, bytes], deletes: Collection[str]) -> None:
        self.clock.tick()
        super().write(block_hash, updates, deletes)

    def finish(self, block: BlockHeader) -> None:
        self.clock.tick()
        super().finish(block)


@FAST
@given(deliveries(), st.integers(1, 400))
def test_a_crash_at_any_step_is_repaired_by_redelivery(scenario: Scenario, crash_at: int) -> None:
    store = CrashingStore(InMemoryTrackingStore(), crash_at)
    sink = CrashingSink(store)
    tracker = StatelessTracker(store, sink, first_number=1, conflicts=ConflictPolicy(fatal=True))
    outcomes: list[TrackingOutcome] = []
    unacknowledged: list[WireMessage] = []
    for _, message in scenario.messages:
        try:
            outcomes.append(tracker.receive(message))
        except SimulatedCrashError:
            unacknowledged.append(message)
    for message in unacknowledged:
        outcomes.append(tracker.receive(message))
    store.crash_at = 0

    assert len(completions(outcomes)) <= len(scenario.chain)
    assert all(n == 1 for n in completions(outcomes).values())
    assert [tracker.is_complete(block.hash) for block in scenario.chain] == [True] * len(scenario.chain)
    assert tracker.watermark() == scenario.chain[-1].header
    assert sink_blocks(sink, scenario.chain) == scenario.chain


@FEWER
@given(deliveries())
def test_a_crash_at_every_step_without_redelivery_is_repaired_by_republishing_and_reconnect(scenario: Scenario) -> None:
    # The crashed message never comes back (parked as a dead letter, lost with the broker). The
    # reconciler republishes every block left incomplete; a block left complete but unconnected
    # (a crash between its done and its connected, or in the walk below it) gets no message again,
    # and only reconnect() (the sweep) carries the watermark on. Every store and sink call in turn.
    clean = CrashingStore(InMemoryTrackingStore(), 0)
    deliver_surviving_crashes(StatelessTracker(clean, CrashingSink(clean), first_number=1), scenario)
    for crash_at in range(1, clean.calls + 1):
        store = CrashingStore(InMemoryTrackingStore(), crash_at)
        tracker = StatelessTracker(store, CrashingSink(store), first_number=1, conflicts=ConflictPolicy(fatal=True))
        deliver_surviving_crashes(tracker, scenario)
        store.crash_at = 0
        for _, message in scenario.messages:
            if not tracker.is_complete(decode_message(message).block_hash):
                tracker.receive(message)
        assert all(tracker.is_complete(block.hash) for block in scenario.chain), crash_at

        tracker.reconnect()
        assert tracker.watermark() == scenario.chain[-1].header, crash_at
        assert tracker.reconnect() is None  # nothing left to repair


def deliver_surviving_crashes(tracker: StatelessTracker, scenario: Scenario) -> None:
    for _, message in scenario.messages:
        with contextlib.suppress(SimulatedCrashError):
            tracker.receive(message)


@st.composite
def conflicting(draw: st.DrawFn) -> tuple[Block, Block, list[WireMessage]]:
    """Two producers with different content under one hash, interleaved arbitrarily."""
    [first] = draw(chains(max_blocks=1))
    updates, deletes = draw(blocks_content())
    weight = draw(st.sampled_from([first.weight, first.weight + 1]))
    second = Block(first.hash, first.number, first.parent, weight, updates, deletes)
    routing = draw(routings(deliveries=(Delivery.SUB_BATCH,)))
    producer = BatchProducer(routing, chunk_bytes=draw(st.sampled_from([64, 300])))
    messages = [m for _, m in produce_all(producer, [first])] + [m for _, m in produce_all(producer, [second])]
    return first, second, draw(st.permutations(messages))


@FAST
@given(conflicting())
def test_conflicting_producers_are_never_merged(case: tuple[Block, Block, list[WireMessage]]) -> None:
    first, second, messages = case
    reported: list[ConflictingProducersError] = []
    policy = ConflictPolicy(on_conflict=reported.append)

    consumer = InMemoryConsumer(start=START, conflicts=policy)
    emitted = [block for update in feed(consumer, messages) for block in update.added]
    assert emitted in ([], [first], [second])
    if first != second and not emitted:
        assert reported

    reported.clear()
    tracker, _, sink = new_tracker(conflicts=policy)
    outcomes = [tracker.receive(m) for m in messages]
    completed = [o.completed for o in outcomes if o.completed is not None]
    if completed:
        [header] = completed
        content = (sink.values[first.hash], frozenset(sink.deletes[first.hash]))
        assert (header, content) in [(b.header, (dict(b.updates), b.deletes)) for b in (first, second)]
    elif first != second:
        assert reported
