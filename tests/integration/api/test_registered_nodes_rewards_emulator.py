"""``/accounts/{id}/rewards`` and ``/network/registered-nodes`` on the Bigtable emulator, over HTTP:

- against the generator's ground truth across the cutover: a stream paying staking rewards
  (``GeneratorConfig.staking_rewards``) in record files, a wrapped block and native blocks, and
  registering nodes in its native blocks (``GeneratorConfig.registered_nodes``: creates, an update,
  a delete, the receipts' node ids from the blocks' state changes), loaded through ``load``: every
  rewarded account's rewards, paged both ways, are the truth's, and the registered nodes are;
- hand-built registered-node transactions (creates, an update, a delete, a failed create) written as
  the pipeline writes blocks: the nodes as of the latest block, paged and filtered by type.

Each answer valid against the reference OpenAPI."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hedera_history.api.render import timestamp
from hedera_history.config import Settings
from hedera_history.gen import GeneratorConfig, generate_stream, write_stream
from hedera_history.store.reader import HistoryReader

from tests.fixtures.emulators import unique_name
from tests.integration.api.reference_contract import ReferenceContract, checked_get, load_reference_document
from tests.integration.cutover_load import loaded_gateway
from tests.integration.query_function import written_store
from tests.unit.api.node_reward_world import expected_nodes, world_blocks
from tests.unit.api.reference_fetch import follow_links
from tests.unit.api.wsgi_app import query_app

pytestmark = pytest.mark.emulator

CONFIG = GeneratorConfig(
    nodes=4,
    periods=7,
    transactions=30,
    seed=5,
    staking_rewards=True,
    registered_nodes=True,
    cutover_after=3,
    wrapped_periods=1,
    rotate_key=False,
)
"""Record files 0-2, wrapped block 3, native blocks 4-6."""
NODES = "/api/v1/network/registered-nodes"


@pytest.fixture(scope="module")
def contract() -> ReferenceContract:
    return ReferenceContract(load_reference_document())


def _follow(client: Any, contract: ReferenceContract, url: str, key: str) -> list[dict[str, Any]]:
    return follow_links(lambda link: checked_get(client, contract, link), url, key)


def test_rewards_and_registered_nodes_answer_the_truth_across_the_cutover(
    bigtable_client: Any, contract: ReferenceContract, tmp_path: Path
) -> None:
    stream = generate_stream(CONFIG)
    write_stream(stream, tmp_path)
    expected: dict[str, list[dict[str, Any]]] = {}
    for item in stream.truth["transactions"]:
        for paid in item.get("staking_rewards", []):
            answer = {
                "account_id": paid["account"],
                "amount": paid["amount"],
                "timestamp": timestamp(item["consensus_ns"]),
            }
            expected.setdefault(paid["account"], []).append(answer)
    blocks = {item["block_number"] for item in stream.truth["transactions"] if item.get("staking_rewards")}
    assert min(blocks) < 3 < max(blocks)  # paid in a record file and in a native block
    instance = bigtable_client.instance(unique_name("rewards"))
    with loaded_gateway(instance, tmp_path, "rw_") as gateway:
        client = query_app(HistoryReader(gateway)).test_client()
        for account, rewards in sorted(expected.items()):
            newest_first = sorted(rewards, key=lambda r: r["timestamp"], reverse=True)
            assert _follow(client, contract, f"/api/v1/accounts/{account}/rewards?limit=3", "rewards") == newest_first
            oldest_first = _follow(client, contract, f"/api/v1/accounts/{account}/rewards?limit=2&order=asc", "rewards")
            assert oldest_first == newest_first[::-1], account
        assert checked_get(client, contract, "/api/v1/accounts/0.0.800/rewards")["rewards"] == []
        nodes = _follow(client, contract, f"{NODES}?limit=1", "registered_nodes")
        truth = stream.truth["registered_nodes"]
        assert [str(n["registered_node_id"]) for n in nodes] == sorted(truth) == ["1", "3"]
        for node in nodes:
            expected_node = truth[str(node["registered_node_id"])]
            assert node["description"] == expected_node["description"]
            assert node["created_timestamp"] == timestamp(expected_node["created_ns"])
            assert node["timestamp"] == {"from": timestamp(expected_node["changed_ns"]), "to": None}
            types = [e["type"].lower() for e in node["service_endpoints"]]
            assert types == expected_node["endpoint_types"]


@pytest.fixture(scope="module")
def client(bigtable_client: Any) -> Iterator[Any]:
    instance = bigtable_client.instance(unique_name("regnodes"))
    with written_store(instance, Settings.from_env({}, table_prefix="rn_"), world_blocks()) as gateway:
        yield query_app(HistoryReader(gateway)).test_client()


def test_registered_nodes(client: Any, contract: ReferenceContract) -> None:
    expected = expected_nodes(timestamp)
    assert _follow(client, contract, f"{NODES}?limit=1", "registered_nodes") == expected
    assert _follow(client, contract, f"{NODES}?limit=1&order=desc", "registered_nodes") == expected[::-1]
    assert checked_get(client, contract, f"{NODES}?type=block_node")["registered_nodes"] == expected[:1]
    assert checked_get(client, contract, f"{NODES}?registerednode.id=gt:1")["registered_nodes"] == expected[1:]
    assert checked_get(client, contract, f"{NODES}?registerednode.id=3")["registered_nodes"] == []  # deleted
    checked_get(client, contract, f"{NODES}?type=nope", 400)
