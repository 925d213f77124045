"""A generated stream (with its ground truth) verified, written and read back through every method."""

from __future__ import annotations

from typing import Any

import pytest
from hedera_history import hapi
from hedera_history.block import VerifiedBlock
from hedera_history.books.parse import parse_address_book
from hedera_history.gen.config_and_output import GeneratedStream, GeneratorConfig
from hedera_history.gen.stream import generate_stream
from hedera_history.gen.writer import write_stream
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.verify.stream import verify_stream

from .conftest import Store


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[GeneratedStream, list[VerifiedBlock]]:
    stream = generate_stream(GeneratorConfig(periods=5, transactions=40, seed=11))
    out = tmp_path_factory.mktemp("generated")
    write_stream(stream, out)
    book = parse_address_book(stream.address_book)
    results = list(verify_stream(find_local_periods(out), book))
    assert all(r.ok for r in results), [str(r.error) for r in results if not r.ok]
    return stream, [r.report.block for r in results if r.report.block is not None]


def test_generated_stream_reads_back_as_the_ground_truth(
    store: Store, generated: tuple[GeneratedStream, list[VerifiedBlock]]
) -> None:
    stream, blocks = generated
    truth: dict[str, Any] = stream.truth
    assert all(r.complete for r in store.writer.write_blocks(blocks))
    reader = store.reader

    numbers = [b["number"] for b in truth["blocks"]]
    assert reader.get_blocks(0) == numbers
    assert reader.first_available_block() == numbers[0]
    for expected in truth["blocks"]:
        block = reader.get_block(expected["number"])
        assert block is not None
        assert block.file_hash.hex() == expected["file_hash"]
        assert block.end_running_hash is not None and block.end_running_hash.hex() == expected["end_running_hash"]
        assert (block.consensus_start, block.consensus_end) == (
            expected["consensus_start_ns"],
            expected["consensus_end_ns"],
        )
        assert block.item_count == expected["item_count"]
        assert [(m.id, m.hash.hex()) for m in block.sidecars] == [(s["id"], s["hash"]) for s in expected["sidecars"]]
        assert reader.block_time(expected["number"]) == expected["consensus_start_ns"]

    by_hash: dict[str, int] = {}
    by_id: dict[tuple[str, int], list[tuple[int, int, bool]]] = {}
    for tx in truth["transactions"]:
        stored = reader.transaction(tx["consensus_ns"])
        assert stored is not None
        assert (stored.block_number, stored.index) == (tx["block_number"], tx["index"])
        record = stored.record()
        assert hapi.ResponseCodeEnum.Name(record.receipt.status) == tx["status"]
        by_hash.setdefault(tx["hash"], tx["consensus_ns"])
        tid = tx["transaction_id"]
        by_id.setdefault((tid["payer"], tid["valid_start_ns"]), []).append(
            (tx["consensus_ns"], tid["nonce"], tid["scheduled"])
        )
        if tx["sidecar_types"]:
            found = reader.sidecar_records(tx["consensus_ns"])
            assert sorted({r.type for r in found}) == sorted(set(tx["sidecar_types"]))

    for transaction_hash, first in by_hash.items():
        found_tx = reader.transaction_by_hash(bytes.fromhex(transaction_hash))
        assert found_tx is not None and found_tx.consensus_ns == first
    statuses = reader.transaction_statuses([bytes.fromhex(h) for h in by_hash])
    assert {k.hex(): v.consensus_ns for k, v in statuses.statuses.items() if v} == by_hash
    for (payer, valid_start), expected_results in by_id.items():
        results = reader.transactions_by_id(payer, valid_start)
        assert [(r.consensus_ns, r.nonce, r.scheduled) for r in results] == sorted(expected_results)

    # The truth's rule is a subset of store/accounts.py: the store also lists contracts created
    # during a contract call (createdContractIDs) under their own history.
    created_in_call: dict[int, set[str]] = {}
    for tx in truth["transactions"]:
        stored = reader.transaction(tx["consensus_ns"])
        assert stored is not None
        created = stored.record().contractCallResult.createdContractIDs
        created_in_call[tx["consensus_ns"]] = {f"0.0.{c.contractNum}" for c in created}
    for account_id, times in truth["accounts"].items():
        page = reader.account_history(account_id, limit=1000)
        stored_times = [e.consensus_ns for e in page.entries]
        assert set(times) <= set(stored_times)
        extra = set(stored_times) - set(times)
        assert all(account_id in created_in_call[t] for t in extra), (account_id, extra)
        assert stored_times == sorted(stored_times, reverse=True)


def test_generated_blocks_written_twice_leave_identical_cells(
    store: Store, generated: tuple[GeneratedStream, list[VerifiedBlock]]
) -> None:
    _, blocks = generated
    assert all(r.complete for r in store.writer.write_blocks(blocks))
    before = store.snapshot()
    assert all(r.complete for r in store.writer.write_blocks(reversed(blocks)))
    assert store.snapshot() == before


def test_items_table_keeps_the_signed_bytes(
    store: Store, generated: tuple[GeneratedStream, list[VerifiedBlock]]
) -> None:
    stream, blocks = generated
    assert all(r.complete for r in store.writer.write_blocks(blocks))
    for period in stream.periods:
        stored = store.reader.block_file(period.block_number)
        assert stored is not None and stored.kind == "file" and stored.data == period.record_bytes
