"""A scan of an index range of ``account_history`` in chunks: each row decoded to a value and the
entry it points at, kept when its block is complete (an errata's removal decodes to nothing), in
key order. For indexes whose pages are not a fixed number of rows (the airdrop and schedule
indexes fold several rows into one answer).

Indexes keyed by an entity's encoded id (schedules, the token list) are also read by id, grouped
(:func:`id_groups`). Newest first there are no reverse scans: the highest id is found by a binary
search of one-row, key-only reads, then the ids below it are scanned in windows that double, each
read in order and taken from its end."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

from hedera_history.errors import RowDecodeError
from hedera_history.store import schema as s
from hedera_history.store.decode import AccountHistoryEntry, StoredTransaction
from hedera_history.store.gateway import KeyRange, RowQuery, StoredRow
from hedera_history.store.reader import HistoryReader
from hedera_history.store.reader_entities import index_rows

T = TypeVar("T")
F = TypeVar("F")
CHUNK_ROWS = 500
"""Rows read per request."""
FIRST_WINDOW = 1 << 12
"""Ids a first window back from the top spans, newest first."""
MAX_ID = (1 << 64) - 2
IdRange = Callable[[int, int | None], tuple[bytes, bytes]]
"""``(low, high)`` -> ``[start, end)`` of an index's rows of ids in ``[low, high]`` (None: no end)."""
IdGroup = tuple[int, list[tuple[T, AccountHistoryEntry]]]
IdDecode = Callable[[StoredRow], tuple[tuple[int, T], AccountHistoryEntry] | None]
"""A row -> ``((id, value), entry)``, None when an errata removed it."""


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


def id_groups(
    reader: HistoryReader,
    id_range: IdRange,
    decode: IdDecode[T],
    low: int,
    high: int | None,
    errors: list[RowDecodeError],
    *,
    descending: bool = False,
) -> Iterator[IdGroup[T]]:
    """Each id in ``[low, high]`` with its rows, in id order (highest first when ``descending``)."""
    if high is not None and low > high:
        return
    if not descending:
        yield from _ascending(reader, id_range, decode, low, high, errors)
        return
    top = _highest(reader, id_range, low, MAX_ID if high is None else high)
    if top is None:
        return
    window = FIRST_WINDOW
    while top >= low:
        bottom = max(low, top - window + 1)
        yield from reversed(list(_ascending(reader, id_range, decode, bottom, top, errors)))
        top, window = bottom - 1, window * 2


def fold_page(
    groups: Iterable[IdGroup[T]],
    fold: Callable[[list[IdGroup[T]]], list[F]],
    accept: Callable[[F], bool],
    limit: int,
) -> tuple[list[F], bool]:
    """Up to ``limit`` of what ``fold`` makes of ``groups`` (a batch at a time, each batch one more
    than still wanted: the groups' transactions read together) that ``accept`` keeps, in order, and
    whether more follow."""
    kept: list[F] = []
    batch: list[IdGroup[T]] = []
    for group in groups:
        batch.append(group)
        if len(batch) < limit - len(kept) + 1:
            continue
        kept += [value for value in fold(batch) if accept(value)]
        batch = []
        if len(kept) > limit:
            break
    kept += [value for value in fold(batch) if accept(value)]
    return kept[:limit], len(kept) > limit


def group_transactions(
    reader: HistoryReader, groups: list[IdGroup[T]], errors: list[RowDecodeError]
) -> dict[int, StoredTransaction]:
    """The transactions the groups' rows point at (one request), by consensus time."""
    wanted = [entry for _, changes in groups for _, entry in changes]
    if not wanted:
        return {}
    transactions, read_errors = reader.transactions(wanted)
    errors.extend(read_errors)
    return {t.consensus_ns: t for t in transactions}


def _ascending(
    reader: HistoryReader,
    id_range: IdRange,
    decode: IdDecode[T],
    low: int,
    high: int | None,
    errors: list[RowDecodeError],
) -> Iterator[IdGroup[T]]:
    current: IdGroup[T] | None = None
    for (identity, value), entry in scan_index(reader, id_range(low, high), decode, errors):
        if current is None or current[0] != identity:
            if current is not None:
                yield current
            current = (identity, [])
        current[1].append((value, entry))
    if current is not None:
        yield current


def _highest(reader: HistoryReader, id_range: IdRange, low: int, high: int) -> int | None:
    """The highest id in ``[low, high]`` with a row: a binary search over one-row, key-only reads."""
    if not _any_in(reader, id_range, low, high):
        return None
    while low < high:
        middle = (low + high + 1) // 2
        if _any_in(reader, id_range, middle, high):
            low = middle
        else:
            high = middle - 1
    return low


def _any_in(reader: HistoryReader, id_range: IdRange, low: int, high: int) -> bool:
    start, end = id_range(low, high)
    query = RowQuery(ranges=(KeyRange(start, end),), key_only=True, limit=1)
    return any(True for _ in reader.gateway.read_rows(s.ACCOUNT_HISTORY, query))
