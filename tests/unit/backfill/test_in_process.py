"""The backfill's driver and tasks run in this process over a directory and an in-memory Bigtable.

The history written must equal what the single-process path writes, whatever the partitioning,
across re-runs, kills and address-book changes.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hedera_history.backfill import partitioning
from hedera_history.backfill.driver import ParallelExecutor, run_backfill, run_in_process
from hedera_history.backfill.resume_rows import ProgressStore
from hedera_history.backfill.task import InjectedFaultError
from hedera_history.config import Settings
from hedera_history.errors import RetentionWindowError
from hedera_history.formats.stream_paths import BucketLayout
from hedera_history.gen import GeneratedStream, GeneratorConfig, generate_stream, tamper, write_stream
from hedera_history.sources.local import LocalSource
from hedera_history.sources.period_files import StreamLocation
from hedera_history.store.keys import BLOCK_HASH_PREFIX
from hedera_history.store.writer import BlockWriter

from tests.unit.store.fakes import MemoryGateway

from .conftest import SMALL, InProcess, history_of, written_single_process

PERIODS = SMALL.periods


@pytest.mark.parametrize("partitions", [1, 4, PERIODS])
def test_history_equals_the_single_process_path(
    backfill: InProcess, small_reference: dict[str, Any], partitions: int
) -> None:
    report = backfill.run(partitions=partitions)
    assert report.ok, report.summary_lines()
    assert (report.periods, report.partitions, report.counts.written) == (PERIODS, partitions, PERIODS)
    assert report.counts.transactions == PERIODS * SMALL.transactions
    assert report.blocks == (0, PERIODS - 1)
    assert len(report.boundaries) == partitions - 1 and all(b.ok for b in report.boundaries)
    assert backfill.history() == small_reference


def test_the_default_partitioning_follows_the_executors_parallelism(
    backfill: InProcess, small_reference: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(partitioning, "MIN_PERIODS_PER_PARTITION", 2)  # 12 periods: up to 6 partitions
    job = backfill.job(partitions=None)
    source = LocalSource(backfill.folder)
    for cores, expected in ((1, 1), (3, 3), (8, 6)):
        executor = ParallelExecutor(run_in_process(job, source=source, gateway=backfill.gateway), cores)
        report = run_backfill(replace(job, reprocess=True), executor, gateway=backfill.gateway, source=source)
        assert report.ok, report.summary_lines()
        assert report.partitions == expected
        assert backfill.history() == small_reference


def test_partitions_after_a_book_change_run_again_with_the_new_book(backfill: InProcess) -> None:
    report = backfill.run(partitions=4)  # periods 0-2, 3-5, 6-8, 9-11; the book changes after block 6
    assert report.waves == 2
    assert report.reran == (3,)


def test_a_second_run_skips_everything_and_changes_nothing(backfill: InProcess) -> None:
    backfill.run(partitions=4)
    before = backfill.gateway.snapshot()
    again = backfill.run(partitions=3)  # another partitioning: progress is per period, not per task
    assert again.ok
    assert again.waves == 1  # the later partitions start from the stored address-book checkpoint
    assert (again.counts.skipped, again.counts.written, again.counts.bytes_read) == (PERIODS, 0, 0)
    assert backfill.gateway.snapshot() == before


def test_reprocess_verifies_and_writes_everything_again(backfill: InProcess, small_reference: dict[str, Any]) -> None:
    backfill.run()
    again = backfill.run(reprocess=True)
    assert again.ok and again.counts.written == PERIODS and again.counts.skipped == 0
    assert backfill.history() == small_reference


def test_a_killed_run_goes_on_where_it_stopped(backfill: InProcess, small_reference: dict[str, Any]) -> None:
    with pytest.raises(InjectedFaultError):
        backfill.run(partitions=2, fail_after_blocks=4, write_group_bytes=1)
    resumed = backfill.run(partitions=2)
    assert resumed.ok
    assert resumed.counts.skipped == 4 and resumed.counts.written == PERIODS - 4
    assert backfill.history() == small_reference


def test_a_block_verified_with_an_outdated_book_is_verified_again(
    backfill: InProcess, small_reference: dict[str, Any]
) -> None:
    # A run that stopped after its first wave leaves the last partition written with the old book
    # (one signature fewer) and marked done with that book.
    first = backfill.job(partitions=4)
    late = backfill.run(replace(first, start_ns=_period_ns(backfill, 9)))
    assert late.ok  # the bootstrap book still has three valid signatures of four
    assert backfill.history() != small_reference
    full = backfill.run(first)
    assert full.counts.skipped == 0  # nothing before block 9 was done; blocks 9-11 had the old book
    assert backfill.history() == small_reference


def test_a_corrupt_period_is_reported_and_the_rest_is_written(small_stream: GeneratedStream, tmp_path: Path) -> None:
    damaged = small_stream
    for node in small_stream.nodes:
        damaged = tamper(damaged, node.node_id, 4)
    write_stream(damaged, tmp_path)
    backfill = InProcess(small_stream, tmp_path, MemoryGateway())
    report = backfill.run(partitions=3)
    assert not report.ok
    key = small_stream.periods[4].record_name.period_key
    assert [(f.period_key, f.kind, f.block_number) for f in report.failures] == [(key, "hash_mismatch", 4)]
    assert report.counts.written == PERIODS - 1 and report.counts.failed == 1
    assert report.unverifiable_links + sum(not b.ok for b in report.boundaries) == 1
    assert backfill.history() == history_of(written_single_process(tmp_path, small_stream))
    # The failed period is tried again by the next run (and fails again); the rest is skipped.
    again = backfill.run(partitions=3)
    assert again.counts.skipped == PERIODS - 1 and again.failures_total == 1


def test_a_fork_is_reported_by_name_and_not_written(small_stream: GeneratedStream, tmp_path: Path) -> None:
    forked = small_stream
    for node in small_stream.nodes[:2]:  # two of four nodes sign one other file: 2 against 2
        forked = tamper(forked, node.node_id, 4, resign=True)
    write_stream(forked, tmp_path)
    report = InProcess(small_stream, tmp_path, MemoryGateway()).run(partitions=3)
    key = small_stream.periods[4].record_name.period_key
    assert [(f.period_key, f.kind) for f in report.failures] == [(key, "consensus_fork")]
    assert report.failures[0].reason.startswith("fork: two file hashes each reach the threshold: stake 2 and 2 of 4")
    assert (report.counts.forks, report.counts.failed, report.counts.written) == (1, 1, PERIODS - 1)
    assert not report.ok and report.to_json()["counts"]["forks"] == 1
    assert any(line.startswith("FORK: 1 period(s)") for line in report.summary_lines())


def test_a_block_range_is_narrowed_from_the_time_range(backfill: InProcess, small_reference: dict[str, Any]) -> None:
    report = backfill.run(first_block=3, last_block=8, partitions=2)
    assert report.ok
    assert (report.periods, report.blocks, report.counts.written) == (6, (3, 8), 6)
    blocks = backfill.history()["blocks"]
    numbered = [k for k in blocks if not k.startswith(BLOCK_HASH_PREFIX)]
    assert sorted(numbered) == sorted(
        k for k in small_reference["blocks"] if not k.startswith(BLOCK_HASH_PREFIX) and 3 <= int(k, 16) <= 8
    )
    indexed = {k: v for k, v in small_reference["blocks"].items() if k.startswith(BLOCK_HASH_PREFIX)}
    assert {k: blocks[k] for k in blocks if k.startswith(BLOCK_HASH_PREFIX)} == {
        k: v for k, v in indexed.items() if k in blocks
    } and len(blocks) - len(numbered) == 6  # one hash index row per written block


def test_the_node_id_layout(tmp_path: Path) -> None:
    stream = generate_stream(GeneratorConfig(nodes=4, periods=6, transactions=4, seed=4, layout=BucketLayout.NODE_ID))
    write_stream(stream, tmp_path)
    backfill = InProcess(stream, tmp_path, MemoryGateway())
    report = backfill.run(location=StreamLocation(BucketLayout.NODE_ID, network="demo"), partitions=2)
    assert report.ok and report.counts.written == 6
    assert backfill.history() == history_of(written_single_process(tmp_path, stream))


def test_a_range_older_than_the_retention_window_is_refused(backfill: InProcess) -> None:
    settings = Settings(retention_days=30)
    with pytest.raises(RetentionWindowError, match="30-day retention window"):
        backfill.run(settings=settings)
    assert backfill.gateway.snapshot() == {}


def test_a_range_inside_the_retention_window_runs(backfill: InProcess) -> None:
    assert backfill.run(settings=Settings(retention_days=100 * 365), partitions=2).ok


def test_progress_rows_record_block_and_book(backfill: InProcess) -> None:
    backfill.run(partitions=2)
    progress = ProgressStore(backfill.gateway, BlockWriter(backfill.gateway, Settings()))
    periods = backfill.stream.periods
    done = progress.done_periods(periods[0].record_name.consensus_ns, periods[-1].record_name.consensus_ns)
    assert sorted(d.block_number for d in done.values()) == list(range(PERIODS))
    assert len({d.book_fingerprint for d in done.values()}) == 2  # the bootstrap book, then the rotated one
    checkpoints = progress.checkpoints(0, periods[-1].record_name.consensus_ns)
    assert list(checkpoints) == [periods[6].record_name.consensus_ns]


def _period_ns(backfill: InProcess, index: int) -> int:
    return backfill.stream.periods[index].record_name.consensus_ns


def test_a_range_is_linked_to_the_history_stored_around_it(backfill: InProcess) -> None:
    backfill.run(first_block=0, last_block=3, partitions=1)
    backfill.run(first_block=8, last_block=11, partitions=1)
    middle = backfill.run(first_block=4, last_block=7, partitions=2)
    assert middle.ok
    stored = [
        (b.previous_partition, b.partition, b.status.value)
        for b in middle.boundaries
        if -1 in (b.previous_partition, b.partition)
    ]
    assert stored == [(-1, 0, "ok"), (1, -1, "ok")]
