"""The backfill numbers pre-V6 files from a block pin wherever its range lies (real V5 files, in
process): the whole range, a range before the pin and one after it give each file the same number."""

from __future__ import annotations

from pathlib import Path

import pytest
from hedera_history.backfill.report import BackfillReport
from hedera_history.config import Settings
from hedera_history.errors import BlockPinMismatchError

from tests.helpers.backfill import backfill_in_process, folder_job
from tests.unit.store.fakes import MemoryGateway

FIRST_START = FIRST_END = 1610402964063739000
SECOND_START, SECOND_END = 1610402974097416003, 1610402974097416003


def _backfill(hedera_data: Path, pin: str, start_ns: int, end_ns: int) -> BackfillReport:
    book = (hedera_data / "addressbook" / "test-resources-testnet.bin").read_bytes()
    job = folder_job(hedera_data / "v5", book=book, start_ns=start_ns, end_ns=end_ns, settings=Settings(block_pin=pin))
    return backfill_in_process(job, MemoryGateway())


def test_a_range_holding_the_pin_counts_back_from_it(hedera_data: Path) -> None:
    report = _backfill(hedera_data, f"{SECOND_END}:34305852", FIRST_START, SECOND_START + 1)
    assert report.ok, report.summary_lines()
    assert report.blocks == (34305851, 34305852)


def test_a_range_before_the_pin_lists_up_to_it(hedera_data: Path) -> None:
    report = _backfill(hedera_data, f"{SECOND_END}:34305852", FIRST_START, SECOND_START)
    assert report.ok, report.summary_lines()
    assert report.blocks == (34305851, 34305851)


def test_a_range_after_the_pin_counts_the_periods_between(hedera_data: Path) -> None:
    report = _backfill(hedera_data, f"{FIRST_END}:7", SECOND_START, SECOND_START + 1)
    assert report.ok, report.summary_lines()
    assert report.blocks == (8, 8)


def test_a_pin_no_file_ends_at_stops_the_plan(hedera_data: Path) -> None:
    with pytest.raises(BlockPinMismatchError, match="not at the pin"):
        _backfill(hedera_data, f"{FIRST_END + 1}:7", FIRST_START, SECOND_START + 1)
