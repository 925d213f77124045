from __future__ import annotations

from dataclasses import replace

import pytest
from hedera_history.config import Settings
from hedera_history.errors import RetentionWindowError
from hedera_history.store.chaintime import (
    NS_PER_DAY,
    block_time_ns,
    cell_timestamp_micros,
    check_history_retention,
    sidecars_retained,
)

from .builders import BASE_NS, make_record_file, transfer_tx

NOW = BASE_NS + 1000 * NS_PER_DAY


def test_cell_timestamps_are_micros_at_millisecond_granularity() -> None:
    assert cell_timestamp_micros(1657701971304284003) == 1657701971304000
    assert cell_timestamp_micros(999_999) == 0


def test_block_time_is_the_first_transaction_or_the_file_name() -> None:
    record = make_record_file(7, [transfer_tx(BASE_NS + 5, 1001, 1002), transfer_tx(BASE_NS + 9, 1001, 1002)])
    assert block_time_ns(record) == BASE_NS + 5
    empty = replace(record, items=(), name="2022-07-13T08_46_08.041986003Z.rcd.gz")
    assert block_time_ns(empty) == 1657701968041986003


def test_no_window_accepts_any_block() -> None:
    check_history_retention(1, 0, Settings(), NOW)
    assert sidecars_retained(0, Settings(), NOW)


def test_blocks_older_than_the_window_are_refused() -> None:
    settings = Settings(retention_days=30)
    check_history_retention(1, NOW - 30 * NS_PER_DAY, settings, NOW)
    with pytest.raises(RetentionWindowError, match="30-day"):
        check_history_retention(1, NOW - 30 * NS_PER_DAY - 1, settings, NOW)


def test_sidecars_have_their_own_window() -> None:
    settings = Settings(retention_days=90, sidecar_retention_days=7)
    assert sidecars_retained(NOW - 7 * NS_PER_DAY, settings, NOW)
    assert not sidecars_retained(NOW - 8 * NS_PER_DAY, settings, NOW)
    assert not sidecars_retained(NOW - 100 * NS_PER_DAY, Settings(retention_days=90), NOW)
