"""Transactions of blocks stored unsigned (``HEDERA_HISTORY_UNSIGNED_BLOCKS``: a pre-TSS placeholder
proof, nothing signs them) say so: ``"unsigned": true`` beyond the reference's fields (docs/api.md),
as their block's answer does (``render.render_block``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from hedera_history.api.render import UNSIGNED
from hedera_history.store.reader import HistoryReader


def mark_unsigned(reader: HistoryReader, transactions: Iterable[dict[str, Any]]) -> None:
    """Set ``unsigned`` on the rendered transactions (of complete blocks) whose block is unsigned."""
    listed = list(transactions)
    unsigned = reader.unsigned_blocks({t["block_number"] for t in listed})
    for transaction in listed:
        if transaction["block_number"] in unsigned:
            transaction[UNSIGNED] = True
