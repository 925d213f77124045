"""The packed checkpoint book: every real book packs to about half and unpacks to its exact bytes;
a packed form that is not the canonical one is refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from hedera_history.books.packed import pack_book, unpack_book
from hedera_history.errors import ProofFormatError

from tests.data_dir import real_data_dir

REAL_BOOKS = sorted((real_data_dir() / "addressbook").glob("*.bin"))


@pytest.mark.parametrize("path", REAL_BOOKS, ids=lambda p: p.name)
def test_real_books_pack_to_about_half_and_back(path: Path) -> None:
    data = path.read_bytes()
    packed = pack_book(data)
    assert packed is not None
    assert unpack_book(packed) == data
    assert packed.ByteSize() < 0.6 * len(data)


def test_a_packed_form_that_is_not_canonical_is_refused() -> None:
    data = REAL_BOOKS[0].read_bytes()
    packed = pack_book(data)
    assert packed is not None
    packed.book_without_keys = data  # the keys left in as text as well
    with pytest.raises(ProofFormatError):
        unpack_book(packed)


def test_keys_and_entries_must_pair() -> None:
    packed = pack_book(REAL_BOOKS[0].read_bytes())
    assert packed is not None
    del packed.keys[-1]
    with pytest.raises(ProofFormatError):
        unpack_book(packed)
