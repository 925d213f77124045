from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from hedera_history.block_identity import block_header
from hedera_history.books.parse import parse_address_book
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.verify.stream import verify_stream


def _headers(folder: Path, book: Path):
    blocks = [
        result.report.block
        for result in verify_stream(
            find_local_periods(folder),
            parse_address_book(book.read_bytes(), book.name),
            ratio=Fraction(1, 3),
            start_block=0,
            sidecars=True,
            max_decompressed=None,
        )
    ]
    assert all(block is not None for block in blocks)
    return [block_header(block) for block in blocks if block is not None]


def test_real_v6_blocks_chain_by_identity(hedera_data: Path) -> None:
    first, second = _headers(hedera_data / "v6", hedera_data / "addressbook" / "test-v6-sidecar-4n.bin")
    assert (first.number, second.number) == (5, 6)
    assert second.parent == first.hash
    assert first.hash == bytes.fromhex("a6c241fad2c636f68a6aa0da9293245a5ef0ebef345cd139858068ff7998716c")
    assert first.weight == first.number


def test_real_v5_blocks_chain_by_identity(hedera_data: Path) -> None:
    first, second = _headers(hedera_data / "v5", hedera_data / "addressbook" / "test-resources-testnet.bin")
    assert second.parent == first.hash
    assert second.number == first.number + 1
