"""Replaying dead letters without a broker: the replay count bounds what the sweep sends back, every
pulled message counts against the budget (so a run ends), and the sweep reports and logs the counts."""

from __future__ import annotations

import json
import logging
from concurrent.futures import Future
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest
from hedera_history.config import Settings
from hedera_history.errors import TransportUnavailableError
from hedera_history.pipeline.sweep import SweepReport, replay_held_dead_letters
from hedera_history.transport.dead_letters import (
    SWEEP_MAX_REPLAYS,
    ReplayReport,
    replay_holds,
)
from hedera_history.transport.topics import HISTORY, HISTORY_DEAD_LETTER_HOLD, SIDECARS, SIDECARS_DEAD_LETTER_HOLD

PARKED = {"CloudPubSubDeadLetterSourceDeliveryCount": "10"}


@dataclass
class FakeSubscriber:
    """Pull subscriptions in memory: a message leaves only when acknowledged; one pulled is leased
    (not pulled again) until its deadline is set to 0, as within its ack deadline."""

    held: dict[str, list[tuple[str, Any]]] = field(default_factory=dict)
    leased: set[str] = field(default_factory=set)
    acknowledged: list[str] = field(default_factory=list)
    deadlines: dict[str, int] = field(default_factory=dict)
    pulls: int = 0

    def hold(self, subscription: str, data: bytes, **attributes: str) -> None:
        messages = self.held.setdefault(self.subscription_path("p", subscription), [])
        ack_id = f"{subscription}/{len(messages)}"
        messages.append((ack_id, SimpleNamespace(data=data, attributes=attributes)))

    def subscription_path(self, project: str, name: str) -> str:
        return f"projects/{project}/subscriptions/{name}"

    def pull(self, *, subscription: str, max_messages: int, timeout: float, return_immediately: bool = False) -> Any:
        del timeout, return_immediately
        self.pulls += 1
        ready = [(a, m) for a, m in self.held.get(subscription, []) if a not in self.leased][:max_messages]
        self.leased |= {a for a, _ in ready}
        return SimpleNamespace(received_messages=[SimpleNamespace(ack_id=a, message=m) for a, m in ready])

    def acknowledge(self, *, subscription: str, ack_ids: list[str]) -> None:
        self.acknowledged += ack_ids
        self.held[subscription] = [(a, m) for a, m in self.held[subscription] if a not in ack_ids]

    def modify_ack_deadline(self, *, subscription: str, ack_ids: list[str], ack_deadline_seconds: int) -> None:
        del subscription
        self.deadlines.update(dict.fromkeys(ack_ids, ack_deadline_seconds))
        if ack_deadline_seconds == 0:
            self.leased -= set(ack_ids)

    def close(self) -> None:
        pass


@dataclass
class FakePublisher:
    published: list[tuple[str, bytes, dict[str, str]]] = field(default_factory=list)
    fail: bool = False

    def topic_path(self, project: str, name: str) -> str:
        return f"projects/{project}/topics/{name}"

    def publish(self, topic: str, data: bytes, **attributes: str) -> Future[str]:
        future: Future[str] = Future()
        if self.fail:
            future.set_exception(TimeoutError())
        else:
            self.published.append((topic, data, attributes))
            future.set_result(str(len(self.published)))
        return future


def test_each_held_message_goes_back_to_its_topic_with_one_more_replay() -> None:
    subscriber, publisher = FakeSubscriber(), FakePublisher()
    subscriber.hold(HISTORY_DEAD_LETTER_HOLD, b"row", k="a2V5", **PARKED)
    subscriber.hold(SIDECARS_DEAD_LETTER_HOLD, b"sidecar", k="a2V5", replays="1", **PARKED)

    report = replay_holds(subscriber, publisher, "p", max_replays=SWEEP_MAX_REPLAYS)

    assert report.replayed == {HISTORY: 1, SIDECARS: 1}
    assert report.total_kept == 0
    assert publisher.published == [
        (f"projects/p/topics/{HISTORY}", b"row", {"k": "a2V5", "replays": "1"}),
        (f"projects/p/topics/{SIDECARS}", b"sidecar", {"k": "a2V5", "replays": "2"}),
    ]
    assert all(not messages for messages in subscriber.held.values())


def test_a_message_replayed_max_replays_times_stays_held_and_is_released_for_the_operator() -> None:
    subscriber, publisher = FakeSubscriber(), FakePublisher()
    subscriber.hold(HISTORY_DEAD_LETTER_HOLD, b"poison", k="a2V5", replays=str(SWEEP_MAX_REPLAYS), **PARKED)
    subscriber.hold(HISTORY_DEAD_LETTER_HOLD, b"fresh", k="a2V5", replays=str(SWEEP_MAX_REPLAYS - 1), **PARKED)

    report = replay_holds(subscriber, publisher, "p", max_replays=SWEEP_MAX_REPLAYS)

    assert (report.total, report.total_kept) == (1, 1)
    assert [data for _, data, _ in publisher.published] == [b"fresh"]
    kept_id = f"{HISTORY_DEAD_LETTER_HOLD}/0"
    assert kept_id not in subscriber.acknowledged
    assert subscriber.deadlines == {kept_id: 0}
    # Released at once, and the operator's command has no limit: it sends the kept one back too.
    assert replay_holds(subscriber, publisher, "p").total == 1
    assert publisher.published[-1][2]["replays"] == str(SWEEP_MAX_REPLAYS + 1)


def test_every_pulled_message_counts_against_the_budget() -> None:
    subscriber, publisher = FakeSubscriber(), FakePublisher()
    for i in range(5):
        subscriber.hold(HISTORY_DEAD_LETTER_HOLD, b"poison %d" % i, replays="9")
    for i in range(5):
        subscriber.hold(SIDECARS_DEAD_LETTER_HOLD, b"fresh %d" % i)

    report = replay_holds(subscriber, publisher, "p", max_messages=7, max_replays=SWEEP_MAX_REPLAYS)

    assert (report.total_kept, report.total) == (5, 2)
    assert len(subscriber.held[subscriber.subscription_path("p", SIDECARS_DEAD_LETTER_HOLD)]) == 3


def test_a_publish_that_gets_no_answer_leaves_the_message_held_and_is_transient() -> None:
    subscriber, publisher = FakeSubscriber(), FakePublisher(fail=True)
    subscriber.hold(HISTORY_DEAD_LETTER_HOLD, b"row")
    with pytest.raises(TransportUnavailableError):
        replay_holds(subscriber, publisher, "p")
    assert subscriber.acknowledged == []


def settings(**changes: Any) -> Settings:
    return Settings.from_env({}, project="p", pubsub_topic_prefix="dev-", **changes)


def test_the_sweep_replays_a_bounded_number_and_logs_the_counts(caplog: pytest.LogCaptureFixture) -> None:
    calls: list[dict[str, Any]] = []

    def replay(project: str, **options: Any) -> ReplayReport:
        calls.append({"project": project, **options})
        return ReplayReport(replayed={HISTORY: 2, SIDECARS: 1}, kept={HISTORY: 1, SIDECARS: 0})

    report = SweepReport()
    with caplog.at_level(logging.INFO, logger="hedera_history.pipeline.sweep"):
        replay_held_dead_letters(settings(sweep_max_dead_letters=40), report, replay)

    assert calls == [
        {
            "project": "p",
            "prefix": "dev-",
            "emulator_host": "",
            "max_messages": 40,
            "max_replays": SWEEP_MAX_REPLAYS,
            "wait": False,  # an empty hold must not hold the sweep
        }
    ]
    assert (report.dead_letters_replayed, report.dead_letters_kept) == (3, 1)
    assert report.as_dict()["dead_letters_replayed"] == 3
    [record] = [r for r in caplog.records if r.getMessage() == "sweep replayed dead letters"]
    assert record.levelno == logging.WARNING
    fields = getattr(record, "fields", {})
    assert (fields["count"], fields["kept"]) == (3, 1)
    json.dumps(report.as_dict())


def test_zero_disables_the_sweeps_replay_and_a_failure_is_an_error_of_the_run() -> None:
    def never(*_: Any, **__: Any) -> ReplayReport:
        raise AssertionError("disabled")

    report = SweepReport()
    replay_held_dead_letters(settings(sweep_max_dead_letters=0), report, never)
    assert (report.dead_letters_replayed, report.errors) == (0, [])

    def unavailable(*_: Any, **__: Any) -> ReplayReport:
        raise TransportUnavailableError("pull dead letters: UNAVAILABLE")

    replay_held_dead_letters(settings(), report, unavailable)
    assert report.errors == ["dead letters: pull dead letters: UNAVAILABLE"]
