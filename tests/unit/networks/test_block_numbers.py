from __future__ import annotations

import pytest
from hedera_history.errors import BlockPinMismatchError, BlockPinOutOfReachError, ConfigError
from hedera_history.networks.block_numbers import (
    BlockPin,
    first_number,
    number_from_pin,
    pin_problem,
    pinned_index,
    start_block_after_pin,
)

PIN = BlockPin(consensus_end_ns=1_000, block_number=500)


def test_parse_and_print() -> None:
    assert BlockPin.parse("1656461547557609267:34305852") == BlockPin(1656461547557609267, 34305852)
    assert str(PIN) == "1000:500"
    assert BlockPin.parse("") is None
    for bad in ("1000", "x:1", "1000:-1", "0:5"):
        with pytest.raises(ConfigError):
            BlockPin.parse(bad)


def test_numbers_count_from_the_pinned_file_both_ways() -> None:
    assert number_from_pin(PIN, 0) == 500
    assert number_from_pin(PIN, -500) == 0
    assert number_from_pin(PIN, 7) == 507
    with pytest.raises(BlockPinOutOfReachError):
        number_from_pin(PIN, -501)


def test_the_pinned_period_is_the_last_starting_at_or_before_the_pin() -> None:
    starts = [100, 400, 800, 1_200]
    assert pinned_index(starts, PIN) == 2
    assert pinned_index([1_000, 1_100], PIN) == 0  # a one-transaction file starts where it ends
    assert pinned_index([1_001], PIN) == -1


def test_first_number_of_a_list_holding_the_pin() -> None:
    assert first_number([100, 400, 800, 1_200], PIN) == 498


def test_first_number_of_a_list_before_the_pin_counts_the_periods_listed_beyond() -> None:
    # Periods 100, 400 in the range; 700 and the pinned 900 listed beyond it: 100 is pin - 3.
    assert first_number([100, 400], PIN, periods_after=2) == 497
    # Nothing listed beyond: the range's last period is the pinned one.
    assert first_number([100, 400], PIN, periods_after=0) == 499


def test_a_list_after_the_pin_needs_the_count_between() -> None:
    with pytest.raises(BlockPinOutOfReachError):
        first_number([1_100, 1_200], PIN)
    assert start_block_after_pin(PIN, 0) == 501
    assert start_block_after_pin(PIN, 9) == 510


def test_the_file_ending_at_the_pin_must_get_the_pinned_number() -> None:
    ok = pin_problem(PIN, name="f", consensus_start=900, consensus_end=1_000, number=500, previous_end=800)
    assert ok is None
    wrong = pin_problem(PIN, name="f", consensus_start=900, consensus_end=1_000, number=499, previous_end=800)
    assert isinstance(wrong, BlockPinMismatchError) and wrong.kind == "block_pin_mismatch"


def test_a_file_straddling_the_pin_or_a_gap_over_it_is_a_mismatch() -> None:
    inside = pin_problem(PIN, name="f", consensus_start=900, consensus_end=1_100, number=500, previous_end=800)
    assert isinstance(inside, BlockPinMismatchError)
    gap = pin_problem(PIN, name="f", consensus_start=1_050, consensus_end=1_100, number=500, previous_end=950)
    assert isinstance(gap, BlockPinMismatchError)
    assert pin_problem(PIN, name="f", consensus_start=1_050, consensus_end=1_100, number=7, previous_end=None) is None
    assert pin_problem(None, name="f", consensus_start=900, consensus_end=1_000, number=1, previous_end=None) is None


def test_the_file_taken_for_the_pinned_one_must_end_at_the_pin() -> None:
    short = pin_problem(
        PIN, name="f", consensus_start=900, consensus_end=950, number=500, previous_end=800, expected_pinned=True
    )
    assert isinstance(short, BlockPinMismatchError) and "do not reach" in str(short)
    fine = pin_problem(
        PIN, name="f", consensus_start=900, consensus_end=1_000, number=500, previous_end=800, expected_pinned=True
    )
    assert fine is None
