"""Publishing Cardinal messages to Pub/Sub, and reading pulled ones back.

:class:`PubSubPublisher` wraps the official publisher client with batching, flow control and a
retry budget chosen for our traffic: a producer publishes one block's rows as a few large
messages at once, then waits for all of them. The numbers and their reasons are in
:class:`PublisherTuning`; the message mapping is in :mod:`hedera_history.transport.message`.
"""

from __future__ import annotations

import concurrent.futures
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from google.api_core.retry import Retry, if_exception_type
from google.cloud.pubsub_v1 import types
from google.cloud.pubsub_v1.publisher import exceptions as publisher_exceptions

from hedera_history.errors import TransportError, TransportUnavailableError
from hedera_history.transport._clients import publisher_client
from hedera_history.transport._errors import RETRYABLE_STATUS_ERRORS, transport_error
from hedera_history.transport.message import (
    OutgoingMessage,
    ReceivedMessage,
    decode_message,
    pubsub_attributes,
)

if TYPE_CHECKING:
    from hedera_history.config import Settings

MiB = 1024 * 1024


@dataclass(frozen=True)
class PublisherTuning:
    """Batching and flow control of :class:`PubSubPublisher`, with the reasons for each default."""

    max_batch_bytes: int = 8 * MiB
    """Messages are large (a block's rows in a few messages of up to several MB), so big requests
    mean few round trips; 8 MiB stays under Pub/Sub's 10 MB request limit with room for overhead.
    A message larger than this still goes out, alone in its request."""
    max_batch_messages: int = 1000
    """Pub/Sub's own per-request maximum: the byte limit above is the one that binds."""
    max_latency_seconds: float = 0.02
    """A producer queues a whole block in one go and then waits, so a batch fills at once; the
    latency only delays the last, partial batch, and 20 ms per block is cheap."""
    max_outstanding_bytes: int = 64 * MiB
    """Bounds the memory a producer holds in unsent and unacknowledged messages (a function has a
    few hundred MB). Above a block's size, so a block never waits on itself; above the 10 MB message
    limit, or a large message would be refused outright."""
    max_outstanding_messages: int = 10_000
    """Rarely binds (messages are large); guards against a flood of small ones."""
    ordering: bool = False
    """Off: the store function does not depend on order (docs/transport.md says why it is off)."""


class PubSubPublisher:
    """Publishes (topic, key, value) to ``projects/<project>/topics/<prefix><topic>``.

    When the flow-control limits are reached, :meth:`publish` blocks until earlier messages are
    acknowledged by the server, so a fast producer slows down instead of growing without bound.
    """

    def __init__(
        self,
        project: str,
        *,
        topic_prefix: str = "",
        timeout_seconds: float = 60.0,
        tuning: PublisherTuning | None = None,
        emulator_host: str = "",
        client: Any = None,
    ) -> None:
        """``timeout_seconds``: the most one publish may take, retries included; then it fails as
        :class:`TransportUnavailableError`. ``client``: a ready ``pubsub_v1.PublisherClient``."""
        self.project = project
        self.topic_prefix = topic_prefix
        self.timeout_seconds = timeout_seconds
        self.tuning = tuning or PublisherTuning()
        self._emulator_host = emulator_host
        self._client = client
        self._lock = threading.Lock()
        self._closed = False

    @classmethod
    def from_settings(cls, settings: Settings, *, tuning: PublisherTuning | None = None) -> PubSubPublisher:
        return cls(
            settings.project,
            topic_prefix=settings.pubsub_topic_prefix,
            timeout_seconds=settings.publish_timeout_seconds,
            tuning=tuning,
            emulator_host=settings.pubsub_emulator_host,
        )

    def topic_path(self, topic: str) -> str:
        return f"projects/{self.project}/topics/{self.topic_prefix}{topic}"

    @property
    def client(self) -> Any:
        with self._lock:
            if self._closed:
                raise TransportError("the publisher is closed")
            if self._client is None:
                self._client = publisher_client(self._emulator_host, **self._client_options())
            return self._client

    def publish(
        self,
        topic: str,
        key: bytes,
        value: bytes,
        attributes: Mapping[str, str] | None = None,
        *,
        ordering_key: str = "",
    ) -> concurrent.futures.Future[str]:
        """Queue one message; the future gives its server-assigned id. ``ordering_key`` is used only
        when ordering is enabled in the tuning. A message that breaks Pub/Sub's limits raises
        :class:`MessageFormatError` (attributes) or :class:`TransportError` (size) here."""
        encoded = pubsub_attributes(key, attributes or {})
        try:
            future: concurrent.futures.Future[str] = self.client.publish(
                self.topic_path(topic),
                value,
                ordering_key=ordering_key if self.tuning.ordering else "",
                **encoded,
            )
        except publisher_exceptions.MessageTooLargeError as e:
            raise TransportError(f"message of {len(value)} bytes is larger than Pub/Sub accepts") from e
        return future

    def publish_all(self, messages: Iterable[OutgoingMessage]) -> None:
        """Publish every message and wait until the server has acknowledged all of them.

        Raises :class:`TransportUnavailableError` when every failure was transient (the caller may
        publish the whole batch again: consumers are idempotent), else :class:`TransportError`.
        """
        pending: list[tuple[OutgoingMessage, concurrent.futures.Future[str]]] = [
            (m, self.publish(m.topic, m.key, m.value, m.attributes, ordering_key=m.ordering_key)) for m in messages
        ]
        # Every publish already carries its own retry deadline; the margin covers queueing.
        done, not_done = concurrent.futures.wait(
            [f for _, f in pending], timeout=self.timeout_seconds + self.tuning.max_latency_seconds + 5.0
        )
        failures: list[tuple[OutgoingMessage, BaseException]] = []
        for message, future in pending:
            error = future.exception(timeout=0) if future in done else None
            if future in not_done:
                error = concurrent.futures.TimeoutError()
            if error is not None:
                failures.append((message, error))
                self._resume(message)
        if failures:
            raise _batch_error(failures, len(pending)) from failures[0][1]

    def close(self) -> None:
        """Send what is still queued, then release the client."""
        with self._lock:
            client, self._client, self._closed = self._client, None, True
        if client is not None:
            client.stop()

    def __enter__(self) -> PubSubPublisher:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _client_options(self) -> dict[str, Any]:
        t = self.tuning
        retry = Retry(
            predicate=if_exception_type(*RETRYABLE_STATUS_ERRORS),
            initial=0.1,
            maximum=10.0,
            multiplier=2.0,
            timeout=self.timeout_seconds,
        )
        return {
            "batch_settings": types.BatchSettings(
                max_bytes=t.max_batch_bytes,
                max_latency=t.max_latency_seconds,
                max_messages=t.max_batch_messages,
            ),
            "publisher_options": types.PublisherOptions(
                enable_message_ordering=t.ordering,
                flow_control=types.PublishFlowControl(
                    message_limit=t.max_outstanding_messages,
                    byte_limit=t.max_outstanding_bytes,
                    limit_exceeded_behavior=types.LimitExceededBehavior.BLOCK,
                ),
                retry=retry,
                timeout=self.timeout_seconds,
            ),
        }

    def _resume(self, message: OutgoingMessage) -> None:
        # With ordering, a failed publish pauses its ordering key until resumed.
        if self.tuning.ordering and message.ordering_key:
            self.client.resume_publish(self.topic_path(message.topic), message.ordering_key)


def _batch_error(failures: list[tuple[OutgoingMessage, BaseException]], total: int) -> TransportError:
    errors = [transport_error(error, f"publish to {message.topic}") for message, error in failures]
    summary = f"{len(failures)} of {total} messages were not published; first: {errors[0].reason}"
    if all(isinstance(e, TransportUnavailableError) for e in errors):
        return TransportUnavailableError(summary)
    return TransportError(summary)


def received_from_pull(message: Any) -> ReceivedMessage:
    """A pulled ``pubsub_v1.subscriber.message.Message`` as a :class:`ReceivedMessage`."""
    return decode_message(
        bytes(message.data),
        dict(message.attributes),
        message_id=str(message.message_id),
        delivery_attempt=message.delivery_attempt,
        publish_time=message.publish_time,
    )
