"""The staking reward and registered-node index rows (``store.reward_index``,
``store.registered_node_index``) and what a registered node is (``books.registered_nodes``): keys
round-trip and order as read, only the rows the reference keeps are written, and a node folds from its
create, update and delete as the reference's importer folds it."""

from __future__ import annotations

from typing import Any

import pytest
from hedera_history import hapi
from hedera_history.books.registered_nodes import (
    BLOCK_NODE,
    GENERAL_SERVICE,
    MIRROR_NODE,
    applied,
    block_node_endpoint,
    java_host_address,
    service_endpoint,
)
from hedera_history.errors import RowLayoutError
from hedera_history.store.registered_node_index import (
    CREATED,
    DELETED,
    UPDATED,
    decode_registered_node_key,
    registered_node_index_keys,
    registered_node_range,
)
from hedera_history.store.reward_index import decode_reward_key, reward_index_keys, reward_key, reward_range

NS = 1_000_000_000


def record(status: int = 22, **receipt: Any) -> Any:
    found = hapi.TransactionRecord()
    found.receipt.status = status
    for name, value in receipt.items():
        setattr(found.receipt, name, value)
    return found


def test_reward_keys_round_trip_newest_first_and_fall_in_their_range() -> None:
    paid = record(status=7)  # a failed transaction's rewards are kept, as the reference keeps them
    paid.paid_staking_rewards.add(accountID=hapi.AccountID(accountNum=1001), amount=5)
    paid.paid_staking_rewards.add(accountID=hapi.AccountID(accountNum=1002), amount=0)
    paid.paid_staking_rewards.add(accountID=hapi.AccountID(alias=b"\x01" * 20), amount=9)  # no number: left out
    keys = reward_index_keys(paid, 7 * NS)
    assert [decode_reward_key(k) for k in keys] == [("0.0.1001", 7 * NS, 5), ("0.0.1002", 7 * NS, 0)]
    older, newer = reward_key("0.0.1001", 5 * NS, 1), reward_key("0.0.1001", 6 * NS, 2)
    assert newer < older
    start, end = reward_range("0.0.1001", 6 * NS, 5 * NS)  # before 6 s, from 5 s on
    assert not start <= newer < end and start <= older < end
    start, end = reward_range("0.0.1001", None, 0)
    assert all(start <= k < end for k in (older, newer)) and not start <= reward_key("0.0.10010", 1, 1) < end
    with pytest.raises(RowLayoutError):
        decode_reward_key(b"reward/0.0.1001/zz/1")


def test_registered_node_keys_of_successful_creates_updates_and_deletes_only() -> None:
    body = hapi.TransactionBody()
    body.registeredNodeCreate.description = "x"
    assert registered_node_index_keys("registeredNodeCreate", body, record(registered_node_id=4), 9) == [
        b"regnode/0000000000000004/0000000000000009/c"
    ]
    assert registered_node_index_keys("registeredNodeCreate", body, record(7), 9) == []
    body = hapi.TransactionBody()
    body.registeredNodeUpdate.registered_node_id = 4
    (key,) = registered_node_index_keys("registeredNodeUpdate", body, record(), 10)
    assert decode_registered_node_key(key) == (4, 10, UPDATED)
    body = hapi.TransactionBody()
    body.registeredNodeDelete.registered_node_id = 4
    (deleted,) = registered_node_index_keys("registeredNodeDelete", body, record(), 11)
    assert decode_registered_node_key(deleted)[2] == DELETED != CREATED
    assert registered_node_index_keys("cryptoTransfer", body, record(), 11) == []
    start, end = registered_node_range(4, 4)
    assert start <= key < end and start <= deleted < end
    assert not start <= b"regnode/0000000000000005/0000000000000001/c" < end


def test_a_node_folds_as_the_reference_importer_folds_it() -> None:
    body = hapi.TransactionBody()
    create = body.registeredNodeCreate
    create.description = "  "  # blank: none
    create.admin_key.ed25519 = b"\x01" * 32
    create.service_endpoint.add(domain_name="block.example.com", port=1, block_node={"endpoint_api": [1, 2, 3, 9]})
    node = applied(None, 7, body, 5)
    assert node is not None and node.description is None and node.created_ns == 5 == node.changed_ns
    assert node.endpoints[0].block_node_apis == ("STATUS", "PUBLISH", "SUBSCRIBE_STREAM", "UNRECOGNIZED")
    assert node.node_types == {BLOCK_NODE}
    update = hapi.TransactionBody()
    update.registeredNodeUpdate.registered_node_id = 7
    update.registeredNodeUpdate.description.value = ""
    updated = applied(node, 7, update, 6)  # no endpoints listed: kept; the description set (empty)
    assert updated is not None and updated.endpoints == node.endpoints and updated.description == ""
    assert updated.admin_key == node.admin_key and updated.created_ns == 5 and updated.changed_ns == 6
    assert applied(None, 7, update, 6) is None  # an update of a node history never saw created
    delete = hapi.TransactionBody()
    delete.registeredNodeDelete.registered_node_id = 7
    gone = applied(updated, 7, delete, 8)
    assert gone is not None and gone.deleted


def test_endpoints_as_the_reference_shows_them() -> None:
    raw = hapi.TransactionBody().registeredNodeCreate.service_endpoint
    raw.add(ip_address=bytes(range(16)), port=2, mirror_node={})
    raw.add(ip_address=b"\x01\x02\x03", port=3)  # neither IPv4 nor IPv6; no type: a general service
    mirror, odd = (service_endpoint(e) for e in raw)
    assert mirror.ip_address == "1:203:405:607:809:a0b:c0d:e0f" and mirror.node_type == MIRROR_NODE
    assert odd.ip_address is None and odd.domain_name is None and odd.node_type == GENERAL_SERVICE
    assert java_host_address(bytes(16)) == "0:0:0:0:0:0:0:0"
    assert block_node_endpoint(raw) is None
    raw.add(ip_address=bytes([127, 0, 0, 1]), port=8080, requires_tls=True, block_node={"endpoint_api": [1, 2, 3]})
    assert block_node_endpoint(raw) == "tls://127.0.0.1:8080"
