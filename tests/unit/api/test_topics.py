"""The topic routes on a generated stream with many topics, in memory: every topic's messages paged
through in order (and newest first) with the generator's sequence numbers, version-3 running hashes,
payers and chunk info; the topic from its creation; one message by sequence number and by
timestamp; filters and 404s; a message an errata removed gone from them; each answer checked
against the reference's OpenAPI."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from hedera_history.api import handle
from hedera_history.api.render import timestamp
from hedera_history.config import Settings
from hedera_history.errata.apply import apply_errata
from hedera_history.store.reader import HistoryReader
from hedera_history.store.writer import BlockWriter

from tests.unit.api.reference_fetch import reference_fetcher
from tests.unit.api.topic_world import TopicWorld, topic_world
from tests.unit.errata.fakes import VersionedGateway
from tests.unit.errata.helpers import SETTINGS as ERRATA_SETTINGS
from tests.unit.errata.helpers import errata_file
from tests.unit.store.builders import NS
from tests.unit.store.fakes import MemoryGateway

Get = Any


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> TopicWorld:
    return topic_world(tmp_path_factory.mktemp("topics"))


@pytest.fixture(scope="module")
def get(world: TopicWorld) -> Get:
    gateway = MemoryGateway()
    assert all(r.complete for r in BlockWriter(gateway, Settings()).write_blocks(list(world.blocks)))
    return reference_fetcher(HistoryReader(gateway))


def assert_message(answer: dict[str, Any], truth: dict[str, Any]) -> None:
    message = truth["topic_message"]
    assert answer["topic_id"] == message["topic"]
    assert answer["sequence_number"] == message["sequence_number"]
    assert base64.b64decode(answer["running_hash"]).hex() == message["running_hash"]
    assert answer["running_hash_version"] == 3
    assert base64.b64decode(answer["message"]).hex() == message["message"]
    assert answer["consensus_timestamp"] == timestamp(truth["consensus_ns"])
    assert answer["payer_account_id"] == truth["payer"]
    if message["chunk"] is None:
        assert answer["chunk_info"] is None
    else:
        info = answer["chunk_info"]
        assert (info["number"], info["total"]) == (message["chunk"]["number"], message["chunk"]["total"])
        assert info["initial_transaction_id"]["account_id"] == truth["payer"]


def page_through(get: Get, url: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    next_url: str | None = url
    while next_url is not None:
        body = get(next_url)
        found.extend(body["messages"])
        next_url = body["links"]["next"]
    return found


def test_the_stream_has_many_topics_and_chunked_messages(world: TopicWorld) -> None:
    assert len(world.created) >= 10 and sum(len(m) for m in world.messages.values()) >= 60
    assert any(t["topic_message"]["chunk"] for listed in world.messages.values() for t in listed)


def test_every_topic_pages_through_all_its_messages_in_order(world: TopicWorld, get: Get) -> None:
    for topic, truths in world.messages.items():
        answers = page_through(get, f"/api/v1/topics/{topic}/messages?limit=3")
        assert [a["sequence_number"] for a in answers] == list(range(1, len(truths) + 1))
        for answer, truth in zip(answers, truths, strict=True):
            assert_message(answer, truth)
        newest_first = page_through(get, f"/api/v1/topics/{topic}/messages?limit=2&order=desc")
        assert newest_first == list(reversed(answers))


def test_one_message_by_sequence_number_and_by_timestamp(world: TopicWorld, get: Get) -> None:
    topic, truths = max(world.messages.items(), key=lambda pair: len(pair[1]))
    for truth in truths:
        sequence = truth["topic_message"]["sequence_number"]
        assert_message(get(f"/api/v1/topics/{topic}/messages/{sequence}"), truth)
        assert_message(get(f"/api/v1/topics/messages/{timestamp(truth['consensus_ns'])}"), truth)
    get(f"/api/v1/topics/{topic}/messages/{len(truths) + 1}", 404)
    get(f"/api/v1/topics/messages/{timestamp(world.created[topic]['consensus_ns'])}", 404)


def test_filters_by_sequence_number_and_time(world: TopicWorld, get: Get) -> None:
    topic, truths = max(world.messages.items(), key=lambda pair: len(pair[1]))
    assert len(truths) >= 6
    ranged = page_through(get, f"/api/v1/topics/{topic}/messages?sequencenumber=gt:2&sequencenumber=lte:5&limit=2")
    assert [a["sequence_number"] for a in ranged] == [3, 4, 5]
    low, high = truths[1]["consensus_ns"], truths[4]["consensus_ns"]
    timed = get(f"/api/v1/topics/{topic}/messages?timestamp=gte:{timestamp(low)}&timestamp=lt:{timestamp(high)}")
    assert [a["sequence_number"] for a in timed["messages"]] == [2, 3, 4]
    assert get(f"/api/v1/topics/{topic}/messages?sequencenumber=2")["messages"][0]["sequence_number"] == 2
    text = get(f"/api/v1/topics/{topic}/messages?sequencenumber=1&encoding=utf-8")["messages"][0]["message"]
    assert text == bytes.fromhex(truths[0]["topic_message"]["message"]).decode("utf-8", "replace")
    get(f"/api/v1/topics/{topic}/messages?encoding=hex", 400)
    get(f"/api/v1/topics/{topic}/messages?order=up", 400)


def test_a_topic_from_its_creation(world: TopicWorld, get: Get) -> None:
    for topic, creation in world.created.items():
        answer = get(f"/api/v1/topics/{topic}")
        assert answer["topic_id"] == topic and answer["deleted"] is False
        assert answer["created_timestamp"] == timestamp(creation["consensus_ns"])
        assert answer["auto_renew_account"] == creation["payer"] and answer["auto_renew_period"] == 7_776_000
        assert answer["admin_key"]["_type"] == "ED25519" and answer["submit_key"] == answer["admin_key"]


def test_unknown_topics_are_404(get: Get) -> None:
    get("/api/v1/topics/0.0.999999", 404)
    get("/api/v1/topics/0.0.999999/messages", 404)
    get("/api/v1/topics/not-a-topic/messages", 400)


def test_an_errata_removing_a_message_takes_it_out_of_the_pages(world: TopicWorld) -> None:
    topic, truths = max(world.messages.items(), key=lambda pair: len(pair[1]))
    removed = truths[1]
    gateway = VersionedGateway()
    assert all(r.complete for r in BlockWriter(gateway, ERRATA_SETTINGS).write_blocks(list(world.blocks)))
    last_ns = world.stream.truth["transactions"][-1]["consensus_ns"]
    apply_errata(errata_file(last_ns + NS, removed["consensus_ns"], None), gateway, ERRATA_SETTINGS)
    reader = HistoryReader(gateway)
    body = handle(lambda: reader, "GET", f"/api/v1/topics/{topic}/messages", {}, b"").body
    kept = [t["topic_message"]["sequence_number"] for t in truths if t is not removed]
    assert [m["sequence_number"] for m in body["messages"]] == kept
    gone = handle(lambda: reader, "GET", f"/api/v1/topics/{topic}/messages/2", {}, b"")
    assert gone.status == 404
