"""The names of the pipeline's topics and subscriptions, and how each subscription is configured.

This module is the one place these names are written; Terraform (``infra/``) is checked against
it. A deployment's ``pubsub_topic_prefix`` goes in front of every name.
"""

from __future__ import annotations

from dataclasses import dataclass

HISTORY = "history"
"""Rows of the core history tables (blocks, items, transactions, ids, accounts)."""
SIDECARS = "sidecars"
"""Rows of the sidecar table, on their own topic so consumers that do not want them never pay."""
HISTORY_DEAD_LETTER = "history-dead-letter"
SIDECARS_DEAD_LETTER = "sidecars-dead-letter"

STORE_HISTORY = "store-history"
"""The store function's subscription to ``history`` (push in production)."""
STORE_SIDECARS = "store-sidecars"
"""The store function's subscription to ``sidecars`` (push in production)."""
HISTORY_DEAD_LETTER_HOLD = "history-dead-letter-hold"
"""Keeps dead letters: a topic with no subscription drops every message published to it."""
SIDECARS_DEAD_LETTER_HOLD = "sidecars-dead-letter-hold"

TOPICS = (HISTORY, SIDECARS, HISTORY_DEAD_LETTER, SIDECARS_DEAD_LETTER)

MAX_DELIVERY_ATTEMPTS = 10
"""The store function is idempotent, so redelivery is safe; ten tries over the backoff below
ride out a Bigtable hiccup of several minutes before a message is parked."""
MIN_BACKOFF_SECONDS = 10.0
MAX_BACKOFF_SECONDS = 600.0
STORE_ACK_DEADLINE_SECONDS = 120
"""For push: how long the store function may take to answer; its own timeout must be shorter."""
DEAD_LETTER_RETENTION_SECONDS = 7 * 24 * 3600


@dataclass(frozen=True)
class SubscriptionSpec:
    """One subscription as :func:`hedera_history.transport.admin.ensure_topics` creates it."""

    name: str
    topic: str
    push_endpoint: str | None = None
    """None: a pull subscription."""
    ack_deadline_seconds: int = 60
    dead_letter_topic: str | None = None
    max_delivery_attempts: int = MAX_DELIVERY_ATTEMPTS
    min_backoff_seconds: float | None = None
    """With the max below, an exponential retry policy; None: Pub/Sub's immediate redelivery."""
    max_backoff_seconds: float | None = None
    retention_seconds: int | None = None
    """How long unacknowledged messages are kept; None: Pub/Sub's default (7 days)."""


def pipeline_subscriptions(store_endpoint: str | None = None) -> tuple[SubscriptionSpec, ...]:
    """The pipeline's subscriptions: the store function's two (push to ``store_endpoint``, or pull
    for the local push bridge when None) and one pull subscription per dead-letter topic."""

    def store(name: str, topic: str, dead_letter: str) -> SubscriptionSpec:
        return SubscriptionSpec(
            name=name,
            topic=topic,
            push_endpoint=store_endpoint,
            ack_deadline_seconds=STORE_ACK_DEADLINE_SECONDS,
            dead_letter_topic=dead_letter,
            min_backoff_seconds=MIN_BACKOFF_SECONDS,
            max_backoff_seconds=MAX_BACKOFF_SECONDS,
        )

    return (
        store(STORE_HISTORY, HISTORY, HISTORY_DEAD_LETTER),
        store(STORE_SIDECARS, SIDECARS, SIDECARS_DEAD_LETTER),
        SubscriptionSpec(
            HISTORY_DEAD_LETTER_HOLD, HISTORY_DEAD_LETTER, retention_seconds=DEAD_LETTER_RETENTION_SECONDS
        ),
        SubscriptionSpec(
            SIDECARS_DEAD_LETTER_HOLD, SIDECARS_DEAD_LETTER, retention_seconds=DEAD_LETTER_RETENTION_SECONDS
        ),
    )
