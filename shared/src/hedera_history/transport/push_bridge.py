"""A push subscription for places that have none: pull from a subscription, POST to an endpoint.

The local stack uses it in front of the store function. Each message goes out as a real push
delivery would: by default as the binary-mode CloudEvent Eventarc sends to a Pub/Sub-triggered
function, or as the push JSON envelope. A 2xx answer acks the message; anything else (or no
answer) fails the delivery, so the subscription's dead-letter policy applies as it would in the
cloud. At most ``max_concurrency`` messages are in flight at once.

When does a message whose delivery failed come back? With a ``retry_policy`` (the store's, as
Terraform declares it on the push subscription), after the policy's backoff: the bridge keeps the
message out of sight that long (an ack deadline of the backoff, the message then let go), so the
server counts the delivery and redelivers it when the deadline ends, as a push subscription with
that policy does. The subscription pulled must then have no retry policy of its own (the stack's
are made so, ``topics.bridged_subscriptions``), or the emulator adds its own backoff on top.
Without one, the message is nacked: back at once, or after the subscription's own policy.
"""

from __future__ import annotations

import concurrent.futures
import enum
import json
import logging
import math
import threading
from typing import Any

import requests
from google.cloud.pubsub_v1 import types
from google.cloud.pubsub_v1.subscriber.scheduler import ThreadScheduler

from hedera_history.errors import BridgeRunningError, ConfigError
from hedera_history.logs import event
from hedera_history.transport._clients import subscriber_client
from hedera_history.transport._errors import CLIENT_ERRORS, transport_error
from hedera_history.transport.http_sessions import ThreadSessions
from hedera_history.transport.push_format import PublishedMessage, cloud_event_request, push_envelope
from hedera_history.transport.topics import RetryPolicy

logger = logging.getLogger(__name__)

RESUBSCRIBE_SECONDS = 1.0
MAX_ACK_DEADLINE_SECONDS = 600
"""Pub/Sub's longest ack deadline, and a retry policy's longest backoff."""


class PushMode(enum.StrEnum):
    CLOUD_EVENT = "cloudevent"
    """Binary-mode CloudEvent (``ce-*`` headers), what a gen2 function with a Pub/Sub trigger gets."""
    ENVELOPE = "envelope"
    """The push subscription's JSON envelope."""


class PushBridge:
    """Forwards the messages of one subscription to an HTTP endpoint until stopped."""

    def __init__(
        self,
        subscription: str,
        endpoint: str,
        *,
        mode: PushMode = PushMode.CLOUD_EVENT,
        max_concurrency: int = 4,
        request_timeout_seconds: float = 60.0,
        retry_policy: RetryPolicy | None = None,
        emulator_host: str = "",
        subscriber: Any = None,
    ) -> None:
        """``subscription``: full path ``projects/<p>/subscriptions/<s>``. ``retry_policy``: when a
        message whose delivery failed comes back (see the module docstring; None: nacked)."""
        if max_concurrency < 1:
            raise ConfigError(f"push bridge: max_concurrency must be at least 1, got {max_concurrency}")
        self.subscription = subscription
        self.endpoint = endpoint
        self.mode = mode
        self.max_concurrency = max_concurrency
        self.request_timeout_seconds = request_timeout_seconds
        self.retry_policy = retry_policy
        self._emulator_host = emulator_host
        self._subscriber = subscriber
        self._own_subscriber = subscriber is None
        self._topic = ""
        self._future: Any = None
        self._executor: concurrent.futures.ThreadPoolExecutor | None = None
        self._sessions = ThreadSessions()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._failures: dict[str, int] = {}
        """Failed deliveries by message id, for a subscription that counts none (no dead-letter policy)."""
        self.acked = 0
        self.nacked = 0

    def start(self) -> PushBridge:
        """Start pulling in background threads; returns at once."""
        if self._future is not None:
            raise BridgeRunningError(f"push bridge for {self.subscription} is already running")
        if self._subscriber is None:
            self._subscriber = subscriber_client(self._emulator_host)
        try:
            self._topic = str(self._subscriber.get_subscription(subscription=self.subscription).topic)
        except CLIENT_ERRORS as e:
            if self._own_subscriber:
                self._subscriber.close()
                self._subscriber = None
            raise transport_error(e, f"look up subscription {self.subscription}") from e
        self._stopping.clear()
        self._subscribe()
        event(logger, "push bridge started", subscription=self.subscription, endpoint=self.endpoint)
        return self

    def _subscribe(self) -> None:
        assert self._subscriber is not None
        # A stream that ends shuts its scheduler's executor down: each stream gets a new one.
        previous = self._executor
        self._executor = concurrent.futures.ThreadPoolExecutor(
            max_workers=self.max_concurrency, thread_name_prefix="push-bridge"
        )
        if previous is not None:
            previous.shutdown(wait=False)
        future = self._subscriber.subscribe(
            self.subscription,
            callback=self._deliver,
            flow_control=types.FlowControl(max_messages=self.max_concurrency),
            scheduler=ThreadScheduler(self._executor),
            await_callbacks_on_shutdown=True,
        )
        self._future = future
        future.add_done_callback(self._on_stream_end)

    def _on_stream_end(self, future: Any) -> None:
        """A push subscription keeps delivering whatever happens to a stream: when the pull stream
        fails (the emulator restarted, the subscription briefly gone), pull again after a pause."""
        if self._stopping.is_set() or future is not self._future:
            return
        error = future.exception() if not future.cancelled() else None
        event(logger, "push bridge stream ended", logging.WARNING, subscription=self.subscription, error=repr(error))
        threading.Thread(target=self._resubscribe, name="push-bridge-resubscribe", daemon=True).start()

    def _resubscribe(self) -> None:
        while not self._stopping.wait(RESUBSCRIBE_SECONDS):
            try:
                self._subscribe()
                return
            except (RuntimeError, *CLIENT_ERRORS) as e:  # the executor or client went away, or no answer yet
                event(logger, "push bridge cannot pull", logging.WARNING, subscription=self.subscription, error=repr(e))

    def wait(self, timeout: float | None = None) -> None:
        """Block until :meth:`stop` is called (from another thread) or the stream fails."""
        if self._future is None:
            return
        try:
            self._future.result(timeout=timeout)
        except concurrent.futures.CancelledError:
            return
        except CLIENT_ERRORS as e:
            raise transport_error(e, f"pull from {self.subscription}") from e

    def stop(self, timeout: float = 30.0) -> None:
        """Stop pulling and wait for the deliveries in flight; messages not yet delivered go back
        to the subscription."""
        self._stopping.set()
        future, self._future = self._future, None
        if future is not None:
            future.cancel()
            try:
                future.result(timeout=timeout)
            except (concurrent.futures.CancelledError, concurrent.futures.TimeoutError, *CLIENT_ERRORS):
                pass  # the stream is being shut down; what it failed with no longer matters
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None
        self._sessions.close_all()
        if self._own_subscriber and self._subscriber is not None:
            self._subscriber.close()
            self._subscriber = None
        event(
            logger,
            "push bridge stopped",
            subscription=self.subscription,
            acked=self.acked,
            nacked=self.nacked,
        )

    def __enter__(self) -> PushBridge:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()

    def _deliver(self, message: Any) -> None:
        headers, body = self._request(message)
        status: int | None = None
        try:
            response = self._sessions.post(
                self.endpoint, data=body, headers=headers, timeout=self.request_timeout_seconds
            )
            status = response.status_code
            response.close()
        except requests.RequestException as e:
            event(logger, "push delivery failed", logging.WARNING, message_id=message.message_id, error=repr(e))
        if status is not None and 200 <= status < 300:
            message.ack()
            with self._lock:
                self.acked += 1
                self._failures.pop(str(message.message_id), None)
            return
        if status is not None:
            event(
                logger,
                "push delivery rejected",
                logging.WARNING,
                message_id=message.message_id,
                status=status,
                delivery_attempt=message.delivery_attempt,
            )
        self._reject(message)
        with self._lock:
            self.nacked += 1

    def _reject(self, message: Any) -> None:
        """The delivery failed: hide the message for the retry policy's backoff, then let it go (the
        server redelivers it when that deadline ends); without a policy, or with no backoff, nack it."""
        delay = 0 if self.retry_policy is None else math.ceil(self.retry_policy.delay(self._failed_deliveries(message)))
        if delay <= 0:
            message.nack()
            return
        message.modify_ack_deadline(min(delay, MAX_ACK_DEADLINE_SECONDS))
        message.drop()

    def _failed_deliveries(self, message: Any) -> int:
        """How many deliveries of ``message`` failed, this one included: the server's count when the
        subscription keeps one (a dead-letter policy), else the bridge's own."""
        if message.delivery_attempt:
            return int(message.delivery_attempt)
        with self._lock:
            failed = self._failures.get(str(message.message_id), 0) + 1
            self._failures[str(message.message_id)] = failed
        return failed

    def _request(self, message: Any) -> tuple[dict[str, str], bytes]:
        published = PublishedMessage(
            bytes(message.data),
            dict(message.attributes),
            str(message.message_id),
            message.publish_time,
            message.ordering_key or "",
        )
        if self.mode is PushMode.CLOUD_EVENT:
            return cloud_event_request(published, subscription=self.subscription, topic=self._topic)
        envelope = push_envelope(published, subscription=self.subscription, delivery_attempt=message.delivery_attempt)
        return {"Content-Type": "application/json"}, json.dumps(envelope, separators=(",", ":")).encode()
