"""Reading the time-keyed tables (``transactions``, ``sidecars``) in both key forms.

Layout 3 keys these rows ``<bucket>/<time>`` (``keys.row_key_for_transaction``); layouts 1 and 2
keyed them by the time alone, and those rows stay where they are. So every read asks for both:
a lookup by time reads the two keys it can be under (one request), a time range reads the 16
bucket ranges and the plain range (one ReadRows of 17 ranges) and merges them by time.

When both rows of one time exist (a block of layout 2 written again by layout 3), the plain row
is the entry: an errata corrects an entry in the row it found it in (``errata.cell_changes``),
so the plain row is the one that carries a correction made before the block was written again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from hedera_history.errors import RowLayoutError
from hedera_history.store.gateway import BigtableGateway, KeyRange, RowQuery, StoredRow, chunks
from hedera_history.store.keys import (
    MAX_U64,
    TIME_BUCKETS,
    bucket_prefix,
    consensus_from_key,
    hex16,
    is_plain_time_key,
    plain_row_key_for_transaction,
    prefix_end,
    row_key_for_transaction,
)

TIMES_PER_REQUEST = 250
"""Consensus times per lookup request (two keys each)."""


def keys_at(consensus_ns: int) -> tuple[bytes, bytes]:
    """The two keys a row of this time may be under: layout 3's, then layouts 1 and 2's."""
    return row_key_for_transaction(consensus_ns), plain_row_key_for_transaction(consensus_ns)


def time_ranges(low: int, high: int | None) -> tuple[KeyRange, ...]:
    """Key ranges of every row with ``low <= time < high`` (``high`` None: no end): one per
    bucket and the plain range. The plain range may also hold bucketed keys (``3/…`` sorts
    between ``2f…`` and ``30…``): ``merged_by_time`` drops what lies outside the times asked."""
    low = max(low, 0)
    if low > MAX_U64 or (high is not None and high <= low):
        return ()
    bounded = high is not None and high <= MAX_U64
    ranges = []
    for bucket in range(TIME_BUCKETS):
        prefix = bucket_prefix(bucket)
        end = prefix + hex16(high) if bounded and high is not None else prefix_end(prefix)
        ranges.append(KeyRange(prefix + hex16(low), end))
    ranges.append(KeyRange(hex16(low), hex16(high) if bounded and high is not None else None))
    return tuple(ranges)


def merged_by_time(rows: Iterable[StoredRow], low: int = 0, high: int | None = None) -> list[StoredRow]:
    """One row per time (the plain one when both exist) with ``low <= time < high``, in time
    order. A row whose key is no time key is kept (last) for its decoder to report."""
    found, unreadable = one_per_time(rows)
    return [found[ns] for ns in sorted(found) if ns >= low and (high is None or ns < high)] + unreadable


def one_per_time(
    rows: Iterable[StoredRow],
    time_of: Callable[[bytes], int] = consensus_from_key,
    is_plain: Callable[[bytes], bool] = is_plain_time_key,
) -> tuple[dict[int, StoredRow], list[StoredRow]]:
    """The row of each time (the plain one when both exist), and the rows whose key is no time key
    (``time_of`` raises RowLayoutError)."""
    found: dict[int, StoredRow] = {}
    unreadable: list[StoredRow] = []
    for row in rows:
        try:
            consensus_ns = time_of(row.key)
        except RowLayoutError:
            unreadable.append(row)
            continue
        if consensus_ns not in found or is_plain(row.key):
            found[consensus_ns] = row
    return found, unreadable


def read_between(
    gateway: BigtableGateway,
    table: str,
    low: int,
    high: int | None,
    *,
    families: tuple[str, ...] = (),
    qualifier_regex: bytes | None = None,
) -> list[StoredRow]:
    """The rows of ``table`` with ``low <= time < high``, one per time, in time order: one ReadRows."""
    ranges = time_ranges(low, high)
    if not ranges:
        return []
    query = RowQuery(ranges=ranges, families=families, qualifier_regex=qualifier_regex)
    return merged_by_time(gateway.read_rows(table, query), low, high)


def read_at(
    gateway: BigtableGateway,
    table: str,
    times: Iterable[int],
    *,
    families: tuple[str, ...] = (),
    qualifier_regex: bytes | None = None,
) -> dict[int, StoredRow]:
    """The row of each time that has one (either key form), one request per chunk of times."""
    found: dict[int, StoredRow] = {}
    for chunk in chunks(sorted(set(times)), TIMES_PER_REQUEST):
        keys = tuple(key for ns in chunk for key in keys_at(ns))
        query = RowQuery(keys=tuple(sorted(keys)), families=families, qualifier_regex=qualifier_regex)
        rows, _ = one_per_time(gateway.read_rows(table, query))  # only keys asked for come back
        found.update(rows)
    return found


def read_one(
    gateway: BigtableGateway,
    table: str,
    consensus_ns: int,
    *,
    families: tuple[str, ...] = (),
    qualifier_regex: bytes | None = None,
) -> StoredRow | None:
    """The row of one time, under either key form (one request)."""
    return read_at(gateway, table, (consensus_ns,), families=families, qualifier_regex=qualifier_regex).get(
        consensus_ns
    )
