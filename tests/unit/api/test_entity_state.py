"""Accounts and contracts as of a time from their creation and changes in history (the entity
index): keys as the reference renders them, memos, aliases and EVM addresses resolved to ids,
deletions; in memory, each answer checked against the reference's OpenAPI."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from hedera_history import hapi
from hedera_history.api import handle
from hedera_history.api.entity_state import render_key
from hedera_history.api.render import timestamp
from hedera_history.config import Settings
from hedera_history.errata.apply import apply_errata
from hedera_history.store.reader import HistoryReader
from hedera_history.store.reader_entities import entities_with_alias, entity_changes
from hedera_history.store.writer import BlockWriter

from tests.integration.api.reference_contract import ReferenceContract, load_reference_document
from tests.unit.api import entity_world as w
from tests.unit.errata.fakes import VersionedGateway
from tests.unit.errata.helpers import SETTINGS as ERRATA_SETTINGS
from tests.unit.errata.helpers import errata_file
from tests.unit.store.builders import NS
from tests.unit.store.fakes import MemoryGateway


@pytest.fixture(scope="module")
def world() -> tuple[HistoryReader, w.Entities, ReferenceContract]:
    entities = w.entities()
    gateway = MemoryGateway()
    assert all(r.complete for r in BlockWriter(gateway, Settings()).write_blocks(list(entities.blocks)))
    return HistoryReader(gateway), entities, ReferenceContract(load_reference_document())


def get(world: tuple[HistoryReader, w.Entities, ReferenceContract], path: str, status: int = 200) -> Any:
    reader, _, contract = world
    route, _, query_text = path.partition("?")
    query: dict[str, list[str]] = {}
    for pair in filter(None, query_text.split("&")):
        name, _, value = pair.partition("=")
        query.setdefault(name, []).append(value)
    response = handle(lambda: reader, "GET", route, query, b"")
    assert response.status == status, (path, response.body)
    contract.validate(route, status, response.body)
    return response.body


def test_an_account_has_the_key_and_memo_of_its_creation_then_of_its_update(world: Any) -> None:
    entities = world[1]
    now = get(world, f"/api/v1/accounts/{entities.account}")
    assert now["key"] == {"_type": "ED25519", "key": w.ED25519_SECOND.hex()}
    assert (now["memo"], now["deleted"], now["created_timestamp"]) == ("second", False, timestamp(w.CREATED))
    before = get(world, f"/api/v1/accounts/{entities.account}?timestamp=lt:{timestamp(w.UPDATED)}")
    assert before["key"] == {"_type": "ED25519", "key": w.ED25519_FIRST.hex()} and before["memo"] == "first"
    assert get(world, f"/api/v1/accounts/{entities.account}?timestamp=lte:{timestamp(w.UPDATED)}")["memo"] == "second"


def test_an_alias_or_evm_address_names_the_account_it_was_given_to(world: Any) -> None:
    entities = world[1]
    by_address = get(world, "/api/v1/accounts/0x" + w.EVM_OF_ECDSA.hex())
    assert by_address["account"] == entities.aliased
    assert by_address["key"] == {"_type": "ECDSA_SECP256K1", "key": w.ECDSA.hex()}
    assert by_address["evm_address"] == "0x" + w.EVM_OF_ECDSA.hex()
    alias = base64.b32encode(w.ecdsa_alias()).decode().rstrip("=")
    assert by_address["alias"] == alias
    for form in (alias, f"0.0.{alias}", w.EVM_OF_ECDSA.hex().upper(), "0.0." + w.EVM_OF_ECDSA.hex()):
        assert get(world, f"/api/v1/accounts/{form}?transactions=false")["account"] == entities.aliased
    lazy = get(world, "/api/v1/accounts/0x" + w.LAZY_ADDRESS.hex())
    assert (lazy["account"], lazy["deleted"], lazy["key"]) == (entities.lazy, True, None)
    assert lazy["evm_address"] == "0x" + w.LAZY_ADDRESS.hex() and lazy["alias"] is None
    get(world, "/api/v1/accounts/0x" + "ef" * 20, 404)
    get(world, "/api/v1/accounts/" + "A" * 56, 404)


def test_a_contract_by_id_or_evm_address(world: Any) -> None:
    entities = world[1]
    found = get(world, "/api/v1/contracts/0x" + w.CONTRACT_ADDRESS.hex())
    assert found["contract_id"] == entities.contract
    assert found["admin_key"] == {"_type": "ProtobufEncoded", "key": w.threshold_key().SerializeToString().hex()}
    assert (found["memo"], found["file_id"], found["deleted"]) == ("c", "0.0.111", False)
    assert found["created_timestamp"] == found["timestamp"]["from"] == timestamp(w.CREATED + 3)
    assert (found["bytecode"], found["runtime_bytecode"]) == ("0x" + w.INITCODE.hex(), "0x" + w.RUNTIME.hex())
    assert get(world, f"/api/v1/contracts/{entities.contract}") == found
    (created,) = get(world, "/api/v1/contracts/0x" + w.CONTRACT_ADDRESS.hex() + "/results")["results"]
    assert (created["contract_id"], created["timestamp"]) == (entities.contract, timestamp(w.CREATED + 3))
    get(world, f"/api/v1/contracts/{entities.account}", 404)  # created as an account
    get(world, "/api/v1/contracts/0.0.999999", 404)
    get(world, f"/api/v1/contracts/{entities.contract}?timestamp=lt:{timestamp(w.CREATED)}", 404)
    get(world, "/api/v1/contracts/not-a-contract", 400)


def test_an_account_history_knows_nothing_of_has_no_key(world: Any) -> None:
    payer = get(world, "/api/v1/accounts/0.0.1001")
    assert payer["key"] is None and payer["created_timestamp"] is None and payer["memo"] is None
    assert payer["evm_address"] == "0x" + (1001).to_bytes(20, "big").hex()


def test_the_index_reads_only_successful_changes_newest_first(world: Any) -> None:
    reader, entities, _ = world
    changes = entity_changes(reader, entities.account)
    assert [t.consensus_ns for t in changes.transactions] == [w.UPDATED, w.CREATED] and changes.whole
    assert [t.consensus_ns for t in entity_changes(reader, entities.account, w.UPDATED - 1).transactions] == [w.CREATED]
    limited = entity_changes(reader, entities.account, limit=1)
    assert len(limited.transactions) == 1 and not limited.whole
    assert entities_with_alias(reader, w.LAZY_ADDRESS) == [entities.lazy]
    assert entities_with_alias(reader, w.LAZY_ADDRESS[:19]) == []


@pytest.mark.parametrize(
    ("key", "rendered"),
    [
        (w.ed25519(w.ED25519_FIRST), {"_type": "ED25519", "key": w.ED25519_FIRST.hex()}),
        (hapi.basic_types.Key(ECDSA_secp256k1=w.ECDSA), {"_type": "ECDSA_SECP256K1", "key": w.ECDSA.hex()}),
        (w.threshold_key(), {"_type": "ProtobufEncoded", "key": w.threshold_key().SerializeToString().hex()}),
    ],
)
def test_keys_render_as_the_reference_renders_them(key: Any, rendered: dict[str, str]) -> None:
    assert render_key(bytes(key.SerializeToString())) == rendered
    one = hapi.basic_types.Key()
    one.keyList.keys.add().CopyFrom(key)
    one_of_one = hapi.basic_types.Key()
    one_of_one.thresholdKey.threshold = 1
    one_of_one.thresholdKey.keys.keys.add().CopyFrom(key)
    primitive = rendered["_type"] != "ProtobufEncoded"
    for wrapped in (one, one_of_one):
        expected = rendered if primitive else {"_type": "ProtobufEncoded", "key": wrapped.SerializeToString().hex()}
        assert render_key(bytes(wrapped.SerializeToString())) == expected


def test_no_key_and_an_empty_key_list_render_as_null() -> None:
    assert render_key(None) is None
    assert render_key(bytes.fromhex("3200")) is None


def test_an_errata_removing_an_update_takes_its_change_back() -> None:
    entities = w.entities()
    gateway = VersionedGateway()
    assert all(r.complete for r in BlockWriter(gateway, ERRATA_SETTINGS).write_blocks(list(entities.blocks)))
    apply_errata(errata_file(w.UPDATED + 50 * NS, w.UPDATED, None), gateway, ERRATA_SETTINGS)
    reader = HistoryReader(gateway)
    assert [t.consensus_ns for t in entity_changes(reader, entities.account).transactions] == [w.CREATED]
    response = handle(lambda: reader, "GET", f"/api/v1/accounts/{entities.account}", {}, b"")
    assert response.body["key"] == {"_type": "ED25519", "key": w.ED25519_FIRST.hex()}
    assert response.body["memo"] == "first"
