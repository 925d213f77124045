"""Reading ``account_history`` in both key forms, newest first.

A system account's rows (``keys.has_bucketed_history``: the fee collector and reward accounts are
in nearly every transaction) are keyed ``<account>/<bucket letter><inverted time>`` from layout 3,
so their writes spread over 16 ranges; rows written before are plain, ``<account>/<inverted
time>``, in a range of their own before the buckets. Every other account has one range, one
request a page, as before.

Bigtable's row limit holds for a whole ReadRows, not for each of its ranges, so a system account's
page is read in a window of time: one ReadRows of the plain range and the 16 bucket ranges, each
cut to the times of the window (the inverted-time keys make "newer than T" a key range). Every row
newer than the window's start is read, so when the window holds a page, its newest page is the
newest page overall. The window is as long as the account's last page took, twice over
(:class:`AccountPaces`); when it holds less than a page, when it would read more rows than the
ranges read to the page size could, or when nothing is known of the account yet, the page is read
from every range to the page size, one request each, sent together: a second round, sure to finish.

When both rows of one time exist (a layout-2 block written again by layout 3), the plain row is
the entry, as in ``store.time_rows``: an errata corrects the row the entry was found in.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
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

WINDOW_MARGIN = 2
"""A window is this many times the time a page of the account's rows took when last read, so a
page's worth of rows arriving a little slower still fills it."""
RANGES = 1 + TIME_BUCKETS
"""A system account's key ranges: the plain one and one per bucket."""
REMEMBERED_ACCOUNTS = 4096
"""Accounts whose pace a reader keeps (system accounts only: at most 1000 a realm)."""


def newest_rows(
    gateway: BigtableGateway,
    account: str,
    before: int | None,
    until: int | None,
    want: int,
    paces: AccountPaces | None = None,
) -> list[StoredRow]:
    """Up to ``want`` of ``account``'s rows with ``until < time < before``, newest first, one per
    time: fewer only when there are no more. A row whose key does not decode comes last (its
    decoder reports it). ``paces`` (kept by the caller from page to page) lets a system account's
    page be one request; without it, or when the window falls short, each range is one request."""
    ranges = _key_ranges(account, before, until)
    if len(ranges) <= 1:
        return [row for key_range in ranges for row in _read(gateway, key_range, want)]
    window = None if paces is None else paces.window(account, before, until, want)
    merged = None if window is None else _read_window(gateway, account, before, window, want)
    if merged is None:
        answers = _pool().map(lambda key_range: _read(gateway, key_range, want), ranges)
        merged = _merged([row for answer in answers for row in answer])
    rows, times = merged
    if paces is not None:
        paces.learn(account, before, times[:want])
    return rows[:want]


def merged_newest_first(rows: list[StoredRow]) -> list[StoredRow]:
    """One row per time (the plain one when both exist), newest first; rows whose key is no
    history key last."""
    return _merged(rows)[0]


def _merged(rows: list[StoredRow]) -> tuple[list[StoredRow], list[int]]:
    """:func:`merged_newest_first`, and the times of its rows whose keys decode (they come first)."""
    found, unreadable = one_per_time(rows, _time_of, is_plain_account_history_key)
    times = sorted(found, reverse=True)
    return [found[ns] for ns in times] + unreadable, times


@dataclass(frozen=True, slots=True)
class Pace:
    """What the last page of one account showed."""

    newest_ns: int | None
    """The newest time seen of the account (where a page without ``before`` starts its window)."""
    spacing_ns: int
    """The time between two of its rows, on average over that page."""


class AccountPaces:
    """How fast each system account's rows came in the page last read of it, so that the next
    page's window is long enough to hold a page and short enough to read little more. A reader keeps
    one for its life; it only sizes windows, so what it holds never changes an answer."""

    def __init__(self, capacity: int = REMEMBERED_ACCOUNTS) -> None:
        self._capacity = capacity
        self._paces: OrderedDict[str, Pace] = OrderedDict()
        self._lock = threading.Lock()

    def window(self, account: str, before: int | None, until: int | None, want: int) -> Window | None:
        """The window of ``account``'s next page (None: nothing known, read every range)."""
        with self._lock:
            pace = self._paces.get(account)
        if pace is None:
            return None
        newest = before if before is not None else pace.newest_ns
        if newest is None:
            return None
        start = newest - want * pace.spacing_ns * WINDOW_MARGIN
        if start < 0 or (until is not None and start <= until):
            return Window(until, reaches_bound=True)
        return Window(start, reaches_bound=False)

    def learn(self, account: str, before: int | None, times: Sequence[int]) -> None:
        """Remember the pace of a page (its times newest first) read with ``before``."""
        with self._lock:
            known = self._paces.get(account)
            newest = None if known is None else known.newest_ns
            if before is None and times:
                newest = times[0] if newest is None else max(newest, times[0])
            if len(times) >= 2:
                spacing = max(1, (times[0] - times[-1]) // (len(times) - 1))
            elif known is not None:
                spacing = known.spacing_ns
            else:
                return  # a page of one row or none says nothing of the account's pace
            self._paces[account] = Pace(newest, spacing)
            self._paces.move_to_end(account)
            while len(self._paces) > self._capacity:
                self._paces.popitem(last=False)


@dataclass(frozen=True, slots=True)
class Window:
    """The times ``start < time < before`` a page is first read in."""

    start: int | None
    reaches_bound: bool
    """Whether ``start`` is the page's own ``until`` (or the beginning of time): then what the
    window holds is all there is, even if it is less than a page."""


def _read_window(
    gateway: BigtableGateway, account: str, before: int | None, window: Window, want: int
) -> tuple[list[StoredRow], list[int]] | None:
    """The window's rows merged (:func:`_merged`) when they hold the newest ``want`` (one
    ReadRows), else None. The request reads at most as many rows as every range read to the page
    size could."""
    ranges = _key_ranges(account, before, window.start)
    cap = RANGES * want
    rows = list(gateway.read_rows(s.ACCOUNT_HISTORY, RowQuery(ranges=tuple(ranges), limit=cap)))
    if len(rows) >= cap:
        return None  # the limit may have cut the later buckets off: not every row of the window came
    merged = _merged(rows)
    if window.reaches_bound or len(merged[1]) >= want:
        return merged
    return None


def _key_ranges(account: str, before: int | None, until: int | None) -> list[KeyRange]:
    return [KeyRange(start, end) for start, end in account_history_ranges(account, before, until) if start < end]


def _read(gateway: BigtableGateway, key_range: KeyRange, want: int) -> list[StoredRow]:
    return list(gateway.read_rows(s.ACCOUNT_HISTORY, RowQuery(ranges=(key_range,), limit=want)))


def _time_of(key: bytes) -> int:
    return decode_account_history_key(key)[1]


@cache
def _pool() -> ThreadPoolExecutor:
    """Threads that send a page's range requests together (one per range)."""
    return ThreadPoolExecutor(max_workers=RANGES, thread_name_prefix="account-history")
