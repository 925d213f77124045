"""Read paths of the entity index (``store.entity_index``): an account's or contract's creation and
changes up to a time, and the entities an alias or EVM address names. As on every read path, only
complete blocks count and rows an errata removed do not exist.

An entity's changes are one ReadRows of its ``entity/`` range from the time asked (newest first,
at most ``MAX_ENTITY_CHANGES`` rows), then the transactions they point at (one request, through
the pointers). An alias is one ReadRows of its ``alias/`` prefix and the completion of its blocks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from hedera_history.errors import RowDecodeError
from hedera_history.store import schema as s
from hedera_history.store.decode import (
    AccountHistoryEntry,
    StoredTransaction,
    decode_pointer_cell,
    guarded,
    history_entry,
)
from hedera_history.store.entity_index import (
    alias_prefix,
    decode_alias_key,
    decode_entity_change_key,
    entity_change_range,
)
from hedera_history.store.gateway import KeyRange, RowQuery, StoredRow
from hedera_history.store.keys import prefix_end
from hedera_history.store.reader import HistoryReader

T = TypeVar("T")
MAX_ENTITY_CHANGES = 100
"""Changes of one entity read at most (an account is updated a handful of times)."""
MAX_ALIAS_ROWS = 16


@dataclass(frozen=True, slots=True)
class EntityChanges:
    transactions: tuple[StoredTransaction, ...]
    """The entity's creation, updates and deletion at or before the time asked, newest first."""
    whole: bool
    """Every change up to that time was read (False: older ones were left out)."""
    errors: tuple[RowDecodeError, ...] = ()


def entity_changes(
    reader: HistoryReader, entity: str, at_ns: int | None = None, *, limit: int = MAX_ENTITY_CHANGES
) -> EntityChanges:
    """The transactions that created, updated or deleted ``entity`` at or before ``at_ns`` (None:
    up to now), newest first."""
    entries, read, errors = index_rows(reader, entity_change_range(entity, at_ns), limit, _decode_change)
    transactions, read_errors = reader.transactions(entries)
    return EntityChanges(tuple(transactions), read < limit, (*errors, *read_errors))


def entities_changes(
    reader: HistoryReader, entities: Sequence[str]
) -> tuple[dict[str, list[StoredTransaction]], list[RowDecodeError]]:
    """:func:`entity_changes` of several entities up to now, in one ReadRows of their ranges (at
    most ``MAX_ENTITY_CHANGES`` rows each on average) and one read of the transactions."""

    def decode(row: StoredRow) -> tuple[str, AccountHistoryEntry] | None:
        entity, consensus_ns = decode_entity_change_key(row.key)
        return pointed_value(row, entity, consensus_ns)

    ranges = sorted(entity_change_range(entity, None) for entity in set(entities))
    found, _, errors = index_rows_over(reader, ranges, MAX_ENTITY_CHANGES * len(ranges), decode)
    owner = {entry.consensus_ns: entity for entity, entry in found}
    transactions, read_errors = reader.transactions([entry for _, entry in found])
    changes: dict[str, list[StoredTransaction]] = {entity: [] for entity in entities}
    for transaction in transactions:
        changes[owner[transaction.consensus_ns]].append(transaction)
    return changes, [*errors, *read_errors]


def pointed_value(row: StoredRow, value: T, consensus_ns: int) -> tuple[T, AccountHistoryEntry] | None:
    """``(value, entry)`` of an index row whose key says ``value`` at ``consensus_ns``; None when an
    errata removed the row."""
    entry = history_entry(consensus_ns, decode_pointer_cell(row))
    return None if entry is None else (value, entry)


def index_rows(
    reader: HistoryReader, key_range: tuple[bytes, bytes], limit: int, decode: Callable[[StoredRow], T | None]
) -> tuple[list[T], int, list[RowDecodeError]]:
    """One ReadRows of ``account_history`` over ``[start, end)``, at most ``limit`` rows, each
    decoded (None: an errata removed it): the values, the rows read, the rows that do not decode."""
    return index_rows_over(reader, (key_range,), limit, decode)


def index_rows_over(
    reader: HistoryReader,
    key_ranges: Sequence[tuple[bytes, bytes]],
    limit: int,
    decode: Callable[[StoredRow], T | None],
) -> tuple[list[T], int, list[RowDecodeError]]:
    """:func:`index_rows` over several ``[start, end)`` ranges in one ReadRows, in key order."""
    query = RowQuery(ranges=tuple(KeyRange(start, end) for start, end in key_ranges), limit=limit)
    values: list[T] = []
    errors: list[RowDecodeError] = []
    read = 0
    for row in reader.gateway.read_rows(s.ACCOUNT_HISTORY, query):
        read += 1
        try:
            value = guarded(s.ACCOUNT_HISTORY, row, decode)
        except RowDecodeError as e:
            errors.append(e)
            continue
        if value is not None:
            values.append(value)
    return values, read, errors


def entities_with_alias(reader: HistoryReader, alias: bytes) -> list[str]:
    """The entities ``alias`` (a key's bytes, or a 20-byte EVM address) was given to, in complete
    blocks; empty when history records none."""
    prefix = alias_prefix(alias)
    query = RowQuery(ranges=(KeyRange(prefix, prefix_end(prefix)),), limit=MAX_ALIAS_ROWS)
    found: list[tuple[str, int]] = []
    for row in reader.gateway.read_rows(s.ACCOUNT_HISTORY, query):
        named = guarded(s.ACCOUNT_HISTORY, row, _decode_alias)
        if named is not None:
            found.append(named)
    complete = reader.complete_blocks(block for _, block in found)
    return [entity for entity, block in found if block in complete]


def _decode_change(row: StoredRow) -> AccountHistoryEntry | None:
    _, consensus_ns = decode_entity_change_key(row.key)
    return history_entry(consensus_ns, decode_pointer_cell(row))


def _decode_alias(row: StoredRow) -> tuple[str, int] | None:
    entity = decode_alias_key(row.key)
    pointer = decode_pointer_cell(row)
    return None if pointer is None else (entity, pointer.block_number)
