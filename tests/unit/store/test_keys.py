from __future__ import annotations

import pytest
from hedera_history.errors import RowLayoutError
from hedera_history.store.keys import (
    MAX_U64,
    TIME_BUCKETS,
    account_history_range,
    block_number_from_key,
    consensus_from_key,
    decode_account_history_key,
    hex16,
    is_plain_time_key,
    plain_row_key_for_transaction,
    row_key_for_account_history,
    row_key_for_block,
    row_key_for_sidecar,
    row_key_for_transaction,
    row_key_for_tx_hash,
    row_key_for_tx_id,
    time_bucket,
    tx_hash_key_range,
    tx_hash_row_matches,
)
from hypothesis import given
from hypothesis import strategies as st

u64 = st.integers(min_value=0, max_value=MAX_U64)


def test_block_key_is_sixteen_lowercase_hex_digits() -> None:
    assert row_key_for_block(42) == b"000000000000002a"
    assert row_key_for_block(0) == b"0000000000000000"
    assert block_number_from_key(b"00000000000000ff") == 255


@pytest.mark.parametrize("bad", [-1, MAX_U64 + 1])
def test_numbers_outside_64_bits_are_refused(bad: int) -> None:
    with pytest.raises(RowLayoutError):
        hex16(bad)


@pytest.mark.parametrize("bad", [b"2a", b"000000000000002A", b"000000000000002g"])
def test_malformed_block_keys_are_refused(bad: bytes) -> None:
    with pytest.raises(RowLayoutError):
        block_number_from_key(bad)


@given(u64, u64)
def test_block_and_transaction_keys_sort_like_numbers(a: int, b: int) -> None:
    assert (row_key_for_block(a) < row_key_for_block(b)) == (a < b)
    assert (plain_row_key_for_transaction(a) < plain_row_key_for_transaction(b)) == (a < b)
    if time_bucket(a) == time_bucket(b):  # within a bucket, time order
        assert (row_key_for_transaction(a) < row_key_for_transaction(b)) == (a < b)


def test_a_transaction_key_is_its_bucket_then_its_time() -> None:
    consensus_ns = 1657701971304284003
    key = row_key_for_transaction(consensus_ns)
    assert key == b"%x/17015728f70e7f63" % time_bucket(consensus_ns)
    assert row_key_for_sidecar(consensus_ns) == key
    assert plain_row_key_for_transaction(consensus_ns) == b"17015728f70e7f63"


@given(u64)
def test_both_forms_of_a_time_key_give_the_time_back(ns: int) -> None:
    assert consensus_from_key(row_key_for_transaction(ns)) == ns
    assert consensus_from_key(plain_row_key_for_transaction(ns)) == ns
    assert is_plain_time_key(plain_row_key_for_transaction(ns)) and not is_plain_time_key(row_key_for_transaction(ns))


@pytest.mark.parametrize(
    "bad", [b"17015728f70e7f63x", b"g/17015728f70e7f63", b"0-17015728f70e7f63", b"2/17015728F70E7F63"]
)
def test_malformed_time_keys_are_refused(bad: bytes) -> None:
    with pytest.raises(RowLayoutError):
        consensus_from_key(bad)


def test_a_key_whose_bucket_does_not_match_its_time_is_refused() -> None:
    key = row_key_for_transaction(1657701971304284003)
    other = b"%x" % ((int(key[:1], 16) + 1) % TIME_BUCKETS)
    with pytest.raises(RowLayoutError):
        consensus_from_key(other + key[1:])


def test_buckets_are_fixed_numbers() -> None:
    # Stored keys depend on these: the hash may never change (it is not Python's hash()).
    times = (0, 1, 2, 1657701971304284003, 1657701971304284004, MAX_U64)
    assert [time_bucket(ns) for ns in times] == [0, 9, 3, 14, 8, 6]


def test_consecutive_times_spread_evenly_over_the_buckets() -> None:
    # Every nanosecond (children follow their parent by 1 ns), and every second microsecond.
    for start, step in ((1_717_200_000 * 10**9, 1), (1_717_200_000 * 10**9 + 123, 2_000)):
        counts = [0] * TIME_BUCKETS
        for i in range(16_000):
            counts[time_bucket(start + i * step)] += 1
        assert min(counts) > 0.9 * 1000 and max(counts) < 1.1 * 1000, counts


@pytest.mark.parametrize("bad", [-1, MAX_U64 + 1])
def test_buckets_of_times_outside_64_bits_are_refused(bad: int) -> None:
    with pytest.raises(RowLayoutError):
        time_bucket(bad)


@given(u64, u64)
def test_account_history_keys_sort_newest_first(a: int, b: int) -> None:
    ka = row_key_for_account_history("0.0.1001", a)
    kb = row_key_for_account_history("0.0.1001", b)
    assert (ka < kb) == (a > b)


@given(u64)
def test_account_history_key_round_trips(ns: int) -> None:
    assert decode_account_history_key(row_key_for_account_history("0.0.77", ns)) == ("0.0.77", ns)


def test_account_history_key_example() -> None:
    # one's complement of 1657701971304284003 = 0x17015728f70e7f63
    assert row_key_for_account_history("0.0.2", 1657701971304284003) == b"0.0.2/e8fea8d708f1809c"


def test_account_prefix_does_not_match_longer_account_numbers() -> None:
    start, end = account_history_range("0.0.12", None, None)
    assert start <= row_key_for_account_history("0.0.12", 5) < end
    for other in ("0.0.123", "0.0.1", "0.0.120"):
        key = row_key_for_account_history(other, 5)
        assert not start <= key < end


@given(u64, st.one_of(st.none(), st.integers(-5, MAX_U64 + 5)), st.one_of(st.none(), st.integers(-5, MAX_U64 + 5)))
def test_account_range_holds_exactly_until_lt_ts_lt_before(ns: int, before: int | None, until: int | None) -> None:
    start, end = account_history_range("0.0.5", before, until)
    key = row_key_for_account_history("0.0.5", ns)
    expected = (before is None or ns < before) and (until is None or ns > until)
    assert (start <= key < end) == expected


@pytest.mark.parametrize("bad", ["0.0", "0.0.x", "0.0.01", " 0.0.1", "0.0.1/"])
def test_entity_ids_must_be_canonical(bad: str) -> None:
    with pytest.raises(RowLayoutError):
        row_key_for_account_history(bad, 1)


def test_tx_id_and_hash_keys() -> None:
    assert row_key_for_tx_id("0.0.2", 1657701910000000144) == b"0.0.2/" + b"%016x" % 1657701910000000144
    assert row_key_for_tx_hash(bytes([0xAB]) * 48) == b"ab" * 16
    with pytest.raises(RowLayoutError):
        row_key_for_tx_hash(b"")


def test_one_hash_range_finds_the_short_key_and_a_whole_hash_key_written_before() -> None:
    whole = bytes(range(48))
    start, end = tx_hash_key_range(whole)
    short, before = row_key_for_tx_hash(whole), whole.hex().encode()
    assert start <= short < end and start <= before < end
    assert tx_hash_row_matches(short, whole) and tx_hash_row_matches(before, whole)
    assert tx_hash_row_matches(short, whole[:32]) and tx_hash_row_matches(before, whole[:32])
    other = whole[:40] + bytes(8)
    assert tx_hash_row_matches(short, other)  # a short key cannot tell: the record read does
    assert not tx_hash_row_matches(before, other)
