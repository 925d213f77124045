"""The public networks' bootstrap books, shipped with the package (``shipped/``, see its README).

Each network lists its books as (in force from ns, file name), oldest first, the first in force
from genesis (``hedera_history.networks``). As the mirror node does
(``addressbook/AddressBookServiceImpl``): the book with the latest time not after the start.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from hedera_history.errors import ConfigError

SHIPPED_DIR = Path(__file__).parent / "shipped"

ShippedBooks = Sequence[tuple[int, str]]
"""(in force from ns, file name under ``shipped/``), oldest first."""


def shipped_book_for(books: ShippedBooks, at_ns: int | None = None) -> Path:
    """The shipped book to start from for a start at ``at_ns`` (None: now, the newest)."""
    chosen = books[0][1]
    for since, name in books:
        if at_ns is None or since <= at_ns:
            chosen = name
    return SHIPPED_DIR / shipped_name_checked(chosen)


def shipped_paths(books: ShippedBooks) -> tuple[Path, ...]:
    return tuple(SHIPPED_DIR / name for _, name in books)


def shipped_name_checked(name: str) -> str:
    if "/" in name or not name.endswith(".bin"):
        raise ConfigError(f"bad packaged address book name {name!r}")
    return name


def bootstrap_location(configured: str, books: ShippedBooks | None, at_ns: int | None) -> str:
    """The book to start from for a start at ``at_ns``: the configured one, except when it is one
    of the network's shipped books (``books``): then the shipped book for that start (the mirror
    node switches to a newer packaged book from its time on)."""
    if books and configured and Path(configured) in shipped_paths(books):
        return str(shipped_book_for(books, at_ns))
    return configured
