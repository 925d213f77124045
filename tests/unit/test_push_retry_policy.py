"""The push bridge's retry policy: what a rejected message's next delivery waits, as a push
subscription with an exponential retry policy spaces them (``transport.topics.RetryPolicy``)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from hedera_history.transport import topics
from hedera_history.transport.admin import subscription_proto
from hedera_history.transport.push_bridge import MAX_ACK_DEADLINE_SECONDS, PushBridge
from hedera_history.transport.topics import STORE_RETRY_POLICY, RetryPolicy


def test_the_backoff_doubles_from_the_minimum_up_to_the_maximum() -> None:
    delays = [STORE_RETRY_POLICY.delay(failed) for failed in range(1, 11)]
    assert delays == [10, 20, 40, 80, 160, 320, 600, 600, 600, 600]
    assert RetryPolicy(0, 0).delay(5) == 0
    assert RetryPolicy(1, 600).delay(10**6) == 600  # no overflow however often a message failed


def test_terraform_and_the_stack_share_the_store_policy_but_only_terraform_sets_it_on_the_subscription() -> None:
    deployed = {spec.name: spec for spec in topics.pipeline_subscriptions("https://store.example/")}
    bridged = {spec.name: spec for spec in topics.bridged_subscriptions()}
    assert deployed[topics.STORE_HISTORY].retry_policy == STORE_RETRY_POLICY
    assert deployed[topics.STORE_SIDECARS].retry_policy == STORE_RETRY_POLICY
    for name, spec in bridged.items():
        assert spec.push_endpoint is None and spec.retry_policy is None
        assert spec.dead_letter_topic == deployed[name].dead_letter_topic
        assert not subscription_proto("p", spec).retry_policy  # the emulator redelivers when the bridge says


@dataclass
class _Message:
    """What the bridge does with a received message, recorded."""

    message_id: str = "m1"
    delivery_attempt: int | None = None
    calls: list[tuple[str, int | None]] = field(default_factory=list)

    def nack(self) -> None:
        self.calls.append(("nack", None))

    def modify_ack_deadline(self, seconds: int) -> None:
        self.calls.append(("deadline", seconds))

    def drop(self) -> None:
        self.calls.append(("drop", None))

    def ack(self) -> None:
        self.calls.append(("ack", None))


def _bridge(policy: RetryPolicy | None) -> PushBridge:
    return PushBridge("projects/p/subscriptions/s", "http://127.0.0.1:9/", retry_policy=policy)


@pytest.mark.parametrize(("attempt", "hidden"), [(1, 10), (2, 20), (4, 80), (7, 600), (9, 600)])
def test_a_rejected_message_is_hidden_for_the_backoff_of_its_delivery_attempt(attempt: int, hidden: int) -> None:
    message = _Message(delivery_attempt=attempt)
    _bridge(STORE_RETRY_POLICY)._reject(message)
    # The server redelivers it when the deadline ends, and counts the delivery (dead-letter policy).
    assert message.calls == [("deadline", hidden), ("drop", None)]
    assert hidden <= MAX_ACK_DEADLINE_SECONDS


def test_without_the_servers_count_the_bridge_counts_the_failures_itself() -> None:
    bridge = _bridge(RetryPolicy(1, 8))
    first, other = _Message("a"), _Message("b")
    for _ in range(4):
        bridge._reject(first)
    bridge._reject(other)
    assert [seconds for kind, seconds in first.calls if kind == "deadline"] == [1, 2, 4, 8]
    assert [seconds for kind, seconds in other.calls if kind == "deadline"] == [1]


@pytest.mark.parametrize("policy", [None, RetryPolicy(0, 0)])
def test_without_a_backoff_a_rejected_message_is_nacked(policy: RetryPolicy | None) -> None:
    message = _Message(delivery_attempt=3)
    _bridge(policy)._reject(message)
    assert message.calls == [("nack", None)]
