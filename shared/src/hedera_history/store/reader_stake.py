"""The newest NodeStakeUpdate at or before a time, from the staking index (``store.stake_index``):
one ReadRows of the ``stake/`` range from the time (a few rows, for those an errata removed), then
the transaction its row points at. Only complete blocks count."""

from __future__ import annotations

from hedera_history.errors import RowDecodeError
from hedera_history.store import schema as s
from hedera_history.store.decode import StoredTransaction, decode_pointer_cell, guarded, history_entry
from hedera_history.store.gateway import KeyRange, RowQuery
from hedera_history.store.reader import HistoryReader
from hedera_history.store.stake_index import decode_stake_key, stake_range

_ROWS = 4


def newest_stake_update(
    reader: HistoryReader, at_ns: int | None = None
) -> tuple[StoredTransaction | None, list[RowDecodeError]]:
    start, end = stake_range(at_ns)
    errors: list[RowDecodeError] = []
    for row in reader.gateway.read_rows(s.ACCOUNT_HISTORY, RowQuery(ranges=(KeyRange(start, end),), limit=_ROWS)):
        try:
            entry = guarded(
                s.ACCOUNT_HISTORY, row, lambda r: history_entry(decode_stake_key(r.key), decode_pointer_cell(r))
            )
        except RowDecodeError as e:
            errors.append(e)
            continue
        if entry is None:
            continue
        found, read_errors = reader.transactions([entry])
        errors.extend(read_errors)
        if found:
            return found[0], errors
    return None, errors
