"""A backfill of a stream folder run in this process (no Spark), for the tests that compare it."""

from __future__ import annotations

from pathlib import Path

from hedera_history.backfill.driver import run_backfill, run_in_process
from hedera_history.backfill.partition_messages import BackfillJob
from hedera_history.backfill.report import BackfillReport
from hedera_history.config import Settings
from hedera_history.formats.stream_paths import BucketLayout
from hedera_history.gen import GeneratedStream
from hedera_history.sources.local import LocalSource
from hedera_history.sources.period_files import StreamLocation
from hedera_history.store.gateway import BigtableGateway


def folder_job(
    folder: Path,
    *,
    book: bytes,
    start_ns: int,
    end_ns: int,
    settings: Settings | None = None,
    partitions: int | None = None,
) -> BackfillJob:
    """A job over ``folder`` (account layout) for the periods named in ``[start_ns, end_ns)``."""
    return BackfillJob(
        source_url=str(folder),
        location=StreamLocation(BucketLayout.ACCOUNT),
        settings=settings or Settings(),
        book=book,
        start_ns=start_ns,
        end_ns=end_ns,
        partitions=partitions,
    )


def stream_job(
    stream: GeneratedStream,
    folder: Path,
    *,
    first: int = 0,
    last: int = -1,
    settings: Settings | None = None,
    partitions: int | None = None,
) -> BackfillJob:
    """A job over a written generated stream's periods ``first`` to ``last`` (indexes, inclusive)."""
    periods = stream.periods
    return folder_job(
        folder,
        book=stream.address_book,
        start_ns=periods[first].record_name.consensus_ns,
        end_ns=periods[last].record_name.consensus_ns + 1,
        settings=settings,
        partitions=partitions,
    )


def backfill_in_process(job: BackfillJob, gateway: BigtableGateway) -> BackfillReport:
    """Run ``job`` partition after partition in this process, reading its folder, writing ``gateway``."""
    source = LocalSource(Path(job.source_url))
    return run_backfill(job, run_in_process(job, source=source, gateway=gateway), gateway=gateway, source=source)
