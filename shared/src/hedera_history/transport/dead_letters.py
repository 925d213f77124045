"""Replaying dead letters: what the store subscriptions gave up on goes back to its source topic.

The ``-hold`` subscriptions keep what the dead-letter policy parked (``transport.topics``). Once
the cause is fixed (the store function answers again, Bigtable is back), :func:`replay_dead_letters`
pulls them and publishes each message again, unchanged but for the attributes Pub/Sub added when
it parked it, to the topic it came from; a message is acknowledged on the hold only after the
publish succeeded, so a replay that dies half way loses nothing. The store function is idempotent,
so a replayed message that had been stored after all changes nothing.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from hedera_history.logs import event
from hedera_history.transport._clients import publisher_client, subscriber_client
from hedera_history.transport._errors import CLIENT_ERRORS, transport_error
from hedera_history.transport.topics import (
    HISTORY,
    HISTORY_DEAD_LETTER_HOLD,
    SIDECARS,
    SIDECARS_DEAD_LETTER_HOLD,
)

logger = logging.getLogger(__name__)

HOLDS = {HISTORY_DEAD_LETTER_HOLD: HISTORY, SIDECARS_DEAD_LETTER_HOLD: SIDECARS}
"""Hold subscription -> the topic its messages came from."""
DEAD_LETTER_ATTRIBUTE_PREFIX = "CloudPubSubDeadLetter"
REPLAYS_ATTRIBUTE = "replays"
"""How often a message was replayed (readable; consumers ignore it)."""
PULL_BATCH = 100
PULL_TIMEOUT_SECONDS = 10.0


@dataclass
class ReplayReport:
    replayed: dict[str, int] = field(default_factory=dict)
    """Source topic -> messages published again."""

    @property
    def total(self) -> int:
        return sum(self.replayed.values())


def replay_dead_letters(
    project: str, *, prefix: str = "", emulator_host: str = "", max_messages: int = 10_000
) -> ReplayReport:
    """Publish every held dead letter (at most ``max_messages``) to its source topic again."""
    report = ReplayReport()
    subscriber = subscriber_client(emulator_host)
    publisher = publisher_client(emulator_host)
    try:
        for hold, source in HOLDS.items():
            path = subscriber.subscription_path(project, prefix + hold)
            topic = publisher.topic_path(project, prefix + source)
            count = _replay_hold(subscriber, publisher, path, topic, max_messages - report.total)
            report.replayed[source] = count
            if count:
                event(logger, "dead letters replayed", subscription=prefix + hold, topic=prefix + source, count=count)
    finally:
        subscriber.close()
        publisher.stop()
    return report


def _replay_hold(subscriber: Any, publisher: Any, subscription: str, topic: str, budget: int) -> int:
    replayed = 0
    while replayed < budget:
        try:
            response = subscriber.pull(
                subscription=subscription,
                max_messages=min(PULL_BATCH, budget - replayed),
                timeout=PULL_TIMEOUT_SECONDS,
            )
        except CLIENT_ERRORS as e:
            raise transport_error(e, f"pull dead letters from {subscription}") from e
        received = list(response.received_messages)
        if not received:
            return replayed
        for item in received:
            message = item.message
            attributes = {k: v for k, v in message.attributes.items() if not k.startswith(DEAD_LETTER_ATTRIBUTE_PREFIX)}
            attributes[REPLAYS_ATTRIBUTE] = str(_replays(attributes) + 1)
            try:
                publisher.publish(topic, bytes(message.data), **attributes).result(timeout=PULL_TIMEOUT_SECONDS * 6)
                subscriber.acknowledge(subscription=subscription, ack_ids=[item.ack_id])
            except CLIENT_ERRORS as e:
                raise transport_error(e, f"replay a dead letter to {topic}") from e
            replayed += 1
    return replayed


def _replays(attributes: dict[str, str]) -> int:
    value = attributes.get(REPLAYS_ATTRIBUTE, "0")
    return int(value) if value.isdigit() else 0
