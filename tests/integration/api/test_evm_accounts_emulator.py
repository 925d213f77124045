"""Accounts named by an EVM address, against the generator's ground truth across the cutover: a
stream with token kinds (ECDSA-keyed creates with their address as alias, lazy creates' hollow
accounts) in record files, a wrapped block and native blocks, loaded through ``load``; every such
account answers ``/api/v1/accounts/{0x address}`` (and by id) with its id and ``evm_address``, each
answer valid against the reference OpenAPI."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hedera_history.config import Settings
from hedera_history.gen import GeneratorConfig, generate_stream, write_stream
from hedera_history.store.bigtable_client import gateway_for_instance
from hedera_history.store.reader import HistoryReader

from tests.integration.api.reference_contract import ReferenceContract, checked_get, load_reference_document
from tests.integration.cutover_load import load_cutover_stream
from tests.unit.api.wsgi_app import query_app

pytestmark = pytest.mark.emulator

CONFIG = GeneratorConfig(
    nodes=4, periods=8, transactions=60, seed=5, tokens=True, cutover_after=3, wrapped_periods=1, rotate_key=False
)
"""Record files 0-2, wrapped block 3, native blocks 4-7 (as the generator's EVM-account tests):
EVM-named accounts of both kinds created before and after the cutover."""
PREFIX = "evm_"


def test_every_account_an_evm_address_names_answers_by_that_address(bigtable_instance: Any, tmp_path: Path) -> None:
    stream = generate_stream(CONFIG)
    write_stream(stream, tmp_path)
    load_cutover_stream(bigtable_instance, tmp_path, PREFIX)
    accounts: dict[str, dict[str, Any]] = stream.truth["token_state"]["evm_accounts"]
    assert {held["ecdsa_key"] is None for held in accounts.values()} == {True, False}
    contract = ReferenceContract(load_reference_document())
    gateway = gateway_for_instance(bigtable_instance, Settings(table_prefix=PREFIX))
    try:
        client = query_app(HistoryReader(gateway)).test_client()
        for account, held in sorted(accounts.items()):
            address = held["evm_address"]
            for named in (address, address[2:], account):
                answer = checked_get(client, contract, f"/api/v1/accounts/{named}")
                assert answer["account"] == account and answer["evm_address"] == address, named
            assert answer["balance"]["balance"] == stream.truth["balances"]["final"][account], account
    finally:
        gateway.close()
