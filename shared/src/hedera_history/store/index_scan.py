"""A scan of an index range of ``account_history`` in chunks: each row decoded to a value and the
entry it points at, kept when its block is complete (an errata's removal decodes to nothing), in
key order. For indexes whose pages are not a fixed number of rows (the airdrop and schedule
indexes fold several rows into one answer)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TypeVar

from hedera_history.errors import RowDecodeError
from hedera_history.store.decode import AccountHistoryEntry
from hedera_history.store.gateway import StoredRow
from hedera_history.store.reader import HistoryReader
from hedera_history.store.reader_entities import index_rows

T = TypeVar("T")
CHUNK_ROWS = 500
"""Rows read per request."""


def scan_index(
    reader: HistoryReader,
    key_range: tuple[bytes, bytes],
    decode: Callable[[StoredRow], tuple[T, AccountHistoryEntry] | None],
    errors: list[RowDecodeError],
    *,
    chunk_rows: int = CHUNK_ROWS,
) -> Iterator[tuple[T, AccountHistoryEntry]]:
    """The rows of ``[start, end)`` in complete blocks, decoded, in key order; rows that do not
    decode are added to ``errors`` and left out."""

    def keyed(row: StoredRow) -> tuple[bytes, tuple[T, AccountHistoryEntry] | None]:
        return row.key, decode(row)

    start, end = key_range
    while start < end:
        rows, read, chunk_errors = index_rows(reader, (start, end), chunk_rows, keyed)
        errors.extend(chunk_errors)
        decoded = [value for _, value in rows if value is not None]
        complete = reader.complete_blocks(entry.block_number for _, entry in decoded)
        yield from (value for value in decoded if value[1].block_number in complete)
        if read < chunk_rows or not rows:
            return
        start = rows[-1][0] + b"\x00"
