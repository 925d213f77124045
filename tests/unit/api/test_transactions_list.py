"""``/api/v1/transactions`` and ``/api/v1/accounts/{id}`` over the in-memory gateway: the reference's
filters, newest first by default, and ``links.next`` followed to the end."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from hedera_history.api import handle, transactions_list
from hedera_history.api.render import timestamp
from hedera_history.config import Settings
from hedera_history.store.reader import HistoryReader
from hedera_history.store.writer import BlockWriter

from tests.unit.store.builders import BASE_NS, NS, Tx, make_block, transfer_tx
from tests.unit.store.fakes import MemoryGateway

FAILED = 7  # INVALID_SIGNATURE


@pytest.fixture(scope="module")
def world() -> tuple[HistoryReader, list[Tx]]:
    blocks, txs = [], []
    for n in range(8):
        start = BASE_NS + n * 100 * NS
        block_txs = [
            transfer_tx(start + i * 1000, 1001 + i % 2, 5000 + n, status=FAILED if i == 2 else 22) for i in range(3)
        ]
        blocks.append(make_block(n, block_txs))
        txs.extend(block_txs)
    gateway = MemoryGateway()
    BlockWriter(gateway, Settings()).write_blocks(blocks)
    return HistoryReader(gateway), txs


def get(reader: HistoryReader, path: str, query: dict[str, list[str]] | None = None, status: int = 200) -> Any:
    response = handle(lambda: reader, "GET", path, query or {}, b"")
    assert response.status == status, response.body
    return response.body


def follow(reader: HistoryReader, link: str | None) -> list[str]:
    seen: list[str] = []
    while link is not None:
        parts = urlsplit(link)
        body = get(reader, parts.path, parse_qs(parts.query))
        seen.extend(t["consensus_timestamp"] for t in body["transactions"])
        link = body["links"]["next"]
    return seen


def stamps(txs: list[Tx]) -> list[str]:
    return [timestamp(t.consensus_ns) for t in txs]


def test_listing_is_newest_first_and_pages_to_the_end(world: tuple[HistoryReader, list[Tx]]) -> None:
    reader, txs = world
    first = get(reader, "/api/v1/transactions", {"limit": ["2"]})
    assert [t["consensus_timestamp"] for t in first["transactions"]] == stamps(txs[::-1][:2])
    assert first["transactions"][0]["name"] == "CRYPTOTRANSFER"
    assert follow(reader, "/api/v1/transactions?limit=4") == stamps(txs[::-1])
    assert follow(reader, "/api/v1/transactions?limit=5&order=asc") == stamps(txs)


def test_filters(world: tuple[HistoryReader, list[Tx]]) -> None:
    reader, txs = world
    middle = timestamp(txs[10].consensus_ns)
    assert follow(reader, f"/api/v1/transactions?limit=3&timestamp=gte:{middle}") == stamps(txs[10:][::-1])
    assert follow(reader, f"/api/v1/transactions?order=asc&limit=3&timestamp=lt:{middle}") == stamps(txs[:10])
    assert follow(reader, f"/api/v1/transactions?timestamp={middle}") == [middle]
    failed = [t for i, t in enumerate(txs) if i % 3 == 2]
    assert follow(reader, "/api/v1/transactions?result=fail&limit=2") == stamps(failed[::-1])
    assert len(follow(reader, "/api/v1/transactions?result=success")) == len(txs) - len(failed)
    assert follow(reader, "/api/v1/transactions?transactiontype=TOKENMINT") == []
    assert len(follow(reader, "/api/v1/transactions?transactiontype=cryptotransfer")) == len(txs)
    payer_two = [t for i, t in enumerate(txs) if i % 3 == 1]
    assert follow(reader, "/api/v1/transactions?account.id=0.0.1002&type=debit&limit=2") == stamps(payer_two[::-1])
    assert follow(reader, "/api/v1/transactions?account.id=0.0.5003") == stamps(txs[9:12][::-1])
    assert follow(reader, "/api/v1/transactions?account.id=0.0.5003&type=debit") == []


def test_account_id_ranges(world: tuple[HistoryReader, list[Tx]]) -> None:
    reader, txs = world
    ranged = "account.id=gte:0.0.5003&account.id=lt:0.0.5005"
    assert follow(reader, f"/api/v1/transactions?{ranged}&limit=4") == stamps(txs[9:15][::-1])
    assert follow(reader, f"/api/v1/transactions?{ranged}&limit=4&order=asc") == stamps(txs[9:15])
    assert follow(reader, f"/api/v1/transactions?{ranged}&type=credit") == stamps(txs[9:15][::-1])
    assert follow(reader, f"/api/v1/transactions?{ranged}&type=debit") == []
    assert follow(reader, "/api/v1/transactions?account.id=gt:0.0.5006") == stamps(txs[21:][::-1])
    payer_one = [t for i, t in enumerate(txs) if i % 3 != 1]
    assert follow(reader, "/api/v1/transactions?account.id=gte:0.0.1001&account.id=lte:0.0.1001&type=debit") == stamps(
        payer_one[::-1]
    )


@pytest.mark.parametrize(
    "query",
    [
        {"transactiontype": ["NOPE"]},
        {"result": ["maybe"]},
        {"type": ["sideways"]},
        {"account.id": ["x"]},
        {"order": ["sideways"]},
        {"timestamp": ["ne:1"]},
        {"bogus": ["1"]},
    ],
)
def test_bad_filters_are_400(world: tuple[HistoryReader, list[Tx]], query: dict[str, list[str]]) -> None:
    body = get(world[0], "/api/v1/transactions", query, status=400)
    assert body["_status"]["messages"][0]["message"]


def test_a_page_stops_at_its_block_bound_with_a_link_on(
    world: tuple[HistoryReader, list[Tx]], monkeypatch: pytest.MonkeyPatch
) -> None:
    reader, txs = world
    monkeypatch.setattr(transactions_list, "MAX_BLOCKS_PER_PAGE", 2)
    first = get(reader, "/api/v1/transactions", {"transactiontype": ["TOKENMINT"]})
    assert first["transactions"] == [] and first["links"]["next"] is not None
    assert follow(reader, "/api/v1/transactions?result=fail") == stamps(
        [t for i, t in enumerate(txs) if i % 3 == 2][::-1]
    )
    assert follow(reader, "/api/v1/transactions?result=fail&order=asc") == stamps(
        [t for i, t in enumerate(txs) if i % 3 == 2]
    )


def test_account_with_its_transactions(world: tuple[HistoryReader, list[Tx]]) -> None:
    reader, txs = world
    body = get(reader, "/api/v1/accounts/0.0.5003", {"limit": ["2"]})
    assert body["account"] == "0.0.5003"
    assert body["evm_address"] == "0x" + "00" * 12 + (5003).to_bytes(8, "big").hex()
    assert [t["consensus_timestamp"] for t in body["transactions"]] == stamps(txs[9:12][::-1][:2])
    assert body["balance"]["tokens"] == [] and body["key"] is None
    rest = follow(reader, body["links"]["next"])
    assert rest == stamps(txs[9:10])
    long_zero = get(reader, "/api/v1/accounts/0x" + "00" * 12 + (5003).to_bytes(8, "big").hex())
    assert long_zero["account"] == "0.0.5003"
    assert get(reader, "/api/v1/accounts/5003", {"transactions": ["false"]})["transactions"] == []
    assert get(reader, "/api/v1/accounts/0.5003", {"limit": ["1"]})["account"] == "0.0.5003"
    get(reader, "/api/v1/accounts/0.0.777777", status=404)
    get(reader, "/api/v1/accounts/0xd8da6bf26964af9d7eed9e03e53415d37aa96045", status=404)  # no such alias
    get(reader, "/api/v1/accounts/not-an-account", status=400)
    get(reader, "/api/v1/accounts/0.0.5003", {"order": ["asc"]}, status=501)
    get(reader, "/api/v1/transactions", {"account.id": ["gt:0.0.5", "0.0.5003"]}, status=400)
    get(reader, "/api/v1/transactions", {"account.id": ["0.0.5003"], "order": ["asc"]}, status=501)
