"""Every cell of the history tables, read back from Bigtable, in a form two copies can be compared in.

Reads go through the plain data client with no filter, so every version of every cell comes back
(row key, family, qualifier, timestamp, value): two copies are equal only if they hold exactly the
same cells, not merely the same latest values. Copies of the same history in one instance are told
apart by their table prefix (``Settings.table_prefix``).

    expected = history_cells(project, instance_id, "ref_")
    actual = history_cells(project, instance_id, "bf_")
    assert actual == expected, describe_difference(expected, actual)
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

from google.cloud.bigtable.data import BigtableDataClient, ReadRowsQuery
from hedera_history.store.schema import HISTORY_TABLES

Cell = tuple[bytes, str, bytes, int, bytes]
"""(row key, family, qualifier, timestamp in µs, value)."""
TableCells = dict[str, tuple[Cell, ...]]
"""Logical table name -> its cells in key, family, qualifier, newest-first timestamp order."""


def history_cells(
    project: str, instance_id: str, table_prefix: str, tables: Sequence[str] = HISTORY_TABLES
) -> TableCells:
    """Every cell (every version) of ``tables`` under ``table_prefix`` in the instance."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Connecting to Bigtable emulator", RuntimeWarning)
        client = BigtableDataClient(project=project)
    try:
        found: TableCells = {}
        for name in tables:
            table = client.get_table(instance_id, table_prefix + name)
            cells = [
                (bytes(row.row_key), cell.family, bytes(cell.qualifier), int(cell.timestamp_micros), bytes(cell.value))
                for row in table.read_rows(ReadRowsQuery())
                for cell in row.cells
            ]
            found[name] = tuple(sorted(cells, key=lambda c: (c[0], c[1], c[2], -c[3], c[4])))
        return found
    finally:
        client.close()


def cell_counts(cells: TableCells) -> dict[str, int]:
    return {table: len(found) for table, found in cells.items()}


def describe_difference(expected: TableCells, actual: TableCells, limit: int = 8) -> str:
    """A short readable account of how two copies differ (for assertion messages)."""
    lines: list[str] = []
    for table in sorted(set(expected) | set(actual)):
        want, got = set(expected.get(table, ())), set(actual.get(table, ()))
        missing, extra = sorted(want - got), sorted(got - want)
        if not missing and not extra:
            continue
        lines.append(f"{table}: {len(missing)} cell(s) missing, {len(extra)} unexpected")
        lines += [f"  missing {_show(cell)}" for cell in missing[:limit]]
        lines += [f"  unexpected {_show(cell)}" for cell in extra[:limit]]
    return "\n".join(lines) or "no difference"


def _show(cell: Cell) -> str:
    key, family, qualifier, timestamp, value = cell
    return f"{key!r} {family}:{qualifier!r} @{timestamp} ({len(value)} bytes)"
