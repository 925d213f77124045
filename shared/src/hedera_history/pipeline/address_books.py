"""The address-book and node-stake history the stream verifies against (``address_books`` state table).

- The bootstrap book comes from configuration and is in force from the beginning.
- Ingest writes, for every verified block, its changes of the book files (0.0.101 / 0.0.102; for
  most blocks none) and the stakes of its last successful ``NodeStakeUpdate`` (once a day) in a
  ``change/<hex16 block>`` row, before the block is published, so a block that completes has its
  changes recorded.
- Books must be applied in block order (a large book arrives as an update and appends, possibly
  over several blocks), so :meth:`AddressBookHistory.advance` runs behind the contiguous
  watermark: it applies the recorded changes of the blocks up to it and writes each new book as
  ``book/<hex16 one's complement of the time it takes effect>`` (newest first; cell ``book`` the
  canonical book, cell ``file`` the 0.0.102 contents it was read from, with the endpoints,
  certificate hashes and descriptions ``/api/v1/network/nodes`` serves) and each new stake
  table as ``stakes/<same>``, then moves its ``keeper`` cell by compare-and-set. Concurrent runs are
  safe: the book and stake rows are deterministic and only one keeper move wins.
- A period is verified with :meth:`AddressBookHistory.consensus_book_at`: the book in force
  weighted by the stakes in force (``books.stakes``). No stake row yet (a stream that has not
  reached its first ``NodeStakeUpdate``, and no backfill before it): the book's own weights. While
  the keeper lags, :meth:`AddressBookHistory.projected_consensus_book` applies the recorded changes
  of the blocks in between in memory, so a period whose predecessors are all published is verified
  with exactly the state in force.
- The book for a period is *certain* once every block before it is applied (``applied_through``)
  or projected from their recorded rows. A period verified on a state that is neither is held
  (pending) and never published on it (``pipeline.ingest``, docs/pipeline.md).

- A follower that begins on an empty store (``follow.start``) marks its first period in the
  ``start`` row before handing anything off; the run that verifies that period begins the history
  at its block (:meth:`AddressBookHistory.begin_at`): the bootstrap book in force from that period
  on, the keeper at the block before it. So a stream followed from its middle is certain from its
  first block, however far the network is past block 0, and it stays so after a restart.

The rows themselves (keys, cells, the book and stakes in force) are ``store.book_rows``, which the
backfill, ``load``, the query API and the proofs use without this module. The rows' values and the
keeper's state are encoded by ``books.codec`` (the keeper's state is the
backfill's ``BookState``), and changes are applied by ``books.updates.AddressBookTracker.apply``, as
the backfill applies them while it verifies: the two cannot disagree on a book.
"""

from __future__ import annotations

from dataclasses import dataclass

from hedera_history.block import VerifiedBlock
from hedera_history.books.address_book import AddressBook
from hedera_history.books.codec import (
    BookState,
    decode_keeper_state,
    decode_recorded_changes,
    decode_stakes_row,
    encode_keeper_state,
    encode_recorded_changes,
)
from hedera_history.books.parse import parse_address_book
from hedera_history.books.stakes import NodeStakes, weigh
from hedera_history.books.updates import NODE_DETAILS_FILE, AddressBookTracker
from hedera_history.errors import RowDecodeError
from hedera_history.store import schema as s
from hedera_history.store.book_rows import (
    BOOK,
    CHANGE,
    KEEPER,
    Q_BLOCK,
    Q_BOOK,
    Q_CHANGES,
    Q_PERIOD,
    Q_STAKES,
    Q_STATE,
    STAKES,
    START,
    write_book,
    write_stakes,
)
from hedera_history.store.gateway import (
    BigtableGateway,
    CellSwap,
    ConditionalGateway,
    KeyRange,
    RowQuery,
    write_or_raise,
)
from hedera_history.store.keys import decode_hex16, hex16, ones_complement, prefix_end
from hedera_history.store.model import Cell, Row

ADVANCE_BATCH = 1000


@dataclass(frozen=True, slots=True)
class StreamStart:
    """Where a stream followed from its middle begins (the ``start`` row)."""

    period_key: str
    """The first period the follower handed off."""
    block: int | None
    """Its block, once verified: the history's first block (None before)."""


BookGateway = ConditionalGateway


class AddressBookHistory:
    def __init__(self, gateway: BookGateway, bootstrap: AddressBook, *, first_block: int = 0) -> None:
        self._gateway = gateway
        self._bootstrap = bootstrap
        self._first_block = first_block

    def book_at(self, consensus_ns: int) -> AddressBook:
        """The book in force for a period starting at ``consensus_ns``."""
        cell = self._in_force(BOOK, Q_BOOK, consensus_ns)
        if cell is None:
            return self._bootstrap
        return parse_address_book(cell[1], f"address book in force from row {cell[0].decode()}")

    def stakes_at(self, consensus_ns: int) -> NodeStakes | None:
        """The node stakes in force for a period starting at ``consensus_ns`` (None: none known)."""
        cell = self._in_force(STAKES, Q_STAKES, consensus_ns)
        return None if cell is None else decode_stakes_row(cell[1])

    def consensus_book_at(self, consensus_ns: int) -> AddressBook:
        """The book in force weighted by the stakes in force: what verifies a period."""
        return weigh(self.book_at(consensus_ns), self.stakes_at(consensus_ns))

    def _in_force(self, prefix: bytes, qualifier: bytes, consensus_ns: int) -> tuple[bytes, bytes] | None:
        start = prefix + hex16(ones_complement(consensus_ns))
        query = RowQuery(ranges=(KeyRange(start, prefix_end(prefix)),), limit=1)
        for row in self._gateway.read_rows(s.ADDRESS_BOOKS, query):
            cell = row.cell(s.ADDRESS_BOOKS_FAMILY, qualifier)
            if cell is not None:
                return row.key, cell.value
        return None

    def record_block(self, block: VerifiedBlock) -> int:
        """Write the block's book-file changes and stake update (a row for every block, most with
        none, so the keeper can tell "no change" from "not published yet"); how many changes there
        were."""
        changes = AddressBookTracker(self._bootstrap).block_changes(block.record)
        payload = encode_recorded_changes(block.record.consensus_end + 1, block.record.name, changes)
        self._write(CHANGE + hex16(block.block_number), Q_CHANGES, payload)
        return len(changes.files) + (changes.stakes is not None)

    def projected_consensus_book(self, block_number: int, consensus_ns: int) -> AddressBook | None:
        """The consensus book for ``block_number`` (starting at ``consensus_ns``) while the keeper
        lags: the recorded changes of the blocks between applied in memory (nothing is written) on
        top of the rows in force. None when the keeper has applied them all (``consensus_book_at``
        is exact) or one of them is not recorded yet (not published): the state cannot be known."""
        applied, tracker = self._tracker(self._read_cell(KEEPER, Q_STATE))
        missing = block_number - 1 - applied
        if missing <= 0 or missing > ADVANCE_BATCH:
            return None
        query = RowQuery(ranges=(KeyRange(CHANGE + hex16(applied + 1), CHANGE + hex16(block_number)),))
        rows = list(self._gateway.read_rows(s.ADDRESS_BOOKS, query))
        if len(rows) != missing:
            return None
        book: AddressBook | None = None
        stakes: NodeStakes | None = None
        for row in rows:
            cell = row.cell(s.ADDRESS_BOOKS_FAMILY, Q_CHANGES)
            if cell is None:
                return None
            recorded = decode_recorded_changes(cell.value)
            book = tracker.apply(recorded.changes, recorded.name) or book
            stakes = recorded.changes.stakes or stakes
        # Unchanged in between: what the rows say (they also hold what a backfill put in force).
        return weigh(book or self.book_at(consensus_ns), stakes or self.stakes_at(consensus_ns))

    def mark_stream_start(self, period_key: str) -> StreamStart | None:
        """Record that the stream begins with ``period_key`` unless the history has begun (the
        keeper applied blocks) or a start is recorded already (the first mark stays); the start in
        force, None when the history had begun."""
        if self._read_cell(KEEPER, Q_STATE) is not None:
            return None
        swap = CellSwap(s.ADDRESS_BOOKS_FAMILY, Q_PERIOD, expected=None, value=period_key.encode())
        self._gateway.check_and_set(s.ADDRESS_BOOKS, START, swap)
        return read_stream_start(self._gateway)

    def stream_start(self) -> StreamStart | None:
        return read_stream_start(self._gateway)

    def begin_at(self, block: VerifiedBlock) -> bool:
        """Begin the history at ``block`` (the recorded start's, verified), unless it has begun:
        the bootstrap book in force from its period on, the keeper at the block before it (written
        last: once it is there, the rest is). True when the history now begins at or before it."""
        number = block.block_number
        if self._read_cell(KEEPER, Q_STATE) is None:
            write_book(self._gateway, block.record.consensus_start, self._bootstrap)
            self._write(START, Q_BLOCK, str(number).encode())
            state = encode_keeper_state(number - 1, BookState.of_tracker(AddressBookTracker(self._bootstrap)))
            swap = CellSwap(s.ADDRESS_BOOKS_FAMILY, Q_STATE, expected=None, value=state)
            self._gateway.check_and_set(s.ADDRESS_BOOKS, KEEPER, swap)
        return self.applied_through() >= number - 1

    def applied_through(self) -> int:
        """The last block whose changes are applied: books are certain for the blocks after it."""
        applied, _ = self._tracker(self._read_cell(KEEPER, Q_STATE))
        return applied

    def advance(self, through_block: int) -> list[int]:
        """Apply recorded changes of blocks up to ``through_block`` (all complete); the effective
        times of the books that came into force."""
        raw_state = self._read_cell(KEEPER, Q_STATE)
        applied, tracker = self._tracker(raw_state)
        if through_block <= applied:
            return []
        start = CHANGE + hex16(applied + 1)
        end = CHANGE + hex16(through_block + 1)
        query = RowQuery(ranges=(KeyRange(start, end),), limit=ADVANCE_BATCH)
        new_books: list[int] = []
        last = through_block
        rows = list(self._gateway.read_rows(s.ADDRESS_BOOKS, query))
        if len(rows) == ADVANCE_BATCH:
            last = decode_hex16(rows[-1].key[len(CHANGE) :])
        for row in rows:
            cell = row.cell(s.ADDRESS_BOOKS_FAMILY, Q_CHANGES)
            if cell is None:
                continue
            recorded = decode_recorded_changes(cell.value)
            stakes_before = tracker.stakes
            book = tracker.apply(recorded.changes, recorded.name)
            if tracker.stakes != stakes_before and tracker.stakes is not None:
                write_stakes(self._gateway, recorded.effective_ns, tracker.stakes)
            if book is not None:
                write_book(self._gateway, recorded.effective_ns, book, tracker.contents.get(NODE_DETAILS_FILE))
                new_books.append(recorded.effective_ns)
        new_state = encode_keeper_state(last, BookState.of_tracker(tracker))
        self._gateway.check_and_set(
            s.ADDRESS_BOOKS, KEEPER, CellSwap(s.ADDRESS_BOOKS_FAMILY, Q_STATE, expected=raw_state, value=new_state)
        )
        return new_books

    def _tracker(self, raw_state: bytes | None) -> tuple[int, AddressBookTracker]:
        if raw_state is None:
            return self._first_block - 1, AddressBookTracker(self._bootstrap)
        applied, state = decode_keeper_state(raw_state)
        return applied, state.tracker()

    def _read_cell(self, key: bytes, qualifier: bytes) -> bytes | None:
        for row in self._gateway.read_rows(s.ADDRESS_BOOKS, RowQuery(keys=(key,))):
            cell = row.cell(s.ADDRESS_BOOKS_FAMILY, qualifier)
            return None if cell is None else cell.value
        return None

    def _write(self, key: bytes, qualifier: bytes, value: bytes) -> None:
        row = Row(s.ADDRESS_BOOKS, key, (Cell(s.ADDRESS_BOOKS_FAMILY, qualifier, value, 0),))
        write_or_raise(self._gateway, s.ADDRESS_BOOKS, [row], f"address book row {key!r}")


def read_stream_start(gateway: BigtableGateway) -> StreamStart | None:
    """The recorded start of a stream followed from its middle; None when none was recorded."""
    for row in gateway.read_rows(s.ADDRESS_BOOKS, RowQuery(keys=(START,))):
        period = row.cell(s.ADDRESS_BOOKS_FAMILY, Q_PERIOD)
        if period is None:
            return None
        block = row.cell(s.ADDRESS_BOOKS_FAMILY, Q_BLOCK)
        try:
            return StreamStart(period.value.decode(), None if block is None else int(block.value))
        except ValueError as e:
            raise RowDecodeError(f"stream start row unreadable: {e}") from e
    return None


def first_block_of_stream(gateway: BigtableGateway, configured: int) -> int:
    """The history's first block: where a stream followed from its middle began, else ``configured``
    (``HEDERA_HISTORY_FIRST_BLOCK``)."""
    start = read_stream_start(gateway)
    return configured if start is None or start.block is None else start.block
