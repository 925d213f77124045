"""Store fixtures on the Bigtable emulator: declared tables, a gateway, a writer and a reader."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from hedera_history.config import Settings
from hedera_history.store.bigtable_client import BigtableDataGateway, gateway_for_instance
from hedera_history.store.gateway import KeyRange, RowQuery
from hedera_history.store.reader import HistoryReader
from hedera_history.store.schema import HISTORY_TABLES, ensure_tables
from hedera_history.store.writer import BlockWriter

Snapshot = dict[str, dict[bytes, tuple[tuple[str, bytes, bytes, int], ...]]]


@dataclass
class Store:
    instance: Any
    settings: Settings
    gateway: BigtableDataGateway
    writer: BlockWriter
    reader: HistoryReader

    def snapshot(self, tables: tuple[str, ...] = HISTORY_TABLES) -> Snapshot:
        """Every cell of ``tables`` with its timestamp."""
        everything = RowQuery(ranges=(KeyRange(),))
        return {
            table: {
                row.key: tuple((c.family, c.qualifier, c.value, c.timestamp_micros) for c in row.cells)
                for row in self.gateway.read_rows(table, everything)
            }
            for table in tables
        }


@pytest.fixture
def store(bigtable_instance: Any) -> Iterator[Store]:
    settings = Settings.from_env({}, table_prefix="t_")
    ensure_tables(bigtable_instance, settings)
    gateway = gateway_for_instance(bigtable_instance, settings)
    yield Store(bigtable_instance, settings, gateway, BlockWriter(gateway, settings), HistoryReader(gateway))
    gateway.close()
