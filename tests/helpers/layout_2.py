"""Rows as layout 2 wrote them, to check that readers of layout 3 still find them.

Layout 3 changed only the keys of ``transactions`` and ``sidecars`` rows (a time bucket before the
time), of the system accounts' ``account_history`` rows (a bucket letter before the time) and the
completion cell's layout byte; ``tests/unit/store/test_rows_golden.py`` holds that nothing else
differs. So a block's layout-2 rows are its layout-3 rows with those keys taken back to the time
alone and the byte set to 2.
"""

from __future__ import annotations

from dataclasses import replace

from hedera_history.store import schema as s
from hedera_history.store.encoding import decode_value, encode_value
from hedera_history.store.keys import consensus_from_key, plain_account_history_key, plain_row_key_for_transaction
from hedera_history.store.model import BlockRows, Row
from hedera_history.store.values import decode_completion, encode_completion

TIME_KEYED = (s.TRANSACTIONS, s.SIDECARS)


def plain_key(key: bytes) -> bytes:
    """The key layout 2 gave the ``transactions`` or ``sidecars`` row keyed ``key`` in layout 3."""
    return plain_row_key_for_transaction(consensus_from_key(key))


def as_layout_2(built: BlockRows) -> BlockRows:
    """``built`` (layout 3) as layout 2 wrote it."""
    rows = tuple(_as_layout_2(r) for r in built.rows)
    return replace(built, rows=rows, completion=_completion_of_layout_2(built.completion))


def _as_layout_2(row: Row) -> Row:
    if row.table in TIME_KEYED:
        return replace(row, key=plain_key(row.key))
    if row.table == s.ACCOUNT_HISTORY:
        return replace(row, key=plain_account_history_key(row.key))
    return row


def _completion_of_layout_2(row: Row) -> Row:
    cells = []
    for cell in row.cells:
        if cell.family == s.BLOCK_COMPLETION_FAMILY and cell.qualifier == s.Q_COMPLETE:
            value = replace(decode_completion(decode_value(cell.value)), layout=2)
            cell = replace(cell, value=encode_value(encode_completion(value)))  # noqa: PLW2901
        cells.append(cell)
    return replace(row, cells=tuple(cells))
