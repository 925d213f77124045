"""The push bridge on a Pub/Sub emulator that restarts: when the subscription is gone for a while
(the emulator keeps everything in memory), the bridge's pull stream ends; the bridge pulls again
until the subscription is back and delivers what is published after, as a push subscription would."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from google.cloud import pubsub_v1
from hedera_history.localstack.emulators import PubSubEmulator
from hedera_history.localstack.scoped_env import scoped_environ
from hedera_history.transport.admin import ensure_topics
from hedera_history.transport.push_bridge import PushBridge
from hedera_history.transport.topics import HISTORY, STORE_HISTORY, TOPICS, pipeline_subscriptions

from tests.http_recorder import RecordingServer, status

pytestmark = [pytest.mark.emulator]

PROJECT = "restart-project"
GONE_SECONDS = 8


def publish(host: str) -> None:
    with scoped_environ({"PUBSUB_EMULATOR_HOST": host}):
        publisher = pubsub_v1.PublisherClient()
        try:
            publisher.publish(publisher.topic_path(PROJECT, HISTORY), b"value", k="AA").result(timeout=60)
        finally:
            publisher.stop()


def delivered(server: RecordingServer, count: int, timeout: float = 60) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if len(server.requests) >= count:
            return True
        time.sleep(0.2)
    return False


def test_the_bridge_pulls_again_once_a_restarted_emulator_has_its_subscription_back(tmp_path: Path) -> None:
    pubsub = PubSubEmulator(log_dir=tmp_path).start()
    try:
        with RecordingServer(status(200)) as server:
            ensure_topics(PROJECT, TOPICS, pipeline_subscriptions(None), emulator_host=pubsub.host)
            subscription = f"projects/{PROJECT}/subscriptions/{STORE_HISTORY}"
            bridge = PushBridge(subscription, server.url, emulator_host=pubsub.host).start()
            try:
                publish(pubsub.host)
                assert delivered(server, 1)
                port = pubsub.port
                pubsub.stop()
                pubsub = PubSubEmulator(port=port, log_dir=tmp_path).start()
                time.sleep(GONE_SECONDS)  # the stream finds no subscription and ends
                ensure_topics(PROJECT, TOPICS, pipeline_subscriptions(None), emulator_host=pubsub.host)
                publish(pubsub.host)
                assert delivered(server, 2), "nothing delivered after the restart"
            finally:
                bridge.stop(timeout=10)
    finally:
        pubsub.stop()
