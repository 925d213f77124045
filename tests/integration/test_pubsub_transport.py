"""The Pub/Sub transport on the emulator: publishing, ensure_topics, the push bridge, dead letters."""

from __future__ import annotations

import contextlib
import itertools
import random
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import functions_framework
import pytest
from google.api_core.exceptions import NotFound
from google.cloud import pubsub_v1
from hedera_history.config import Settings
from hedera_history.errors import MessageFormatError, TransportError, is_transient
from hedera_history.transport import topics
from hedera_history.transport.admin import ensure_topics
from hedera_history.transport.message import (
    ATTR_BLOCK,
    ATTR_BLOCK_HASH,
    ATTR_TYPE,
    OutgoingMessage,
    ReceivedMessage,
)
from hedera_history.transport.pubsub import PublisherTuning, PubSubPublisher, received_from_pull
from hedera_history.transport.push_bridge import PushBridge, PushMode
from hedera_history.transport.push_format import MESSAGE_PUBLISHED, decode_push_envelope
from hedera_history.transport.topics import RetryPolicy

from tests.fixtures.emulators import PROJECT, PubSubResources, unique_name
from tests.http_recorder import Recorded, RecordingServer, status
from tests.serving import serving_app

WAIT_SECONDS = 300.0
"""A bound, not a measure: every wait ends as soon as what it waits for has arrived."""


def _topic_id(path: str) -> str:
    return path.rsplit("/", 1)[1]


def _publisher(**tuning: Any) -> PubSubPublisher:
    return PubSubPublisher.from_settings(Settings.from_env(project=PROJECT), tuning=PublisherTuning(**tuning))


def _message(topic: str, n: int, size: int = 100) -> OutgoingMessage:
    block_hash = f"{n:064x}"
    return OutgoingMessage(
        topic=topic,
        key=b"blocks/" + n.to_bytes(8, "big") + b"\x00\xff",
        value=random.Random(n).randbytes(size),
        attributes={ATTR_TYPE: "SubBatchMsg", ATTR_BLOCK: str(n), ATTR_BLOCK_HASH: block_hash},
        ordering_key=block_hash,
    )


def _collect(subscription: str, until: Callable[[dict[bytes, ReceivedMessage]], bool]) -> dict[bytes, ReceivedMessage]:
    """Streaming-pull ``subscription``, acking everything, until ``until(received by key)``."""
    received: dict[bytes, ReceivedMessage] = {}
    done = threading.Event()
    lock = threading.Lock()

    def callback(message: Any) -> None:
        decoded = received_from_pull(message)
        message.ack()
        with lock:
            received[decoded.key] = decoded
            if until(received):
                done.set()

    subscriber = pubsub_v1.SubscriberClient()
    future = subscriber.subscribe(subscription, callback=callback)
    try:
        done.wait(WAIT_SECONDS)
    finally:
        future.cancel()
        future.result(timeout=30)
        subscriber.close()
    return received


def _pull_once(resources: PubSubResources, subscription: str, timeout: float = 3.0) -> list[Any]:
    """What one synchronous pull returns (acking it)."""
    response = resources.subscriber.pull(request={"subscription": subscription, "max_messages": 100}, timeout=timeout)
    messages = list(response.received_messages)
    if messages:
        resources.subscriber.acknowledge(
            request={"subscription": subscription, "ack_ids": [m.ack_id for m in messages]}
        )
    return messages


# ---- publishing ----------------------------------------------------------------------------------


def test_many_messages_from_many_threads_all_arrive_intact(pubsub_resources: PubSubResources) -> None:
    topic = pubsub_resources.topic("history")
    subscription = pubsub_resources.subscription(topic)
    sent = [_message(_topic_id(topic), n, size=random.Random(n).randrange(0, 60_000)) for n in range(400)]
    errors: list[BaseException] = []

    # Small batches and a longer latency, so that batches really fill up and split.
    with _publisher(max_batch_messages=25, max_batch_bytes=200_000, max_latency_seconds=0.05) as publisher:

        def publish(part: list[OutgoingMessage]) -> None:
            try:
                publisher.publish_all(part)
            except TransportError as e:
                errors.append(e)

        threads = [threading.Thread(target=publish, args=(sent[i::4],)) for i in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert errors == []

    received = _collect(subscription, lambda got: len(got) >= len(sent))
    assert len(received) == len(sent)
    for message in sent:
        got = received[message.key]
        assert got.value == message.value
        assert got.attributes == message.attributes
        assert got.message_id
        assert got.publish_time is not None


def test_ordering_keys_are_carried_when_ordering_is_on(pubsub_resources: PubSubResources) -> None:
    topic = pubsub_resources.topic("history")
    subscription = pubsub_resources.subscription(topic)
    with _publisher(ordering=True) as publisher:
        publisher.publish_all([_message(_topic_id(topic), n) for n in range(3)])
    (first, *_) = _pull_once(pubsub_resources, subscription, timeout=10)
    assert first.message.ordering_key == first.message.attributes[ATTR_BLOCK_HASH]


def test_a_missing_topic_is_a_permanent_error(pubsub_emulator: Any) -> None:
    with _publisher() as publisher, pytest.raises(TransportError) as caught:
        publisher.publish_all([_message(unique_name("missing"), 1)])
    assert not is_transient(caught.value)


# ---- ensure_topics -------------------------------------------------------------------------------


@pytest.fixture
def deployment_prefix(pubsub_emulator: Any) -> Iterator[str]:
    """A unique prefix for the pipeline's names; what was created under it is deleted after."""
    prefix = unique_name("dep") + "-"
    yield prefix
    publisher, subscriber = pubsub_v1.PublisherClient(), pubsub_v1.SubscriberClient()
    for subscription in subscriber.list_subscriptions(project=f"projects/{PROJECT}"):
        if _topic_id(subscription.name).startswith(prefix):
            subscriber.delete_subscription(subscription=subscription.name)
    for topic in publisher.list_topics(project=f"projects/{PROJECT}"):
        if _topic_id(topic.name).startswith(prefix):
            with contextlib.suppress(NotFound):
                publisher.delete_topic(topic=topic.name)
    subscriber.close()


def test_ensure_topics_is_idempotent_and_converges(pubsub_resources: PubSubResources, deployment_prefix: str) -> None:
    host = Settings.from_env().pubsub_emulator_host
    ensure_topics(PROJECT, [], topics.pipeline_subscriptions(), prefix=deployment_prefix, emulator_host=host)
    ensure_topics(PROJECT, topics.TOPICS, topics.pipeline_subscriptions(), prefix=deployment_prefix, emulator_host=host)

    existing = {_topic_id(t.name) for t in pubsub_resources.publisher.list_topics(project=f"projects/{PROJECT}")}
    assert {deployment_prefix + t for t in topics.TOPICS} <= existing  # dead-letter topics included

    path = f"projects/{PROJECT}/subscriptions/{deployment_prefix}{topics.STORE_HISTORY}"
    store = pubsub_resources.subscriber.get_subscription(subscription=path)
    assert store.push_config.push_endpoint == ""
    assert store.dead_letter_policy.dead_letter_topic.endswith(deployment_prefix + topics.HISTORY_DEAD_LETTER)
    assert store.dead_letter_policy.max_delivery_attempts == topics.MAX_DELIVERY_ATTEMPTS
    assert store.ack_deadline_seconds == topics.STORE_ACK_DEADLINE_SECONDS

    # Run again with a push endpoint: the existing subscription is brought to the new spec.
    ensure_topics(
        PROJECT,
        [],
        topics.pipeline_subscriptions("http://127.0.0.1:9/"),
        prefix=deployment_prefix,
        emulator_host=host,
    )
    store = pubsub_resources.subscriber.get_subscription(subscription=path)
    assert store.push_config.push_endpoint == "http://127.0.0.1:9/"

    moved = topics.SubscriptionSpec(topics.STORE_HISTORY, topics.SIDECARS)
    with pytest.raises(TransportError, match="belongs to"):
        ensure_topics(PROJECT, [], [moved], prefix=deployment_prefix, emulator_host=host)


# ---- push bridge ---------------------------------------------------------------------------------


def _bridge(
    subscription: str, endpoint: str, mode: PushMode = PushMode.CLOUD_EVENT, retry_policy: RetryPolicy | None = None
) -> PushBridge:
    return PushBridge(
        subscription,
        endpoint,
        mode=mode,
        max_concurrency=3,
        request_timeout_seconds=10,
        retry_policy=retry_policy,
        emulator_host=Settings.from_env().pubsub_emulator_host,
    )


@pytest.mark.parametrize(
    ("count", "size"),
    [
        (20, 100),
        # A mainnet-sized block travels as ~1 MB sub-batch messages: one streaming pull answer
        # carries several, over gRPC's 4 MiB default, which the emulator channel must accept.
        (6, 1_500_000),
    ],
    ids=["small", "pull-answer-over-4-mib"],
)
def test_bridge_posts_cloud_events_and_acks_on_2xx(pubsub_resources: PubSubResources, count: int, size: int) -> None:
    topic = pubsub_resources.topic("history")
    subscription = pubsub_resources.subscription(topic)
    sent = [_message(_topic_id(topic), n, size=size) for n in range(count)]
    with _publisher() as publisher:
        publisher.publish_all(sent)

    with RecordingServer(status(204)) as server:
        with _bridge(subscription, server.url + "/store") as bridge:
            assert server.wait_for(lambda got: len({r.headers["ce-id"] for r in got}) >= len(sent), WAIT_SECONDS)
        assert bridge.acked >= len(sent)
        assert bridge.nacked == 0
        requests = list(server.requests)

    for request in requests:
        assert request.method == "POST"
        assert request.path == "/store"
        assert request.headers["ce-type"] == MESSAGE_PUBLISHED
        assert request.headers["ce-specversion"] == "1.0"
        assert request.headers["ce-source"] == f"//pubsub.googleapis.com/{topic}"
        assert request.headers["content-type"].startswith("application/json")
    # Everything was acked: nothing is left to pull.
    assert _pull_once(pubsub_resources, subscription) == []


def test_bridge_on_a_missing_subscription_fails_to_start(pubsub_emulator: Any) -> None:
    bridge = _bridge(f"projects/{PROJECT}/subscriptions/{unique_name('missing')}", "http://127.0.0.1:9/")
    with pytest.raises(TransportError) as caught:
        bridge.start()
    assert not is_transient(caught.value)
    bridge.stop()


def test_bridge_redelivers_after_an_error_answer(pubsub_resources: PubSubResources) -> None:
    topic = pubsub_resources.topic("history")
    dead_letter = pubsub_resources.topic("dead")
    subscription = pubsub_resources.subscription(topic, dead_letter_topic=dead_letter, max_delivery_attempts=5)
    sent = [_message(_topic_id(topic), n) for n in range(3)]
    attempts: dict[str, int] = {}
    lock = threading.Lock()

    def fail_twice(request: Recorded) -> tuple[int, bytes, dict[str, str]]:
        message_id = decode_push_envelope(request.body).message_id
        with lock:
            attempts[message_id] = attempts.get(message_id, 0) + 1
            return (500 if attempts[message_id] <= 2 else 200), b"", {}

    with _publisher() as publisher:
        publisher.publish_all(sent)
    with (
        RecordingServer(fail_twice) as server,
        _bridge(subscription, server.url, PushMode.ENVELOPE) as bridge,
    ):
        assert server.wait_for(lambda got: len(got) >= 3 * len(sent), WAIT_SECONDS)
        deliveries = [decode_push_envelope(r.body) for r in server.requests]
    assert bridge.nacked >= 2 * len(sent)
    for message in sent:
        seen = [d for d in deliveries if d.key == message.key]
        assert [d.delivery_attempt for d in seen][:3] == [1, 2, 3]
        assert all(d.value == message.value and d.attributes == message.attributes for d in seen)
    assert _pull_once(pubsub_resources, subscription) == []


def test_always_rejected_message_lands_on_the_dead_letter_topic(pubsub_resources: PubSubResources) -> None:
    topic = pubsub_resources.topic("history")
    dead_letter = pubsub_resources.topic("dead")
    parked = pubsub_resources.subscription(dead_letter, "parked")
    subscription = pubsub_resources.subscription(topic, dead_letter_topic=dead_letter, max_delivery_attempts=5)
    message = _message(_topic_id(topic), 7)
    with _publisher() as publisher:
        publisher.publish_all([message])

    with RecordingServer(status(500)) as server, _bridge(subscription, server.url, PushMode.ENVELOPE):
        dead = _collect(parked, lambda got: message.key in got)
        attempts = [decode_push_envelope(r.body).delivery_attempt for r in server.requests]
    assert dead[message.key].value == message.value
    # Pub/Sub adds where the message came from; the message's own attributes stay as they were.
    parked_attributes = dict(dead[message.key].attributes)
    assert parked_attributes.pop("CloudPubSubDeadLetterSourceDeliveryCount") == "5"
    assert {k: v for k, v in parked_attributes.items() if not k.startswith("CloudPubSub")} == message.attributes
    assert attempts == [1, 2, 3, 4, 5]


# ---- the bridge in front of a functions-framework CloudEvent function ----------------------------

FUNCTION_SOURCE = """
import functions_framework

from hedera_history.transport.push_format import decode_cloud_event


@functions_framework.cloud_event
def push_bridge_probe(event):
    message = decode_cloud_event(event)  # a poison message raises: the function answers 500
    with open({out!r}, "a") as out:
        out.write(message.key.hex() + "\\n")
"""


@pytest.fixture
def probe_function(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A CloudEvent function served by functions-framework on a free port: (url, output file)."""
    out = tmp_path / "stored.txt"
    source = tmp_path / "push_bridge_probe.py"
    source.write_text(FUNCTION_SOURCE.format(out=str(out)))
    app = functions_framework.create_app("push_bridge_probe", str(source), "cloudevent")
    with serving_app(app) as url:
        yield f"{url}/", out


@pytest.mark.parametrize("mode", list(PushMode))
def test_function_gets_good_messages_and_poison_goes_to_dead_letters(
    pubsub_resources: PubSubResources, probe_function: tuple[str, Path], mode: PushMode
) -> None:
    """In both modes: functions-framework turns a push envelope into the same CloudEvent."""
    url, out = probe_function
    topic = pubsub_resources.topic("history")
    dead_letter = pubsub_resources.topic("dead")
    parked = pubsub_resources.subscription(dead_letter, "parked")
    subscription = pubsub_resources.subscription(topic, dead_letter_topic=dead_letter, max_delivery_attempts=5)
    good = _message(_topic_id(topic), 1)
    with _publisher() as publisher:
        publisher.publish_all([good])
    # A message some other producer sent without the key attribute.
    pubsub_resources.publisher.publish(topic, b"poison", type="SubBatchMsg").result(timeout=30)

    with _bridge(subscription, url, mode):
        poison = _wait_for_one(pubsub_resources, parked)

    assert out.read_text().split() == [good.key.hex()]
    assert poison.message.data == b"poison"
    with pytest.raises(MessageFormatError):
        received_from_pull(_AsPulled(poison))


def _wait_for_one(resources: PubSubResources, subscription: str) -> Any:
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        messages = _pull_once(resources, subscription)
        if messages:
            return messages[0]
    raise AssertionError(f"nothing arrived on {subscription}")


class _AsPulled:
    """A synchronous pull's ReceivedMessage seen as a streaming-pull Message."""

    def __init__(self, received: Any) -> None:
        self.data = received.message.data
        self.attributes = received.message.attributes
        self.message_id = received.message.message_id
        self.delivery_attempt = received.delivery_attempt or None
        self.publish_time = received.message.publish_time


def test_bridge_can_hold_back_a_rejected_message(pubsub_resources: PubSubResources) -> None:
    topic = pubsub_resources.topic("history")
    subscription = pubsub_resources.subscription(topic)
    with _publisher() as publisher:
        publisher.publish_all([_message(_topic_id(topic), 1)])
    arrivals: list[float] = []

    def fail_first(_request: Recorded) -> tuple[int, bytes, dict[str, str]]:
        arrivals.append(time.monotonic())
        return (503 if len(arrivals) == 1 else 200), b"", {}

    with RecordingServer(fail_first) as server, _bridge(subscription, server.url, retry_policy=RetryPolicy(2, 2)):
        assert server.wait_for(lambda got: len(got) >= 2, WAIT_SECONDS)
    assert arrivals[1] - arrivals[0] >= 1.5


def test_bridge_spaces_redeliveries_by_its_retry_policy(pubsub_resources: PubSubResources) -> None:
    # As a push subscription with an exponential retry policy: the first failure waits the minimum,
    # each further one twice as long, up to the maximum; the server counts every delivery (the
    # dead-letter policy's attempts) although the bridge, not the emulator, sets the pace.
    topic = pubsub_resources.topic("history")
    dead_letter = pubsub_resources.topic("dead")
    subscription = pubsub_resources.subscription(topic, dead_letter_topic=dead_letter, max_delivery_attempts=10)
    with _publisher() as publisher:
        publisher.publish_all([_message(_topic_id(topic), 1)])
    arrivals: list[float] = []
    failures = 4

    def fail_first(_request: Recorded) -> tuple[int, bytes, dict[str, str]]:
        arrivals.append(time.monotonic())
        return (503 if len(arrivals) <= failures else 200), b"", {}

    policy = RetryPolicy(1, 4)
    with (
        RecordingServer(fail_first) as server,
        _bridge(subscription, server.url, PushMode.ENVELOPE, retry_policy=policy) as bridge,
    ):
        assert server.wait_for(lambda got: len(got) > failures, WAIT_SECONDS)
        attempts = [decode_push_envelope(r.body).delivery_attempt for r in server.requests]
    assert bridge.acked == 1 and bridge.nacked == failures
    assert attempts == [1, 2, 3, 4, 5]
    gaps = [later - earlier for earlier, later in itertools.pairwise(arrivals)]
    # Lower bounds only: a busy machine delays a redelivery, it never brings one forward.
    assert [round(gap) >= policy.delay(n) for n, gap in enumerate(gaps, start=1)] == [True] * failures
