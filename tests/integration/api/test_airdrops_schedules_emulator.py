"""The pending-airdrop and schedule routes on the Bigtable emulator: hand-built airdrops (made
pending, added to, claimed, cancelled) and schedules (created, signed, executed, deleted) written
as the pipeline writes blocks, then read through the query app over HTTP: the airdrops by sender
and by receiver paged in the reference's order, the schedules one by one and listed; each answer
checked against the reference's OpenAPI."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hedera_history.api.render import timestamp
from hedera_history.config import Settings
from hedera_history.store.reader import HistoryReader

from tests.fixtures.emulators import unique_name
from tests.integration.api.reference_contract import ReferenceContract, checked_get, load_reference_document
from tests.integration.query_function import written_store
from tests.unit.api.airdrop_schedule_world import at, world_blocks
from tests.unit.api.reference_fetch import follow_links
from tests.unit.api.wsgi_app import query_app

pytestmark = pytest.mark.emulator

get = checked_get


@pytest.fixture(scope="module")
def client(bigtable_client: Any) -> Iterator[Any]:
    instance = bigtable_client.instance(unique_name("airdrops"))
    with written_store(instance, Settings.from_env({}, table_prefix="a_"), world_blocks()) as gateway:
        yield query_app(HistoryReader(gateway)).test_client()


@pytest.fixture(scope="module")
def contract() -> ReferenceContract:
    return ReferenceContract(load_reference_document())


def follow(client: Any, contract: ReferenceContract, url: str, key: str) -> list[dict[str, Any]]:
    return follow_links(lambda link: get(client, contract, link), url, key)


def test_airdrops_by_receiver_and_by_sender(client: Any, contract: ReferenceContract) -> None:
    received = follow(client, contract, "/api/v1/accounts/0.0.2001/airdrops/pending?limit=1", "airdrops")
    assert [(a["sender_id"], a["token_id"], a["serial_number"], a["amount"]) for a in received] == [
        ("0.0.1001", "0.0.5000", None, 15),
        ("0.0.1001", "0.0.6000", 1, 0),
        ("0.0.1002", "0.0.5000", None, 7),
    ]
    assert received[0]["timestamp"] == {"from": timestamp(at(1)), "to": None}
    newest_first = follow(client, contract, "/api/v1/accounts/0.0.2001/airdrops/pending?order=desc&limit=2", "airdrops")
    assert newest_first == received[::-1]
    sent = follow(client, contract, "/api/v1/accounts/0.0.1001/airdrops/outstanding?limit=1", "airdrops")
    assert sent == received[:2]  # the airdrop to 0.0.2002 was claimed
    assert get(client, contract, "/api/v1/accounts/0.0.2002/airdrops/pending")["airdrops"] == []


def test_schedules(client: Any, contract: ReferenceContract) -> None:
    listed = follow(client, contract, "/api/v1/schedules?limit=1", "schedules")
    assert [s["schedule_id"] for s in listed] == ["0.0.7000", "0.0.7001"]
    executed, deleted = listed
    assert executed["executed_timestamp"] == timestamp(at(14)) and not executed["deleted"]
    assert len(executed["signatures"]) == 3 and deleted["deleted"] and deleted["executed_timestamp"] is None
    for schedule in listed:
        assert get(client, contract, f"/api/v1/schedules/{schedule['schedule_id']}") == schedule
    assert follow(client, contract, "/api/v1/schedules?order=desc&limit=1", "schedules") == listed[::-1]
    creator = get(client, contract, "/api/v1/schedules?account.id=0.0.1001")["schedules"]
    assert creator == [executed]
    get(client, contract, "/api/v1/schedules/0.0.7002", 404)
