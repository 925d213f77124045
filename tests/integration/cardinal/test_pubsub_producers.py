"""Redundant producers over the Pub/Sub emulator into one stateless consumer backed by Bigtable.

Three producers publish the same chain at once, with small random delays, to the history and
sidecar topics; a consumer streams both subscriptions and gives every delivery to a
``StatelessTracker``. Each block must be completed exactly once with exactly its content.
"""

from __future__ import annotations

import queue
import random
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from google.cloud import pubsub_v1
from hedera_history.cardinal.chain_blocks import Block
from hedera_history.cardinal.conflicts import ConflictPolicy
from hedera_history.cardinal.messages import WireMessage
from hedera_history.cardinal.producer import BatchProducer
from hedera_history.cardinal.routing import Delivery, PrefixRoute, Routing
from hedera_history.cardinal.tracking import Disposition, StatelessTracker, TrackingOutcome
from hedera_history.config import Settings
from hedera_history.store.bigtable_client import BigtableDataGateway, gateway_for_instance
from hedera_history.store.schema import ensure_tables
from hedera_history.store.tracking_store import BigtableTrackingStore
from hedera_history.transport.message import OutgoingMessage, ReceivedMessage
from hedera_history.transport.pubsub import PubSubPublisher, received_from_pull

from tests.fixtures.emulators import PROJECT, PubSubResources
from tests.unit.cardinal.chains import RecordingSink, linear_chain

BLOCKS = 200
PRODUCERS = 3
WAIT_SECONDS = 600.0
"""A bound, not a measure: every wait ends as soon as the deliveries are in (4,200 of them took more
than 50 s on a 2-core machine shared with other test runs)."""
CHUNK_BYTES = 128


def topic_id(path: str) -> str:
    return path.rsplit("/", 1)[1]


@pytest.fixture
def gateway(bigtable_instance: Any) -> Iterator[BigtableDataGateway]:
    settings = Settings.from_env({}, table_prefix="ps_")
    ensure_tables(bigtable_instance, settings)
    opened = gateway_for_instance(bigtable_instance, settings)
    yield opened
    opened.close()


def produce(routing: Routing, chain: list[Block], seed: int) -> None:
    """One redundant producer: every block in order, each published whole, then a short pause."""
    rng = random.Random(seed)
    producer = BatchProducer(routing, chunk_bytes=CHUNK_BYTES)
    publisher = PubSubPublisher(PROJECT)
    try:
        for block in chain:
            outgoing = [
                OutgoingMessage(topic, message.key, message.value)
                for topic, messages in producer.produce(block).items()
                for message in messages
            ]
            rng.shuffle(outgoing)
            publisher.publish_all(outgoing)
            time.sleep(rng.uniform(0, 0.004))
    finally:
        publisher.close()


def test_three_redundant_producers_reconstruct_every_block_exactly_once(
    pubsub_resources: PubSubResources, gateway: BigtableDataGateway
) -> None:
    history = pubsub_resources.topic("history")
    sidecars = pubsub_resources.topic("sidecars")
    subscriptions = [pubsub_resources.subscription(history), pubsub_resources.subscription(sidecars)]
    routing = Routing(
        topic_id(history),
        (
            PrefixRoute("a/", topic_id(history)),
            PrefixRoute("b/", topic_id(history), Delivery.PER_KEY),
            PrefixRoute("c/", topic_id(sidecars)),
        ),
    )
    chain = linear_chain("ps-", BLOCKS)
    per_producer = sum(
        len(m) for block in chain for m in BatchProducer(routing, chunk_bytes=128).produce(block).values()
    )
    sink = RecordingSink()
    tracker = StatelessTracker(
        BigtableTrackingStore(gateway), sink, first_number=1, conflicts=ConflictPolicy(fatal=True)
    )

    # The pull callbacks only queue; one consumer thread feeds the tracker, then acks.
    inbox: queue.Queue[tuple[ReceivedMessage, Any]] = queue.Queue()
    outcomes: list[TrackingOutcome] = []
    all_received = threading.Event()

    def consume() -> None:
        try:
            while len(outcomes) < PRODUCERS * per_producer and not all_received.is_set():
                try:
                    message, pulled = inbox.get(timeout=0.2)
                except queue.Empty:
                    continue
                outcomes.append(tracker.receive(WireMessage(message.key, message.value)))
                pulled.ack()
        finally:
            all_received.set()

    subscriber = pubsub_v1.SubscriberClient()
    streams = [
        subscriber.subscribe(path, callback=lambda pulled: inbox.put((received_from_pull(pulled), pulled)))
        for path in subscriptions
    ]
    with ThreadPoolExecutor(max_workers=PRODUCERS + 1) as pool:
        consumer = pool.submit(consume)
        try:
            producers = [pool.submit(produce, routing, chain, seed) for seed in range(PRODUCERS)]
            for future in producers:
                future.result(timeout=WAIT_SECONDS)  # re-raises a producer's error
            all_received.wait(WAIT_SECONDS)
        finally:
            all_received.set()
            for stream in streams:
                stream.cancel()
                stream.result(timeout=30)
            subscriber.close()
        consumer.result()  # re-raises the consumer's error
    assert len(outcomes) >= PRODUCERS * per_producer, f"only {len(outcomes)} deliveries in {WAIT_SECONDS} s"
    dispositions = Counter(o.disposition for o in outcomes)
    assert dispositions[Disposition.DUPLICATE] + dispositions[Disposition.ALREADY_COMPLETE] >= per_producer
    completed = Counter(o.block_hash for o in outcomes if o.disposition is Disposition.COMPLETED)
    assert completed == {block.hash: 1 for block in chain}
    assert not [o for o in outcomes if o.disposition is Disposition.CONFLICT]
    assert [sink.block(block) for block in chain] == chain
    assert set(sink.finished) == {block.hash for block in chain}
    assert tracker.watermark() == chain[-1].header
