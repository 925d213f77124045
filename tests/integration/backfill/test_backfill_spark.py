"""The backfill on Spark local mode (tasks verify and write in executors) against the emulators.

A 50-period stream served from the GCS emulator and from S3 (moto) is backfilled into the Bigtable
emulator; the history tables must hold exactly the cells the single-process path writes. Then: a
second run changes nothing, a run killed halfway completes when started again, a corrupt period is
reported while the rest is written.
"""

from __future__ import annotations

import concurrent.futures
import json
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hedera_history.backfill.report import BackfillReport
from hedera_history.cli.main import cli
from hedera_history.errors import BackfillError
from hedera_history.gen import GeneratedStream

from tests.fixtures.emulators import PROJECT
from tests.helpers.bigtable_cells import TableCells, describe_difference

from .conftest import CORRUPT_PERIOD, PERIODS, History

# One worker runs them all (under xdist): one Spark session and one set of emulators, not two.
pytestmark = [pytest.mark.spark, pytest.mark.emulator, pytest.mark.xdist_group("backfill-spark")]


def _assert_complete_run(report: BackfillReport) -> None:
    assert report.ok, report.summary_lines()
    assert report.periods == PERIODS
    assert report.counts.written == PERIODS
    assert report.blocks == (0, PERIODS - 1)
    assert len(report.boundaries) == report.partitions - 1
    assert all(check.ok for check in report.boundaries)
    # The key rotation in block 25 comes to light only after the later partitions ran once.
    assert report.waves == 2 and report.reran


def test_from_gcs_identical_to_the_single_process_path_and_a_second_run_changes_nothing(
    spark: Any, history: History, stream: GeneratedStream, gcs_bucket: Any, reference_cells: TableCells
) -> None:
    _in_parallel(lambda item: gcs_bucket.blob(f"streams/{item[0]}").upload_from_string(item[1]), stream.objects.items())
    job = history.job(f"gs://{gcs_bucket.name}/streams", "gcs_")

    first = history.backfill(spark, job)
    _assert_complete_run(first)
    assert first.counts.transactions == PERIODS * 8
    assert first.counts.bytes_read > 0
    assert first.task_cpu_seconds > 0  # measured in the executors' workers, summed on the driver
    cells = history.cells("gcs_")
    assert cells == reference_cells, describe_difference(reference_cells, cells)

    second = history.backfill(spark, job)
    assert second.ok and second.waves == 1
    assert (second.counts.skipped, second.counts.written, second.counts.bytes_read) == (PERIODS, 0, 0)
    assert history.cells("gcs_") == cells
    # The emulator deletes one object per request; emptying the bucket here is much faster.
    _in_parallel(lambda path: gcs_bucket.blob(f"streams/{path}").delete(), stream.objects)


def test_from_s3_identical_to_the_single_process_path(
    spark: Any, history: History, stream: GeneratedStream, s3_client: Any, s3_bucket: str, reference_cells: TableCells
) -> None:
    def put(item: tuple[str, bytes]) -> None:
        s3_client.put_object(Bucket=s3_bucket, Key=f"mirror/{item[0]}", Body=item[1])

    _in_parallel(put, stream.objects.items())
    # Hedera's public buckets are requester-pays; moto accepts the header every request then carries.
    job = history.job(f"s3://{s3_bucket}/mirror", "s3_")
    job = replace(job, settings=job.settings.with_(s3_requester_pays=True))

    _assert_complete_run(history.backfill(spark, job))
    cells = history.cells("s3_")
    assert cells == reference_cells, describe_difference(reference_cells, cells)


def test_a_run_killed_halfway_completes_when_started_again(
    spark: Any, history: History, stream_dir: Path, reference_cells: TableCells
) -> None:
    # Blocks are written one group each, so the stop leaves some complete and the rest not begun.
    job = history.job(str(stream_dir), "killed_", fail_after_blocks=3, write_group_bytes=1)
    with pytest.raises(BackfillError, match="stopped on purpose"):
        history.backfill(spark, job)
    halfway = history.cells("killed_")
    assert 0 < len(halfway["blocks"]) < len(reference_cells["blocks"])

    resumed = history.backfill(spark, replace(job, fail_after_blocks=None))
    assert resumed.ok, resumed.summary_lines()
    assert resumed.counts.skipped >= 3
    assert resumed.counts.skipped + resumed.counts.written == PERIODS
    cells = history.cells("killed_")
    assert cells == reference_cells, describe_difference(reference_cells, cells)


def test_a_corrupt_period_is_reported_and_the_rest_written(
    spark: Any,
    history: History,
    stream: GeneratedStream,
    corrupt_stream_dir: Path,
    corrupt_reference_cells: TableCells,
) -> None:
    report = history.backfill(spark, history.job(str(corrupt_stream_dir), "corrupt_"))

    assert not report.ok
    key = stream.periods[CORRUPT_PERIOD].record_name.period_key
    assert [(f.period_key, f.kind) for f in report.failures] == [(key, "hash_mismatch")]
    assert "file hash" in report.failures[0].reason
    assert report.counts.written == PERIODS - 1
    assert report.unverifiable_links + sum(not c.ok for c in report.boundaries) == 1
    cells = history.cells("corrupt_")
    assert cells == corrupt_reference_cells, describe_difference(corrupt_reference_cells, cells)


def test_cli_run_local_on_a_block_range(
    spark: Any, history: History, stream: GeneratedStream, stream_dir: Path, tmp_path: Path
) -> None:
    settings = history.create("cli_")
    report_file = tmp_path / "report.json"
    args = [
        "backfill",
        "run",
        str(stream_dir),
        "--local=2",
        f"--address-book={stream_dir / 'address-book.bin'}",
        "--start=2024-06-01",
        "--end=2024-06-02",
        "--first-block=10",
        "--last-block=19",
        "--partitions=3",
        f"--project={PROJECT}",
        f"--instance={settings.bigtable_instance}",
        "--table-prefix=cli_",
        f"--report={report_file}",
    ]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    data = json.loads(report_file.read_text())
    assert data["ok"] and data["periods"] == 10 and data["blocks"] == {"first": 10, "last": 19}
    assert data["counts"]["written"] == 10
    assert data["throughput"]["transactions_per_second"] > 0
    assert history.cells("cli_")["blocks"]


def _in_parallel(action: Callable[[Any], object], items: Iterable[Any]) -> None:
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        for _ in pool.map(action, list(items)):
            pass
