"""A memory gateway that keeps, per cell, the version with the highest timestamp (as a read of
the latest version sees Bigtable): a write with a lower timestamp is hidden, an equal one replaces."""

from __future__ import annotations

from collections.abc import Sequence

from hedera_history.store.gateway import MutationFailure
from hedera_history.store.model import Row

from tests.unit.store.fakes import MemoryGateway


class VersionedGateway(MemoryGateway):
    def mutate_rows(self, table: str, rows: Sequence[Row]) -> list[MutationFailure]:
        self.mutate_calls.append((table, [r.key for r in rows]))
        for row in rows:
            stored = self.tables.setdefault(table, {}).setdefault(row.key, {})
            for cell in row.cells:
                existing = stored.get((cell.family, cell.qualifier))
                if existing is None or cell.timestamp_micros >= existing[0]:
                    stored[(cell.family, cell.qualifier)] = (cell.timestamp_micros, cell.value)
        return []
