"""Accounts and contracts from their creations and changes (the entity index) on the Bigtable
emulator: crafted creations, updates, aliases and a deletion (through the query app), and the
creations of a generated stream (through the ``query`` function), each answer checked against the
reference's OpenAPI."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hedera_history.api.render import timestamp
from hedera_history.config import Settings
from hedera_history.gen.config_and_output import GeneratedStream
from hedera_history.store.reader import HistoryReader

from tests.fixtures.emulators import unique_name
from tests.integration.api.reference_contract import ReferenceContract, checked_get, load_reference_document
from tests.integration.query_function import query_client, write_verified_blocks, written_store
from tests.unit.api import entity_world as w
from tests.unit.api.wsgi_app import query_app

pytestmark = pytest.mark.emulator
CRAFTED, GENERATED = "e_", "eg_"


@pytest.fixture(scope="module")
def clients(
    bigtable_client: Any, generated_stream: GeneratedStream, generated_stream_dir: Path
) -> Iterator[dict[str, Any]]:
    instance = bigtable_client.instance(unique_name("entities"))
    settings = Settings.from_env({}, table_prefix=CRAFTED)
    with written_store(instance, settings, w.entities().blocks) as gateway:
        periods = generated_stream_dir / "recordstreams"
        generated = Settings.from_env({}, table_prefix=GENERATED)
        write_verified_blocks(instance, generated, periods, generated_stream.address_book)
        with query_client(instance.instance_id, GENERATED) as made:
            yield {CRAFTED: query_app(HistoryReader(gateway)).test_client(), GENERATED: made}


@pytest.fixture(scope="module")
def contract() -> ReferenceContract:
    return ReferenceContract(load_reference_document())


get = checked_get


def test_crafted_accounts_and_contracts(clients: dict[str, Any], contract: ReferenceContract) -> None:
    client, entities = clients[CRAFTED], w.entities()
    account = get(client, contract, f"/api/v1/accounts/{entities.account}")
    assert account["key"] == {"_type": "ED25519", "key": w.ED25519_SECOND.hex()} and account["memo"] == "second"
    then = get(client, contract, f"/api/v1/accounts/{entities.account}?timestamp=lt:{timestamp(w.UPDATED)}")
    assert then["key"] == {"_type": "ED25519", "key": w.ED25519_FIRST.hex()}
    alias = base64.b32encode(w.ecdsa_alias()).decode().rstrip("=")
    for form in ("0x" + w.EVM_OF_ECDSA.hex(), alias):
        aliased = get(client, contract, f"/api/v1/accounts/{form}")
        assert aliased["account"] == entities.aliased and aliased["alias"] == alias
        assert aliased["key"] == {"_type": "ECDSA_SECP256K1", "key": w.ECDSA.hex()}
    assert get(client, contract, "/api/v1/accounts/0x" + w.LAZY_ADDRESS.hex())["deleted"] is True
    get(client, contract, "/api/v1/accounts/0x" + "ef" * 20, 404)
    made = get(client, contract, "/api/v1/contracts/0x" + w.CONTRACT_ADDRESS.hex())
    assert made["contract_id"] == entities.contract and made["runtime_bytecode"] == "0x" + w.RUNTIME.hex()
    assert made["admin_key"]["_type"] == "ProtobufEncoded"
    get(client, contract, f"/api/v1/contracts/{entities.account}", 404)


def test_generated_creations(
    clients: dict[str, Any], contract: ReferenceContract, generated_stream: GeneratedStream
) -> None:
    client = clients[GENERATED]
    created = [t for t in generated_stream.truth["transactions"] if t["status"] == "SUCCESS" and t["created"]]
    accounts = [t for t in created if t["type"] == "cryptoCreateAccount"]
    contracts = [t for t in created if t["type"] == "contractCreateInstance"]
    assert accounts and contracts
    for transaction in accounts:
        (account_id,) = transaction["created"]
        body = get(client, contract, f"/api/v1/accounts/{account_id}?transactions=false")
        assert body["created_timestamp"] == timestamp(transaction["consensus_ns"])
        assert body["key"]["_type"] == "ED25519" and len(body["key"]["key"]) == 64
        assert body["deleted"] is False
    for transaction in contracts:
        contract_id = transaction["contract"]
        body = get(client, contract, f"/api/v1/contracts/{contract_id}")
        assert body["contract_id"] == contract_id
        assert body["created_timestamp"] == timestamp(transaction["consensus_ns"])
        assert get(client, contract, f"/api/v1/contracts/{body['evm_address']}") == body
    payer = generated_stream.truth["transactions"][0]["payer"]  # a genesis account: no creation in the stream
    assert get(client, contract, f"/api/v1/accounts/{payer}?transactions=false")["key"] is None
