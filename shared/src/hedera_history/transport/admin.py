"""Create the pipeline's topics and subscriptions, idempotently (emulator and local stack).

Production topics and subscriptions come from Terraform; this is for the emulator, the local
stack and tests. Running it again changes nothing, or brings a subscription's settings back to
the spec (a subscription cannot move to another topic: that is an error).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta
from typing import Any

from google.api_core import exceptions as api_exceptions
from google.cloud.pubsub_v1 import types

from hedera_history.errors import TransportError
from hedera_history.transport._clients import publisher_client, subscriber_client
from hedera_history.transport._errors import CLIENT_ERRORS, transport_error
from hedera_history.transport.topics import SubscriptionSpec

# Fields ensure_topics owns on an existing subscription (paths of the update mask).
_MANAGED_FIELDS = ("ack_deadline_seconds", "push_config", "dead_letter_policy", "retry_policy")


def ensure_topics(
    project: str,
    topics: Iterable[str],
    subscriptions: Iterable[SubscriptionSpec] = (),
    *,
    prefix: str = "",
    emulator_host: str = "",
    publisher: Any = None,
    subscriber: Any = None,
) -> None:
    """Make sure the topics (and every dead-letter topic a subscription names) and the
    subscriptions exist as specified. ``prefix`` goes in front of every topic and subscription id.
    ``publisher`` / ``subscriber``: ready clients (else created for ``emulator_host`` or Google)."""
    specs = list(subscriptions)
    wanted = dict.fromkeys(
        [*topics, *(s.topic for s in specs), *(s.dead_letter_topic for s in specs if s.dead_letter_topic)]
    )
    own_publisher, own_subscriber = publisher is None, subscriber is None
    publisher = publisher or publisher_client(emulator_host)
    subscriber = subscriber or subscriber_client(emulator_host)
    try:
        for topic in wanted:
            _ensure_topic(publisher, f"projects/{project}/topics/{prefix}{topic}")
        for spec in specs:
            _ensure_subscription(subscriber, subscription_proto(project, spec, prefix=prefix))
    finally:
        if own_subscriber:
            subscriber.close()
        if own_publisher:
            publisher.stop()


def subscription_proto(project: str, spec: SubscriptionSpec, *, prefix: str = "") -> Any:
    """The ``pubsub_v1.types.Subscription`` for ``spec``."""
    fields: dict[str, Any] = {
        "name": f"projects/{project}/subscriptions/{prefix}{spec.name}",
        "topic": f"projects/{project}/topics/{prefix}{spec.topic}",
        "ack_deadline_seconds": spec.ack_deadline_seconds,
        "push_config": {"push_endpoint": spec.push_endpoint} if spec.push_endpoint else {},
    }
    if spec.dead_letter_topic:
        fields["dead_letter_policy"] = {
            "dead_letter_topic": f"projects/{project}/topics/{prefix}{spec.dead_letter_topic}",
            "max_delivery_attempts": spec.max_delivery_attempts,
        }
    policy = spec.retry_policy
    if policy is not None:
        fields["retry_policy"] = {
            "minimum_backoff": timedelta(seconds=policy.minimum_seconds),
            "maximum_backoff": timedelta(seconds=policy.maximum_seconds),
        }
    if spec.retention_seconds is not None:
        fields["message_retention_duration"] = timedelta(seconds=spec.retention_seconds)
    return types.Subscription(**fields)


def _ensure_topic(publisher: Any, path: str) -> None:
    try:
        publisher.create_topic(name=path)
    except api_exceptions.AlreadyExists:
        return
    except CLIENT_ERRORS as e:
        raise transport_error(e, f"create topic {path}") from e


def _ensure_subscription(subscriber: Any, desired: Any) -> None:
    try:
        subscriber.create_subscription(request=desired)
        return
    except api_exceptions.AlreadyExists:
        pass
    except CLIENT_ERRORS as e:
        raise transport_error(e, f"create subscription {desired.name}") from e
    try:
        existing = subscriber.get_subscription(subscription=desired.name)
        if existing.topic != desired.topic:
            raise TransportError(
                f"subscription {desired.name} belongs to {existing.topic}, not {desired.topic}; delete it to move it"
            )
        new, old = type(desired).pb(desired), type(existing).pb(existing)
        stale = [f for f in _MANAGED_FIELDS if getattr(new, f) != getattr(old, f)]
        if stale:
            subscriber.update_subscription(request={"subscription": desired, "update_mask": {"paths": stale}})
    except CLIENT_ERRORS as e:
        raise transport_error(e, f"update subscription {desired.name}") from e
