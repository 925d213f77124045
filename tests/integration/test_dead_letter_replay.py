"""``deadletters replay`` on the Pub/Sub emulator: held dead letters go back to their source topic,
unchanged but for Pub/Sub's dead-letter attributes and a replay count, and leave the hold; the
sweep does the same by itself, and the block a dead letter left incomplete completes."""

from __future__ import annotations

import random
from typing import Any

import pytest
from google.cloud import pubsub_v1
from hedera_history.gen.config_and_output import GeneratedStream, GeneratorConfig
from hedera_history.gen.stream import generate_stream
from hedera_history.pipeline.ingest import ingest_object
from hedera_history.pipeline.sweep import sweep
from hedera_history.store.reader import HistoryReader
from hedera_history.transport import dead_letters
from hedera_history.transport.admin import ensure_topics
from hedera_history.transport.dead_letters import replay_dead_letters
from hedera_history.transport.topics import (
    HISTORY_DEAD_LETTER,
    HISTORY_DEAD_LETTER_HOLD,
    SIDECARS_DEAD_LETTER,
    STORE_HISTORY,
    STORE_SIDECARS,
    TOPICS,
    pipeline_subscriptions,
)

from tests.fixtures.emulators import PROJECT, unique_name
from tests.integration.pipeline.harness import Pipeline

pytestmark = [pytest.mark.emulator]


PULL_SECONDS = 5.0
"""How long a pull waits on an empty subscription, this module's and the replay's: every replay and
``pull_all`` ends on an empty one, and the replay's own 10 s were most of the first test's time."""


def pull_all(subscriber: Any, path: str) -> list[Any]:
    found: list[Any] = []
    while True:
        response = subscriber.pull(subscription=path, max_messages=100, timeout=PULL_SECONDS)
        if not response.received_messages:
            return found
        for received in response.received_messages:
            found.append(received.message)
            subscriber.acknowledge(subscription=path, ack_ids=[received.ack_id])


def test_held_dead_letters_go_back_to_their_topics_once(pubsub_emulator: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dead_letters, "PULL_TIMEOUT_SECONDS", PULL_SECONDS)
    prefix = unique_name("dl") + "-"
    ensure_topics(PROJECT, TOPICS, pipeline_subscriptions(None), prefix=prefix)
    publisher = pubsub_v1.PublisherClient()
    subscriber = pubsub_v1.SubscriberClient()
    try:
        parked = {
            "CloudPubSubDeadLetterSourceDeliveryCount": "10",
            "CloudPubSubDeadLetterSourceSubscription": "store-history",
        }
        for topic, data in ((HISTORY_DEAD_LETTER, b"history row"), (SIDECARS_DEAD_LETTER, b"sidecar row")):
            path = publisher.topic_path(PROJECT, prefix + topic)
            publisher.publish(path, data, k="a2V5", block="7", **parked).result(timeout=30)

        report = replay_dead_letters(PROJECT, prefix=prefix, emulator_host=pubsub_emulator.host)
        assert report.total == 2

        history = pull_all(subscriber, subscriber.subscription_path(PROJECT, prefix + STORE_HISTORY))
        sidecars = pull_all(subscriber, subscriber.subscription_path(PROJECT, prefix + STORE_SIDECARS))
        assert [m.data for m in history] == [b"history row"]
        assert [m.data for m in sidecars] == [b"sidecar row"]
        for message in (*history, *sidecars):
            assert dict(message.attributes) == {"k": "a2V5", "block": "7", "replays": "1"}
        again = replay_dead_letters(PROJECT, prefix=prefix, emulator_host=pubsub_emulator.host)
        assert again.total == 0, "a replayed dead letter leaves its hold"
    finally:
        publisher.stop()
        subscriber.close()


@pytest.fixture(scope="module")
def stream() -> GeneratedStream:
    return generate_stream(GeneratorConfig(nodes=4, periods=3, transactions=8, sidecars=True, seed=17))


@pytest.fixture
def pipeline_settings() -> dict[str, Any]:
    # The reconciler waits an hour: only the sweep's replay of the dead letter can complete the block.
    return {"reconcile_after_seconds": 3600}


def dead_letter_one_history_message(pipeline: Pipeline) -> None:
    """Park one message of ``store-history`` on ``history-dead-letter`` as Pub/Sub's dead-letter policy
    does (with its ``CloudPubSubDeadLetter…`` attributes) and take it off the store subscription."""
    prefix = pipeline.settings.pubsub_topic_prefix
    subscriber = pubsub_v1.SubscriberClient()
    publisher = pubsub_v1.PublisherClient()
    try:
        path = subscriber.subscription_path(PROJECT, prefix + STORE_HISTORY)
        response = subscriber.pull(subscription=path, max_messages=1, timeout=30)
        [received] = response.received_messages
        message = received.message
        parked = {
            **message.attributes,
            "CloudPubSubDeadLetterSourceDeliveryCount": "10",
            "CloudPubSubDeadLetterSourceSubscription": prefix + STORE_HISTORY,
        }
        topic = publisher.topic_path(PROJECT, prefix + HISTORY_DEAD_LETTER)
        publisher.publish(topic, message.data, **parked).result(timeout=60)
        subscriber.acknowledge(subscription=path, ack_ids=[received.ack_id])
    finally:
        publisher.stop()
        subscriber.close()


def test_one_sweep_run_replays_a_dead_letter_and_its_block_completes(
    pipeline: Pipeline, stream: GeneratedStream
) -> None:
    rng = random.Random(17)
    for name in pipeline.upload(dict(stream.objects), rng):
        ingest_object(pipeline.ingest, name)
    dead_letter_one_history_message(pipeline)
    pipeline.drain(rng, redeliver=0)
    numbers = [b["number"] for b in stream.truth["blocks"]]
    reader = HistoryReader(pipeline.gateway)
    assert len(reader.complete_blocks(numbers)) == len(numbers) - 1, "the dead letter left one block incomplete"

    report = sweep(pipeline.ingest)

    assert (report.dead_letters_replayed, report.dead_letters_kept) == (1, 0)
    assert report.reconciled.republished == 0
    assert report.as_dict()["dead_letters_replayed"] == 1
    assert pipeline.drain(rng, redeliver=0) >= 1
    assert reader.complete_blocks(numbers) == set(numbers)
    hold = pubsub_v1.SubscriberClient()
    try:
        path = hold.subscription_path(PROJECT, pipeline.settings.pubsub_topic_prefix + HISTORY_DEAD_LETTER_HOLD)
        assert pull_all(hold, path) == [], "the replayed dead letter left its hold"
    finally:
        hold.close()
    assert sweep(pipeline.ingest).dead_letters_replayed == 0
