"""The backfill over block files writes, cell for cell, what ``load`` writes for the same blocks.

The generated cutover stream's block files (wrapped record blocks 3-4, TSS-signed native blocks 5-7,
block 0 being a record file) are loaded into one set of tables and backfilled on local Spark into
another, split in partitions so that a partition begins after a native block and its link into the
partition is checked from the block before it. TSS trust reaches every task from the settings'
ledger publication (block 0, which publishes it, is not a block file here).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hedera_history.backfill.block_driver import in_process, run_block_backfill
from hedera_history.backfill.block_plan import BlockJob
from hedera_history.backfill.cutover import run_through_cutover
from hedera_history.backfill.partition_messages import BackfillJob
from hedera_history.books.parse import parse_address_book
from hedera_history.config import Settings
from hedera_history.formats.stream_paths import BucketLayout
from hedera_history.gen import GeneratedStream
from hedera_history.gen.config_and_output import PeriodKind
from hedera_history.gen.stream import generate_stream
from hedera_history.gen.writer import write_stream
from hedera_history.pipeline.block_load import load_block_runs
from hedera_history.pipeline.local_load import load_periods
from hedera_history.sources.base import open_source
from hedera_history.sources.local_blocks import find_block_runs
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.sources.period_files import StreamLocation
from hedera_history.store.bigtable_client import gateway_for_instance
from hedera_history.verify.block_pin import Numbering
from hedera_history.verify.consensus import DEFAULT_RATIO

from tests.helpers.bigtable_cells import describe_difference

from .conftest import History

pytestmark = [pytest.mark.spark, pytest.mark.emulator, pytest.mark.xdist_group("backfill-spark")]

BLOCK_FOLDER = "demo/block/"


def _settings(history: History, prefix: str, stream_dir: Path) -> Settings:
    return replace(history.create(prefix), ledger_publication=str(stream_dir / "ledger-id-publication.bin"))


def _job(settings: Settings, stream: GeneratedStream, stream_dir: Path, **changes: Any) -> BlockJob:
    first = stream.blocks[0].block_number
    job = BlockJob(
        settings, first, None, source_url=str(stream_dir), folder=BLOCK_FOLDER, book=stream.address_book, partitions=2
    )
    return replace(job, **changes)


def _loaded(history: History, stream: GeneratedStream, stream_dir: Path, prefix: str) -> Any:
    settings = _settings(history, prefix, stream_dir)
    gateway = gateway_for_instance(history.instance, settings)
    try:
        runs = find_block_runs(stream_dir / BLOCK_FOLDER)
        book = parse_address_book(stream.address_book)
        report = load_block_runs(runs, book, ratio=DEFAULT_RATIO, settings=settings, gateway=gateway)
        assert report.ok and report.written == len(stream.blocks), report
    finally:
        gateway.close()
    return history.cells(prefix)


def test_a_spark_backfill_of_block_files_writes_the_cells_a_load_writes(
    spark: Any, history: History, generated_cutover_stream: GeneratedStream, generated_cutover_stream_dir: Path
) -> None:
    from hedera_history.backfill.spark import spark_block_executor  # noqa: PLC0415

    stream, folder = generated_cutover_stream, generated_cutover_stream_dir
    loaded = _loaded(history, stream, folder, "blocks_load_")
    job = _job(_settings(history, "blocks_backfill_", folder), stream, folder)
    gateway = gateway_for_instance(history.instance, job.settings)
    try:
        report = run_block_backfill(job, spark_block_executor(spark), gateway)
    finally:
        gateway.close()
    assert report.ok, report.summary_lines()
    assert report.written == len(stream.blocks) and len(report.summaries) == 2
    assert report.tss_origin.startswith("settings")
    assert report.transactions == sum(block.transactions for block in stream.blocks)
    backfilled = history.cells("blocks_backfill_")
    assert backfilled == loaded, describe_difference(loaded, backfilled)


def test_native_blocks_without_a_trust_root_are_refused_never_written(
    history: History, generated_cutover_stream: GeneratedStream, generated_cutover_stream_dir: Path
) -> None:
    stream, folder = generated_cutover_stream, generated_cutover_stream_dir
    settings = replace(history.create("blocks_untrusted_"), ledger_publication="")
    native = [block.block_number for block in stream.blocks if block.kind is PeriodKind.NATIVE]
    job = _job(settings, stream, folder, first_block=native[0], partitions=1)
    gateway = gateway_for_instance(history.instance, settings)
    try:
        report = run_block_backfill(job, in_process(gateway), gateway)
    finally:
        gateway.close()
    assert report.tss_origin == "none"
    assert not report.ok and report.written == 0
    assert all("TSS" in failure or "roster" in failure for failure in report.summaries[0].failures)


def test_backfill_run_reads_a_block_node_range_with_the_cells_a_load_writes(
    spark: Any,
    history: History,
    generated_cutover_stream: GeneratedStream,
    generated_cutover_stream_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``backfill run --block-node HOST:PORT --first-block A --last-block B`` on the local block node."""
    from hedera_history.cli.main import cli  # noqa: PLC0415
    from hedera_history.localstack.block_node_server import BlockNodeServer  # noqa: PLC0415

    stream, folder = generated_cutover_stream, generated_cutover_stream_dir
    loaded = _loaded(history, stream, folder, "blocks_nload_")
    settings = _settings(history, "blocks_node_", folder)
    first, last = stream.blocks[0].block_number, stream.blocks[-1].block_number
    server = BlockNodeServer(folder / BLOCK_FOLDER).start()
    try:
        args = ["backfill", "run", "--block-node", f"127.0.0.1:{server.port}", "--first-block", str(first)]
        args += ["--last-block", str(last), "--partitions", "3", "--local", "2", "--json"]
        args += [
            "--project",
            settings.project,
            "--instance",
            settings.bigtable_instance,
            "--table-prefix",
            "blocks_node_",
        ]
        args += ["--address-book", str(folder / "address-book.bin"), "--no-create-tables"]
        # --env sets the variable in this process (the job's, on Dataproc); the monkeypatch takes
        # it back out afterwards, so later tests in this worker do not trust this stream's ledger.
        monkeypatch.setenv("HEDERA_HISTORY_LEDGER_PUBLICATION", settings.ledger_publication)
        args += ["--env", f"HEDERA_HISTORY_LEDGER_PUBLICATION={settings.ledger_publication}"]
        result = CliRunner().invoke(cli, args, catch_exceptions=False)
    finally:
        server.stop(0)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert (report["written"], len(report["partitions"])) == (len(stream.blocks), 3)
    backfilled = history.cells("blocks_node_")
    assert backfilled == loaded, describe_difference(loaded, backfilled)


def test_one_job_through_the_cutover_writes_the_cells_a_load_of_the_folder_writes(
    spark: Any, history: History, generated_cutover_stream: GeneratedStream, generated_cutover_stream_dir: Path
) -> None:
    """Record files 0-2, then blocks 3-7 from the one after the last record file's block."""
    from hedera_history.backfill.spark import spark_block_executor, spark_executor  # noqa: PLC0415

    stream, folder = generated_cutover_stream, generated_cutover_stream_dir
    records = stream.periods  # the record files; stream.blocks are the block files after them
    reference = _settings(history, "cutover_load_", folder)
    gateway = gateway_for_instance(history.instance, reference)
    try:
        book = parse_address_book(stream.address_book)
        periods = find_local_periods(folder)
        loaded = load_periods(periods, book, Numbering(0), ratio=DEFAULT_RATIO, settings=reference, gateway=gateway)
        assert loaded.ok and loaded.written == len(records), loaded
    finally:
        gateway.close()
    _loaded(history, stream, folder, "cutover_load_")

    settings = _settings(history, "cutover_backfill_", folder)
    job = BackfillJob(
        source_url=str(folder),
        location=StreamLocation(BucketLayout.ACCOUNT),
        settings=settings,
        book=stream.address_book,
        start_ns=records[0].record_name.consensus_ns,
        end_ns=records[-1].record_name.consensus_ns + 1,
        partitions=2,
    )
    gateway = gateway_for_instance(history.instance, settings)
    try:
        report = run_through_cutover(
            job,
            _job(settings, stream, folder),
            spark_executor(spark, job),
            spark_block_executor(spark),
            gateway=gateway,
            source=open_source(job.source_url, settings),
        )
    finally:
        gateway.close()
    assert report.ok, report.summary_lines()
    assert report.blocks is not None and report.blocks.summaries[0].first == records[-1].block_number + 1
    expected, backfilled = history.cells("cutover_load_"), history.cells("cutover_backfill_")
    assert backfilled == expected, describe_difference(expected, backfilled)


def test_a_rerun_skips_the_blocks_stored_with_the_same_hash_and_leaves_the_cells_identical(
    spark: Any, history: History, generated_cutover_stream: GeneratedStream, generated_cutover_stream_dir: Path
) -> None:
    """The second run of the same job on local Spark: every block is already complete with the
    hash its file gives, so none is proof-checked or written again, and the tables stay as they were."""
    from hedera_history.backfill.spark import spark_block_executor  # noqa: PLC0415

    stream, folder = generated_cutover_stream, generated_cutover_stream_dir
    job = _job(_settings(history, "blocks_rerun_", folder), stream, folder)
    gateway = gateway_for_instance(history.instance, job.settings)
    try:
        first = run_block_backfill(job, spark_block_executor(spark), gateway)
        assert first.ok and (first.written, first.skipped) == (len(stream.blocks), 0), first.summary_lines()
        after_first = history.cells("blocks_rerun_")
        rerun = run_block_backfill(job, spark_block_executor(spark), gateway)
    finally:
        gateway.close()
    assert rerun.ok, rerun.summary_lines()
    assert (rerun.written, rerun.skipped) == (0, len(stream.blocks))
    assert rerun.transactions == 0
    after_rerun = history.cells("blocks_rerun_")
    assert after_rerun == after_first, describe_difference(after_first, after_rerun)


def test_a_block_stored_with_another_hash_is_refused_never_overwritten(
    history: History, generated_cutover_stream: GeneratedStream, generated_cutover_stream_dir: Path, tmp_path: Path
) -> None:
    """Another network's blocks under the same numbers stored first (loaded): the backfill refuses
    every block of this one with ``conflicting_block``, writes none, and the tables keep the first."""
    stream, folder = generated_cutover_stream, generated_cutover_stream_dir
    other = generate_stream(replace(stream.config, transactions=stream.config.transactions + 1))
    other_dir = tmp_path / "other"
    write_stream(other, other_dir)
    stored = _loaded(history, other, other_dir, "blocks_conflict_")
    job = _job(_settings(history, "blocks_conflict_", folder), stream, folder, partitions=1)
    gateway = gateway_for_instance(history.instance, job.settings)
    try:
        report = run_block_backfill(job, in_process(gateway), gateway)
    finally:
        gateway.close()
    assert not report.ok and report.written == 0
    failures = report.summaries[0].failures
    assert len(failures) == len(stream.blocks) and all("conflicting_block" in f for f in failures), failures
    after = history.cells("blocks_conflict_")
    assert after == stored, describe_difference(stored, after)


def test_a_rerun_that_does_not_take_unsigned_blocks_checks_the_ones_stored_unsigned(
    history: History, hedera_data: Path
) -> None:
    """The mirror node's real blocks 7 and 8 (pre-TSS placeholder proofs) backfilled as unsigned,
    then the same job without ``unsigned_blocks``: they are not skipped as already complete (their
    proofs were never checked), but verified again and refused, and the report is not ok."""
    folder = hedera_data / "blocks" / "mirror-node-blockstreams"
    settings = replace(history.create("blocks_unsigned_"), unsigned_blocks=True)
    job = BlockJob(settings, 7, 8, source_url=str(folder), folder="", book=None, partitions=1)
    gateway = gateway_for_instance(history.instance, settings)
    try:
        first = run_block_backfill(job, in_process(gateway), gateway)
        assert first.ok and first.written == 2, first.summary_lines()
        stored = history.cells("blocks_unsigned_")
        strict = replace(job, settings=replace(settings, unsigned_blocks=False))
        rerun = run_block_backfill(strict, in_process(gateway), gateway)
    finally:
        gateway.close()
    assert not rerun.ok and (rerun.written, rerun.skipped) == (0, 0), rerun.summary_lines()
    assert len(rerun.summaries[0].failures) == 2, rerun.summary_lines()
    assert history.cells("blocks_unsigned_") == stored
