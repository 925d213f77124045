"""Replaying dead letters: what the store subscriptions gave up on goes back to its source topic.

The ``-hold`` subscriptions keep what the dead-letter policy parked (``transport.topics``). Once
the cause is fixed (the store function answers again, Bigtable is back), :func:`replay_dead_letters`
pulls them and publishes each message again, unchanged but for the attributes Pub/Sub added when
it parked it, to the topic it came from; a message is acknowledged on the hold only after the
publish succeeded, so a replay that dies half way loses nothing. The store function is idempotent,
so a replayed message that had been stored after all changes nothing.

Each replay adds one to the message's ``replays`` attribute. The operator's command replays
whatever is held; the sweep replays by itself only messages replayed fewer than
:data:`SWEEP_MAX_REPLAYS` times (``max_replays``), so a message that fails however often it comes
back ends on its hold (where the dead-letter alert sees it) instead of circling for ever. Such a
message stays leased while the run pulls on (the others come first) and is released, not
acknowledged, when the run is done with its hold, so the operator's command can take it at once;
every message pulled counts against ``max_messages``, replayed or kept, so one run always ends.
"""

from __future__ import annotations

import logging
import warnings
from dataclasses import dataclass, field
from typing import Any

from hedera_history.errors import TransportUnavailableError
from hedera_history.logs import event
from hedera_history.transport._errors import CLIENT_ERRORS, transport_error
from hedera_history.transport.message import REPLAYS_ATTRIBUTE
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
SWEEP_MAX_REPLAYS = 3
"""A message the sweep has sent back this often stays on its hold for the operator: each round
is ten deliveries over the store subscription's backoff (up to an hour), so three rounds outlast
any outage the store rides out by itself."""
PULL_BATCH = 100
PULL_TIMEOUT_SECONDS = 10.0


@dataclass
class ReplayReport:
    replayed: dict[str, int] = field(default_factory=dict)
    """Source topic -> messages published again."""
    kept: dict[str, int] = field(default_factory=dict)
    """Source topic -> messages left on the hold, replayed ``max_replays`` times already."""

    @property
    def total(self) -> int:
        return sum(self.replayed.values())

    @property
    def total_kept(self) -> int:
        return sum(self.kept.values())


def replay_dead_letters(
    project: str,
    *,
    prefix: str = "",
    emulator_host: str = "",
    max_messages: int = 10_000,
    max_replays: int | None = None,
    wait: bool = True,
) -> ReplayReport:
    """Publish the held dead letters (at most ``max_messages`` pulled) to their source topics again;
    with ``max_replays``, those already replayed that often stay held. Without ``wait`` an empty
    hold answers at once (the sweep: it must not block on empty holds every run; a pull that
    answers empty although messages wait leaves them to the next run)."""
    # The Pub/Sub client on first use: the ingest function's sweep imports this module at start.
    from hedera_history.transport._clients import publisher_client, subscriber_client  # noqa: PLC0415

    subscriber = subscriber_client(emulator_host)
    publisher = publisher_client(emulator_host)
    try:
        return replay_holds(
            subscriber,
            publisher,
            project,
            prefix=prefix,
            max_messages=max_messages,
            max_replays=max_replays,
            wait=wait,
        )
    finally:
        subscriber.close()
        publisher.stop()


def replay_holds(
    subscriber: Any,
    publisher: Any,
    project: str,
    *,
    prefix: str = "",
    max_messages: int = 10_000,
    max_replays: int | None = None,
    wait: bool = True,
) -> ReplayReport:
    """:func:`replay_dead_letters` with clients of the caller's (``pubsub_v1`` or the same shape)."""
    report = ReplayReport()
    for hold, source in HOLDS.items():
        path = subscriber.subscription_path(project, prefix + hold)
        topic = publisher.topic_path(project, prefix + source)
        budget = max_messages - report.total - report.total_kept
        replayed, kept = _replay_hold(subscriber, publisher, path, topic, budget, max_replays=max_replays, wait=wait)
        report.replayed[source] = replayed
        report.kept[source] = kept
        if replayed or kept:
            event(
                logger,
                "dead letters replayed",
                subscription=prefix + hold,
                topic=prefix + source,
                count=replayed,
                kept=kept,
            )
    return report


def _replay_hold(
    subscriber: Any,
    publisher: Any,
    subscription: str,
    topic: str,
    budget: int,
    *,
    max_replays: int | None,
    wait: bool = True,
) -> tuple[int, int]:
    """Replay until the hold is empty or ``budget`` messages were pulled: (replayed, kept)."""
    replayed = 0
    kept: list[str] = []
    try:
        while replayed + len(kept) < budget:
            received = _pull(subscriber, subscription, min(PULL_BATCH, budget - replayed - len(kept)), wait=wait)
            if not received:
                break
            for item in received:
                attributes = {
                    k: v for k, v in item.message.attributes.items() if not k.startswith(DEAD_LETTER_ATTRIBUTE_PREFIX)
                }
                replays = _replays(attributes)
                if max_replays is not None and replays >= max_replays:
                    kept.append(item.ack_id)
                    continue
                attributes[REPLAYS_ATTRIBUTE] = str(replays + 1)
                _republish(subscriber, publisher, subscription, topic, item, attributes=attributes)
                replayed += 1
    finally:
        _release(subscriber, subscription, kept)
    return replayed, len(kept)


def _pull(subscriber: Any, subscription: str, max_messages: int, *, wait: bool = True) -> list[Any]:
    try:
        if wait:
            response = subscriber.pull(
                subscription=subscription, max_messages=max_messages, timeout=PULL_TIMEOUT_SECONDS
            )
        else:
            # Deprecated by the client (a pull may answer empty while messages wait), which is
            # exactly what a periodic caller wants instead of holding the call open on an empty hold.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                response = subscriber.pull(
                    subscription=subscription,
                    max_messages=max_messages,
                    return_immediately=True,
                    timeout=PULL_TIMEOUT_SECONDS,
                )
    except CLIENT_ERRORS as e:
        raise transport_error(e, f"pull dead letters from {subscription}") from e
    return list(response.received_messages)


def _republish(
    subscriber: Any, publisher: Any, subscription: str, topic: str, item: Any, *, attributes: dict[str, str]
) -> None:
    """Publish one held message to ``topic``, then acknowledge it on its hold (never before)."""
    try:
        publisher.publish(topic, bytes(item.message.data), **attributes).result(timeout=PULL_TIMEOUT_SECONDS * 6)
        subscriber.acknowledge(subscription=subscription, ack_ids=[item.ack_id])
    except CLIENT_ERRORS as e:
        raise transport_error(e, f"replay a dead letter to {topic}") from e
    except TimeoutError as e:
        raise TransportUnavailableError(f"replay a dead letter to {topic}: no answer in time") from e


def _release(subscriber: Any, subscription: str, ack_ids: list[str]) -> None:
    """Hand kept messages back to the hold now (a lease that simply ended would do the same, later)."""
    for start in range(0, len(ack_ids), PULL_BATCH):
        try:
            subscriber.modify_ack_deadline(
                subscription=subscription, ack_ids=ack_ids[start : start + PULL_BATCH], ack_deadline_seconds=0
            )
        except CLIENT_ERRORS as e:
            # Not worth failing the run for: the lease ends by itself within the ack deadline.
            event(logger, "dead letters not released", logging.WARNING, subscription=subscription, reason=str(e))
            return


def _replays(attributes: dict[str, str]) -> int:
    value = attributes.get(REPLAYS_ATTRIBUTE, "0")
    return int(value) if value.isdigit() else 0
