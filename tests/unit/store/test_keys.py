from __future__ import annotations

import pytest
from hedera_history.errors import RowDecodeError, RowLayoutError
from hedera_history.store.block_items import cell_qualifier
from hedera_history.store.keys import (
    ACCOUNT_BUCKET_MARKS,
    MAX_U64,
    TIME_BUCKETS,
    TIME_SPAN_BITS,
    ItemsQualifier,
    account_history_range,
    account_history_ranges,
    block_number_from_key,
    consensus_from_key,
    decode_account_history_key,
    decode_entity,
    encode_entity,
    encode_entity_text,
    has_bucketed_history,
    hex16,
    is_plain_time_key,
    parse_items_qualifier,
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
SPAN = 1 << TIME_SPAN_BITS


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
    times = (0, 1, 2, SPAN, 2 * SPAN, 1657701971304284003, 1657701971304284004, MAX_U64)
    assert [time_bucket(ns) for ns in times] == [0, 0, 0, 9, 3, 7, 7, 4]


def test_consecutive_spans_spread_evenly_over_the_buckets() -> None:
    # Every 134 ms span, and every second of them: a day of writes lands evenly.
    for start, step in ((1_717_200_000 * 10**9, SPAN), (1_717_200_000 * 10**9 + 123, 2 * SPAN)):
        counts = [0] * TIME_BUCKETS
        for i in range(16_000):
            counts[time_bucket(start + i * step)] += 1
        assert min(counts) > 0.9 * 1000 and max(counts) < 1.1 * 1000, counts


def test_a_span_shares_one_bucket_and_a_block_of_two_seconds_spans_most_buckets() -> None:
    start = 1_717_200_000 * 10**9 // SPAN * SPAN
    assert {time_bucket(start + i * 1000) for i in range(SPAN // 1000)} == {time_bucket(start)}
    assert time_bucket(start + SPAN) != time_bucket(start)
    assert len({time_bucket(start + i * 10**6) for i in range(2000)}) >= 12


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
    assert row_key_for_account_history("0.0.1001", 1657701971304284003) == b"0.0.1001/e8fea8d708f1809c"
    # a system account's: the bucket's letter first (bucket 7: ``n``)
    assert time_bucket(1657701971304284003) == 7
    assert row_key_for_account_history("0.0.98", 1657701971304284003) == b"0.0.98/ne8fea8d708f1809c"


@pytest.mark.parametrize(
    ("account", "bucketed"),
    [
        *(("0.0.2", True), ("0.0.3", True), ("0.0.98", True), ("0.0.800", True), ("0.0.801", True)),
        *(("0.0.1000", True), ("1.2.98", True), ("0.0.1001", False), ("0.0.0", False), ("0.0.12345", False)),
    ],
)
def test_system_accounts_have_bucketed_history(account: str, bucketed: bool) -> None:
    assert has_bucketed_history(account) == bucketed
    assert (len(row_key_for_account_history(account, 5)) == len(account) + 18) == bucketed


def test_account_prefix_does_not_match_longer_account_numbers() -> None:
    for account, others in (("0.0.12", ("0.0.123", "0.0.1", "0.0.120")), ("0.0.1012", ("0.0.10123", "0.0.101"))):
        ranges = account_history_ranges(account, None, None)
        assert any(start <= row_key_for_account_history(account, 5) < end for start, end in ranges)
        for other in others:
            key = row_key_for_account_history(other, 5)
            assert not any(start <= key < end for start, end in ranges)


@given(
    u64,
    st.one_of(st.none(), st.integers(-5, MAX_U64 + 5)),
    st.one_of(st.none(), st.integers(-5, MAX_U64 + 5)),
    st.sampled_from(["0.0.5", "0.0.1005"]),
)
def test_account_ranges_hold_exactly_until_lt_ts_lt_before(
    ns: int, before: int | None, until: int | None, account: str
) -> None:
    plain = account_history_range(account, before, until)
    ranges = account_history_ranges(account, before, until)
    assert ranges[0] == plain and len(ranges) == (1 + TIME_BUCKETS if has_bucketed_history(account) else 1)
    expected = (before is None or ns < before) and (until is None or ns > until)
    key = row_key_for_account_history(account, ns)
    assert sum(start <= key < end for start, end in ranges) == expected
    # a row written before layout 3 (plain) is in the plain range only
    written_before = account.encode() + b"/" + hex16(MAX_U64 - ns)
    assert (plain[0] <= written_before < plain[1]) == expected
    assert not any(start <= written_before < end for start, end in ranges[1:])


@given(u64, u64)
def test_a_system_accounts_keys_sort_newest_first_within_a_bucket(a: int, b: int) -> None:
    ka, kb = row_key_for_account_history("0.0.98", a), row_key_for_account_history("0.0.98", b)
    assert decode_account_history_key(ka) == ("0.0.98", a)
    if time_bucket(a) == time_bucket(b):
        assert (ka < kb) == (a > b)
    assert ka[7:8] == ACCOUNT_BUCKET_MARKS[time_bucket(a) : time_bucket(a) + 1]


def test_a_history_key_whose_bucket_does_not_match_its_time_is_refused() -> None:
    key = row_key_for_account_history("0.0.98", 1657701971304284003)
    with pytest.raises(RowLayoutError):
        decode_account_history_key(key[:7] + b"g" + key[8:])


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


@given(st.sampled_from([b"file", b"list"]), st.integers(0, 999_999), st.integers(0, 99_999_999))
def test_items_qualifier_reads_what_cell_qualifier_writes(kind: bytes, number: int, first_index: int) -> None:
    assert parse_items_qualifier(cell_qualifier(kind, number, first_index)) == ItemsQualifier(kind, number, first_index)


def test_items_qualifier_of_rows_written_before_cells_has_no_first_index() -> None:
    assert parse_items_qualifier(b"file/000003") == ItemsQualifier(b"file", 3, None)


@pytest.mark.parametrize("bad", [b"file", b"file/", b"file/x/00000000", b"file/000001/-1", b"file/1/2/3"])
def test_items_qualifier_refuses_other_shapes(bad: bytes) -> None:
    with pytest.raises(RowDecodeError, match="expected <kind>/<number>/<first index>"):
        parse_items_qualifier(bad)


def test_entity_ids_encode_as_the_reference_orders_them() -> None:
    """Shard, realm and num in one number (10, 16 and 38 bits), so encoded ids sort by shard, then
    realm, then num; the airdrop, schedule and token indexes key on them."""
    assert encode_entity(0, 0, 2) == 2
    assert encode_entity(1, 2, 3) == (1 << 54) | (2 << 38) | 3
    assert encode_entity(0, 1, 0) > encode_entity(0, 0, (1 << 38) - 1)  # type: ignore[operator]
    for text in ("0.0.0", "0.0.1001", "1.2.3", "1023.65535.274877906943"):
        assert decode_entity(encode_entity_text(text)) == text
    assert encode_entity(1024, 0, 0) is None and encode_entity(0, 0, 1 << 38) is None
    with pytest.raises(RowLayoutError):
        encode_entity_text("0.65536.1")
