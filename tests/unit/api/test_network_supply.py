"""/network/supply from the balances we derive, in memory: a generated stream's blocks written, its
genesis balances loaded and every block applied; the released supply is the total less the
unreleased accounts' balances the ground truth holds (here the treasury 0.0.2's), now and after the
first block; without derived balances, a 404; each answer checked against the reference's OpenAPI."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hedera_history.api import handle
from hedera_history.api.network_supply import TOTAL_SUPPLY
from hedera_history.api.render import timestamp
from hedera_history.books.parse import parse_address_book
from hedera_history.config import Settings
from hedera_history.derived.applier import BalanceApplier
from hedera_history.derived.snapshot import BalanceSnapshot, load_snapshot
from hedera_history.gen import GeneratedStream
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.store.reader import HistoryReader
from hedera_history.store.writer import BlockWriter
from hedera_history.verify.stream import verify_stream

from tests.integration.api.reference_contract import ReferenceContract, load_reference_document
from tests.unit.store.fakes import MemoryGateway

ROUTE = "/api/v1/network/supply"


def test_released_supply_is_the_total_less_the_unreleased_balances(
    generated_stream: GeneratedStream, generated_stream_dir: Path
) -> None:
    settings = Settings()
    gateway = MemoryGateway()
    book = parse_address_book(generated_stream.address_book)
    results = verify_stream(find_local_periods(generated_stream_dir / "recordstreams"), book)
    blocks = [r.report.block for r in results if r.ok and r.report.block is not None]
    assert all(r.complete for r in BlockWriter(gateway, settings).write_blocks(blocks))
    truth = generated_stream.truth
    first_ns = truth["blocks"][0]["consensus_start_ns"]
    load_snapshot(gateway, settings, BalanceSnapshot(first_ns - 1, truth["balances"]["genesis"]), first_block=0)
    assert BalanceApplier(gateway, settings).run().applied == [b["number"] for b in truth["blocks"]]
    reader = HistoryReader(gateway)
    contract = ReferenceContract(load_reference_document())

    def get(query: dict[str, list[str]], status: int = 200) -> Any:
        response = handle(lambda: reader, "GET", ROUTE, query, b"")
        assert response.status == status, response.body
        contract.validate(ROUTE, status, response.body)
        return response.body

    now = get({})
    assert now["total_supply"] == str(TOTAL_SUPPLY)
    assert now["released_supply"] == str(TOTAL_SUPPLY - truth["balances"]["final"]["0.0.2"])
    first_end = truth["blocks"][0]["consensus_end_ns"]
    after_first = truth["balances"]["by_block"].get(str(truth["blocks"][0]["number"]), {})
    treasury = after_first.get("0.0.2", truth["balances"]["genesis"]["0.0.2"])
    then = get({"timestamp": [f"lte:{timestamp(first_end)}"]})
    assert then["released_supply"] == str(TOTAL_SUPPLY - treasury)
    get({"timestamp": [f"lt:{timestamp(first_ns - 10)}"]}, 404)


def test_no_derived_balances_is_a_404() -> None:
    response = handle(lambda: HistoryReader(MemoryGateway()), "GET", ROUTE, {}, b"")
    assert response.status == 404
