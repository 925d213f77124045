"""``/network/registered-nodes`` and ``/accounts/{id}/rewards`` on hand-built HAPI records, in memory:
registered nodes created, updated and deleted (a failed create counting for nothing), listed by id
with the reference's filters and paging; staking rewards listed newest first and oldest first, with
timestamp bounds and paging; each answer checked against the reference's OpenAPI."""

from __future__ import annotations

from typing import Any

import pytest
from hedera_history.api.render import timestamp
from hedera_history.config import Settings
from hedera_history.store.reader import HistoryReader
from hedera_history.store.writer import BlockWriter

from tests.unit.api.airdrop_schedule_world import at
from tests.unit.api.node_reward_world import OTHER_REWARDED, REWARDED, REWARDS, expected_nodes, world_blocks
from tests.unit.api.reference_fetch import follow_links, reference_fetcher
from tests.unit.store.fakes import MemoryGateway

Get = Any
NODES = "/api/v1/network/registered-nodes"


@pytest.fixture(scope="module")
def get() -> Get:
    gateway = MemoryGateway()
    assert all(r.complete for r in BlockWriter(gateway, Settings()).write_blocks(world_blocks()))
    return reference_fetcher(HistoryReader(gateway))


def test_registered_nodes_as_of_the_latest_block(get: Get) -> None:
    expected = expected_nodes(timestamp)
    assert get(NODES) == {"registered_nodes": expected, "links": {"next": None}}
    assert get(f"{NODES}?order=desc")["registered_nodes"] == expected[::-1]
    assert follow_links(get, f"{NODES}?limit=1", "registered_nodes") == expected
    assert follow_links(get, f"{NODES}?limit=1&order=desc", "registered_nodes") == expected[::-1]
    assert get(f"{NODES}?limit=1")["links"]["next"] == f"{NODES}?limit=1&order=asc&registerednode.id=gt%3A1"


def test_registered_node_filters(get: Get) -> None:
    expected = expected_nodes(timestamp)
    assert get(f"{NODES}?registerednode.id=2")["registered_nodes"] == expected[1:]
    assert get(f"{NODES}?registerednode.id=gte:2&registerednode.id=lt:3")["registered_nodes"] == expected[1:]
    assert get(f"{NODES}?registerednode.id=3")["registered_nodes"] == []  # deleted
    assert get(f"{NODES}?registerednode.id=4")["registered_nodes"] == []  # its create failed
    assert get(f"{NODES}?type=MIRROR_NODE")["registered_nodes"] == expected[:1]  # any endpoint of the type
    assert get(f"{NODES}?type=rpc_relay")["registered_nodes"] == expected[1:]
    assert get(f"{NODES}?type=GENERAL_SERVICE")["registered_nodes"] == []  # node 3 was deleted
    get(f"{NODES}?type=CONSENSUS", 400)
    get(f"{NODES}?registerednode.id=x", 400)


def rewards(account: int) -> list[dict[str, Any]]:
    return [
        {"account_id": f"0.0.{account}", "amount": amount, "timestamp": timestamp(at(step))}
        for amount, step in REWARDS[account]
    ]


def test_rewards_newest_first_with_paging(get: Get) -> None:
    url = f"/api/v1/accounts/0.0.{REWARDED}/rewards"
    assert get(url) == {"rewards": rewards(REWARDED), "links": {"next": None}}
    assert follow_links(get, f"{url}?limit=1", "rewards") == rewards(REWARDED)
    assert follow_links(get, f"{url}?limit=3&order=asc", "rewards") == rewards(REWARDED)[::-1]
    first = get(f"{url}?limit=2")
    assert first["links"]["next"] == f"{url}?limit=2&order=desc&timestamp=lt%3A{timestamp(at(12))}"
    assert get(f"/api/v1/accounts/{OTHER_REWARDED}/rewards")["rewards"] == rewards(OTHER_REWARDED)
    assert get("/api/v1/accounts/0.0.1005/rewards") == {"rewards": [], "links": {"next": None}}


def test_rewards_timestamp_bounds(get: Get) -> None:
    url = f"/api/v1/accounts/0.0.{REWARDED}/rewards"
    everything = rewards(REWARDED)
    assert get(f"{url}?timestamp=lt:{timestamp(at(13))}")["rewards"] == everything[1:]
    assert get(f"{url}?timestamp=lte:{timestamp(at(13))}&timestamp=gt:{timestamp(at(4))}")["rewards"] == everything[:3]
    assert get(f"{url}?timestamp={timestamp(at(5))}")["rewards"] == everything[2:3]
    assert get(f"{url}?timestamp=gte:{timestamp(at(5))}&order=asc")["rewards"] == everything[:3][::-1]
    assert get(f"{url}?timestamp=gt:{timestamp(at(13))}")["rewards"] == []
    follow = follow_links(get, f"{url}?timestamp=gte:{timestamp(at(5))}&limit=1&order=asc", "rewards")
    assert follow == everything[:3][::-1]
    assert follow_links(get, f"{url}?timestamp=eq:{timestamp(at(5))}&limit=1", "rewards") == everything[2:3]
    get(f"{url}?timestamp=soon", 400)
