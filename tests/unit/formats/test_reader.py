from __future__ import annotations

import pytest
from hedera_history.errors import CorruptFileError, TruncatedFileError
from hedera_history.formats.reader import ByteReader

from .writers import i32, i64

DATA = b"\x07" + i32(-2) + i64(1 << 40) + i32(3) + b"abc" + b"\xff"


def test_reads_each_field_in_order() -> None:
    reader = ByteReader(DATA, "f.rcd")
    assert reader.read_byte("marker") == 7
    assert reader.read_int32("signed") == -2
    assert reader.read_int64("wide") == 1 << 40
    assert reader.read_length_prefixed("payload", min_length=1, max_length=3) == b"abc"
    assert reader.peek_bytes(1, "last") == b"\xff"
    assert reader.remaining == 1
    assert reader.read_bytes(1, "last") == b"\xff"
    assert reader.at_end
    reader.expect_end()


@pytest.mark.parametrize("cut", range(len(DATA)))
def test_every_short_input_is_truncated_and_names_the_field(cut: int) -> None:
    reader = ByteReader(DATA[:cut], "f.rcd", node="0.0.3")
    with pytest.raises(TruncatedFileError) as caught:
        reader.read_byte("marker")
        reader.read_int32("signed")
        reader.read_int64("wide")
        reader.read_length_prefixed("payload")
        reader.read_bytes(1, "last")
    assert caught.value.file == "f.rcd"
    assert caught.value.node == "0.0.3"
    assert "field " in str(caught.value)


def test_trailing_data_is_left_alone_until_the_end_is_expected() -> None:
    reader = ByteReader(i32(5) + b"extra", "f.rcd")
    assert reader.read_int32("version") == 5
    assert reader.position == 4
    with pytest.raises(CorruptFileError, match="field end of file: expected no more bytes but got 5"):
        reader.expect_end()


def test_expect_words_the_error_as_field_expected_got() -> None:
    reader = ByteReader(i32(4) + b"\x01" + bytes.fromhex("aabb"), "f.rcd", node="0.0.4")
    with pytest.raises(CorruptFileError) as caught:
        reader.expect_int32("version", 5)
    assert caught.value.reason == "field version: expected 5 but got 4"
    assert str(caught.value) == "field version: expected 5 but got 4 (file f.rcd, node 0.0.4)"
    with pytest.raises(CorruptFileError, match="field marker: expected 2 but got 1"):
        reader.expect_byte("marker", 2)
    with pytest.raises(CorruptFileError, match="field class id: expected ccdd but got aabb"):
        reader.expect_bytes("class id", b"\xcc\xdd")


@pytest.mark.parametrize(("length", "bounds"), [(-1, {}), (0, {"min_length": 1}), (4, {"max_length": 3})])
def test_impossible_lengths_are_corrupt(length: int, bounds: dict[str, int]) -> None:
    reader = ByteReader(i32(length) + b"abcd", "f.rcd")
    with pytest.raises(CorruptFileError, match="field payload length: expected"):
        reader.read_length_prefixed("payload", **bounds)


def test_a_length_beyond_the_input_is_truncated() -> None:
    reader = ByteReader(i32(10) + b"abc", "f.rcd")
    with pytest.raises(TruncatedFileError, match="field payload: expected 10 bytes at offset 4 but only 3 remain"):
        reader.read_length_prefixed("payload")


def test_a_window_of_the_buffer_is_read_as_a_whole() -> None:
    data = b"xx" + i32(9) + b"yy"
    reader = ByteReader(data, "f.rcd", start=2, end=6)
    assert reader.read_int32("inner") == 9
    assert reader.at_end
    with pytest.raises(TruncatedFileError):
        reader.read_byte("past the window")
