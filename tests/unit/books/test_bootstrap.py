"""The shipped bootstrap books: which one a start reads, and when a configured book is replaced."""

from __future__ import annotations

import pytest
from hedera_history.books.bootstrap import SHIPPED_DIR, bootstrap_location, shipped_book_for, shipped_paths
from hedera_history.books.parse import parse_address_book
from hedera_history.errors import ConfigError
from hedera_history.networks import NETWORKS

BOOKS = ((0, "testnet.bin"), (1767117600294393897, "testnet-1767117600294393897.bin"))


def test_every_shipped_book_parses() -> None:
    for network in NETWORKS.values():
        for path in shipped_paths(network.books):
            assert parse_address_book(path.read_bytes(), path.name).nodes


def test_the_latest_book_not_after_the_start() -> None:
    assert shipped_book_for(BOOKS, 0) == SHIPPED_DIR / "testnet.bin"
    assert shipped_book_for(BOOKS, 1767117600294393896) == SHIPPED_DIR / "testnet.bin"
    assert shipped_book_for(BOOKS, 1767117600294393897) == SHIPPED_DIR / "testnet-1767117600294393897.bin"
    assert shipped_book_for(BOOKS, None) == SHIPPED_DIR / "testnet-1767117600294393897.bin"


def test_a_shipped_book_configured_follows_the_start_and_any_other_stays() -> None:
    shipped = str(SHIPPED_DIR / "testnet-1767117600294393897.bin")
    assert bootstrap_location(shipped, BOOKS, 5) == str(SHIPPED_DIR / "testnet.bin")
    assert bootstrap_location("/books/mine.bin", BOOKS, 5) == "/books/mine.bin"
    assert bootstrap_location(shipped, None, 5) == shipped  # a custom network: as configured
    assert bootstrap_location("", BOOKS, 5) == ""


def test_a_shipped_name_is_a_bin_file_here() -> None:
    with pytest.raises(ConfigError, match="packaged address book"):
        shipped_book_for(((0, "../etc/passwd"),), 0)
