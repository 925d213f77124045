"""A generated mainnet-shaped stream (V2, then V5, then V6 files that carry their numbers) crossing a
block pin on its last V5 file: verify and the backfill give every file the mirror node's number,
whether they start at genesis, before the pin or after it.

The pin is mainnet's block number (34305852) on this stream's last V5 file, as mainnet pins its own
(``migration/BlockNumberMigration.java``); the V6 files state the numbers that follow.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hedera_history.backfill.partition_messages import BackfillJob, PartitionPlan, PartitionRun
from hedera_history.backfill.report import BackfillReport
from hedera_history.backfill.task import run_partition
from hedera_history.books.codec import BookState
from hedera_history.books.parse import parse_address_book
from hedera_history.cli.main import cli
from hedera_history.config import Settings
from hedera_history.formats.stream_paths import BucketLayout
from hedera_history.gen import GeneratedStream, GeneratorConfig, generate_stream, write_stream
from hedera_history.sources.local import LocalSource
from hedera_history.sources.period_files import StreamLocation
from hedera_history.sources.period_listing import ListedPeriod

from tests.helpers.backfill import backfill_in_process, stream_job
from tests.unit.store.fakes import MemoryGateway

PINNED_BLOCK = 34305852
CONFIG = GeneratorConfig(
    nodes=4,
    periods=8,
    transactions=6,
    seed=7,
    eras=((2, 2), (5, 2), (6, 4)),
    start_block=PINNED_BLOCK - 3,
    start_time_ns=1656461500 * 1_000_000_000,
)
NUMBERS = list(range(PINNED_BLOCK - 3, PINNED_BLOCK + 5))


@pytest.fixture(scope="module")
def stream() -> GeneratedStream:
    return generate_stream(CONFIG)


@pytest.fixture(scope="module")
def folder(stream: GeneratedStream, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("mainnet-shaped")
    write_stream(stream, out)
    return out


def _pin(stream: GeneratedStream) -> str:
    pinned = stream.periods[3]
    assert pinned.version == 5 and stream.periods[4].version == 6
    return f"{pinned.consensus_end_ns}:{PINNED_BLOCK}"


def test_the_v6_files_state_the_numbers_after_the_pin(stream: GeneratedStream) -> None:
    assert [period.block_number for period in stream.periods[4:]] == NUMBERS[4:]


def test_verify_json_gives_the_mirror_node_numbers(stream: GeneratedStream, folder: Path) -> None:
    book = folder / "address-book.bin"
    args = ["verify", str(folder), "--address-book", str(book), "--json", "--block-pin", _pin(stream)]
    result = CliRunner().invoke(cli, args, env={})
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["block_number"] for line in lines] == NUMBERS
    assert [line["version"] for line in lines] == [2, 2, 5, 5, 6, 6, 6, 6]
    assert all(line["ok"] for line in lines)


def test_without_the_pin_the_pre_v6_files_would_count_from_zero(folder: Path) -> None:
    book = folder / "address-book.bin"
    result = CliRunner().invoke(cli, ["verify", str(folder), "--address-book", str(book), "--json"], env={})
    numbers = [json.loads(line)["block_number"] for line in result.stdout.splitlines()]
    assert numbers[:4] == [0, 1, 2, 3] and numbers[4:] == NUMBERS[4:]


def _backfill(stream: GeneratedStream, folder: Path, first: int, last: int, pin: str | None = None) -> BackfillReport:
    settings = Settings(block_pin=pin or _pin(stream))
    job = stream_job(stream, folder, first=first, last=last, settings=settings, partitions=2 if last > first else 1)
    return backfill_in_process(job, MemoryGateway())


@pytest.mark.parametrize(
    ("first", "last"),
    [(0, 7), (0, 1), (2, 3), (3, 7), (1, 5)],
    ids=["genesis", "before the pin", "ending at the pin", "from the pin", "across the pin"],
)
def test_the_backfill_gives_the_same_numbers_wherever_it_starts(
    stream: GeneratedStream, folder: Path, first: int, last: int
) -> None:
    report = _backfill(stream, folder, first, last)
    assert report.ok, report.summary_lines()
    assert report.blocks == (NUMBERS[first], NUMBERS[last])
    assert report.counts.written == last - first + 1


def test_a_range_after_an_earlier_pin_counts_the_periods_between(stream: GeneratedStream, folder: Path) -> None:
    # Pinned on the last V2 file instead (the same numbers): the range starts two V5 files later.
    earlier = f"{stream.periods[1].consensus_end_ns}:{NUMBERS[1]}"
    report = _backfill(stream, folder, 3, 5, pin=earlier)
    assert report.ok, report.summary_lines()
    assert report.blocks == (NUMBERS[3], NUMBERS[5])


def test_a_task_whose_pinned_period_does_not_end_at_the_pin_writes_nothing_there(
    stream: GeneratedStream, folder: Path
) -> None:
    # As if the planner had been shown a copy ending at the pin: the verified file of period 2 does not.
    periods = stream.periods
    listed = tuple(ListedPeriod(p.record_name.period_key, p.record_name.consensus_ns, 4) for p in periods[:4])
    job = BackfillJob(
        source_url=str(folder),
        location=StreamLocation(BucketLayout.ACCOUNT),
        settings=Settings(block_pin=f"{periods[2].consensus_end_ns + 1}:{NUMBERS[2]}"),
        book=stream.address_book,
        start_ns=listed[0].consensus_ns,
        end_ns=listed[-1].consensus_ns + 1,
    )
    plan = PartitionPlan(0, listed, NUMBERS[0], pinned_key=listed[2].period_key)
    run = PartitionRun(plan, BookState.of(parse_address_book(stream.address_book)))
    summary = run_partition(job, run, source=LocalSource(folder), gateway=MemoryGateway())
    # Period 2 was taken for the pinned file; period 3 starts after the pin with nothing ending there.
    assert [(f.period_key, f.kind) for f in summary.failures] == [
        (listed[2].period_key, "block_pin_mismatch"),
        (listed[3].period_key, "block_pin_mismatch"),
    ]
    assert summary.counts.written == 2
