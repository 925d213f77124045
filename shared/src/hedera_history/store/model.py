"""Rows as plain project data: what row building returns and what the writer and transports carry.

No Bigtable client type appears here; ``bigtable_client`` turns these into mutations.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Cell:
    """One cell: ``value`` already carries its encoding header (see ``store.encoding``)."""

    family: str
    qualifier: bytes
    value: bytes
    timestamp_micros: int


@dataclass(frozen=True, slots=True)
class Row:
    """The cells of one row of one table; ``table`` is the logical name (no deployment prefix)."""

    table: str
    key: bytes
    cells: tuple[Cell, ...]

    @property
    def size(self) -> int:
        """Approximate bytes on the wire, for batching."""
        return len(self.key) + sum([len(c.qualifier) + len(c.value) + 20 for c in self.cells])


@dataclass(frozen=True, slots=True)
class BlockRows:
    """Every row of one block, and the completion row that must be written after all of them."""

    block_number: int
    block_time_ns: int
    """Consensus time the cell timestamps come from (see ``store.chaintime``)."""
    rows: tuple[Row, ...]
    completion: Row
    undecodable_records: int = 0
    """Items whose record does not decode: stored (items, ``transactions`` pointer) but in no index."""

    @property
    def cell_count(self) -> int:
        return sum(len(row.cells) for row in self.rows)
