"""Reading ``account_history`` in both key forms, newest first.

A system account's rows (``keys.has_bucketed_history``: the fee collector and reward accounts are
in nearly every transaction) are keyed ``<account>/<bucket letter><inverted time>`` from layout 3,
so their writes spread over 16 ranges; rows written before are plain, ``<account>/<inverted
time>``, in a range of their own before the buckets. A page reads every range to the page size and
merges them by time. Bigtable's row limit holds for a whole ReadRows, not for each of its ranges,
so each range is one request, sent together. Every other account has one range, as before.

When both rows of one time exist (a layout-2 block written again by layout 3), the plain row is
the entry, as in ``store.time_rows``: an errata corrects the row the entry was found in.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from functools import cache

from hedera_history.store import schema as s
from hedera_history.store.gateway import BigtableGateway, KeyRange, RowQuery, StoredRow
from hedera_history.store.keys import (
    TIME_BUCKETS,
    account_history_ranges,
    decode_account_history_key,
    is_plain_account_history_key,
)
from hedera_history.store.time_rows import one_per_time


def newest_rows(
    gateway: BigtableGateway, account: str, before: int | None, until: int | None, want: int
) -> list[StoredRow]:
    """Up to ``want`` of ``account``'s rows with ``until < time < before``, newest first, one per
    time: fewer only when there are no more. A row whose key does not decode comes last (its
    decoder reports it)."""
    ranges = [KeyRange(start, end) for start, end in account_history_ranges(account, before, until) if start < end]

    def read(key_range: KeyRange) -> list[StoredRow]:
        return list(gateway.read_rows(s.ACCOUNT_HISTORY, RowQuery(ranges=(key_range,), limit=want)))

    if len(ranges) == 1:
        return read(ranges[0])
    return merged_newest_first([row for answer in _pool().map(read, ranges) for row in answer])[:want]


def merged_newest_first(rows: list[StoredRow]) -> list[StoredRow]:
    """One row per time (the plain one when both exist), newest first; rows whose key is no
    history key last."""
    found, unreadable = one_per_time(rows, _time_of, is_plain_account_history_key)
    return [found[ns] for ns in sorted(found, reverse=True)] + unreadable


def _time_of(key: bytes) -> int:
    return decode_account_history_key(key)[1]


@cache
def _pool() -> ThreadPoolExecutor:
    """Threads that send a page's range requests together (one per range)."""
    return ThreadPoolExecutor(max_workers=TIME_BUCKETS + 1, thread_name_prefix="account-history")
