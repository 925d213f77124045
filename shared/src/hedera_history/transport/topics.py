"""The names of the pipeline's topics and subscriptions, and how each subscription is configured.

This module is the one place these names are written; Terraform (``infra/``) is checked against
it. A deployment's ``pubsub_topic_prefix`` goes in front of every name.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

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
_MAX_DOUBLINGS = 32
STORE_ACK_DEADLINE_SECONDS = 120
"""For push: how long the store function may take to answer; its own timeout must be shorter."""
DEAD_LETTER_RETENTION_SECONDS = 7 * 24 * 3600


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """A subscription's exponential retry policy: after a failed delivery (a nack, or no ack within
    the deadline) the message comes back after ``minimum_seconds``, twice as long after each further
    failure, at most ``maximum_seconds`` (Pub/Sub's ``RetryPolicy``; it may take more or less time)."""

    minimum_seconds: float = MIN_BACKOFF_SECONDS
    maximum_seconds: float = MAX_BACKOFF_SECONDS

    def delay(self, failed_deliveries: int) -> float:
        """Seconds from the ``failed_deliveries``-th failed delivery (1 for the first) to the next."""
        doublings = min(max(failed_deliveries, 1) - 1, _MAX_DOUBLINGS)
        return float(min(self.maximum_seconds, self.minimum_seconds * 2**doublings))


STORE_RETRY_POLICY = RetryPolicy(MIN_BACKOFF_SECONDS, MAX_BACKOFF_SECONDS)
"""The store subscriptions' policy: Terraform declares it, the local push bridge applies it."""


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

    @property
    def retry_policy(self) -> RetryPolicy | None:
        if self.min_backoff_seconds is None and self.max_backoff_seconds is None:
            return None
        return RetryPolicy(
            MIN_BACKOFF_SECONDS if self.min_backoff_seconds is None else self.min_backoff_seconds,
            MAX_BACKOFF_SECONDS if self.max_backoff_seconds is None else self.max_backoff_seconds,
        )


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
            min_backoff_seconds=STORE_RETRY_POLICY.minimum_seconds,
            max_backoff_seconds=STORE_RETRY_POLICY.maximum_seconds,
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


def bridged_subscriptions() -> tuple[SubscriptionSpec, ...]:
    """The pipeline's subscriptions as the local push bridge reads them: pull, and with no retry
    policy of their own, so the emulator redelivers a message exactly when the bridge's hold on it
    ends. The bridge spaces the deliveries by the store's policy (``STORE_RETRY_POLICY``) itself:
    the emulator's own backoff is not Pub/Sub's (it redelivers the first nack at once, then every
    15 to 20 s whatever the policy says, and adds that to any deadline the bridge sets)."""
    return tuple(replace(spec, min_backoff_seconds=None, max_backoff_seconds=None) for spec in pipeline_subscriptions())
