"""The real V6 files (two blocks, one sidecar) through the writer and back through every read."""

from __future__ import annotations

import gzip
from dataclasses import replace
from pathlib import Path

import pytest
from hedera_history import hapi
from hedera_history.block import VerifiedBlock
from hedera_history.books.parse import parse_address_book
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.verify.stream import verify_stream

from .conftest import Store

CONTRACT_CALL_NS = 1657701971304284003
CHILD_NS = 1657701971304284004
FIRST_NS = 1657701968041986003
FILE_HASH_5 = "69a4354de5aeb12fbc989ae086fc291cfc1b61415391b4a46915b32aef722a511c4ceba60ecda72d527cc4866a4d235b"
END_HASH_6 = "3064b824b8b9f9ece011f88a26c030c9f6b822f30fbcabcc7240a220ea42bbdbf305db415a4e41307d0630d5cefe4550"
METADATA_HASH_6 = "b13a2b638c5688dbec43b97dbee8ad637d2d42376fc313c628a990ac65aefdbd39832cf5ece42b925a520ed2d2bf8eac"
SIDECAR_HASH = "1ed54ea01aab5e726a087e94a0dd52c0f49b149d7a773ae71a3dc099f623bcf1840393db68f8db476ab11e6159f030f2"


@pytest.fixture(scope="module")
def real_blocks(hedera_data: Path) -> list[VerifiedBlock]:
    book = parse_address_book((hedera_data / "addressbook" / "test-v6-sidecar-4n.bin").read_bytes())
    blocks = [r.report.block for r in verify_stream(find_local_periods(hedera_data / "v6"), book)]
    assert [b.block_number for b in blocks if b is not None] == [5, 6]
    return [b for b in blocks if b is not None]


def test_every_read_returns_the_stored_real_blocks(
    store: Store, real_blocks: list[VerifiedBlock], hedera_data: Path
) -> None:
    results = store.writer.write_blocks(real_blocks)
    assert all(r.complete for r in results), results
    reader = store.reader

    assert reader.first_available_block() == 5
    assert reader.get_blocks(0, 100) == [5, 6]
    assert reader.block_time(5) == FIRST_NS
    assert reader.block_time(6) == CONTRACT_CALL_NS
    assert reader.get_block(7) is None

    five, six = reader.get_block(5), reader.get_block(6)
    assert five is not None and six is not None
    assert five.file_hash.hex() == FILE_HASH_5 and five.item_count == 1 and five.version == 6
    assert six.end_running_hash is not None and six.end_running_hash.hex() == END_HASH_6
    assert six.metadata_hash is not None and six.metadata_hash.hex() == METADATA_HASH_6
    assert six.previous_hash == five.end_running_hash
    assert (six.consensus_start, six.consensus_end, six.hapi_version) == (
        CONTRACT_CALL_NS,
        CHILD_NS,
        (0, 28, 0),
    )
    assert [(m.id, m.types, m.hash.hex()) for m in six.sidecars] == [(1, (1, 3), SIDECAR_HASH)]
    assert [s.node_account for s in six.signatures] == ["0.0.3", "0.0.4", "0.0.5", "0.0.6"]
    assert six.signatures == tuple(sorted(real_blocks[1].signatures, key=lambda s: s.node_account))
    assert six.name == "2022-07-13T08_46_11.304284003Z.rcd.gz"

    transactions, errors = reader.block_transactions(6)
    assert errors == [] and [(t.consensus_ns, t.index) for t in transactions] == [
        (CONTRACT_CALL_NS, 0),
        (CHILD_NS, 1),
    ]
    assert [t.record_bytes for t in transactions] == [i.record_bytes for i in real_blocks[1].record.items]

    stored_file = reader.block_file(6)
    original = hedera_data / "v6/recordstreams/record0.0.5/2022-07-13T08_46_11.304284003Z.rcd.gz"
    assert stored_file is not None and stored_file.kind == "file"
    assert stored_file.data == gzip.decompress(original.read_bytes())

    call = reader.transaction(CONTRACT_CALL_NS)
    assert call is not None and call.block_number == 6
    record = call.record()
    assert record.receipt.contractID.contractNum == 1002
    by_hash = reader.transaction_by_hash(record.transactionHash)
    assert by_hash == call

    valid_start = record.transactionID.transactionValidStart
    results_by_id = reader.transactions_by_id("0.0.2", valid_start.seconds * 1_000_000_000 + valid_start.nanos)
    assert [(r.consensus_ns, r.nonce, r.scheduled) for r in results_by_id] == [
        (CONTRACT_CALL_NS, 0, False),
        (CHILD_NS, 1, False),
    ]
    success = hapi.ResponseCodeEnum.Value("SUCCESS")
    assert {r.status for r in results_by_id} == {success}

    child_hash = hapi.TransactionRecord.FromString(real_blocks[1].record.items[1].record_bytes).transactionHash
    statuses = reader.transaction_statuses([record.transactionHash, child_hash, bytes(48)])
    assert statuses.errors == ()
    assert [s.consensus_ns if s else None for s in statuses.statuses.values()] == [
        CONTRACT_CALL_NS,
        CHILD_NS,
        None,
    ]

    payer = reader.account_history("0.0.2")
    assert [e.consensus_ns for e in payer.entries] == [CHILD_NS, CONTRACT_CALL_NS]
    assert [e.consensus_ns for e in reader.account_history("0.0.1003").entries] == [
        CHILD_NS,
        CONTRACT_CALL_NS,
    ]
    assert [e.consensus_ns for e in reader.account_history("0.0.1002").entries] == [CONTRACT_CALL_NS]
    assert [e.consensus_ns for e in reader.account_history("0.0.2", limit=1).entries] == [CHILD_NS]
    assert [e.consensus_ns for e in reader.account_history("0.0.2", before=CHILD_NS).entries] == [CONTRACT_CALL_NS]

    (state_change,) = reader.sidecar_records(CONTRACT_CALL_NS)
    assert (state_change.type, state_change.sidecar_id, state_change.index) == (1, 1, 0)
    changes = hapi.TransactionSidecarRecord.FromString(state_change.raw).state_changes.contract_state_changes
    assert [c.contract_id.contractNum for c in changes] == [1002, 1003]
    (bytecode,) = reader.sidecar_records(CHILD_NS, types=[3])
    parsed = hapi.TransactionSidecarRecord.FromString(bytecode.raw).bytecode
    assert (
        parsed.contract_id.contractNum == 1003 and len(parsed.initcode) == 196 and len(parsed.runtime_bytecode) == 161
    )


def test_writing_every_block_twice_changes_no_cell(store: Store, real_blocks: list[VerifiedBlock]) -> None:
    assert all(r.complete for r in store.writer.write_blocks(real_blocks))
    before = store.snapshot()
    assert all(before[table] for table in before)
    assert all(r.complete for r in store.writer.write_blocks(real_blocks))
    assert store.snapshot() == before


def test_signatures_arriving_later_are_added(store: Store, real_blocks: list[VerifiedBlock]) -> None:
    block = real_blocks[1]
    assert store.writer.write_blocks([replace(block, signatures=block.signatures[:2])])[0].complete
    first = store.reader.get_block(6)
    assert first is not None and len(first.signatures) == 2
    assert store.writer.write_blocks([block])[0].complete
    later = store.reader.get_block(6)
    assert later is not None and len(later.signatures) == 4
