"""Proofs served from the Bigtable emulator: the real V5 and V6 sets and a generated stream whose key
rotates, written as the pipeline writes them (history rows, address-book change rows, books
applied), give the same bytes as proofs built from the files, and verify."""

from __future__ import annotations

from pathlib import Path

import pytest
from hedera_history import hapi
from hedera_history.block import VerifiedBlock
from hedera_history.books.parse import parse_address_book
from hedera_history.gen.config_and_output import GeneratedStream
from hedera_history.pipeline.address_books import AddressBookHistory
from hedera_history.proofs.from_files import DirectoryProver
from hedera_history.proofs.from_store import build_block_proof, build_transaction_proof
from hedera_history.proofs.transaction_ids import TransactionQuery
from hedera_history.proofs.trust import Trust
from hedera_history.proofs.verify import transaction_id_text, verify_proof
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.verify.stream import verify_stream

from .conftest import Store

pytestmark = [pytest.mark.emulator]

SETS = {"v6": "test-v6-sidecar-4n.bin", "v5": "test-resources-testnet.bin"}


def _write(store: Store, directory: Path, book: bytes) -> list[VerifiedBlock]:
    bootstrap = parse_address_book(book)
    blocks = [r.report.block for r in verify_stream(find_local_periods(directory), bootstrap) if r.report.block]
    assert all(r.complete for r in store.writer.write_blocks(blocks))
    history = AddressBookHistory(store.gateway, bootstrap)
    for block in blocks:
        history.record_block(block)
    history.advance(blocks[-1].block_number)
    return blocks


def _check_every_transaction(store: Store, directory: Path, book: bytes) -> int:
    files = DirectoryProver(directory, book)
    updates = 0
    for block in files.blocks:
        for item in block.record.items:
            tid = hapi.TransactionRecord.FromString(item.record_bytes).transactionID
            proof = build_transaction_proof(
                store.reader, transaction_id_text(tid), tid.nonce, tid.scheduled, bootstrap_book=book
            )
            # a duplicate id (the generator submits some twice) names its first result on both sides
            assert proof == files.transaction_proof(
                TransactionQuery.parse(transaction_id_text(tid), nonce=tid.nonce, scheduled=tid.scheduled)
            )
            updates = max(updates, verify_proof(proof, Trust.of_book(book)).book_updates)
        block_proof = build_block_proof(store.reader, block.block_number, bootstrap_book=book)
        assert block_proof == files.block_proof(block.block_number)
    return updates


@pytest.mark.parametrize("folder", sorted(SETS))
def test_real_sets_prove_from_the_emulator(store: Store, hedera_data: Path, folder: str) -> None:
    book = (hedera_data / "addressbook" / SETS[folder]).read_bytes()
    _write(store, hedera_data / folder, book)
    assert _check_every_transaction(store, hedera_data / folder, book) == 0


def test_a_rotated_key_proves_through_the_stored_books(
    store: Store, generated_stream: GeneratedStream, generated_stream_dir: Path
) -> None:
    book = generated_stream.address_book
    _write(store, generated_stream_dir / "recordstreams", book)
    assert _check_every_transaction(store, generated_stream_dir / "recordstreams", book) == 1
