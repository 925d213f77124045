"""The ``query`` function on the Bigtable emulator: a generated stream written, then read through
JSON-RPC and REST (functions-framework test client) and compared with the ground truth."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hedera_history.config import Settings
from hedera_history.gen.config_and_output import GeneratedStream
from hedera_history.proofs.trust import Trust
from hedera_history.proofs.verify import verify_proof

from tests.integration.query_function import query_client, write_verified_blocks


def ts(ns: int) -> str:
    return f"{ns // 10**9}.{ns % 10**9:09d}"


@pytest.fixture
def client(bigtable_instance: Any, generated_stream: GeneratedStream, generated_stream_dir: Path) -> Iterator[Any]:
    settings = Settings.from_env({}, table_prefix="q_")
    periods = generated_stream_dir / "recordstreams"
    blocks = write_verified_blocks(bigtable_instance, settings, periods, generated_stream.address_book)
    assert len(blocks) == len(generated_stream.truth["blocks"])
    with query_client(bigtable_instance.instance_id, "q_") as client:
        yield client


def rpc(client: Any, method: str, *params: Any) -> Any:
    response = client.post("/", json={"jsonrpc": "2.0", "id": 7, "method": method, "params": list(params)})
    assert response.status_code == 200, response.data
    body = response.get_json()
    assert "error" not in body, body
    return body["result"]


def test_query_function_answers_as_the_ground_truth(client: Any, generated_stream: GeneratedStream) -> None:
    truth: dict[str, Any] = generated_stream.truth
    numbers = [b["number"] for b in truth["blocks"]]
    assert rpc(client, "getFirstAvailableBlock") == numbers[0]
    assert rpc(client, "getBlocks", 0, numbers[-1] + 5) == numbers
    expected_block = truth["blocks"][1]
    block = rpc(client, "getBlock", expected_block["number"])
    assert block["hash"] == "0x" + expected_block["end_running_hash"]
    assert block["file_hash"] == "0x" + expected_block["file_hash"]
    assert block["count"] == expected_block["item_count"]
    assert rpc(client, "getBlockTime", expected_block["number"]) == ts(expected_block["consensus_start_ns"])

    transactions = truth["transactions"]
    for tx in transactions[:: max(1, len(transactions) // 10)]:
        found = rpc(client, "getTransaction", tx["hash"])
        assert found["consensus_timestamp"] in {ts(t["consensus_ns"]) for t in transactions if t["hash"] == tx["hash"]}
        assert base64.b64decode(found["transaction_hash"]).hex() == tx["hash"]
        rest = client.get(f"/api/v1/transactions/{tx['transaction_id_string']}")
        assert rest.status_code == 200, rest.data
        stamps = [t["consensus_timestamp"] for t in rest.get_json()["transactions"]]
        assert ts(tx["consensus_ns"]) in stamps
        mine = next(t for t in rest.get_json()["transactions"] if t["consensus_timestamp"] == ts(tx["consensus_ns"]))
        assert mine["result"] == tx["status"]
        assert mine["charged_tx_fee"] == tx["fee"]
        assert sorted((t["account"], t["amount"]) for t in mine["transfers"]) == sorted(
            (t["account"], t["amount"]) for t in tx["hbar_transfers"]
        )
    statuses = rpc(client, "getTransactionStatuses", [transactions[0]["hash"], "00" * 48])
    assert statuses[0]["result"] == transactions[0]["status"] and statuses[1] is None

    account = transactions[0]["payer"]
    expected = sorted((t["consensus_ns"] for t in transactions if account in t["accounts_touched"]), reverse=True)
    seen: list[str] = []
    link: str | None = f"/api/v1/accounts/{account}/transactions?limit=7"
    while link is not None:
        page = client.get(link)
        assert page.status_code == 200, page.data
        seen.extend(t["consensus_timestamp"] for t in page.get_json()["transactions"])
        link = page.get_json()["links"]["next"]
    assert seen == [ts(ns) for ns in expected]
    via_rpc = rpc(client, "getTransactionsForAccount", account, {"limit": 1000})
    assert [t["consensus_timestamp"] for t in via_rpc["transactions"]] == seen

    spec = client.get("/openapi.json")
    assert spec.status_code == 200 and "/api/v1/blocks" in spec.get_json()["paths"]


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "code"),
    [
        ("POST", "/", b"{", 200, -32700),
        ("POST", "/", b'{"jsonrpc": "2.0", "id": 1, "method": "getBlock", "params": ["1e3"]}', 200, -32602),
        ("POST", "/", b'{"jsonrpc": "2.0", "id": 1, "method": "getTransaction", "params": ["0.0.x-1-1"]}', 200, -32602),
        ("POST", "/", b'{"jsonrpc": "2.0", "id": 1, "method": "getBlocks", "params": [0, 99999]}', 200, -32602),
        ("POST", "/", b'{"jsonrpc": "2.0", "id": 1, "method": "drop"}', 200, -32601),
        ("POST", "/", b"x" * (2 << 20), 413, None),
        ("GET", "/api/v1/blocks?limit=1000", b"", 400, None),
        ("GET", "/api/v1/blocks/notanumber", b"", 400, None),
        ("GET", "/api/v1/transactions/" + "g" * 96, b"", 400, None),
        ("GET", "/api/v1/accounts/0.0.2/transactions?timestamp=lt:abc", b"", 400, None),
        ("GET", "/api/v1/blocks/999999", b"", 404, None),
    ],
)
def test_bad_input_through_the_function(
    client: Any, method: str, path: str, body: bytes, status: int, code: int | None
) -> None:
    response = client.open(path, method=method, data=body, content_type="application/json")
    assert response.status_code == status
    assert b"Traceback" not in response.data
    if code is not None:
        assert response.get_json()["error"]["code"] == code


def test_the_function_proves_from_its_configured_book(
    client: Any, generated_stream: GeneratedStream, generated_stream_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The function reads HEDERA_HISTORY_ADDRESS_BOOK on the first proof asked for."""
    book = generated_stream_dir / "address-book.bin"
    monkeypatch.setenv("HEDERA_HISTORY_ADDRESS_BOOK", str(book))
    first = generated_stream.truth["blocks"][0]["number"]  # before the key rotation: no book rows needed
    response = client.get(f"/api/v1/blocks/{first}/proof", headers={"Accept": "application/x-protobuf"})
    assert response.status_code == 200, response.data[:300]
    verdict = verify_proof(response.data, Trust.of_book(book.read_bytes()))
    assert verdict.block.block_number == first
    assert client.get("/api/v1/blocks/999999/proof").status_code == 404
