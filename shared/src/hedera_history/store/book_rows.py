"""The rows of the ``address_books`` table: their keys, their cells, and the books and stakes in force.

One home for what the stream's keeper (``pipeline.address_books``), the backfill, ``load``, the query
API and the proofs all read or write, so none of them reaches into another's orchestration:

- ``book/<hex16 one's complement of the time it takes effect>``: a book in force from that time on
  (newest first), cell ``book`` the canonical book, cell ``file`` the 0.0.102 contents it was read from;
- ``stakes/<same>``: the node stakes in force from that time on;
- ``change/<hex16 block>``: the book-file changes and stake update a block recorded (the keeper's input);
- ``keeper``: the keeper's state (cell ``state``); ``start``: where a stream followed from its middle
  begins (cells ``period`` and ``block``).

docs/schema.md describes the table; ``books.codec`` encodes the values.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hedera_history.books.address_book import AddressBook
from hedera_history.books.parse import address_book_to_bytes
from hedera_history.books.stakes import NodeStakes
from hedera_history.books.updates import NODE_DETAILS_FILE, AddressBookTracker
from hedera_history.errors import RowDecodeError
from hedera_history.store import schema as s
from hedera_history.store.gateway import BigtableGateway, KeyRange, RowQuery, write_or_raise
from hedera_history.store.keys import decode_hex16, hex16, ones_complement, prefix_end
from hedera_history.store.model import Cell, Row

if TYPE_CHECKING:  # the query function reads books without loading verification
    from hedera_history.verify.stream import PeriodResult

BOOK = b"book/"
STAKES = b"stakes/"
CHANGE = b"change/"
KEEPER = b"keeper"
START = b"start"
Q_BOOK = b"book"
Q_FILE = b"file"
"""Of a ``book/`` row: the ``NodeAddressBook`` bytes the book was read from, as the file held them
(absent in rows written before it, and where the writer had only the parsed book)."""
Q_STAKES = b"stakes"
Q_CHANGES = b"changes"
Q_STATE = b"state"
Q_PERIOD = b"period"
Q_BLOCK = b"block"


def write_book(gateway: BigtableGateway, effective_ns: int, book: AddressBook, contents: bytes | None = None) -> None:
    """Record that ``book`` is in force from ``effective_ns`` on (the stream's keeper and the
    backfill both write these rows, so a stream that starts after a backfill knows its books), with
    the file ``contents`` it was read from when known."""
    cells = [Cell(s.ADDRESS_BOOKS_FAMILY, Q_BOOK, address_book_to_bytes(book), 0)]
    if contents is not None:
        cells.append(Cell(s.ADDRESS_BOOKS_FAMILY, Q_FILE, contents, 0))
    row = Row(s.ADDRESS_BOOKS, BOOK + hex16(ones_complement(effective_ns)), tuple(cells))
    write_or_raise(gateway, s.ADDRESS_BOOKS, [row], f"address book from {effective_ns}")


def write_changes(gateway: BigtableGateway, result: PeriodResult, tracker: AddressBookTracker) -> None:
    """Record the book and stakes a verified block put in force for the blocks after it (as
    ``verify_stream`` reports them), the book with the 0.0.102 contents ``tracker``, the tracker it
    verified with, read it from: how a backfill and ``load`` leave the history that a stream started
    after them verifies with, and that ``/api/v1/network/nodes`` serves."""
    block = result.report.block
    if block is None:
        return
    effective_ns = block.record.consensus_end + 1
    if result.new_book is not None:
        write_book(gateway, effective_ns, result.new_book, tracker.contents.get(NODE_DETAILS_FILE))
    if result.new_stakes is not None:
        write_stakes(gateway, effective_ns, result.new_stakes)


def row_in_force(
    gateway: BigtableGateway, prefix: bytes, consensus_ns: int | None
) -> tuple[int, dict[bytes, bytes]] | None:
    """(effective time, cells by qualifier) of the ``book/`` or ``stakes/`` row (``prefix``) in force
    at ``consensus_ns``, or the newest one (None)."""
    start = prefix if consensus_ns is None else prefix + hex16(ones_complement(consensus_ns))
    for row in gateway.read_rows(s.ADDRESS_BOOKS, RowQuery(ranges=(KeyRange(start, prefix_end(prefix)),), limit=1)):
        try:
            effective_ns = ones_complement(decode_hex16(row.key[len(prefix) :]))
        except ValueError as e:
            raise RowDecodeError(f"address book row key {row.key[:40]!r} unreadable") from e
        return effective_ns, {cell.qualifier: cell.value for cell in row.family(s.ADDRESS_BOOKS_FAMILY)}
    return None


def write_stakes(gateway: BigtableGateway, effective_ns: int, stakes: NodeStakes) -> None:
    """Record that ``stakes`` are in force from ``effective_ns`` on (written by the stream's keeper
    and the backfill alike, as books are)."""
    row = Row(
        s.ADDRESS_BOOKS,
        STAKES + hex16(ones_complement(effective_ns)),
        (Cell(s.ADDRESS_BOOKS_FAMILY, Q_STAKES, stakes.encode(), 0),),
    )
    write_or_raise(gateway, s.ADDRESS_BOOKS, [row], f"node stakes from {effective_ns}")
