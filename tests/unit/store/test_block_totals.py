"""A block's gas and logs bloom are its top-level contract results' (children's gas is counted in
their parent's), as the reference sums them for /api/v1/blocks."""

from __future__ import annotations

from hedera_history import hapi
from hedera_history.formats.parsed_files import RecordItem
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
