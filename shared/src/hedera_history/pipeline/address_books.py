"""The address-book and node-stake history the stream verifies against (``address_books`` state table).

- The bootstrap book comes from configuration and is in force from the beginning.
- Ingest writes, for every verified block, its changes of the book files (0.0.101 / 0.0.102; for
  most blocks none) and the stakes of its last successful ``NodeStakeUpdate`` (once a day) in a
  ``change/<hex16 block>`` row, before the block is published, so a block that completes has its
  changes recorded.
- Books must be applied in block order (a large book arrives as an update and appends, possibly
  over several blocks), so :meth:`AddressBookHistory.advance` runs behind the contiguous
  watermark: it applies the recorded changes of the blocks up to it and writes each new book as
  ``book/<hex16 one's complement of the time it takes effect>`` (newest first) and each new stake
  table as ``stakes/<same>``, then moves its ``keeper`` cell by compare-and-set. Concurrent runs are
  safe: the book and stake rows are deterministic and only one keeper move wins.
- A period is verified with :meth:`AddressBookHistory.consensus_book_at`: the book in force
  weighted by the stakes in force (``verify.stakes``). No stake row yet (a stream that has not
  reached its first ``NodeStakeUpdate``, and no backfill before it): the book's own weights. While
  the keeper lags, :meth:`AddressBookHistory.projected_consensus_book` applies the recorded changes
  of the blocks in between in memory, so a period whose predecessors are all published is verified
  with exactly the state in force.
- The book for a period is *certain* once every block before it is applied (``applied_through``)
  or projected from their recorded rows. A period verified on a state that is neither is held
  (pending) and never published on it (``pipeline.ingest``, docs/pipeline.md).
"""

from __future__ import annotations

import json

from hedera_history.block import VerifiedBlock
from hedera_history.errors import AddressBookError, CorruptFileError, RowDecodeError
from hedera_history.store import schema as s
from hedera_history.store.gateway import BigtableGateway, ConditionalGateway, KeyRange, RowQuery, write_or_raise
from hedera_history.store.keys import decode_hex16, hex16, ones_complement, prefix_end
from hedera_history.store.model import Cell, Row
from hedera_history.verify.address_book import AddressBook, address_book_to_bytes, parse_address_book
from hedera_history.verify.address_book_updates import AddressBookTracker, FileChange
from hedera_history.verify.stakes import NodeStakes, decode_stakes_or_none, weigh

BOOK = b"book/"
STAKES = b"stakes/"
CHANGE = b"change/"
KEEPER = b"keeper"
Q_BOOK = b"book"
Q_STAKES = b"stakes"
Q_CHANGES = b"changes"
Q_STATE = b"state"
ADVANCE_BATCH = 1000


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
        return None if cell is None else _decode_stakes(cell[1])

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
        payload = json.dumps(
            {
                "effective_ns": block.record.consensus_end + 1,
                "name": block.record.name,
                "changes": [[c.file_num, c.contents.hex(), c.is_append] for c in changes.files],
                "stakes": changes.stakes.encode().hex() if changes.stakes is not None else None,
            }
        ).encode()
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
            _, name, changes, update = _decode_changes(cell.value)
            book = tracker.apply_changes(changes, name) or book
            stakes = update or stakes
        # Unchanged in between: what the rows say (they also hold what a backfill put in force).
        return weigh(book or self.book_at(consensus_ns), stakes or self.stakes_at(consensus_ns))

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
            effective, name, changes, stakes = _decode_changes(cell.value)
            book = tracker.apply_changes(changes, name)
            new_stakes = tracker.apply_stakes(stakes)
            if new_stakes is not None:
                write_stakes(self._gateway, effective, new_stakes)
            if book is not None:
                write_book(self._gateway, effective, book)
                new_books.append(effective)
        new_state = json.dumps(
            {
                "applied": last,
                "book": address_book_to_bytes(tracker.book).hex(),
                "contents": {str(k): v.hex() for k, v in sorted(tracker.contents.items())},
                "stakes": tracker.stakes.encode().hex() if tracker.stakes is not None else None,
            },
            sort_keys=True,
        ).encode()
        self._gateway.check_and_set(
            s.ADDRESS_BOOKS,
            KEEPER,
            family=s.ADDRESS_BOOKS_FAMILY,
            qualifier=Q_STATE,
            expected=raw_state,
            value=new_state,
        )
        return new_books

    def _tracker(self, raw_state: bytes | None) -> tuple[int, AddressBookTracker]:
        if raw_state is None:
            return self._first_block - 1, AddressBookTracker(self._bootstrap)
        try:
            state = json.loads(raw_state)
            book = parse_address_book(bytes.fromhex(state["book"]), "address book keeper")
            contents = {int(k): bytes.fromhex(v) for k, v in state["contents"].items()}
            stakes = decode_stakes_or_none(bytes.fromhex(state.get("stakes") or ""))
            return int(state["applied"]), AddressBookTracker(book, contents=contents, stakes=stakes)
        except (ValueError, KeyError, TypeError) as e:
            raise RowDecodeError(f"address book keeper state unreadable: {e}") from e

    def _read_cell(self, key: bytes, qualifier: bytes) -> bytes | None:
        for row in self._gateway.read_rows(s.ADDRESS_BOOKS, RowQuery(keys=(key,))):
            cell = row.cell(s.ADDRESS_BOOKS_FAMILY, qualifier)
            return None if cell is None else cell.value
        return None

    def _write(self, key: bytes, qualifier: bytes, value: bytes) -> None:
        row = Row(s.ADDRESS_BOOKS, key, (Cell(s.ADDRESS_BOOKS_FAMILY, qualifier, value, 0),))
        write_or_raise(self._gateway, s.ADDRESS_BOOKS, [row], f"address book row {key!r}")


def _decode_changes(raw: bytes) -> tuple[int, str, list[FileChange], NodeStakes | None]:
    try:
        data = json.loads(raw)
        changes = [FileChange(int(f), bytes.fromhex(c), bool(a)) for f, c, a in data["changes"]]
        stakes = decode_stakes_or_none(bytes.fromhex(data.get("stakes") or ""))
        return int(data["effective_ns"]), str(data["name"]), changes, stakes
    except (ValueError, KeyError, TypeError, CorruptFileError) as e:
        raise RowDecodeError(f"address book change row unreadable: {e}") from e


def _decode_stakes(raw: bytes) -> NodeStakes:
    try:
        return NodeStakes.decode(raw)
    except (CorruptFileError, AddressBookError) as e:
        raise RowDecodeError(f"node stakes row unreadable: {e}") from e


def write_book(gateway: BigtableGateway, effective_ns: int, book: AddressBook) -> None:
    """Record that ``book`` is in force from ``effective_ns`` on (the stream's keeper and the
    backfill both write these rows, so a stream that starts after a backfill knows its books)."""
    row = Row(
        s.ADDRESS_BOOKS,
        BOOK + hex16(ones_complement(effective_ns)),
        (Cell(s.ADDRESS_BOOKS_FAMILY, Q_BOOK, address_book_to_bytes(book), 0),),
    )
    write_or_raise(gateway, s.ADDRESS_BOOKS, [row], f"address book from {effective_ns}")


def write_stakes(gateway: BigtableGateway, effective_ns: int, stakes: NodeStakes) -> None:
    """Record that ``stakes`` are in force from ``effective_ns`` on (written by the stream's keeper
    and the backfill alike, as books are)."""
    row = Row(
        s.ADDRESS_BOOKS,
        STAKES + hex16(ones_complement(effective_ns)),
        (Cell(s.ADDRESS_BOOKS_FAMILY, Q_STAKES, stakes.encode(), 0),),
    )
    write_or_raise(gateway, s.ADDRESS_BOOKS, [row], f"node stakes from {effective_ns}")
