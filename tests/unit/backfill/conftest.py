"""A small generated stream on disk and an in-process backfill over it (no Spark, no emulator)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from hedera_history.backfill.driver import run_backfill, run_in_process
from hedera_history.backfill.partition_messages import BackfillJob
from hedera_history.backfill.report import BackfillReport
from hedera_history.books.parse import parse_address_book
from hedera_history.config import Settings
from hedera_history.formats.stream_paths import BucketLayout
from hedera_history.gen import GeneratedStream, GeneratorConfig, generate_stream, write_stream
from hedera_history.sources.local import LocalSource
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.sources.period_files import StreamLocation
from hedera_history.store.schema import HISTORY_TABLES
from hedera_history.store.writer import BlockWriter
from hedera_history.verify.stream import verify_stream

from tests.unit.store.fakes import MemoryGateway

SMALL = GeneratorConfig(nodes=4, periods=12, transactions=6, seed=4)
"""Blocks 0-11; node 0.0.3's key rotates in block 6 (new book from block 7)."""


def history_of(gateway: MemoryGateway) -> dict[str, Any]:
    return {table: rows for table, rows in gateway.snapshot().items() if table in HISTORY_TABLES}


def written_single_process(folder: Path, stream: GeneratedStream) -> MemoryGateway:
    gateway = MemoryGateway()
    results = verify_stream(find_local_periods(folder), parse_address_book(stream.address_book))
    BlockWriter(gateway, Settings()).write_blocks(r.report.block for r in results if r.report.block)
    return gateway


@pytest.fixture(scope="session")
def small_stream() -> GeneratedStream:
    return generate_stream(SMALL)


@pytest.fixture(scope="session")
def small_dir(small_stream: GeneratedStream, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("small-stream")
    write_stream(small_stream, folder)
    return folder


@pytest.fixture(scope="session")
def small_reference(small_stream: GeneratedStream, small_dir: Path) -> dict[str, Any]:
    return history_of(written_single_process(small_dir, small_stream))


@dataclass
class InProcess:
    """Backfills of one stream folder into one in-memory Bigtable."""

    stream: GeneratedStream
    folder: Path
    gateway: MemoryGateway

    def job(self, **changes: Any) -> BackfillJob:
        periods = self.stream.periods
        job = BackfillJob(
            source_url=str(self.folder),
            location=StreamLocation(BucketLayout.ACCOUNT),
            settings=Settings(),
            book=self.stream.address_book,
            start_ns=periods[0].record_name.consensus_ns,
            end_ns=periods[-1].record_name.consensus_ns + 1,
            partitions=4,
        )
        return replace(job, **changes)

    def run(self, job: BackfillJob | None = None, **changes: Any) -> BackfillReport:
        chosen = job or self.job(**changes)
        source = LocalSource(self.folder)
        return run_backfill(
            chosen, run_in_process(chosen, source=source, gateway=self.gateway), gateway=self.gateway, source=source
        )

    def history(self) -> dict[str, Any]:
        return history_of(self.gateway)


@pytest.fixture
def backfill(small_stream: GeneratedStream, small_dir: Path) -> InProcess:
    return InProcess(small_stream, small_dir, MemoryGateway())
