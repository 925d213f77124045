"""``deadletters replay`` on the Pub/Sub emulator: held dead letters go back to their source topic,
unchanged but for Pub/Sub's dead-letter attributes and a replay count, and leave the hold."""

from __future__ import annotations

from typing import Any

import pytest
from google.cloud import pubsub_v1
from hedera_history.transport.admin import ensure_topics
from hedera_history.transport.dead_letters import replay_dead_letters
from hedera_history.transport.topics import (
    HISTORY_DEAD_LETTER,
    SIDECARS_DEAD_LETTER,
    STORE_HISTORY,
    STORE_SIDECARS,
    TOPICS,
    pipeline_subscriptions,
)

from tests.fixtures.emulators import PROJECT, unique_name

pytestmark = [pytest.mark.emulator]


def pull_all(subscriber: Any, path: str) -> list[Any]:
    found: list[Any] = []
    while True:
        response = subscriber.pull(subscription=path, max_messages=100, timeout=5)
        if not response.received_messages:
            return found
        for received in response.received_messages:
            found.append(received.message)
            subscriber.acknowledge(subscription=path, ack_ids=[received.ack_id])


def test_held_dead_letters_go_back_to_their_topics_once(pubsub_emulator: Any) -> None:
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
