"""Read path of the contract indexes (``store.contract_index``): the transactions holding a contract
result in a time range, and those a contract emitted logs in. As on every read path, only complete
blocks count and rows an errata removed do not exist. Newest first, a page is a scan from a time
(the results' 16 buckets merged); oldest first, the range asked is read whole and reversed (there
are no reverse scans)."""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
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
    if _empty(from_ns, before_ns):
        return ContractEntries((), False)
    ranges = contract_result_ranges(before_ns, from_ns)
    return _entries_page(reader, ranges, decode_contract_result_key, limit, descending)


def contract_log_entries(
    reader: HistoryReader, contract: str, from_ns: int, before_ns: int | None, limit: int, *, descending: bool = True
) -> ContractEntries:
    """Up to ``limit`` transactions ``contract`` emitted logs in, at or after ``from_ns`` and before
    ``before_ns`` (None: no end), newest first unless not ``descending``."""
    if _empty(from_ns, before_ns):
        return ContractEntries((), False)
    ranges = (contract_log_range(contract, before_ns, from_ns),)
    return _entries_page(reader, ranges, _log_consensus, limit, descending)


def _entries_page(
    reader: HistoryReader,
    ranges: Sequence[tuple[bytes, bytes]],
    consensus_of: Callable[[bytes], int],
    limit: int,
    descending: bool,
) -> ContractEntries:
    """The entries of the index ``ranges`` (each newest first), merged newest first."""

    def decode(row: StoredRow) -> tuple[int, AccountHistoryEntry] | None:
        consensus_ns = consensus_of(row.key)
        return pointed_value(row, consensus_ns, consensus_ns)

    errors: list[RowDecodeError] = []
    chunk = limit + 1 if descending else 500
    scans = [(entry for _, entry in scan_index(reader, r, decode, errors, chunk_rows=chunk)) for r in ranges]
    merged = heapq.merge(*scans, key=lambda entry: -entry.consensus_ns)
    found: list[AccountHistoryEntry] = []
    for entry in merged:
        found.append(entry)
        if descending and len(found) > limit:
            break
    ordered = found if descending else found[::-1]
    return ContractEntries(tuple(ordered[:limit]), len(ordered) > limit, tuple(errors))


def _empty(from_ns: int, before_ns: int | None) -> bool:
    return before_ns is not None and before_ns <= max(from_ns, 0)


def _log_consensus(key: bytes) -> int:
    return decode_contract_log_key(key).consensus_ns


__all__ = ["ContractEntries", "contract_log_entries", "contract_result_entries"]
