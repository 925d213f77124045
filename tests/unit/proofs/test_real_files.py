"""Every transaction and block of the real V1, V2, V5 and V6 sets proves and verifies offline
against the set's real address book, given as the book or as its pinned hash."""

from __future__ import annotations

import pytest
from hedera_history import hapi
from hedera_history.books.parse import parse_address_book
from hedera_history.config import Settings
from hedera_history.errors import ProofBookError
from hedera_history.formats.hashing import sha384
from hedera_history.proofs.codec import bundle_to_json, decode_bundle
from hedera_history.proofs.from_store import StoreProver
from hedera_history.proofs.transaction_ids import TransactionQuery
from hedera_history.proofs.trust import Trust
from hedera_history.proofs.verify import transaction_id_text, verify_proof
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.store.reader import HistoryReader
from hedera_history.store.writer import BlockWriter
from hedera_history.verify.stream import verify_stream

from tests.data_dir import real_data_dir
from tests.unit.proofs.conftest import RealSet
from tests.unit.store.fakes import ConditionalMemoryGateway


def test_every_transaction_of_the_set_proves(real_set: RealSet) -> None:
    trust = Trust.of_book(real_set.book)
    count = 0
    for block in real_set.prover.blocks:
        for item in block.record.items:
            record = hapi.TransactionRecord.FromString(item.record_bytes)
            query = TransactionQuery.parse(
                transaction_id_text(record.transactionID),
                nonce=record.transactionID.nonce,
                scheduled=record.transactionID.scheduled,
            )
            proof = real_set.prover.transaction_proof(query)
            verdict = verify_proof(proof, trust)
            assert verdict.subject.startswith(f"transaction {transaction_id_text(record.transactionID)}")
            assert item.consensus_ns in {i.consensus_ns for i in verdict.block.items}
            assert verdict.block.version == block.record.version
            count += 1
    assert count == sum(len(b.record.items) for b in real_set.prover.blocks) > 0


def test_every_block_proves_whole(real_set: RealSet) -> None:
    for block in real_set.prover.blocks:
        verdict = verify_proof(real_set.prover.block_proof(block.block_number), Trust.of_book(real_set.book))
        assert verdict.block.whole
        assert [i.consensus_ns for i in verdict.block.items] == [i.consensus_ns for i in block.record.items]
        if block.record.version == 6:
            assert verdict.block.block_number == block.block_number


def test_a_pinned_hash_is_trust_enough_when_the_proof_carries_the_book(real_set: RealSet) -> None:
    block = real_set.prover.blocks[-1]
    proof = real_set.prover.transaction_proof(TransactionQuery.at(block.record.items[-1].consensus_ns))
    assert verify_proof(proof, Trust.of_hash(sha384(real_set.book).hex())).block.signers


def test_another_trusted_book_refuses_the_proof(real_set: RealSet) -> None:
    block = real_set.prover.blocks[0]
    proof = real_set.prover.transaction_proof(TransactionQuery.at(block.record.items[0].consensus_ns))
    with pytest.raises(ProofBookError):
        verify_proof(proof, Trust.of_hash(sha384(b"another book").hex()))


def test_v5_and_v6_proofs_ship_the_item_run_not_the_file(real_set: RealSet) -> None:
    block = real_set.prover.blocks[-1]
    bundle = decode_bundle(real_set.prover.transaction_proof(TransactionQuery.at(block.record.items[0].consensus_ns)))
    content = bundle.block.WhichOneof("content")
    assert content == ("items" if block.record.version >= 5 else "record_file")


def test_json_rendering_verifies_as_the_bytes_do(real_set: RealSet) -> None:
    block = real_set.prover.blocks[0]
    proof = real_set.prover.transaction_proof(TransactionQuery.at(block.record.items[0].consensus_ns))
    rendered = bundle_to_json(decode_bundle(proof))
    trust = Trust.of_book(real_set.book)
    assert verify_proof(rendered.encode(), trust) == verify_proof(proof, trust)


def test_a_v6_transaction_with_sidecars_proves_them_through_the_whole_file(v6_set: RealSet) -> None:
    block = next(b for b in v6_set.prover.blocks if b.sidecars)
    with_sidecar = {r.consensus_ns for s in block.sidecars for r in s.records}
    item = next(i for i in block.record.items if i.consensus_ns in with_sidecar)
    proof = v6_set.prover.transaction_proof(TransactionQuery.at(item.consensus_ns), sidecars=True)
    bundle = decode_bundle(proof)
    assert bundle.block.WhichOneof("content") == "record_file" and len(bundle.sidecars) == 1
    verdict = verify_proof(proof, Trust.of_book(v6_set.book))
    assert verdict.sidecar_records == sum(
        1 for s in block.sidecars for r in s.records if r.consensus_ns == item.consensus_ns
    )


def test_the_store_serves_the_same_proofs(real_set: RealSet) -> None:
    """The set as the pipeline stores it (history rows only: the bootstrap book never changes)."""
    gateway = ConditionalMemoryGateway()
    periods = find_local_periods(real_data_dir() / real_set.folder)
    results = verify_stream(periods, parse_address_book(real_set.book), sidecars=True)
    BlockWriter(gateway, Settings()).write_blocks(r.report.block for r in results if r.report.block is not None)
    store = StoreProver(HistoryReader(gateway), real_set.book)
    for block in real_set.prover.blocks:
        for item in block.record.items:
            query = TransactionQuery.at(item.consensus_ns)
            assert store.transaction_proof(query) == real_set.prover.transaction_proof(query)
        assert store.block_proof(block.block_number) == real_set.prover.block_proof(block.block_number)
        if block.sidecars:
            with_sidecar = next(r.consensus_ns for s in block.sidecars for r in s.records)
            query = TransactionQuery.at(with_sidecar)
            from_store = store.transaction_proof(query, sidecars=True)
            assert from_store == real_set.prover.transaction_proof(query, sidecars=True)
            assert verify_proof(from_store, Trust.of_book(real_set.book)).sidecar_records
