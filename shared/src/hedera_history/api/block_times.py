"""Consensus-time conditions on blocks turned into block-number bounds.

Blocks are keyed by number, and a later block ends later, so "the first block ending at or after
T" is a bisection over the complete blocks (two single-row reads a step). The mirror node compares
a block's ``timestamp`` conditions with its consensus end (``timestamp.to``); so do we.
"""

from __future__ import annotations

from collections.abc import Sequence

from hedera_history.api.parse import MAX_I64, parse_timestamp
from hedera_history.api.query import operator
from hedera_history.store.reader import HistoryReader


class BlockClock:
    """Bisections over one reader's complete blocks, remembering the ends it has read."""

    def __init__(self, reader: HistoryReader) -> None:
        self._reader = reader
        self._ends: dict[int, int] = {}
        self._span: tuple[int, int] | None = None

    def _end(self, number: int) -> int:
        if number not in self._ends:
            block = self._reader.get_block(number)
            # A block that stopped being complete cannot happen (completion never goes back).
            self._ends[number] = block.consensus_end if block is not None else MAX_I64
        return self._ends[number]

    def span(self) -> tuple[int, int] | None:
        """(first, latest) complete block numbers; None when nothing is stored."""
        if self._span is None:
            first, latest = self._reader.first_available_block(), self._reader.latest_block()
            if first is None or latest is None:
                return None
            self._span = (first, latest)
        return self._span

    def first_ending_from(self, ns: int) -> int:
        """The lowest complete block number whose consensus end is at or after ``ns``; past the
        latest block when none ends that late."""
        span = self.span()
        if span is None:
            return 0
        low, high = span
        if self._end(high) < ns:
            return high + 1
        if self._end(low) >= ns:  # from the beginning: no bisection
            return low
        while low < high:
            middle = (low + high) // 2
            found = self._reader.blocks_ascending(middle, high, 1)
            number = found[0] if found else high
            if self._end(number) >= ns:
                high = number
            else:
                low = number + 1
        return high


def timestamp_block_bounds(
    clock: BlockClock, conditions: Sequence[str], low: int, high: int | None
) -> tuple[int, int | None]:
    """Narrow the inclusive block range ``[low, high]`` by ``timestamp`` conditions on block ends
    (``eq``, ``gt``, ``gte``, ``lt``, ``lte``); an empty range comes back with high < low."""
    for condition in conditions:
        op, value = operator(condition, "timestamp")
        ns = parse_timestamp(value, "timestamp")
        if op in ("gt", "gte", "eq"):
            low = max(low, clock.first_ending_from(ns + 1 if op == "gt" else ns))
        if op in ("lt", "lte", "eq"):
            bound = clock.first_ending_from(ns if op == "lt" else ns + 1) - 1
            high = bound if high is None else min(high, bound)
    return low, high
