"""V5 record files: hand-built, whole, cut short, with trailing data, bad objects."""

from __future__ import annotations

import hashlib

import pytest
from hedera_history.errors import CorruptFileError, TruncatedFileError
from hedera_history.formats.dispatch import parse_record_file
from hedera_history.formats.record_v5 import parse_record_v5
from hedera_history.formats.record_v5 import v5_metadata_hash as metadata_hash_of_fields

from .writers import hash_object, i32, make_items, running_hash_of, v5_metadata_hash, write_v5

ITEMS = make_items(3)
START = hashlib.sha384(b"previous").digest()


def test_whole_file() -> None:
    data = write_v5(ITEMS, start=START, hapi_version=(0, 11, 2))
    record = parse_record_file(data, "2021-01-11T22_09_24.063739000Z.rcd")
    assert record.version == 5
    assert record.hapi_version == (0, 11, 2)
    assert record.object_stream_version == 1
    assert record.start_running_hash == START == record.previous_hash
    assert record.end_running_hash == running_hash_of(START, ITEMS) == record.hash
    assert record.computed_end_running_hash == record.end_running_hash
    assert record.file_hash == hashlib.sha384(data).digest()
    assert record.metadata_hash == v5_metadata_hash(data)
    assert record.block_number is None and record.previous_file_hash is None
    assert record.consensus_start == ITEMS[0].consensus_ns
    assert record.consensus_end == ITEMS[-1].consensus_ns
    assert [(i.transaction_bytes, i.record_bytes) for i in record.items] == [(i.transaction, i.record) for i in ITEMS]


def test_claimed_end_hash_is_reported_not_judged() -> None:
    wrong = bytes(48)
    record = parse_record_v5(write_v5(ITEMS, start=START, end=wrong), "f")
    assert record.end_running_hash == wrong
    assert record.computed_end_running_hash == running_hash_of(START, ITEMS)


def test_metadata_hash_ignores_items() -> None:
    a = parse_record_v5(write_v5(ITEMS, start=START, end=bytes(48)), "a")
    b = parse_record_v5(write_v5(ITEMS[:1], start=START, end=bytes(48)), "b")
    assert a.metadata_hash == b.metadata_hash
    assert a.file_hash != b.file_hash


def test_the_metadata_hash_of_the_fields_is_the_files() -> None:
    data = write_v5(ITEMS, start=START, end=bytes(range(48)), hapi_version=(0, 27, 3), object_stream_version=2)
    expected = parse_record_v5(data, "f").metadata_hash
    assert metadata_hash_of_fields((0, 27, 3), 2, START, bytes(range(48))) == expected
    assert metadata_hash_of_fields((0, 27, 4), 2, START, bytes(range(48))) != expected


def test_every_prefix_is_truncated() -> None:
    data = write_v5(ITEMS[:2])
    for cut in range(len(data)):
        with pytest.raises(TruncatedFileError):
            parse_record_v5(data[:cut], "f")


@pytest.mark.parametrize("trailing", [b"\x00", bytes(68), hash_object(bytes(48))])
def test_trailing_data_is_corrupt(trailing: bytes) -> None:
    with pytest.raises(CorruptFileError, match="field end of file: expected no more bytes"):
        parse_record_v5(write_v5(ITEMS) + trailing, "f")


def test_no_items_is_corrupt() -> None:
    with pytest.raises(CorruptFileError, match="at least one record stream object"):
        parse_record_v5(write_v5([]), "f")


@pytest.mark.parametrize(
    ("offset", "value", "field"),
    [
        (20, b"\x00", "start running hash object class id"),
        (28, i32(2), "start running hash object class version"),
        (32, i32(1), "start running hash object digest type"),
        (36, i32(32), "start running hash object hash length"),
        (88, b"\x01", r"items\[0\] class id"),
        (96, i32(2), r"items\[0\] class version"),
    ],
)
def test_bad_object_headers_name_the_field(offset: int, value: bytes, field: str) -> None:
    data = bytearray(write_v5(ITEMS))
    data[offset : offset + len(value)] = value
    with pytest.raises(CorruptFileError, match=f"field {field}: expected"):
        parse_record_v5(bytes(data), "f")


def test_bad_end_hash_object() -> None:
    data = bytearray(write_v5(ITEMS))
    data[-68 + 12 : -68 + 16] = i32(7)
    with pytest.raises(CorruptFileError, match="field end running hash object digest type"):
        parse_record_v5(bytes(data), "f")
