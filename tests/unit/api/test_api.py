"""The query API over the in-memory gateway: JSON-RPC, REST, OpenAPI and bad input."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from hedera_history.api import MAX_BODY_BYTES, ApiResponse, handle
from hedera_history.api.jsonrpc import METHODS, PROOF_METHODS
from hedera_history.api.openapi import openapi_document
from hedera_history.api.render import timestamp
from hedera_history.config import Settings
from hedera_history.store import schema as s
from hedera_history.store.encoding import decode_value, encode_value
from hedera_history.store.keys import row_key_for_account_history, row_key_for_block, row_key_for_transaction
from hedera_history.store.reader import HistoryReader
from hedera_history.store.values import marked_apart
from hedera_history.store.writer import BlockWriter
from openapi_spec_validator import validate

from tests.unit.api.paging import every_page
from tests.unit.store.builders import BASE_NS, NS, Tx, make_block, transfer_tx
from tests.unit.store.fakes import MemoryGateway

PAYER = 1001


def block_with(number: int, count: int) -> tuple[Any, list[Tx]]:
    start = BASE_NS + number * 100 * NS
    txs = [transfer_tx(start + i * 1000, PAYER, 5000 + number) for i in range(count)]
    return make_block(number, txs), txs


@pytest.fixture(scope="module")
def world() -> tuple[HistoryReader, list[Tx]]:
    blocks, txs = [], []
    for n in (3, 4, 5):
        block, block_txs = block_with(n, 4)
        blocks.append(block)
        txs.extend(block_txs)
    gateway = MemoryGateway()
    BlockWriter(gateway, Settings()).write_blocks(blocks)
    return HistoryReader(gateway), txs


def call(
    reader: HistoryReader, method: str, path: str, body: bytes = b"", query: dict[str, list[str]] | None = None
) -> ApiResponse:
    response = handle(lambda: reader, method, path, query or {}, body)
    json.dumps(response.body)  # always serialisable
    return response


def rpc(reader: HistoryReader, method: str, params: Any = None, request_id: Any = 1) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    response = call(reader, "POST", "/", json.dumps(message).encode())
    assert response.status == 200
    assert isinstance(response.body, dict)
    return response.body


def tx_id(tx: Tx) -> str:
    tid = tx.record.transactionID
    return f"0.0.{PAYER}-{tid.transactionValidStart.seconds}-{tid.transactionValidStart.nanos:09d}"


def test_block_methods(world: tuple[HistoryReader, list[Tx]]) -> None:
    reader, txs = world
    assert rpc(reader, "getFirstAvailableBlock")["result"] == 3
    assert rpc(reader, "getLatestBlock")["result"] == 5
    assert rpc(reader, "getBlocks", [0, 10])["result"] == [3, 4, 5]
    assert rpc(reader, "getBlocks", {"start": 4})["result"] == [4, 5]
    block = rpc(reader, "getBlock", [4])["result"]
    assert block["number"] == 4 and block["count"] == 4
    assert [t["consensus_timestamp"] for t in block["transactions"]] == [timestamp(t.consensus_ns) for t in txs[4:8]]
    assert rpc(reader, "getBlock", [9])["result"] is None
    assert rpc(reader, "getBlockTime", [5])["result"] == timestamp(txs[8].consensus_ns)


def test_transaction_methods(world: tuple[HistoryReader, list[Tx]]) -> None:
    reader, txs = world
    tx = txs[5]
    by_hash = rpc(reader, "getTransaction", [tx.record.transactionHash.hex()])["result"]
    by_id = rpc(reader, "getTransaction", [tx_id(tx)])["result"]
    assert by_hash == by_id
    assert by_id["transaction_id"] == tx_id(tx)
    assert by_id["result"] == "SUCCESS" and by_id["name"] == "CRYPTOTRANSFER"
    assert {"account": "0.0.5004", "amount": 10, "is_approval": False} in by_id["transfers"]
    unknown = "ab" * 48
    statuses = rpc(reader, "getTransactionStatuses", [[tx.record.transactionHash.hex(), unknown]])["result"]
    assert statuses[0]["consensus_timestamp"] == timestamp(tx.consensus_ns) and statuses[1] is None


def test_account_history_pages_newest_first(world: tuple[HistoryReader, list[Tx]]) -> None:
    reader, txs = world
    seen: list[str] = []
    options: dict[str, Any] = {"limit": 5}
    while True:
        page = rpc(reader, "getTransactionsForAccount", [f"0.0.{PAYER}", options])["result"]
        seen.extend(t["consensus_timestamp"] for t in page["transactions"])
        if page["next_before"] is None:
            break
        options = {"limit": 5, "before": page["next_before"]}
    assert seen == [timestamp(t.consensus_ns) for t in reversed(txs)]


def test_batch_and_notifications(world: tuple[HistoryReader, list[Tx]]) -> None:
    reader, _ = world
    batch = [
        {"jsonrpc": "2.0", "id": "a", "method": "getFirstAvailableBlock"},
        {"jsonrpc": "2.0", "method": "getFirstAvailableBlock"},
        {"jsonrpc": "2.0", "id": 2, "method": "nope"},
        5,
    ]
    response = call(reader, "POST", "/", json.dumps(batch).encode())
    assert response.status == 200
    assert [(a["id"], a.get("result"), a.get("error", {}).get("code")) for a in response.body] == [
        ("a", 3, None),
        (2, None, -32601),
        (None, None, -32600),
    ]
    only_notification = {"jsonrpc": "2.0", "method": "getFirstAvailableBlock"}
    assert call(reader, "POST", "/", json.dumps(only_notification).encode()).status == 204


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b"{not json", -32700),
        (b"\xff\xfe", -32700),
        (b"[" * 100_000, -32700),
        (b"[]", -32600),
        (b'"hello"', -32600),
        (b'{"jsonrpc": "1.0", "id": 1, "method": "getBlock"}', -32600),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "getBlock", "params": 5}', -32600),
        (b'{"jsonrpc": "2.0", "id": true, "method": "getBlock"}', -32600),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "getBlock"}', -32602),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "getBlock", "params": [-1]}', -32602),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "getBlock", "params": [true]}', -32602),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "getBlock", "params": ["7x"]}', -32602),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "getBlock", "params": [1, 2]}', -32602),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "getBlocks", "params": [5, 1]}', -32602),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "getBlocks", "params": [0, 20000]}', -32602),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "getTransaction", "params": ["abc"]}', -32602),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "getTransaction", "params": ["0.0.1-12-x"]}', -32602),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "getTransactionStatuses", "params": [["zz"]]}', -32602),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "getTransactionStatuses", "params": ["ab"]}', -32602),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "getTransactionsForAccount", "params": ["x"]}', -32602),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "getTransactionsForAccount", "params": ["1", {"limit": 0}]}', -32602),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "getTransactionsForAccount", "params": ["1", {"x": 0}]}', -32602),
        (
            b'{"jsonrpc": "2.0", "id": 1, "method": "getTransactionsForAccount", "params": ["1", {"before": "1.x"}]}',
            -32602,
        ),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "getBlock", "params": {"numbr": 1}}', -32602),
    ],
)
def test_bad_jsonrpc_input_gets_a_coded_error(world: tuple[HistoryReader, list[Tx]], body: bytes, code: int) -> None:
    reader, _ = world
    response = call(reader, "POST", "/", body)
    assert response.status == 200
    assert response.body["error"]["code"] == code
    assert "Traceback" not in response.body["error"]["message"]


def test_oversize_body_and_wrong_method(world: tuple[HistoryReader, list[Tx]]) -> None:
    reader, _ = world
    assert call(reader, "POST", "/", b" " * (MAX_BODY_BYTES + 1)).status == 413
    assert call(reader, "GET", "/").status == 405
    assert call(reader, "POST", "/api/v1/blocks").status == 405


def test_rest_blocks(world: tuple[HistoryReader, list[Tx]]) -> None:
    reader, _ = world
    one = call(reader, "GET", "/api/v1/blocks/4")
    assert one.status == 200 and one.body["number"] == 4
    assert one.body["hash"].startswith("0x") and len(one.body["hash"]) == 98
    page = call(reader, "GET", "/api/v1/blocks", query={"limit": ["2"], "order": ["asc"]})
    assert [b["number"] for b in page.body["blocks"]] == [3, 4]
    assert page.body["links"]["next"] == "/api/v1/blocks?limit=2&order=asc&block.number=gt%3A4"
    rest = call(reader, "GET", "/api/v1/blocks", query={"limit": ["2"], "order": ["asc"], "block.number": ["gt:4"]})
    assert [b["number"] for b in rest.body["blocks"]] == [5] and rest.body["links"]["next"] is None
    desc = call(reader, "GET", "/api/v1/blocks", query={"order": ["desc"], "block.number": ["lte:5"]})
    assert [b["number"] for b in desc.body["blocks"]] == [5, 4, 3]
    newest = call(reader, "GET", "/api/v1/blocks", query={"order": ["desc"]})
    assert [b["number"] for b in newest.body["blocks"]] == [5, 4, 3] and newest.body["links"]["next"] is None
    newest = call(reader, "GET", "/api/v1/blocks", query={"order": ["desc"], "limit": ["2"]})
    assert [b["number"] for b in newest.body["blocks"]] == [5, 4]
    assert newest.body["links"]["next"] == "/api/v1/blocks?limit=2&order=desc&block.number=lt%3A4"
    assert call(reader, "GET", "/api/v1/blocks/9").status == 404


def test_rest_transactions_and_account_pagination(world: tuple[HistoryReader, list[Tx]]) -> None:
    reader, txs = world
    found = call(reader, "GET", f"/api/v1/transactions/{tx_id(txs[2])}")
    assert found.status == 200
    assert [t["consensus_timestamp"] for t in found.body["transactions"]] == [timestamp(txs[2].consensus_ns)]
    assert call(reader, "GET", f"/api/v1/transactions/0x{txs[2].record.transactionHash.hex()}").status == 200
    pages = every_page(reader, f"/api/v1/accounts/{PAYER}/transactions", {"limit": ["5"]}, "transactions")
    seen = [t["consensus_timestamp"] for t in pages]
    assert seen == [timestamp(t.consensus_ns) for t in reversed(txs)]


@pytest.mark.parametrize(
    ("path", "query", "status"),
    [
        ("/api/v1/blocks/abc", {}, 400),
        ("/api/v1/blocks/-1", {}, 400),
        ("/api/v1/blocks/0x" + "ab" * 48, {}, 404),
        ("/api/v1/blocks/0x" + "ab" * 47, {}, 400),
        ("/api/v1/blocks", {"limit": ["0"]}, 400),
        ("/api/v1/blocks", {"limit": ["101"]}, 400),
        ("/api/v1/blocks", {"limit": ["x"]}, 400),
        ("/api/v1/blocks", {"order": ["up"]}, 400),
        ("/api/v1/blocks", {"block.number": ["zz:1"]}, 400),
        ("/api/v1/blocks", {"bogus": ["1"]}, 400),
        ("/api/v1/transactions/0.0.1001-x-1", {}, 400),
        ("/api/v1/transactions/" + "ab" * 47, {}, 400),
        ("/api/v1/transactions/0.0.1001-1-1", {}, 404),
        ("/api/v1/transactions/" + "ab" * 48, {}, 404),
        ("/api/v1/accounts/0.0.x/transactions", {}, 400),
        ("/api/v1/accounts/1001/transactions", {"timestamp": ["lt:1.2.3"]}, 400),
        ("/api/v1/accounts/1001/transactions", {"timestamp": ["eq:1"]}, 400),
        ("/api/v1/accounts/1001/transactions", {"order": ["asc"]}, 400),
        ("/api/v1/nothing", {}, 404),
        ("/elsewhere", {}, 404),
    ],
)
def test_bad_rest_input(
    world: tuple[HistoryReader, list[Tx]], path: str, query: dict[str, list[str]], status: int
) -> None:
    reader, _ = world
    response = handle(lambda: reader, "GET", path, query, b"")
    assert response.status == status
    assert response.body["_status"]["messages"][0]["message"]


def test_openapi_documents_every_route_and_method() -> None:
    def no_reader() -> HistoryReader:
        raise AssertionError("the OpenAPI document needs no store")

    document = handle(no_reader, "GET", "/openapi.json", {}, b"").body
    assert set(document["paths"]) == {
        "/",
        "/api/v1/blocks",
        "/api/v1/blocks/{hashOrNumber}",
        "/api/v1/transactions",
        "/api/v1/transactions/{transactionIdOrHash}",
        "/api/v1/transactions/{transactionId}/stateproof",
        "/api/v1/blocks/{number}/proof",
        "/api/v1/accounts/{idOrAliasOrEvmAddress}",
        "/api/v1/contracts/results",
        "/api/v1/contracts/results/logs",
        "/api/v1/contracts/results/{transactionIdOrHash}",
        "/api/v1/contracts/{contractIdOrAddress}/results",
        "/api/v1/contracts/{contractIdOrAddress}/results/logs",
        "/api/v1/contracts/{contractIdOrAddress}/results/{timestamp}",
        "/api/v1/contracts/call",
        "/api/v1/contracts/{contractIdOrAddress}",
        "/api/v1/network/nodes",
        "/api/v1/accounts/{id}/transactions",
        "/api/v1/contracts/results/{timestamp}/actions",
        "/api/v1/contracts/results/{timestamp}/state",
        "/api/v1/contracts/results/{timestamp}/sidecars",
        "/api/v1/balances",
        "/api/v1/errata/{timestamp}",
        "/api/v1/status",
        "/openapi.json",
    }
    assert document["components"]["schemas"]["RpcRequest"]["properties"]["method"]["enum"] == [*METHODS, *PROOF_METHODS]


def test_listings_skip_rows_that_do_not_decode(caplog: pytest.LogCaptureFixture) -> None:
    blocks, txs = [], []
    for n in (3, 4):
        block, block_txs = block_with(n, 3)
        blocks.append(block)
        txs.extend(block_txs)
    gateway = MemoryGateway()
    BlockWriter(gateway, Settings()).write_blocks(blocks)
    broken = txs[1].consensus_ns
    gateway.tables[s.TRANSACTIONS][row_key_for_transaction(broken)][(s.TRANSACTION_FAMILY, s.Q_POSITION)] = (0, b"\x00")
    # The history entry says the transaction is in its own row (as an errata leaves it), so the
    # listing reads that row, which does not decode.
    history_cells = gateway.tables[s.ACCOUNT_HISTORY][row_key_for_account_history(f"0.0.{PAYER}", broken)]
    stamp, value = history_cells[(s.ACCOUNT_HISTORY_FAMILY, s.Q_BLOCK)]
    apart = marked_apart(s.ACCOUNT_HISTORY, decode_value(value))
    history_cells[(s.ACCOUNT_HISTORY_FAMILY, s.Q_BLOCK)] = (stamp, encode_value(apart))
    gateway.tables[s.BLOCKS][row_key_for_block(4)][(s.BLOCK_HEADER_FAMILY, s.Q_VERSION)] = (0, b"\x00")
    reader = HistoryReader(gateway)
    with caplog.at_level(logging.WARNING):
        history = call(reader, "GET", f"/api/v1/accounts/{PAYER}/transactions")
        listed = call(reader, "GET", "/api/v1/blocks")
    assert history.status == 200 and listed.status == 200
    expected = [timestamp(t.consensus_ns) for t in reversed(txs) if t.consensus_ns != broken]
    assert [t["consensus_timestamp"] for t in history.body["transactions"]] == expected
    assert [b["number"] for b in listed.body["blocks"]] == [3]
    assert sum("does not decode" in r.getMessage() for r in caplog.records) == 2
    assert (
        rpc(reader, "getTransactionsForAccount", [f"0.0.{PAYER}"])["result"]["transactions"][0]
        == (history.body["transactions"][0])
    )


def test_openapi_document_is_valid_openapi() -> None:
    validate(openapi_document())
