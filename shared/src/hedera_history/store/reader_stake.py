"""The newest NodeStakeUpdate at or before a time, from the staking index (``store.stake_index``):
one ReadRows of the ``stake/`` range from the time (a few rows, for those an errata removed), then
the transaction its row points at. Only complete blocks count."""

from __future__ import annotations

from hedera_history.errors import RowDecodeError
from hedera_history.store.decode import AccountHistoryEntry, StoredTransaction, decode_pointer_cell, history_entry
from hedera_history.store.gateway import StoredRow
from hedera_history.store.reader import HistoryReader
from hedera_history.store.reader_entities import index_rows
from hedera_history.store.stake_index import decode_stake_key, stake_range

_ROWS = 4


def newest_stake_update(
    reader: HistoryReader, at_ns: int | None = None
) -> tuple[StoredTransaction | None, list[RowDecodeError]]:
    entries, _, errors = index_rows(reader, stake_range(at_ns), _ROWS, _decode_stake_row)
    for entry in entries:
        found, read_errors = reader.transactions([entry])
        errors.extend(read_errors)
        if found:
            return found[0], errors
    return None, errors


def _decode_stake_row(row: StoredRow) -> AccountHistoryEntry | None:
    return history_entry(decode_stake_key(row.key), decode_pointer_cell(row))
