"""A generated stream whose node key rotates through a 0.0.102 update: proofs after the rotation
carry the update as a trust chain step and verify from the bootstrap book, built from the files on
disk or from the store alike."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from hedera_history import hapi
from hedera_history.errors import ProofBookError, ProofSignatureError
from hedera_history.gen import GeneratedStream
from hedera_history.proofs.codec import decode_bundle, encode_bundle
from hedera_history.proofs.from_files import DirectoryProver
from hedera_history.proofs.from_store import StoreProver, build_block_proof, build_transaction_proof
from hedera_history.proofs.transaction_ids import TransactionQuery
from hedera_history.proofs.trust import Trust
from hedera_history.proofs.verify import transaction_id_text, verify_proof
from hedera_history.store.book_rows import CHANGE
from hedera_history.store.reader import HistoryReader

from tests.unit.store.fakes import ConditionalMemoryGateway

ALL_NODES = Fraction(1)
"""Every node must sign: the rotated node's new key is then always in the proof."""


def _bootstrap(rotating_dir: Path) -> bytes:
    return (rotating_dir / "address-book.bin").read_bytes()


def _last_transaction_id(prover: DirectoryProver) -> tuple[str, int]:
    item = prover.blocks[-1].record.items[-1]
    record = hapi.TransactionRecord.FromString(item.record_bytes)
    return transaction_id_text(record.transactionID), record.transactionID.nonce


def test_the_stream_rotates_a_key_in_one_block(rotating_stream: GeneratedStream, rotating_dir: Path) -> None:
    prover = DirectoryProver(rotating_dir, _bootstrap(rotating_dir))
    assert rotating_stream.truth["rotated_node"] is not None
    assert len(prover.plan.steps) == 1


def test_a_proof_after_the_rotation_verifies_through_the_update(rotating_dir: Path) -> None:
    book = _bootstrap(rotating_dir)
    prover = DirectoryProver(rotating_dir, book, ratio=ALL_NODES)
    last = prover.blocks[-1]
    proof = prover.transaction_proof(TransactionQuery.at(last.record.items[0].consensus_ns))
    verdict = verify_proof(proof, Trust.of_book(book), ratio=ALL_NODES)
    assert verdict.book_updates == 1 and len(verdict.block.signers) == 4
    assert len(decode_bundle(proof).trust.steps) == 1


def test_without_the_update_the_rotated_key_does_not_verify(rotating_dir: Path) -> None:
    book = _bootstrap(rotating_dir)
    prover = DirectoryProver(rotating_dir, book, ratio=ALL_NODES)
    bundle = decode_bundle(prover.block_proof(prover.blocks[-1].block_number))
    del bundle.trust.steps[:]
    with pytest.raises(ProofSignatureError):
        verify_proof(encode_bundle(bundle), Trust.of_book(book), ratio=ALL_NODES)


def test_a_proof_before_the_rotation_carries_no_step(rotating_dir: Path) -> None:
    book = _bootstrap(rotating_dir)
    prover = DirectoryProver(rotating_dir, book)
    proof = prover.block_proof(prover.blocks[0].block_number)
    assert not decode_bundle(proof).trust.steps
    assert verify_proof(proof, Trust.of_book(book)).book_updates == 0


def test_steps_out_of_order_are_refused(rotating_dir: Path) -> None:
    book = _bootstrap(rotating_dir)
    prover = DirectoryProver(rotating_dir, book)
    step = prover.plan.steps[0].block
    bundle = decode_bundle(prover.block_proof(step.block_number))  # the block that carried the update
    rotated = decode_bundle(prover.block_proof(prover.blocks[-1].block_number))
    bundle.trust.CopyFrom(rotated.trust)  # a chain whose step is the subject block itself
    with pytest.raises(ProofBookError):
        verify_proof(encode_bundle(bundle), Trust.of_book(book))


def test_the_store_builds_the_same_proof_as_the_files(
    rotating_dir: Path, rotating_store: ConditionalMemoryGateway
) -> None:
    book = _bootstrap(rotating_dir)
    prover = DirectoryProver(rotating_dir, book)
    reader = HistoryReader(rotating_store)
    transaction_id, nonce = _last_transaction_id(prover)
    from_store = build_transaction_proof(reader, transaction_id, nonce, bootstrap_book=book)
    from_files = prover.transaction_proof(TransactionQuery.parse(transaction_id, nonce=nonce))
    assert from_store == from_files
    assert verify_proof(from_store, Trust.of_book(book)).book_updates == 1
    for block in prover.blocks:
        proof = build_block_proof(reader, block.block_number, bootstrap_book=book)
        assert proof == prover.block_proof(block.block_number)
        assert verify_proof(proof, Trust.of_book(book)).block.whole


def test_the_store_proves_every_transaction(rotating_dir: Path, rotating_store: ConditionalMemoryGateway) -> None:
    book = _bootstrap(rotating_dir)
    prover = StoreProver(HistoryReader(rotating_store), book)
    trust = Trust.of_book(book)
    files = DirectoryProver(rotating_dir, book)
    for block in files.blocks:
        for item in block.record.items:
            verdict = verify_proof(prover.transaction_proof(TransactionQuery.at(item.consensus_ns)), trust)
            assert item.consensus_ns in {i.consensus_ns for i in verdict.block.items}


def test_without_change_rows_the_store_finds_the_update_in_the_files(
    rotating_dir: Path, rotating_store: ConditionalMemoryGateway
) -> None:
    """A backfilled store has the book rows but no per-block change rows."""
    gateway = ConditionalMemoryGateway()
    gateway.tables = {
        table: {key: dict(cells) for key, cells in rows.items() if not key.startswith(CHANGE)}
        for table, rows in rotating_store.tables.items()
    }
    book = _bootstrap(rotating_dir)
    prover = DirectoryProver(rotating_dir, book)
    last = prover.blocks[-1].block_number
    assert build_block_proof(HistoryReader(gateway), last, bootstrap_book=book) == prover.block_proof(last)
