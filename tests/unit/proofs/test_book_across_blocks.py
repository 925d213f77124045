"""A new book that arrives as a FileUpdate in one block and a FileAppend in the next: both blocks
are trust chain steps, from the files and from the store, with or without the store's per-block
change rows (a backfill leaves none)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from hedera_history.block import VerifiedBlock
from hedera_history.books.address_book import address_book_from_keys
from hedera_history.books.parse import address_book_to_bytes, parse_address_book
from hedera_history.config import Settings
from hedera_history.errors import ProofBookError
from hedera_history.formats.hashing import sha384
from hedera_history.pipeline.address_books import AddressBookHistory
from hedera_history.proofs.codec import decode_bundle, encode_bundle
from hedera_history.proofs.from_files import VerifiedBlocksProver
from hedera_history.proofs.from_store import StoreProver
from hedera_history.proofs.trust import Trust
from hedera_history.proofs.verify import verify_proof
from hedera_history.store.book_rows import CHANGE
from hedera_history.store.reader import HistoryReader
from hedera_history.store.writer import BlockWriter
from hedera_history.verify.stream import verify_stream

from tests.unit.store.fakes import ConditionalMemoryGateway
from tests.unit.verify.streamkit import file_transaction, record_bytes, v6_period, v6_record

NS = 1_700_000_000_000_000_000
STEP = 2_000_000_000
ALL_NODES = Fraction(1)
Keys = dict[int, rsa.RSAPrivateKey]


def _key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


@pytest.fixture(scope="module")
def stream() -> tuple[bytes, list[VerifiedBlock]]:
    """Blocks 0-5: 0.0.3's new key arrives in blocks 1 (update, half the book) and 3 (append)."""
    old: Keys = {num: _key() for num in (3, 4, 5, 6)}
    new = {**old, 3: _key()}
    bootstrap = address_book_to_bytes(address_book_from_keys((f"0.0.{n}", k.public_key()) for n, k in old.items()))
    rotated = address_book_to_bytes(address_book_from_keys((f"0.0.{n}", k.public_key()) for n, k in new.items()))
    half = len(rotated) // 2 + 7  # inside an entry: the first part alone is no book
    changes = {1: ("update", rotated[:half]), 3: ("append", rotated[half:])}
    periods, start = [], sha384(b"genesis")
    for i in range(6):
        ns = NS + i * STEP
        items = [(file_transaction(*changes[i][:1], 102, changes[i][1]), record_bytes(ns))] if i in changes else None
        record = v6_record(ns, start=start, block_number=i, items=items)
        periods.append(v6_period(new if i > 3 else old, record))
        start = record.end
    results = list(verify_stream(periods, parse_address_book(bootstrap)))
    assert [r.ok for r in results] == [True] * 6 and [r.new_book is not None for r in results].index(True) == 3
    return bootstrap, [r.report.block for r in results if r.report.block is not None]


def _store(blocks: list[VerifiedBlock], bootstrap: bytes, *, change_rows: bool) -> HistoryReader:
    gateway = ConditionalMemoryGateway()
    BlockWriter(gateway, Settings()).write_blocks(blocks)
    history = AddressBookHistory(gateway, parse_address_book(bootstrap))
    for block in blocks:
        history.record_block(block)
    history.advance(blocks[-1].block_number)
    if not change_rows:
        rows = gateway.tables["address_books"]
        for key in [key for key in rows if key.startswith(CHANGE)]:
            del rows[key]
    return HistoryReader(gateway)


def test_both_blocks_are_steps_and_the_proof_verifies(stream: tuple[bytes, list[VerifiedBlock]]) -> None:
    bootstrap, blocks = stream
    proof = VerifiedBlocksProver(blocks, bootstrap, ratio=ALL_NODES).block_proof(5)
    assert len(decode_bundle(proof).trust.steps) == 2
    verdict = verify_proof(proof, Trust.of_book(bootstrap), ratio=ALL_NODES)
    assert verdict.book_updates == 1 and verdict.block.signers == (0, 1, 2, 3)


def test_the_append_alone_cannot_make_the_book(stream: tuple[bytes, list[VerifiedBlock]]) -> None:
    bootstrap, blocks = stream
    bundle = decode_bundle(VerifiedBlocksProver(blocks, bootstrap, ratio=ALL_NODES).block_proof(5))
    del bundle.trust.steps[0]
    with pytest.raises(ProofBookError):
        verify_proof(encode_bundle(bundle), Trust.of_book(bootstrap), ratio=ALL_NODES)


@pytest.mark.parametrize("change_rows", [True, False], ids=["change rows", "backfilled"])
def test_the_store_carries_both_blocks(stream: tuple[bytes, list[VerifiedBlock]], change_rows: bool) -> None:
    bootstrap, blocks = stream
    store = StoreProver(_store(blocks, bootstrap, change_rows=change_rows), bootstrap, ratio=ALL_NODES)
    files = VerifiedBlocksProver(blocks, bootstrap, ratio=ALL_NODES)
    for number in range(6):
        assert store.block_proof(number) == files.block_proof(number)
