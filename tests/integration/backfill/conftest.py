"""Backfill fixtures: one local Spark session, a 50-period generated stream, and the cells the
single-process path (``verify_stream`` + ``BlockWriter``, the streaming ``store`` function's row
builder and writer) writes for it, to compare every backfill against.

Every copy of the history lives in one emulator instance under its own table prefix.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from hedera_history.backfill.driver import run_backfill
from hedera_history.backfill.partition_messages import BackfillJob
from hedera_history.backfill.report import BackfillReport
from hedera_history.books.parse import parse_address_book
from hedera_history.config import Settings
from hedera_history.formats.stream_paths import BucketLayout
from hedera_history.gen import GeneratedStream, GeneratorConfig, generate_stream, tamper, write_stream
from hedera_history.sources.base import open_source
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.sources.period_files import StreamLocation
from hedera_history.store.bigtable_client import gateway_for_instance
from hedera_history.store.schema import ensure_tables
from hedera_history.store.writer import BlockWriter
from hedera_history.verify.stream import verify_stream

from tests.fixtures.emulators import PROJECT, unique_name
from tests.helpers.bigtable_cells import TableCells, history_cells

PERIODS = 50
CORRUPT_PERIOD = 17
"""Every node's record copy of this period is damaged: it can never verify."""
STREAM = GeneratorConfig(nodes=4, periods=PERIODS, transactions=8, seed=21)


@pytest.fixture(scope="session")
def spark(bigtable_emulator: Any, gcs_emulator: Any, s3_server: Any) -> Iterator[Any]:
    """``local[2]``, started after the emulators so its Python workers inherit their variables."""
    from hedera_history.backfill.spark import spark_session  # noqa: PLC0415

    session = spark_session("2")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def stream() -> GeneratedStream:
    """4 nodes, 50 blocks of 8 items, sidecars, node 0.0.3's key rotated in block 25."""
    return generate_stream(STREAM)


@pytest.fixture(scope="session")
def corrupt_stream(stream: GeneratedStream) -> GeneratedStream:
    damaged = stream
    for node in stream.nodes:
        damaged = tamper(damaged, node.node_id, CORRUPT_PERIOD)
    return damaged


def _written(stream: GeneratedStream, folder: Path) -> Path:
    write_stream(stream, folder)
    return folder


@pytest.fixture(scope="session")
def stream_dir(stream: GeneratedStream, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _written(stream, tmp_path_factory.mktemp("backfill-stream"))


@pytest.fixture(scope="session")
def corrupt_stream_dir(corrupt_stream: GeneratedStream, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _written(corrupt_stream, tmp_path_factory.mktemp("backfill-corrupt-stream"))


@dataclass
class History:
    """One emulator instance holding several copies of the history, one per table prefix."""

    instance: Any
    stream: GeneratedStream

    def settings(self, prefix: str) -> Settings:
        return Settings.from_env(project=PROJECT, bigtable_instance=self.instance.instance_id, table_prefix=prefix)

    def create(self, prefix: str) -> Settings:
        settings = self.settings(prefix)
        ensure_tables(self.instance, settings)
        return settings

    def cells(self, prefix: str) -> TableCells:
        return history_cells(PROJECT, self.instance.instance_id, prefix)

    def write_single_process(self, folder: Path, prefix: str) -> TableCells:
        """What the streaming path's verification, row builder and writer write for ``folder``."""
        settings = self.create(prefix)
        results = verify_stream(find_local_periods(folder), parse_address_book(self.stream.address_book))
        gateway = gateway_for_instance(self.instance, settings)
        try:
            written = BlockWriter(gateway, settings).write_blocks(r.report.block for r in results if r.report.block)
        finally:
            gateway.close()
        assert all(w.complete for w in written)
        return self.cells(prefix)

    def job(self, source_url: str, prefix: str, **changes: Any) -> BackfillJob:
        settings = self.create(prefix)
        first = self.stream.periods[0].record_name.consensus_ns
        last = self.stream.periods[-1].record_name.consensus_ns
        job = BackfillJob(
            source_url=source_url,
            location=StreamLocation(BucketLayout.ACCOUNT),
            settings=settings,
            book=self.stream.address_book,
            start_ns=first,
            end_ns=last + 1,
            partitions=6,
        )
        return replace(job, **changes)

    def backfill(self, spark: Any, job: BackfillJob) -> BackfillReport:
        from hedera_history.backfill.spark import spark_executor  # noqa: PLC0415

        gateway = gateway_for_instance(self.instance, job.settings)
        try:
            source = open_source(job.source_url, job.settings)
            return run_backfill(job, spark_executor(spark, job), gateway=gateway, source=source)
        finally:
            gateway.close()


@pytest.fixture(scope="session")
def history(bigtable_client: Any, stream: GeneratedStream) -> Iterator[History]:
    instance = bigtable_client.instance(unique_name("backfill"))
    yield History(instance, stream)
    for table in instance.list_tables():
        table.delete()


@pytest.fixture(scope="session")
def reference_cells(history: History, stream_dir: Path) -> TableCells:
    return history.write_single_process(stream_dir, "ref_")


@pytest.fixture(scope="session")
def corrupt_reference_cells(history: History, corrupt_stream_dir: Path) -> TableCells:
    return history.write_single_process(corrupt_stream_dir, "ref_corrupt_")
