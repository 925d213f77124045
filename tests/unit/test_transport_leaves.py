"""Bad input to the transport's edges raises leaves of the project's error tree."""

from __future__ import annotations

import concurrent.futures
import json
from types import SimpleNamespace
from typing import Any

import pytest
from hedera_history.errors import BridgeRunningError, ConfigError, MessageFormatError
from hedera_history.transport.push_bridge import PushBridge
from hedera_history.transport.push_format import decode_push_envelope

SUBSCRIPTION = "projects/p/subscriptions/s"


class _Subscriber:
    """Answers the bridge's look-up and hands out a stream that never ends by itself."""

    def get_subscription(self, subscription: str) -> Any:
        return SimpleNamespace(topic="projects/p/topics/t")

    def subscribe(self, subscription: str, **_: Any) -> concurrent.futures.Future[None]:
        return concurrent.futures.Future()


def test_a_bridge_needs_at_least_one_delivery_at_a_time() -> None:
    with pytest.raises(ConfigError, match="max_concurrency must be at least 1, got 0"):
        PushBridge(SUBSCRIPTION, "http://localhost:1/", max_concurrency=0)


def test_a_running_bridge_refuses_a_second_start() -> None:
    bridge = PushBridge(SUBSCRIPTION, "http://localhost:1/", subscriber=_Subscriber()).start()
    try:
        with pytest.raises(BridgeRunningError, match="already running"):
            bridge.start()
    finally:
        bridge.stop(timeout=0)


@pytest.mark.parametrize("data", ["not base64!", "é"])
def test_push_data_that_is_not_base64_is_a_message_format_error(data: str) -> None:
    body = json.dumps({"message": {"messageId": "1", "data": data}})
    with pytest.raises(MessageFormatError, match="'data' is not valid base64"):
        decode_push_envelope(body)
