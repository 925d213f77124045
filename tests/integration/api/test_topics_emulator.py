"""The topic routes on the Bigtable emulator: a generated stream with many topics written as the
pipeline writes it, every topic's messages paged through in order with the generator's sequence
numbers and running hashes, one message by sequence number and by timestamp, the topic from its
creation; each answer checked against the reference's OpenAPI."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

import pytest
from hedera_history.api.render import timestamp
from hedera_history.config import Settings
from hedera_history.store.reader import HistoryReader

from tests.fixtures.emulators import unique_name
from tests.integration.api.reference_contract import ReferenceContract, checked_get, load_reference_document
from tests.integration.query_function import written_store
from tests.unit.api.topic_world import TopicWorld, topic_world
from tests.unit.api.wsgi_app import query_app

pytestmark = pytest.mark.emulator


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> TopicWorld:
    return topic_world(tmp_path_factory.mktemp("topics"))


@pytest.fixture(scope="module")
def client(bigtable_client: Any, world: TopicWorld) -> Iterator[Any]:
    instance = bigtable_client.instance(unique_name("topics"))
    with written_store(instance, Settings.from_env({}, table_prefix="t_"), world.blocks) as gateway:
        yield query_app(HistoryReader(gateway)).test_client()


@pytest.fixture(scope="module")
def contract() -> ReferenceContract:
    return ReferenceContract(load_reference_document())


get = checked_get


def test_every_topic_pages_through_its_messages(client: Any, contract: ReferenceContract, world: TopicWorld) -> None:
    for topic, truths in world.messages.items():
        answers: list[dict[str, Any]] = []
        url: str | None = f"/api/v1/topics/{topic}/messages?limit=4"
        while url is not None:
            body = get(client, contract, url)
            answers.extend(body["messages"])
            url = body["links"]["next"]
        assert [a["sequence_number"] for a in answers] == [t["topic_message"]["sequence_number"] for t in truths]
        for answer, truth in zip(answers, truths, strict=True):
            assert base64.b64decode(answer["running_hash"]).hex() == truth["topic_message"]["running_hash"]
            assert answer["consensus_timestamp"] == timestamp(truth["consensus_ns"])
            assert answer["payer_account_id"] == truth["payer"]
        newest = get(client, contract, f"/api/v1/topics/{topic}/messages?order=desc&limit=1")["messages"]
        assert newest == answers[-1:]


def test_single_messages_and_topics(client: Any, contract: ReferenceContract, world: TopicWorld) -> None:
    topic, truths = max(world.messages.items(), key=lambda pair: len(pair[1]))
    last = truths[-1]
    by_number = get(client, contract, f"/api/v1/topics/{topic}/messages/{len(truths)}")
    by_time = get(client, contract, f"/api/v1/topics/messages/{timestamp(last['consensus_ns'])}")
    assert by_number == by_time and by_number["sequence_number"] == len(truths)
    for created, creation in world.created.items():
        answer = get(client, contract, f"/api/v1/topics/{created}")
        assert answer["created_timestamp"] == timestamp(creation["consensus_ns"])
    get(client, contract, "/api/v1/topics/0.0.999999/messages", 404)
