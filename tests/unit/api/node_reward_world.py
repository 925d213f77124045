"""Hand-built registered-node transactions (HIP-1137: creates, an update, a delete, a failed create)
and staking reward payouts in verified blocks, and what the reference's routes answer for them:
what ``/network/registered-nodes`` and ``/accounts/{id}/rewards`` are tested on, in memory and on the
emulator."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hedera_history.block import VerifiedBlock

from tests.unit.api.airdrop_schedule_world import ED_KEY, at, tx
from tests.unit.store.builders import Tx, account, make_block

OPERATOR = 1001
REWARDED, OTHER_REWARDED = 1001, 1002
BLOCK_NODE_APIS = (1, 2, 3)  # STATUS, PUBLISH, SUBSCRIBE_STREAM
IPV6 = bytes.fromhex("20010db8000000000000000000000001")


def endpoint(
    target: Any, *, kind: str, ip: bytes = b"", domain: str = "", port: int = 40840, tls: bool = False
) -> None:
    added = target.add(port=port, requires_tls=tls)
    if domain:
        added.domain_name = domain
    else:
        added.ip_address = ip
    if kind == "block_node":
        added.block_node.endpoint_api.extend(BLOCK_NODE_APIS)
    elif kind == "general_service":
        added.general_service.description = "an indexer"
    else:
        getattr(added, kind).SetInParent()


def create(step: int, node_id: int, description: str, fill: Callable[[Any], None], *, status: int = 22) -> Tx:
    def fill_body(b: Any) -> None:
        b.registeredNodeCreate.admin_key.ed25519 = ED_KEY
        b.registeredNodeCreate.description = description
        fill(b.registeredNodeCreate.service_endpoint)

    def fill_record(record: Any) -> None:
        if status == 22:
            record.receipt.registered_node_id = node_id

    return tx(step, OPERATOR, fill_body, fill_record, status=status)


def update(step: int, node_id: int, description: str, fill: Callable[[Any], None]) -> Tx:
    def fill_body(b: Any) -> None:
        b.registeredNodeUpdate.registered_node_id = node_id
        b.registeredNodeUpdate.description.value = description
        fill(b.registeredNodeUpdate.service_endpoint)

    return tx(step, OPERATOR, fill_body)


def delete(step: int, node_id: int) -> Tx:
    return tx(step, OPERATOR, lambda b: setattr(b.registeredNodeDelete, "registered_node_id", node_id))


def rewarded(step: int, rewards: list[tuple[int, int]], *, status: int = 22) -> Tx:
    """An hbar transfer whose record pays ``rewards`` ((account, tinybar))."""

    def fill_record(record: Any) -> None:
        for paid, amount in rewards:
            record.paid_staking_rewards.add(accountID=account(paid), amount=amount)

    return tx(step, 1005, lambda b: b.cryptoTransfer.SetInParent(), fill_record, status=status)


def _renamed_endpoints(target: Any) -> None:
    endpoint(target, kind="block_node", ip=bytes([192, 168, 0, 1]), port=8080)
    endpoint(target, kind="mirror_node", domain="mirror.alpha.com", port=5551)


def world_blocks() -> list[VerifiedBlock]:
    """Two blocks: three nodes registered and rewards paid, then an update, a delete, more rewards."""
    first = [
        create(0, 1, "alpha", lambda e: endpoint(e, kind="block_node", domain="block1.alpha.com", tls=True)),
        create(1, 2, "beta", lambda e: endpoint(e, kind="rpc_relay", ip=IPV6, port=443)),
        create(2, 3, "", lambda e: endpoint(e, kind="general_service", ip=bytes([10, 0, 0, 3]))),
        create(3, 4, "failed", lambda e: endpoint(e, kind="mirror_node", ip=bytes([10, 0, 0, 4])), status=7),
        rewarded(4, [(REWARDED, 10), (OTHER_REWARDED, 11)]),
        rewarded(5, [(REWARDED, 12)], status=7),  # a failed transaction pays rewards too
    ]
    second = [
        update(10, 1, "alpha, renamed", _renamed_endpoints),
        delete(11, 3),
        rewarded(12, [(REWARDED, 13)]),
        rewarded(13, [(REWARDED, 14)]),
    ]
    return [make_block(1, first), make_block(2, second)]


EXPECTED_NODES: list[dict[str, Any]] = [
    {
        "admin_key": {"_type": "ED25519", "key": ED_KEY.hex()},
        "created_timestamp": None,  # filled below
        "description": "alpha, renamed",
        "registered_node_id": 1,
        "service_endpoints": [
            {
                "block_node": {"endpoint_apis": ["STATUS", "PUBLISH", "SUBSCRIBE_STREAM"]},
                "domain_name": None,
                "general_service": {},
                "ip_address": "192.168.0.1",
                "mirror_node": {},
                "port": 8080,
                "requires_tls": False,
                "rpc_relay": {},
                "type": "BLOCK_NODE",
            },
            {
                "block_node": {},
                "domain_name": "mirror.alpha.com",
                "general_service": {},
                "ip_address": None,
                "mirror_node": {},
                "port": 5551,
                "requires_tls": False,
                "rpc_relay": {},
                "type": "MIRROR_NODE",
            },
        ],
        "timestamp": None,
    },
    {
        "admin_key": {"_type": "ED25519", "key": ED_KEY.hex()},
        "created_timestamp": None,
        "description": "beta",
        "registered_node_id": 2,
        "service_endpoints": [
            {
                "block_node": {},
                "domain_name": None,
                "general_service": {},
                "ip_address": "2001:db8:0:0:0:0:0:1",
                "mirror_node": {},
                "port": 443,
                "requires_tls": False,
                "rpc_relay": {},
                "type": "RPC_RELAY",
            }
        ],
        "timestamp": None,
    },
]
"""Node 3 was deleted, node 4's create failed."""
NODE_TIMES = {1: (0, 10), 2: (1, 1)}
"""Node id -> (step created, step last written)."""


def expected_nodes(timestamp: Callable[[int], str]) -> list[dict[str, Any]]:
    nodes = []
    for node in EXPECTED_NODES:
        created, changed = NODE_TIMES[node["registered_node_id"]]
        nodes.append(
            {
                **node,
                "created_timestamp": timestamp(at(created)),
                "timestamp": {"from": timestamp(at(changed)), "to": None},
            }
        )
    return nodes


REWARDS = {REWARDED: [(14, 13), (13, 12), (12, 5), (10, 4)], OTHER_REWARDED: [(11, 4)]}
"""Account -> (tinybar, step) of its rewards, newest first."""
