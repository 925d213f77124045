"""What a store of a stream's history starts from, recorded before its first block: the bootstrap
address book in force from the stream's first period, and derived balances from the stream's
genesis snapshot where it has one. ``load`` and ``stack upload`` both record it through
:func:`record_history_start`, so ``/api/v1/network/nodes`` and ``/api/v1/balances`` answer after
either (the books the stream itself changes are recorded as it is verified).

The book row keeps the bootstrap file's own ``NodeAddressBook`` bytes beside the canonical book
(``store.book_rows.Q_FILE``): its endpoints, certificate hashes and descriptions are what
``/api/v1/network/nodes`` serves. A book already recorded in force at the first period is kept
(the history began before, or a follower began it), and given the file's bytes when it is the
same book without them. Balances are seeded only while they have not begun.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from hedera_history.books.json_book import book_file_contents, parse_book_file
from hedera_history.books.parse import address_book_to_bytes
from hedera_history.config import Settings
from hedera_history.derived.balances import read_start
from hedera_history.derived.snapshot import BalanceSnapshot, load_snapshot
from hedera_history.store.book_rows import BOOK, Q_BOOK, Q_FILE, row_in_force, write_book
from hedera_history.store.gateway import BigtableGateway


class BookStart(enum.Enum):
    RECORDED = "recorded"
    """The bootstrap book is recorded in force from the first period, with the file's bytes."""
    KEPT = "kept"
    """Another book is recorded in force then (the history began with it): unchanged."""


class SnapshotLoad(enum.Enum):
    LOADED = "loaded"
    """The snapshot seeds the balances from the first block."""
    ALREADY_STARTED = "already-started"
    """Balances had begun (an earlier snapshot, or blocks applied from zero): unchanged."""
    NONE_IN_DIRECTORY = "none-in-directory"
    """The stream has no snapshot; balances start from zero."""
    GENESIS_BLOCK = "genesis-block"
    """The stream has no snapshot, and its wrapped genesis block's initial account state changes
    seed the balances (``derived.genesis_state``)."""


@dataclass(frozen=True, slots=True)
class HistoryStart:
    book: BookStart
    balances: SnapshotLoad


def record_history_start(
    gateway: BigtableGateway,
    settings: Settings,
    *,
    book_file: bytes,
    first_ns: int,
    first_block: int,
    snapshot: BalanceSnapshot | None,
) -> HistoryStart:
    """Record the bootstrap book (``book_file``, either form) in force from ``first_ns``, the
    stream's first period, and seed balances from ``snapshot`` (None: none), applied from
    ``first_block``."""
    return HistoryStart(
        record_bootstrap_book(gateway, book_file, first_ns),
        seed_balances(gateway, settings, snapshot, first_block),
    )


def record_bootstrap_book(gateway: BigtableGateway, book_file: bytes, first_ns: int) -> BookStart:
    book = parse_book_file(book_file, "bootstrap address book")
    contents = book_file_contents(book_file, "bootstrap address book")
    in_force = row_in_force(gateway, BOOK, first_ns)
    if in_force is None:
        write_book(gateway, first_ns, book, contents)
        return BookStart.RECORDED
    effective_ns, cells = in_force
    if cells.get(Q_BOOK) == address_book_to_bytes(book) and Q_FILE not in cells:
        write_book(gateway, effective_ns, book, contents)
        return BookStart.RECORDED
    return BookStart.KEPT


def seed_balances(
    gateway: BigtableGateway, settings: Settings, snapshot: BalanceSnapshot | None, first_block: int
) -> SnapshotLoad:
    if snapshot is None:
        return SnapshotLoad.NONE_IN_DIRECTORY
    if read_start(gateway) is not None:
        return SnapshotLoad.ALREADY_STARTED
    load_snapshot(gateway, settings, snapshot, first_block)
    return SnapshotLoad.LOADED
