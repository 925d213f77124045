"""Read path of the contract indexes (``store.contract_index``): the transactions holding a contract
result in a time range, and those a contract emitted logs in. As on every read path, only complete
blocks count and rows an errata removed do not exist. Newest first, a page is a scan from a time
(the results' 16 buckets merged); oldest first, the range asked is read whole and reversed (there
are no reverse scans)."""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from dataclasses import dataclass

from hedera_history.errors import RowDecodeError
from hedera_history.store.contract_index import (
    contract_log_range,
    contract_result_ranges,
    decode_contract_log_key,
    decode_contract_result_key,
)
from hedera_history.store.decode import AccountHistoryEntry
from hedera_history.store.gateway import StoredRow
from hedera_history.store.index_scan import scan_index
from hedera_history.store.reader import HistoryReader
from hedera_history.store.reader_entities import pointed_value


@dataclass(frozen=True, slots=True)
class ContractEntries:
    """Entries pointing at records, in the order asked; ``more``: the range holds entries past them."""

    entries: tuple[AccountHistoryEntry, ...]
    more: bool
    errors: tuple[RowDecodeError, ...] = ()


def contract_result_entries(
    reader: HistoryReader, from_ns: int, before_ns: int | None, limit: int, *, descending: bool = True
) -> ContractEntries:
    """Up to ``limit`` transactions holding a contract result at or after ``from_ns`` and before
    ``before_ns`` (None: no end), newest first unless not ``descending``."""
    errors: list[RowDecodeError] = []
    if before_ns is not None and before_ns <= max(from_ns, 0):
        return ContractEntries((), False)
    chunk = limit + 1 if descending else 500
    scans = [
        _entries(scan_index(reader, key_range, _decode_result, errors, chunk_rows=chunk))
        for key_range in contract_result_ranges(before_ns, from_ns)
    ]
    merged = heapq.merge(*scans, key=lambda entry: -entry.consensus_ns)
    return _page(merged, limit, descending, errors)


def contract_log_entries(
    reader: HistoryReader, contract: str, from_ns: int, before_ns: int | None, limit: int, *, descending: bool = True
) -> ContractEntries:
    """Up to ``limit`` transactions ``contract`` emitted logs in, at or after ``from_ns`` and before
    ``before_ns`` (None: no end), newest first unless not ``descending``."""
    errors: list[RowDecodeError] = []
    if before_ns is not None and before_ns <= max(from_ns, 0):
        return ContractEntries((), False)
    chunk = limit + 1 if descending else 500
    scan = _entries(
        scan_index(reader, contract_log_range(contract, before_ns, from_ns), _decode_log, errors, chunk_rows=chunk)
    )
    return _page(scan, limit, descending, errors)


def _page(
    entries: Iterator[AccountHistoryEntry], limit: int, descending: bool, errors: list[RowDecodeError]
) -> ContractEntries:
    found: list[AccountHistoryEntry] = []
    for entry in entries:
        found.append(entry)
        if descending and len(found) > limit:
            break
    ordered = found if descending else found[::-1]
    return ContractEntries(tuple(ordered[:limit]), len(ordered) > limit, tuple(errors))


def _entries(scan: Iterator[tuple[int, AccountHistoryEntry]]) -> Iterator[AccountHistoryEntry]:
    return (entry for _, entry in scan)


def _decode_result(row: StoredRow) -> tuple[int, AccountHistoryEntry] | None:
    consensus_ns = decode_contract_result_key(row.key)
    return pointed_value(row, consensus_ns, consensus_ns)


def _decode_log(row: StoredRow) -> tuple[int, AccountHistoryEntry] | None:
    consensus_ns = decode_contract_log_key(row.key).consensus_ns
    return pointed_value(row, consensus_ns, consensus_ns)


__all__ = ["ContractEntries", "contract_log_entries", "contract_result_entries"]
