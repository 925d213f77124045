"""The newest-first reads behind ``order=desc``, ``getLatestBlock`` and ``getBlocks`` without an end:
``latest_block`` (bounded probes, no reverse scan) and ``blocks_descending`` (growing windows)."""

from __future__ import annotations

import math
import random
from collections.abc import Iterable
from urllib.parse import parse_qs, urlsplit

import pytest
from hedera_history.api import handle
from hedera_history.config import Settings
from hedera_history.store import schema as s
from hedera_history.store.encoding import encode_value
from hedera_history.store.keys import MAX_U64, row_key_for_block
from hedera_history.store.model import Cell, Row
from hedera_history.store.reader import DESC_LOOKBACK, LATEST_SCAN_WINDOW, MAX_BLOCK_RANGE, HistoryReader
from hedera_history.store.values import CompletionValue, encode_completion
from hedera_history.store.writer import BlockWriter

from tests.unit.store.builders import BASE_NS, NS, make_block, transfer_tx
from tests.unit.store.fakes import MemoryGateway

COMPLETE = encode_value(encode_completion(CompletionValue(item_count=1, sidecar_record_count=0)))
HEADER = encode_value(b"\x00" * 8)


def complete(gateway: MemoryGateway, numbers: Iterable[int]) -> None:
    """Rows that carry only what the key-only completion reads look at."""
    cell = Cell(s.BLOCK_COMPLETION_FAMILY, s.Q_COMPLETE, COMPLETE, 0)
    gateway.mutate_rows(s.BLOCKS, [Row(s.BLOCKS, row_key_for_block(n), (cell,)) for n in numbers])


def incomplete(gateway: MemoryGateway, numbers: Iterable[int]) -> None:
    cell = Cell(s.BLOCK_HEADER_FAMILY, s.Q_VERSION, HEADER, 0)
    gateway.mutate_rows(s.BLOCKS, [Row(s.BLOCKS, row_key_for_block(n), (cell,)) for n in numbers])


def reads(gateway: MemoryGateway) -> int:
    return len(gateway.read_queries)


def cold_budget(span: int) -> int:
    """Probes up (gallop) and bisection down to the scan window, the final scan, the first block."""
    return 2 * max(1, math.ceil(math.log2(max(2, span / LATEST_SCAN_WINDOW)))) + 12


@pytest.mark.parametrize(
    "numbers",
    [
        [],
        [0],
        [7],
        list(range(1000)),
        list(range(5000, 5300)),
        [3, 10**6, 10**6 + 1, 2**40],
        [0, MAX_U64 - 1, MAX_U64],
        sorted(random.Random(5).sample(range(2**48), 300)),
    ],
    ids=["empty", "zero", "one", "contiguous", "offset", "sparse", "top-of-key-space", "random"],
)
def test_latest_block_is_the_highest_complete_one(numbers: list[int]) -> None:
    gateway = MemoryGateway()
    complete(gateway, numbers)
    top = numbers[-1] if numbers else 0
    incomplete(gateway, [n for n in (top + 1, top + 1000) if n <= MAX_U64])
    reader = HistoryReader(gateway)
    assert reader.latest_block() == (max(numbers) if numbers else None)
    span = (max(numbers) - min(numbers) + 1) if numbers else 1
    assert reads(gateway) <= cold_budget(span)


def test_a_warm_reader_finds_new_blocks_in_one_read_and_survives_aged_out_blocks() -> None:
    gateway = MemoryGateway()
    complete(gateway, range(100, 2000))
    reader = HistoryReader(gateway)
    assert reader.latest_block() == 1999
    before = reads(gateway)
    assert reader.latest_block() == 1999
    complete(gateway, range(2000, 2000 + LATEST_SCAN_WINDOW - 5))
    assert reader.latest_block() == 2000 + LATEST_SCAN_WINDOW - 6
    assert reads(gateway) - before == 2
    complete(gateway, range(3000, 60_000, 7))  # more than a window of new blocks: gallop on
    assert reader.latest_block() == max(range(3000, 60_000, 7))
    gateway.tables[s.BLOCKS] = {k: v for k, v in gateway.tables[s.BLOCKS].items() if k < row_key_for_block(500)}
    assert reader.latest_block() == 499  # the remembered block is gone (retention): search again


def test_blocks_descending_pages_over_gaps_and_the_look_back_bound() -> None:
    gateway = MemoryGateway()
    low_run, high_run = list(range(10)), list(range(DESC_LOOKBACK * 3, DESC_LOOKBACK * 3 + 30))
    complete(gateway, low_run + high_run)
    reader = HistoryReader(gateway)
    seen: list[int] = []
    end: int | None = None
    calls = 0
    while True:
        page = reader.blocks_descending(end, 0, 25)
        calls += 1
        assert len(page.numbers) <= 25
        seen.extend(page.numbers)
        if page.resume_below is None:
            break
        end = page.resume_below - 1
    assert seen == sorted(low_run + high_run, reverse=True)
    assert calls == 2  # the second page jumps the gap
    assert reader.blocks_descending(5, 3, 10).numbers == (5, 4, 3)
    assert reader.blocks_descending(5, 3, 10).resume_below is None
    assert reader.blocks_descending(2, 3, 10).numbers == ()
    assert HistoryReader(MemoryGateway()).blocks_descending(None).numbers == ()


def test_rest_desc_listing_starts_at_the_latest_block_and_links_through_gaps() -> None:
    numbers = [*range(0, 5), *range(250_000, 250_012)]
    gateway = MemoryGateway()
    blocks = [make_block(n, [transfer_tx(BASE_NS + n * 10 * NS, 1001, 5000)]) for n in numbers]
    BlockWriter(gateway, Settings()).write_blocks(blocks)
    incomplete(gateway, [250_012])
    reader = HistoryReader(gateway)

    def follow(link: str | None) -> list[int]:
        listed: list[int] = []
        while link is not None:
            parts = urlsplit(link)
            response = handle(lambda: reader, "GET", parts.path, parse_qs(parts.query), b"")
            assert response.status == 200
            assert len(response.body["blocks"]) <= 5
            listed.extend(b["number"] for b in response.body["blocks"])
            link = response.body["links"]["next"]
        return listed

    assert follow("/api/v1/blocks?order=desc&limit=5") == sorted(numbers, reverse=True)
    assert follow("/api/v1/blocks?order=desc&limit=5&block.number=gte:2") == sorted(numbers, reverse=True)[:-2]
    assert follow("/api/v1/blocks?order=asc&limit=5&block.number=lte:250003") == numbers[:9]


def test_get_blocks_without_end_stops_at_the_latest_block() -> None:
    gateway = MemoryGateway()
    complete(gateway, [*range(10, 20), 30_000])
    reader = HistoryReader(gateway)

    def rpc(method: str, params: list[int]) -> object:
        body = f'{{"jsonrpc": "2.0", "id": 1, "method": "{method}", "params": {params}}}'.encode()
        answer = handle(lambda: reader, "POST", "/", {}, body).body
        assert isinstance(answer, dict) and "result" in answer, answer
        return answer["result"]

    assert rpc("getLatestBlock", []) == 30_000
    assert rpc("getBlocks", [12]) == list(range(12, 20))
    assert rpc("getBlocks", [30_000]) == [30_000]
    assert rpc("getBlocks", [30_001]) == []
    assert rpc("getBlocks", [25_000, 25_000 + MAX_BLOCK_RANGE - 1]) == [30_000]
    assert rpc("getLatestBlock", []) == 30_000
    assert HistoryReader(MemoryGateway()).latest_block() is None
