"""The real mainnet record files the wrapped-block fixtures wrap: every node's signature verifies with
the book ``blocks/README.md`` names, and a tampered hash does not."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from hedera_history.books.parse import parse_address_book
from hedera_history.errors import BadSignatureError
from hedera_history.formats.dispatch import parse_signature_file
from hedera_history.verify.signatures import verify_node_signature

from .golden import WRAPPED_BOOKS, WRAPPED_ORIGINALS, WRAPPED_SIGNERS, RecordGolden


@pytest.mark.parametrize("golden", WRAPPED_ORIGINALS, ids=[f"v{g.version}" for g in WRAPPED_ORIGINALS])
def test_every_signature_verifies_with_the_named_book(hedera_data: Path, golden: RecordGolden) -> None:
    book = parse_address_book((hedera_data / WRAPPED_BOOKS[golden]).read_bytes())
    for node in WRAPPED_SIGNERS[golden]:
        signature = parse_signature_file((hedera_data / golden.signature_path(node)).read_bytes(), node)
        assert signature.file_hash.hex() == golden.file_hash
        entry = book.by_account(node)
        assert entry is not None, node
        verify_node_signature(signature, entry)


def test_a_signature_over_another_hash_fails(hedera_data: Path) -> None:
    golden = WRAPPED_ORIGINALS[-1]
    book = parse_address_book((hedera_data / WRAPPED_BOOKS[golden]).read_bytes())
    node = WRAPPED_SIGNERS[golden][0]
    signature = parse_signature_file((hedera_data / golden.signature_path(node)).read_bytes(), node)
    flipped = bytes([signature.file_hash[0] ^ 1]) + signature.file_hash[1:]
    entry = book.by_account(node)
    assert entry is not None
    with pytest.raises(BadSignatureError):
        verify_node_signature(replace(signature, file_hash=flipped), entry)
