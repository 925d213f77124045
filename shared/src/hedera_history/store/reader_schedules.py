"""Read paths of the schedule index (``store.schedule_index``): a schedule's transactions, and pages
of schedules by id. As on every read path, only complete blocks count and rows an errata removed
do not exist.

One schedule is one scan of its rows, then its transactions (one request). A page in id order is
a scan from an id, its schedules' transactions read together a page at a time (more when a filter
leaves some out). Newest first there are no reverse scans: the highest id is found by a binary
search of one-row, key-only reads, then the ids below it are scanned in windows that double, each
read in order and taken from its end, until the page is full.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from hedera_history.errors import RowDecodeError
from hedera_history.store.decode import AccountHistoryEntry, StoredTransaction
from hedera_history.store.gateway import StoredRow
from hedera_history.store.index_scan import fold_page, group_transactions, id_groups
from hedera_history.store.reader import HistoryReader
from hedera_history.store.reader_entities import pointed_value
from hedera_history.store.schedule_index import CREATED, decode_schedule_key, schedules_range


@dataclass(frozen=True, slots=True)
class ScheduleHistory:
    schedule: int
    """The encoded schedule id."""
    changes: tuple[tuple[bytes, StoredTransaction], ...]
    """``(change, transaction)``, oldest first; the first is its creation."""


@dataclass(frozen=True, slots=True)
class SchedulePage:
    schedules: tuple[ScheduleHistory, ...]
    """In the order asked."""
    more: bool
    errors: tuple[RowDecodeError, ...] = ()


def schedule_history(reader: HistoryReader, schedule: int) -> tuple[ScheduleHistory | None, list[RowDecodeError]]:
    """The schedule's transactions, None when history holds no creation of it."""
    errors: list[RowDecodeError] = []
    groups = list(_groups(reader, schedule, schedule, errors))
    found = _histories(reader, groups, errors)
    return (found[0] if found else None), errors


def schedules_page(
    reader: HistoryReader,
    low: int,
    high: int | None,
    accept: Callable[[ScheduleHistory], bool],
    limit: int,
    *,
    descending: bool = False,
) -> SchedulePage:
    """Up to ``limit`` schedules with encoded ids in ``[low, high]`` (None: no end) that history
    holds the creation of and ``accept`` keeps."""
    errors: list[RowDecodeError] = []
    groups = _groups(reader, low, high, errors, descending=descending)
    kept, more = fold_page(groups, lambda batch: _histories(reader, batch, errors), accept, limit)
    return SchedulePage(tuple(kept), more, tuple(errors))


def _groups(
    reader: HistoryReader, low: int, high: int | None, errors: list[RowDecodeError], *, descending: bool = False
) -> Iterator[tuple[int, list[tuple[bytes, AccountHistoryEntry]]]]:
    """Each schedule in ``[low, high]`` with its changes' entries, in id order."""
    return id_groups(reader, schedules_range, _decode_change, low, high, errors, descending=descending)


def _histories(
    reader: HistoryReader,
    groups: list[tuple[int, list[tuple[bytes, AccountHistoryEntry]]]],
    errors: list[RowDecodeError],
) -> list[ScheduleHistory]:
    """The groups' transactions (one request), each group that starts with its creation."""
    by_time = group_transactions(reader, groups, errors)
    histories: list[ScheduleHistory] = []
    for schedule, changes in groups:
        found = tuple((change, by_time[e.consensus_ns]) for change, e in changes if e.consensus_ns in by_time)
        if found and found[0][0] == CREATED:
            histories.append(ScheduleHistory(schedule, found))
    return histories


def _decode_change(row: StoredRow) -> tuple[tuple[int, bytes], AccountHistoryEntry] | None:
    schedule, consensus_ns, change = decode_schedule_key(row.key)
    return pointed_value(row, (schedule, change), consensus_ns)
