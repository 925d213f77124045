"""The real V6 files (blocks 5 and 6: a contract call by 0.0.2 and its child create, one sidecar file
with a state-change and a bytecode record) through the ``query`` function on the Bigtable emulator."""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hedera_history import hapi
from hedera_history.config import Settings

from tests.integration.query_function import query_client, write_verified_blocks

CONTRACT_CALL = "1657701971.304284003"
CHILD = "1657701971.304284004"
SIDECAR = "v6/recordstreams/record0.0.3/sidecar/2022-07-13T08_46_11.304284003Z_01.rcd.gz"


@pytest.fixture
def client(bigtable_instance: Any, hedera_data: Path) -> Iterator[Any]:
    settings = Settings.from_env({}, table_prefix="r_")
    book = (hedera_data / "addressbook" / "test-v6-sidecar-4n.bin").read_bytes()
    write_verified_blocks(bigtable_instance, settings, hedera_data / "v6", book)
    with query_client(bigtable_instance.instance_id, "r_") as client:
        yield client


def get(client: Any, path: str, status: int = 200) -> Any:
    response = client.get(path)
    assert response.status_code == status, response.data
    return response.get_json()


def test_real_state_changes_and_blocks_newest_first(client: Any, hedera_data: Path) -> None:
    sidecar = hapi.SidecarFile.FromString(gzip.decompress((hedera_data / SIDECAR).read_bytes()))
    (record,) = [r for r in sidecar.sidecar_records if r.WhichOneof("sidecar_records") == "state_changes"]
    expected = [
        (f"0.0.{change.contract_id.contractNum}", storage)
        for change in record.state_changes.contract_state_changes
        for storage in change.storage_changes
    ]
    changes = get(client, f"/api/v1/contracts/results/{CONTRACT_CALL}/state")["state_changes"]
    assert [c["contract_id"] for c in changes] == [contract for contract, _ in expected]
    assert {c["contract_id"] for c in changes} == {"0.0.1002", "0.0.1003"}
    for got, (contract, storage) in zip(changes, expected, strict=True):
        assert got["address"] == "0x" + int(contract.split(".")[2]).to_bytes(20, "big").hex()
        assert got["slot"] == "0x" + storage.slot.rjust(32, b"\x00").hex()
        assert got["value_read"] == "0x" + storage.value_read.rjust(32, b"\x00").hex()
        written = storage.value_written.value.rjust(32, b"\x00").hex() if storage.HasField("value_written") else None
        assert got["value_written"] == (None if written is None else "0x" + written)

    # No action sidecars in these files: the transactions exist, so the answers are empty, not 404.
    assert get(client, f"/api/v1/contracts/results/{CONTRACT_CALL}/actions") == {"actions": [], "links": {"next": None}}
    assert get(client, f"/api/v1/contracts/results/{CHILD}/state") == {"state_changes": []}
    get(client, "/api/v1/contracts/results/1657701971.304284005/state", 404)

    assert [b["number"] for b in get(client, "/api/v1/blocks?order=desc")["blocks"]] == [6, 5]
    latest = client.post("/", json={"jsonrpc": "2.0", "id": 1, "method": "getLatestBlock"}).get_json()
    assert latest["result"] == 6
