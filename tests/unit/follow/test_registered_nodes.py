"""Block nodes registered on chain (HIP-1137), read from a block's state changes: which registered
nodes count as block nodes and where they are read, deletions, and the registry kept from them."""

from __future__ import annotations

from typing import Any

from hedera_history.follow.block_node_registry import BlockNodeRegistry
from hedera_history.follow.registered_nodes import (
    RegisteredNodeChange,
    block_node_endpoint,
    may_register_block_nodes,
    registered_node_changes,
)
from hedera_history.formats.block import block_content, parse_block_file
from hedera_history.formats.block_protos import BlockItem, StateChanges
from hedera_history.formats.block_state import STATE_ID_ACCOUNTS, STATE_ID_REGISTERED_NODES
from hedera_history.gen.block_proofs import signed_block_proof_item
from hedera_history.gen.blocks import BlockChain, header_item

STATUS, PUBLISH, SUBSCRIBE_STREAM = 1, 2, 3
BLOCK_NODE_APIS = (STATUS, PUBLISH, SUBSCRIBE_STREAM)


def registered(changes: Any, node_id: int, *endpoints: dict[str, Any]) -> None:
    change = changes.state_changes.add(state_id=STATE_ID_REGISTERED_NODES)
    change.map_update.key.entity_number_key.value = node_id
    node = change.map_update.value.registered_node_value
    node.registered_node_id = node_id
    for fields in endpoints:
        endpoint = node.service_endpoint.add()
        apis = fields.pop("apis", None)
        for name, value in fields.items():
            setattr(endpoint, name, value)
        if apis is not None:
            endpoint.block_node.endpoint_api.extend(apis)


def deleted(changes: Any, node_id: int) -> None:
    change = changes.state_changes.add(state_id=STATE_ID_REGISTERED_NODES)
    change.map_delete.key.entity_number_key.value = node_id


def block_with(changes: Any) -> bytes:
    """A block file whose one state-changes item is ``changes`` (its proof is not checked here)."""
    items = [header_item(9, 1_700_000_000_000_000_000, (0, 80, 0), (0, 80, 0))]
    items.append(BlockItem(state_changes=changes).SerializeToString())
    return BlockChain().draft(9, items, state_root=True).file(signed_block_proof_item(9, b"\0" * 16))


def changes_in(data: bytes) -> list[RegisteredNodeChange]:
    return registered_node_changes(parse_block_file(data, "9.blk.zstd"))


def test_a_registered_block_node_is_read_at_its_first_endpoint_offering_every_block_node_api() -> None:
    changes = StateChanges()
    registered(
        changes,
        3,
        {"domain_name": "mirror.example", "port": 443},
        {"domain_name": "status.block.example", "port": 40841, "apis": [STATUS, PUBLISH]},
        {"domain_name": "block.example", "port": 40840, "requires_tls": True, "apis": list(BLOCK_NODE_APIS)},
        {"domain_name": "second.block.example", "port": 40840, "apis": list(BLOCK_NODE_APIS)},
    )
    registered(changes, 4, {"ip_address": bytes([10, 0, 0, 7]), "port": 40840, "apis": list(BLOCK_NODE_APIS)})
    assert changes_in(block_with(changes)) == [
        RegisteredNodeChange(3, "tls://block.example:40840"),
        RegisteredNodeChange(4, "10.0.0.7:40840"),
    ]


def test_apis_spread_over_several_endpoints_make_no_block_node() -> None:
    """The reference's tier-1 test is per endpoint: a status endpoint beside a subscribe endpoint is
    not one address that answers ``serverStatus``, ``getBlock`` and the subscription."""
    changes = StateChanges()
    registered(
        changes,
        3,
        {"domain_name": "status.block.example", "port": 40841, "apis": [STATUS, PUBLISH]},
        {"domain_name": "block.example", "port": 40840, "apis": [SUBSCRIBE_STREAM]},
    )
    assert changes_in(block_with(changes)) == [RegisteredNodeChange(3, None)]


def test_a_node_without_every_block_node_api_or_address_is_no_block_node_and_a_deletion_removes_it() -> None:
    changes = StateChanges()
    registered(changes, 5, {"domain_name": "mirror.example", "port": 443})  # a mirror node's endpoint
    registered(changes, 6, {"domain_name": "b.example", "port": 40840, "apis": [STATUS, SUBSCRIBE_STREAM]})
    registered(changes, 7, {"port": 40840, "apis": list(BLOCK_NODE_APIS)})
    deleted(changes, 4)
    assert changes_in(block_with(changes)) == [
        RegisteredNodeChange(5, None),
        RegisteredNodeChange(6, None),
        RegisteredNodeChange(7, None),
        RegisteredNodeChange(4, None),
    ]


def test_a_block_without_registered_node_changes_is_passed_over_by_one_search() -> None:
    changes = StateChanges()
    change = changes.state_changes.add(state_id=STATE_ID_ACCOUNTS)
    change.map_update.key.account_id_key.accountNum = 1001
    data = block_with(changes)
    assert not may_register_block_nodes(block_content(data, "9.blk.zstd", limit=1 << 24))
    assert changes_in(data) == []


def test_an_ipv6_address_is_bracketed() -> None:
    changes = StateChanges()
    registered(changes, 1, {"ip_address": bytes(15) + b"\1", "port": 40840, "apis": list(BLOCK_NODE_APIS)})
    node = changes.state_changes[0].map_update.value.registered_node_value
    assert block_node_endpoint(node.service_endpoint) == "[::1]:40840"


def test_the_registry_applies_changes_in_order_and_round_trips() -> None:
    registry = BlockNodeRegistry().applied(
        [RegisteredNodeChange(2, "b:1"), RegisteredNodeChange(1, "a:1"), RegisteredNodeChange(3, "a:1")], 10
    )
    assert registry.endpoints == ("a:1", "b:1")
    later = registry.applied([RegisteredNodeChange(1, None), RegisteredNodeChange(2, "c:2")], 11)
    assert (later.endpoints, later.through_block) == (("c:2", "a:1"), 11)
    assert BlockNodeRegistry.from_json(later.to_json()) == later


def test_a_domain_name_that_is_no_host_name_is_passed_over() -> None:
    """Anyone can register a node: a name that is no host name (a comma, a colon, a space, an at
    sign...) is not read, the node's next endpoint offering the APIs is."""
    changes = StateChanges()
    for node_id, name in enumerate(["evil.example,other", "a:1", "a b", "x@1", "-bad.example", "tls://x"], 10):
        registered(changes, node_id, {"domain_name": name, "port": 40840, "apis": list(BLOCK_NODE_APIS)})
    registered(
        changes,
        20,
        {"domain_name": "a:b.example", "port": 40840, "apis": list(BLOCK_NODE_APIS)},
        {"domain_name": "Block-1.example.", "port": 40840, "apis": list(BLOCK_NODE_APIS)},
    )
    found = changes_in(block_with(changes))
    assert found[:-1] == [RegisteredNodeChange(n, None) for n in range(10, 16)]
    assert found[-1] == RegisteredNodeChange(20, "Block-1.example.:40840")
