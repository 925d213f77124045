"""A block's gas and logs bloom are its top-level contract results' (children's gas is counted in
their parent's), as the reference sums them for /api/v1/blocks."""

from __future__ import annotations

import random

import pytest
from hedera_history import hapi, speedups
from hedera_history.formats.parsed_files import RecordItem
from hedera_history.store import block_totals
from hedera_history.store.block_totals import LOGS_BLOOM_BYTES, contract_totals


def _item(record: hapi.TransactionRecord) -> RecordItem:
    return RecordItem(b"", record.SerializeToString(), 1)


def test_top_level_calls_and_creates_add_up_and_children_do_not() -> None:
    call = hapi.TransactionRecord()
    call.contractCallResult.gasUsed = 700
    call.contractCallResult.bloom = bytes([0x80]) + bytes(LOGS_BLOOM_BYTES - 1)
    create = hapi.TransactionRecord()
    create.contractCreateResult.gasUsed = 100
    create.contractCreateResult.bloom = bytes(LOGS_BLOOM_BYTES - 1) + b"\x01"
    child = hapi.TransactionRecord()
    child.contractCallResult.gasUsed = 50
    child.contractCallResult.bloom = bytes([0xFF]) * LOGS_BLOOM_BYTES
    child.parent_consensus_timestamp.seconds = 1
    transfer = hapi.TransactionRecord(memo="no contract")
    gas, bloom = contract_totals([_item(r) for r in (call, create, child, transfer)] + [RecordItem(b"", b"\xff", 2)])
    assert gas == 800
    assert bloom == bytes([0x80]) + bytes(LOGS_BLOOM_BYTES - 2) + b"\x01"


def test_a_block_without_contract_results_has_a_zero_bloom() -> None:
    assert contract_totals([]) == (0, bytes(LOGS_BLOOM_BYTES))


def _random_contract_record(rng: random.Random) -> bytes:
    record = hapi.TransactionRecord(memo=rng.choice(["", "m"]))
    if rng.random() < 0.6:
        result = record.contractCallResult if rng.random() < 0.5 else record.contractCreateResult
        result.gasUsed = rng.randrange(1, 10**6)
        result.bloom = rng.randbytes(rng.choice([0, LOGS_BLOOM_BYTES, LOGS_BLOOM_BYTES + 3]))
    if rng.random() < 0.2:
        record.parent_consensus_timestamp.seconds = 1
    data: bytes = record.SerializeToString()
    return data


def test_records_skipped_by_the_compiled_core_hold_no_contract_result(monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled core reads which result a record holds from its bytes and only those holding one
    are parsed: the same totals as parsing every record, merges and bytes that do not parse included."""
    assert speedups.record_result_member is not None, "the compiled core did not build"
    rng = random.Random(3)
    records = [_random_contract_record(rng) for _ in range(300)]
    records += [records[i] + records[i + 1] for i in range(0, 299, 3)] + [b"\xff", b"\x3a\x05\x10"]
    blocks = [[RecordItem(b"", data, 1) for data in rng.sample(records, 20)] for _ in range(60)]
    compiled = [contract_totals(items) for items in blocks]
    monkeypatch.setattr(block_totals, "compiled_result_member", None)
    assert [contract_totals(items) for items in blocks] == compiled
    assert any(gas for gas, _ in compiled)
