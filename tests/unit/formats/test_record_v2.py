"""V1 and V2 record files: hand-built, whole, cut short, with trailing data."""

from __future__ import annotations

import pytest
from hedera_history.errors import CorruptFileError, FormatError, TruncatedFileError
from hedera_history.formats.dispatch import parse_record_file
from hedera_history.formats.record_v2 import parse_record_v2

from .writers import i32, make_items, v2_file_hash, write_v2

ITEMS = make_items(3)
PREVIOUS = bytes(range(48))


@pytest.mark.parametrize("version", [1, 2])
def test_whole_file(version: int) -> None:
    data = write_v2(ITEMS, version=version, hapi_version=3, previous=PREVIOUS)
    record = parse_record_file(data, "2019-09-13T21_53_51.396440Z.rcd")
    assert record.version == version
    assert record.hapi_version == (0, 0, 0)  # the reference reads no HAPI version from V1/V2
    assert record.header_hapi_int == 3
    assert record.previous_file_hash == PREVIOUS
    assert record.previous_hash == PREVIOUS
    assert record.file_hash == v2_file_hash(data, version)
    assert record.hash == record.file_hash
    assert record.size == len(data)
    assert [(i.transaction_bytes, i.record_bytes, i.consensus_ns) for i in record.items] == [
        (i.transaction, i.record, i.consensus_ns) for i in ITEMS
    ]
    assert record.metadata_hash is None and record.start_running_hash is None
    assert record.computed_end_running_hash is None and record.block_number is None


def test_v1_and_v2_hash_differently() -> None:
    v1 = parse_record_v2(write_v2(ITEMS, version=1), "a")
    v2 = parse_record_v2(write_v2(ITEMS, version=2), "b")
    assert v1.file_hash != v2.file_hash


def test_a_header_without_items_is_a_file() -> None:
    record = parse_record_v2(write_v2([]), "f")
    assert record.items == ()
    assert record.consensus_start == 0


def test_prefixes_ending_between_items_are_shorter_files_others_are_truncated() -> None:
    # V1/V2 files have no end marker: a cut at an item boundary is a valid, shorter file whose
    # hash differs (verification catches it); a cut anywhere else is truncated.
    data = write_v2(ITEMS)
    boundaries = {len(write_v2(ITEMS[:n])): n for n in range(len(ITEMS) + 1)}
    whole = parse_record_v2(data, "f").file_hash
    for cut in range(len(data)):
        if cut in boundaries:
            record = parse_record_v2(data[:cut], "f")
            assert len(record.items) == boundaries[cut]
            assert record.file_hash != whole
        else:
            with pytest.raises(TruncatedFileError):
                parse_record_v2(data[:cut], "f")


@pytest.mark.parametrize("trailing", [b"\x02", b"\x07", b"\x02" + i32(5)])
def test_trailing_data_is_refused(trailing: bytes) -> None:
    with pytest.raises(FormatError):
        parse_record_v2(write_v2(ITEMS) + trailing, "f")


def test_bad_markers_name_the_field() -> None:
    data = bytearray(write_v2(ITEMS))
    data[8] = 9
    with pytest.raises(CorruptFileError, match="field previous hash marker: expected 1 but got 9"):
        parse_record_v2(bytes(data), "f")
    data = bytearray(write_v2(ITEMS))
    data[57] = 3
    with pytest.raises(CorruptFileError, match=r"field items\[0\] record marker: expected 2 but got 3"):
        parse_record_v2(bytes(data), "f")


def test_items_must_be_protobuf_with_a_consensus_time() -> None:
    good = ITEMS[0]
    bad = write_v2([]) + b"\x02" + i32(2) + b"\xff\xff" + i32(len(good.record)) + good.record
    with pytest.raises(CorruptFileError, match="protobuf does not parse"):
        parse_record_v2(bad, "f")
    empty_record = b"\x2a\x00"  # memo = "" (a record without consensusTimestamp)
    bad = write_v2([]) + b"\x02" + i32(len(good.transaction)) + good.transaction + i32(2) + empty_record
    with pytest.raises(CorruptFileError, match="consensusTimestamp: expected a value"):
        parse_record_v2(bad, "f")


def test_zero_length_transaction_is_corrupt() -> None:
    bad = write_v2([]) + b"\x02" + i32(0) + i32(0)
    with pytest.raises(CorruptFileError, match=r"field items\[0\] transaction length: expected 1\.\."):
        parse_record_v2(bad, "f")
