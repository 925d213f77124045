"""PubSubPublisher failures that need no broker: limits checked up front, an unreachable broker."""

from __future__ import annotations

import time

import pytest
from hedera_history.config import Settings
from hedera_history.errors import MessageFormatError, TransportError, TransportUnavailableError
from hedera_history.localstack.ports import free_port
from hedera_history.transport.message import MAX_KEY_BYTES, OutgoingMessage
from hedera_history.transport.pubsub import PublisherTuning, PubSubPublisher


def _unreachable(timeout: float = 1.0, **tuning: object) -> PubSubPublisher:
    return PubSubPublisher(
        "p",
        emulator_host=f"127.0.0.1:{free_port()}",
        timeout_seconds=timeout,
        tuning=PublisherTuning(**tuning),  # type: ignore[arg-type]
    )


def test_topic_paths_carry_the_deployment_prefix() -> None:
    settings = Settings.from_env({}, project="proj", pubsub_topic_prefix="dev-")
    publisher = PubSubPublisher.from_settings(settings)
    assert publisher.topic_path("history") == "projects/proj/topics/dev-history"


def test_an_unreachable_broker_is_transient_and_bounded_in_time() -> None:
    with _unreachable(timeout=1.0) as publisher:
        started = time.monotonic()
        with pytest.raises(TransportUnavailableError, match="2 of 2 messages"):
            publisher.publish_all([OutgoingMessage("history", b"k1", b"v"), OutgoingMessage("history", b"k2", b"v")])
        assert time.monotonic() - started < 8.0


def test_an_oversized_message_fails_before_sending() -> None:
    with _unreachable() as publisher:
        with pytest.raises(TransportError) as caught:
            publisher.publish("history", b"k", b"x" * 10_500_000)
        assert not isinstance(caught.value, TransportUnavailableError)
        with pytest.raises(MessageFormatError):
            publisher.publish("history", b"k" * (MAX_KEY_BYTES + 1), b"v")


def test_a_closed_publisher_refuses_to_publish() -> None:
    publisher = _unreachable()
    publisher.close()
    with pytest.raises(TransportError):
        publisher.publish("history", b"k", b"v")
