"""The deployed ``query`` function (functions/query/main.py) as a Flask test client on the Bigtable
emulator, and a stream verified and written into the tables it reads."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import functions_framework
import pytest
from hedera_history.block import VerifiedBlock
from hedera_history.books.parse import parse_address_book
from hedera_history.config import Settings
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.store.bigtable_client import BigtableDataGateway, gateway_for_instance
from hedera_history.store.schema import ensure_tables
from hedera_history.store.writer import BlockWriter
from hedera_history.verify.stream import verify_stream

from tests.fixtures.emulators import PROJECT

QUERY_SOURCE = Path(__file__).resolve().parents[2] / "functions" / "query" / "main.py"


@contextmanager
def query_client(instance_id: str, table_prefix: str) -> Iterator[Any]:
    """The query function reading ``instance_id``'s tables named with ``table_prefix``."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GOOGLE_CLOUD_PROJECT", PROJECT)
        patch.setenv("HEDERA_HISTORY_BIGTABLE_INSTANCE", instance_id)
        patch.setenv("HEDERA_HISTORY_TABLE_PREFIX", table_prefix)
        yield functions_framework.create_app(target="query", source=str(QUERY_SOURCE)).test_client()


@contextmanager
def written_store(instance: Any, settings: Settings, blocks: Sequence[VerifiedBlock]) -> Iterator[BigtableDataGateway]:
    """A gateway to ``instance``'s tables (made, named by ``settings``) holding ``blocks``, each
    complete; every table of the instance deleted at the end."""
    ensure_tables(instance, settings)
    gateway = gateway_for_instance(instance, settings)
    try:
        assert all(r.complete for r in BlockWriter(gateway, settings).write_blocks(list(blocks)))
        yield gateway
    finally:
        gateway.close()
        for table in instance.list_tables():
            with suppress(Exception):
                table.delete()


def write_verified_blocks(instance: Any, settings: Settings, periods: Path, address_book: bytes) -> list[VerifiedBlock]:
    """Create the tables, verify the periods under ``periods`` against ``address_book`` and write
    every block that verified; each must complete. The blocks written."""
    ensure_tables(instance, settings)
    book = parse_address_book(address_book)
    blocks = [r.report.block for r in verify_stream(find_local_periods(periods), book) if r.ok and r.report.block]
    gateway = gateway_for_instance(instance, settings)
    try:
        assert all(r.complete for r in BlockWriter(gateway, settings).write_blocks(blocks))
    finally:
        gateway.close()
    return blocks
