"""Pub/Sub clients, for the real service or an emulator (insecure channel, no credentials)."""

from __future__ import annotations

from typing import Any

import grpc
from google.cloud import pubsub_v1
from google.pubsub_v1.services.publisher.transports import PublisherGrpcTransport
from google.pubsub_v1.services.subscriber.transports import SubscriberGrpcTransport

from hedera_history.grpc_options import UNLIMITED_MESSAGES


def emulator_channel(emulator_host: str) -> grpc.Channel:
    return grpc.insecure_channel(emulator_host, options=UNLIMITED_MESSAGES)


def publisher_client(emulator_host: str = "", **options: Any) -> Any:
    """A ``pubsub_v1.PublisherClient``; ``options``: batch_settings, publisher_options."""
    if emulator_host:
        transport = PublisherGrpcTransport(channel=emulator_channel(emulator_host))
        return pubsub_v1.PublisherClient(transport=transport, **options)
    return pubsub_v1.PublisherClient(**options)


def subscriber_client(emulator_host: str = "") -> Any:
    """A ``pubsub_v1.SubscriberClient``."""
    if emulator_host:
        transport = SubscriberGrpcTransport(channel=emulator_channel(emulator_host))
        return pubsub_v1.SubscriberClient(transport=transport)
    return pubsub_v1.SubscriberClient()
