"""The backfill's progress in the ``ingest_progress`` state table: what lets a run resume.

Two kinds of rows, under the ``backfill/`` key prefix (other writers of the table use their own):

- ``backfill/period/<period consensus ns, hex16>``, written once the period's block has its
  completion cell: ``p:block`` (u64 block number), ``p:book`` (SHA-384 of the address book the
  block was verified with) and ``p:after`` (fingerprint of the whole address-book state after the
  block). A later run skips the period only when the block is still complete and the book it
  believes in force there is that same book; a block verified under an outdated book (a partition
  that started before a book change was known) is therefore verified again.
- ``backfill/book/<period consensus ns, hex16>``, written when the period's block changed the book
  files, before the block is written: ``p:prior`` (fingerprint of the state the block was applied
  to) and ``p:state`` (the :class:`BookState` after it). A run that skips the block takes the state
  from here, if it went on from the same prior state; the driver also starts partitions from the
  latest checkpoint before them.

Cell timestamps are the period's consensus time, so writing a row again replaces its cells.
Undecodable rows count as absent (the period is simply done again).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

from hedera_history.books.codec import BookState
from hedera_history.errors import CorruptFileError, RowDecodeError
from hedera_history.logs import event
from hedera_history.store import schema as s
from hedera_history.store.chaintime import cell_timestamp_micros
from hedera_history.store.encoding import decode_value, encode_value
from hedera_history.store.gateway import BigtableGateway, KeyRange, RowQuery, StoredRow
from hedera_history.store.keys import decode_hex16, hex16
from hedera_history.store.model import Cell, Row
from hedera_history.store.values import decode_u64, encode_u64
from hedera_history.store.writer import BlockWriter

logger = logging.getLogger(__name__)

PERIOD_PREFIX = b"backfill/period/"
BOOK_PREFIX = b"backfill/book/"
Q_BLOCK = b"block"
Q_BOOK = b"book"
Q_AFTER = b"after"
Q_PRIOR = b"prior"
Q_STATE = b"state"


@dataclass(frozen=True, slots=True)
class PeriodDone:
    consensus_ns: int
    block_number: int
    book_fingerprint: bytes
    """The book in force when the block was verified."""
    after_fingerprint: bytes
    """The whole address-book state after the block."""


@dataclass(frozen=True, slots=True)
class BookCheckpoint:
    consensus_ns: int
    """The period whose block changed the book files; the state holds for the periods after it."""
    prior_fingerprint: bytes
    state: BookState


def row_key_for_period_done(consensus_ns: int) -> bytes:
    return PERIOD_PREFIX + hex16(consensus_ns)


def row_key_for_book_checkpoint(consensus_ns: int) -> bytes:
    return BOOK_PREFIX + hex16(consensus_ns)


_Timed = TypeVar("_Timed", "PeriodDone", "BookCheckpoint")


class ProgressStore:
    def __init__(self, gateway: BigtableGateway, writer: BlockWriter) -> None:
        self.gateway = gateway
        self.writer = writer

    def done_periods(self, first_ns: int, last_ns: int) -> dict[int, PeriodDone]:
        """Periods in ``[first_ns, last_ns]`` marked done, by consensus time."""
        unreadable = "unreadable backfill progress row, period done again"
        return self._decoded(PERIOD_PREFIX, first_ns, last_ns, _decode_done, unreadable)

    def checkpoints(self, first_ns: int, last_ns: int) -> dict[int, BookCheckpoint]:
        """Address-book checkpoints of the periods in ``[first_ns, last_ns]``, by consensus time."""
        unreadable = "backfill book checkpoint unreadable, ignored"
        return self._decoded(BOOK_PREFIX, first_ns, last_ns, _decode_checkpoint, unreadable)

    def _decoded(
        self, prefix: bytes, first_ns: int, last_ns: int, decode: Callable[[StoredRow], _Timed], unreadable: str
    ) -> dict[int, _Timed]:
        """The rows under ``prefix`` in the range, decoded, by consensus time; an unreadable row is
        logged as ``unreadable`` and left out (its period is simply done again)."""
        found: dict[int, _Timed] = {}
        for row in self._scan(prefix, first_ns, last_ns):
            try:
                decoded = decode(row)
            except RowDecodeError as e:
                event(logger, unreadable, logging.WARNING, error=str(e))
                continue
            found[decoded.consensus_ns] = decoded
        return found

    def record_done(self, periods: Iterable[PeriodDone]) -> None:
        rows = [
            _row(
                row_key_for_period_done(done.consensus_ns),
                done.consensus_ns,
                (
                    (Q_BLOCK, encode_u64(done.block_number)),
                    (Q_BOOK, done.book_fingerprint),
                    (Q_AFTER, done.after_fingerprint),
                ),
            )
            for done in periods
        ]
        if rows:
            self.writer.write_rows(rows)

    def record_checkpoint(self, checkpoint: BookCheckpoint) -> None:
        cells = ((Q_PRIOR, checkpoint.prior_fingerprint), (Q_STATE, checkpoint.state.encode()))
        row = _row(row_key_for_book_checkpoint(checkpoint.consensus_ns), checkpoint.consensus_ns, cells)
        self.writer.write_rows([row])

    def _scan(self, prefix: bytes, first_ns: int, last_ns: int) -> Iterable[StoredRow]:
        if last_ns < first_ns:
            return ()
        end = prefix + hex16(last_ns + 1) if last_ns + 1 < 1 << 64 else prefix + b"\xff"
        query = RowQuery(ranges=(KeyRange(prefix + hex16(first_ns), end),), families=(s.INGEST_PROGRESS_FAMILY,))
        return self.gateway.read_rows(s.INGEST_PROGRESS, query)


def _row(key: bytes, consensus_ns: int, cells: tuple[tuple[bytes, bytes], ...]) -> Row:
    timestamp = cell_timestamp_micros(consensus_ns)
    return Row(
        s.INGEST_PROGRESS,
        key,
        tuple(Cell(s.INGEST_PROGRESS_FAMILY, q, encode_value(payload), timestamp) for q, payload in cells),
    )


def _payload(row: StoredRow, qualifier: bytes) -> bytes:
    cell = row.cell(s.INGEST_PROGRESS_FAMILY, qualifier)
    if cell is None:
        raise RowDecodeError(f"{row.key!r}: missing cell p:{qualifier.decode()}")
    return decode_value(cell.value)


def _consensus_of(row: StoredRow, prefix: bytes) -> int:
    try:
        return decode_hex16(row.key.removeprefix(prefix))
    except ValueError as e:
        raise RowDecodeError(f"{row.key!r}: not a backfill progress key") from e


def _decode_done(row: StoredRow) -> PeriodDone:
    return PeriodDone(
        _consensus_of(row, PERIOD_PREFIX),
        decode_u64(_payload(row, Q_BLOCK)),
        _payload(row, Q_BOOK),
        _payload(row, Q_AFTER),
    )


def _decode_checkpoint(row: StoredRow) -> BookCheckpoint:
    try:
        state = BookState.decode(_payload(row, Q_STATE))
    except CorruptFileError as e:
        raise RowDecodeError(f"{row.key!r}: {e}") from e
    return BookCheckpoint(_consensus_of(row, BOOK_PREFIX), _payload(row, Q_PRIOR), state)
