"""In-memory BigtableGateways with the emulator's semantics for what the store uses."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence

from hedera_history.errors import StoreError
from hedera_history.store.gateway import CellSwap, MutationFailure, RowQuery, StoredCell, StoredRow
from hedera_history.store.model import Row

Cells = dict[tuple[str, bytes], tuple[int, bytes]]


class MemoryGateway:
    def __init__(self, tables: Sequence[str] | None = None) -> None:
        self.tables: dict[str, dict[bytes, Cells]] = {}
        self.known_tables = set(tables) if tables is not None else None
        self.mutate_calls: list[tuple[str, list[bytes]]] = []
        self.batches: list[tuple[str, list[Row]]] = []
        self.read_queries: list[tuple[str, RowQuery]] = []
        self.fail_entry: Callable[[str, Row, int], MutationFailure | None] | None = None
        """Called per entry with (table, row, call number); a failure leaves the row unwritten."""

    def mutate_rows(self, table: str, rows: Sequence[Row]) -> list[MutationFailure]:
        if self.known_tables is not None and table not in self.known_tables:
            raise StoreError(f"table {table} not found")
        self.mutate_calls.append((table, [r.key for r in rows]))
        self.batches.append((table, list(rows)))
        call = len(self.mutate_calls)
        failures = []
        for index, row in enumerate(rows):
            failure = self.fail_entry(table, row, call) if self.fail_entry else None
            if failure is not None:
                failures.append(MutationFailure(index, failure.code, failure.message))
                continue
            stored = self.tables.setdefault(table, {}).setdefault(row.key, {})
            for cell in row.cells:
                stored[(cell.family, cell.qualifier)] = (cell.timestamp_micros, cell.value)
        return failures

    def read_rows(self, table: str, query: RowQuery) -> Iterator[StoredRow]:
        self.read_queries.append((table, query))
        rows = self.tables.get(table, {})
        if not query.keys and not query.ranges:
            return
        selected = set(k for k in query.keys if k in rows)
        for r in query.ranges:
            selected.update(k for k in rows if k >= r.start and (r.end is None or k < r.end))
        count = 0
        for key in sorted(selected):
            cells = []
            for (family, qualifier), (ts, value) in sorted(rows[key].items()):
                if query.families and family not in query.families:
                    continue
                if query.qualifier_regex is not None and not re.fullmatch(query.qualifier_regex, qualifier):
                    continue
                cells.append(StoredCell(family, qualifier, b"" if query.key_only else value, ts))
            if query.cells_per_row is not None:
                cells = cells[: query.cells_per_row]
            if not cells:
                continue
            yield StoredRow(key, tuple(cells))
            count += 1
            if query.limit is not None and count >= query.limit:
                return

    def close(self) -> None:
        pass

    def snapshot(self) -> dict[str, dict[bytes, Cells]]:
        return {t: {k: dict(c) for k, c in rows.items()} for t, rows in self.tables.items()}


class ConditionalMemoryGateway(MemoryGateway):
    """A :class:`MemoryGateway` that also compares and sets one cell, as CheckAndMutateRow does."""

    def check_and_set(self, table: str, key: bytes, swap: CellSwap) -> bool:
        cells = self.tables.setdefault(table, {}).setdefault(key, {})
        column = (swap.family, swap.qualifier)
        current = cells.get(column)
        if (current[1] if current else None) != swap.expected:
            return False
        cells[column] = (swap.timestamp_micros or 0, swap.value)
        return True
