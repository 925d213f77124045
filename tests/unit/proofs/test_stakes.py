"""Node stakes: a proof carries the NodeStakeUpdate in force (earlier ones it supersedes left out)
and the verifier weighs the signers by it; from the files and from the store alike."""

from __future__ import annotations

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from hedera_history.block import VerifiedBlock
from hedera_history.books.address_book import AddressBook, address_book_from_keys
from hedera_history.books.parse import address_book_to_bytes
from hedera_history.books.stakes import node_stake_update_body
from hedera_history.config import Settings
from hedera_history.errors import ProofStakeError
from hedera_history.formats.hashing import sha384
from hedera_history.pipeline.address_books import AddressBookHistory
from hedera_history.proofs.codec import decode_bundle, encode_bundle
from hedera_history.proofs.from_files import VerifiedBlocksProver
from hedera_history.proofs.from_store import StoreProver
from hedera_history.proofs.trust import Trust
from hedera_history.proofs.verify import verify_proof
from hedera_history.store.reader import HistoryReader
from hedera_history.store.writer import BlockWriter
from hedera_history.verify.stream import verify_stream

from tests.unit.store.fakes import ConditionalMemoryGateway
from tests.unit.verify.streamkit import record_bytes, transaction_bytes, v6_period, v6_record

NS = 1_700_000_000_000_000_000
STEP = 2_000_000_000
UPDATES = {1: {0: 70, 1: 10, 2: 10, 3: 10}, 3: {0: 5, 1: 5, 2: 45, 3: 45}}
"""Node 0 alone holds a third from block 2 on; node 2 (the heaviest, first by id) from block 4 on."""


@pytest.fixture(scope="module")
def keys() -> dict[int, rsa.RSAPrivateKey]:
    return {num: rsa.generate_private_key(public_exponent=65537, key_size=2048) for num in (3, 4, 5, 6)}


@pytest.fixture(scope="module")
def book(keys: dict[int, rsa.RSAPrivateKey]) -> AddressBook:
    return address_book_from_keys((f"0.0.{num}", key.public_key()) for num, key in keys.items())


@pytest.fixture(scope="module")
def blocks(keys: dict[int, rsa.RSAPrivateKey], book: AddressBook) -> list[VerifiedBlock]:
    periods, start = [], sha384(b"genesis")
    for i in range(6):
        ns = NS + i * STEP
        items = [(transaction_bytes(node_stake_update_body(UPDATES[i])), record_bytes(ns))] if i in UPDATES else None
        record = v6_record(ns, start=start, block_number=i, items=items)
        periods.append(v6_period(keys, record))
        start = record.end
    results = list(verify_stream(periods, book))
    assert all(r.ok for r in results)
    return [r.report.block for r in results if r.report.block is not None]


def test_the_last_stake_update_weighs_the_signers(book: AddressBook, blocks: list[VerifiedBlock]) -> None:
    checkpoint = address_book_to_bytes(book)
    prover = VerifiedBlocksProver(blocks, checkpoint)
    proof = prover.block_proof(5)
    verdict = verify_proof(proof, Trust.of_book(checkpoint))
    assert verdict.stake_updates == 1 and verdict.block.signers == (2,)
    assert (verdict.block.stake, verdict.block.total_stake) == (45, 100)
    assert len(decode_bundle(proof).trust.steps) == 1  # block 1's update is superseded
    early = verify_proof(prover.block_proof(2), Trust.of_book(checkpoint))
    assert early.block.signers == (0,) and early.stake_updates == 1


def test_without_the_stake_update_the_signer_is_one_of_four(book: AddressBook, blocks: list[VerifiedBlock]) -> None:
    checkpoint = address_book_to_bytes(book)
    bundle = decode_bundle(VerifiedBlocksProver(blocks, checkpoint).block_proof(5))
    del bundle.trust.steps[:]
    with pytest.raises(ProofStakeError):
        verify_proof(encode_bundle(bundle), Trust.of_book(checkpoint))


def test_the_store_carries_the_same_stake_update(book: AddressBook, blocks: list[VerifiedBlock]) -> None:
    checkpoint = address_book_to_bytes(book)
    gateway = ConditionalMemoryGateway()
    BlockWriter(gateway, Settings()).write_blocks(blocks)
    history = AddressBookHistory(gateway, book)
    for block in blocks:
        history.record_block(block)
    history.advance(blocks[-1].block_number)
    store = StoreProver(HistoryReader(gateway), checkpoint)
    files = VerifiedBlocksProver(blocks, checkpoint)
    for number in range(6):
        assert store.block_proof(number) == files.block_proof(number)
