"""Contract logs and the contract results list, over the in-memory gateway: the contract indexes
(``store.contract_index``) written with each block, read in the reference's order (consensus time,
then the log's index) with its filters, paging and errors."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hedera_history.api import handle
from hedera_history.api.render import timestamp
from hedera_history.config import Settings
from hedera_history.store import schema as s
from hedera_history.store.contract_index import contract_index_keys, decode_contract_log_key
from hedera_history.store.reader import HistoryReader
from hedera_history.store.rows import block_to_rows
from hedera_history.store.writer import BlockWriter

from tests.unit.api.paging import every_page
from tests.unit.store.builders import (
    BASE_NS,
    NS,
    Tx,
    body,
    contract,
    make_block,
    record_for,
    signed_transaction_bytes,
    transfer_tx,
)
from tests.unit.store.fakes import MemoryGateway

SETTINGS = Settings()
TOPIC = bytes.fromhex("ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef")
CALLS = 12


def call_tx(consensus_ns: int, called: int, logs: list[tuple[int, list[bytes], bytes]], *, nonce: int = 0) -> Tx:
    """A ContractCall of ``called`` whose result holds ``logs`` (emitter, topics, data)."""
    b = body(1001, consensus_ns - 5 * NS)
    b.contractCall.contractID.CopyFrom(contract(called))
    b.contractCall.gas = 100_000
    tx_bytes = signed_transaction_bytes(b)

    def configure(record: Any) -> None:
        result = record.contractCallResult
        result.contractID.CopyFrom(contract(called))
        result.gasUsed = 50_000
        for emitter, topics, data in logs:
            log = result.logInfo.add()
            log.contractID.CopyFrom(contract(emitter))
            log.topic.extend(topics)
            log.data = data

    record = record_for(b, consensus_ns, tx_bytes, nonce=nonce, configure=configure)
    return Tx(consensus_ns, tx_bytes, bytes(record.SerializeToString()))


def topic(n: int) -> bytes:
    return n.to_bytes(2, "big")


class World:
    def __init__(self) -> None:
        start = BASE_NS + 500 * NS
        # Call i of contract 2001 emits log 0 from 2001 (topics TOPIC, i) and log 1 from 2002 (topic i).
        self.calls = [
            call_tx(start + i * NS, 2001, [(2001, [TOPIC, topic(i)], bytes([i])), (2002, [topic(i)], b"")])
            for i in range(CALLS)
        ]
        self.plain = call_tx(start + CALLS * NS, 2003, [])
        txs = [*self.calls[:6], transfer_tx(start + 6 * NS + 1, 1001, 1002), *self.calls[6:], self.plain]
        gateway = MemoryGateway()
        BlockWriter(gateway, SETTINGS).write_blocks([make_block(7, txs)])
        # Block 8's rows without its completion: it stays invisible.
        hidden = make_block(8, [call_tx(start + 100 * NS, 2001, [(2001, [TOPIC], b"")])])
        gateway.mutate_rows(
            s.ACCOUNT_HISTORY, [r for r in block_to_rows(hidden, SETTINGS).rows if r.table == s.ACCOUNT_HISTORY]
        )
        self.reader = HistoryReader(gateway)

    def get(self, path: str, query: dict[str, list[str]] | None = None) -> tuple[int, Any]:
        response = handle(lambda: self.reader, "GET", path, query or {}, b"")
        return response.status, json.loads(json.dumps(response.body))


@pytest.fixture(scope="module")
def world() -> World:
    return World()


def follow(world: World, path: str, query: dict[str, list[str]], field: str) -> list[dict[str, Any]]:
    return every_page(world.reader, path, query, field)


def test_index_rows_point_at_each_emitter_once(world: World) -> None:
    keys = contract_index_keys(world.calls[0].record, world.calls[0].consensus_ns)
    assert keys[0].startswith(b"cresult/")
    assert [decode_contract_log_key(k).contract for k in keys[1:]] == ["0.0.2001", "0.0.2002"]
    assert contract_index_keys(transfer_tx(BASE_NS, 1001, 1002).record, BASE_NS) == []


def test_a_contracts_logs_newest_first_with_the_reference_fields(world: World) -> None:
    status, body_ = world.get("/api/v1/contracts/0.0.2001/results/logs", {"limit": ["2"]})
    assert status == 200
    newest = world.calls[-1]
    first = body_["logs"][0]
    assert first["timestamp"] == timestamp(newest.consensus_ns)
    assert first["contract_id"] == first["root_contract_id"] == "0.0.2001"
    assert first["index"] == 0 and first["block_number"] == 7
    assert first["topics"] == ["0x" + TOPIC.hex(), "0x" + topic(CALLS - 1).rjust(32, b"\x00").hex()]
    assert first["data"] == "0x" + bytes([CALLS - 1]).hex()
    assert first["transaction_hash"] == "0x" + newest.record.transactionHash[:32].hex()
    assert first["block_hash"] is not None
    assert set(first) == {
        "address", "block_hash", "block_number", "bloom", "contract_id", "data", "index",
        "root_contract_id", "timestamp", "topics", "transaction_hash", "transaction_index",
    }  # fmt: skip
    every = follow(world, "/api/v1/contracts/0.0.2001/results/logs", {"limit": ["5"]}, "logs")
    assert [log["timestamp"] for log in every] == [timestamp(c.consensus_ns) for c in reversed(world.calls)]


def test_every_log_by_time_then_index_both_ways(world: World) -> None:
    expected = [(timestamp(c.consensus_ns), i) for c in world.calls for i in (0, 1)]
    for order, wanted in (("asc", expected), ("desc", expected[::-1])):
        logs = follow(world, "/api/v1/contracts/results/logs", {"limit": ["3"], "order": [order]}, "logs")
        assert [(log["timestamp"], log["index"]) for log in logs] == wanted
    emitted = follow(world, "/api/v1/contracts/0.0.2002/results/logs", {"order": ["asc"]}, "logs")
    assert [(log["index"], log["root_contract_id"]) for log in emitted] == [(1, "0.0.2001")] * CALLS


def test_topics_need_a_bounded_timestamp_range(world: World) -> None:
    low, high = timestamp(world.calls[0].consensus_ns), timestamp(world.calls[-1].consensus_ns)
    path = "/api/v1/contracts/results/logs"
    status, body_ = world.get(path, {"topic0": ["0x" + TOPIC.hex()]})
    assert status == 400 and "Cannot search topics without a valid timestamp range" in json.dumps(body_)
    status, _ = world.get(path, {"topic0": [TOPIC.hex()], "timestamp": [f"gte:{low}", "lte:9999999999.0"]})
    assert status == 400  # wider than 7 days
    query = {"topic1": ["0x3", "0x0000000000000005"], "timestamp": [f"gte:{low}", f"lte:{high}"]}
    status, body_ = world.get(path, query)
    assert status == 200
    assert [log["data"] for log in body_["logs"]] == ["0x05", "0x03"]
    status, body_ = world.get(path, {"topic0": ["0x" + topic(4).hex()], "timestamp": [low]})
    assert status == 200 and body_["logs"] == []


def test_index_stands_beside_a_timestamp(world: World) -> None:
    at = timestamp(world.calls[3].consensus_ns)
    path = "/api/v1/contracts/results/logs"
    status, body_ = world.get(path, {"index": ["1"], "timestamp": [at]})
    assert status == 200 and [(log["timestamp"], log["index"]) for log in body_["logs"]] == [(at, 1)]
    for bad in ({"index": ["gt:0"], "timestamp": [f"lt:{at}"]}, {"index": ["1"]}, {"index": ["lt:1"]}):
        assert world.get(path, bad)[0] == 400, bad
    assert world.get(path, {"index": ["-1"], "timestamp": [at]})[0] == 400
    status, body_ = world.get(path, {"index": ["gte:1"], "timestamp": [f"gte:{at}"], "order": ["asc"], "limit": ["2"]})
    assert [(log["timestamp"], log["index"]) for log in body_["logs"]] == [
        (at, 1),
        (timestamp(world.calls[4].consensus_ns), 0),
    ]


def test_paging_keeps_the_far_ends_index_bound(world: World) -> None:
    low, high = world.calls[2].consensus_ns, world.calls[5].consensus_ns
    query = {"index": ["gte:1"], "timestamp": [f"gte:{timestamp(low)}", f"lte:{timestamp(high)}"], "limit": ["1"]}
    logs = follow(world, "/api/v1/contracts/results/logs", query, "logs")
    expected = [(timestamp(c.consensus_ns), i) for c in world.calls[2:6] for i in (0, 1)][1:]
    assert [(log["timestamp"], log["index"]) for log in logs] == expected[::-1]
    same = {"index": ["1"], "timestamp": [f"gte:{timestamp(low)}", f"lte:{timestamp(low)}"]}
    assert [log["index"] for log in world.get("/api/v1/contracts/results/logs", same)[1]["logs"]] == [1]


def test_transaction_hash_names_one_transactions_logs(world: World) -> None:
    call = world.calls[5]
    text = "0x" + call.record.transactionHash[:32].hex()
    status, body_ = world.get("/api/v1/contracts/0.0.2001/results/logs", {"transaction.hash": [text]})
    assert status == 200 and [log["timestamp"] for log in body_["logs"]] == [timestamp(call.consensus_ns)]
    assert world.get("/api/v1/contracts/results/logs", {"transaction.hash": [text, text]})[0] == 400
    assert world.get("/api/v1/contracts/results/logs", {"transaction.hash": ["0x" + "ab" * 32]})[1]["logs"] == []


def test_every_contract_result_newest_first(world: World) -> None:
    every = follow(world, "/api/v1/contracts/results", {"limit": ["4"]}, "results")
    wanted = [*world.calls, world.plain][::-1]
    assert [r["timestamp"] for r in every] == [timestamp(c.consensus_ns) for c in wanted]
    ascending = follow(world, "/api/v1/contracts/results", {"limit": ["5"], "order": ["asc"]}, "results")
    assert ascending == every[::-1]
    status, body_ = world.get("/api/v1/contracts/results", {"block.number": ["7"], "limit": ["100"]})
    assert status == 200 and len(body_["results"]) == CALLS + 1
    assert world.get("/api/v1/contracts/results", {"block.number": ["8"]})[1]["results"] == []
    assert world.get("/api/v1/contracts/results", {"block.number": ["gt:7"]})[0] == 400
    assert world.get("/api/v1/contracts/results", {"from": ["0.0.1001"]})[0] == 501
