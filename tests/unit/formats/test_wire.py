from __future__ import annotations

import pytest
from hedera_history.errors import CorruptFileError, TruncatedFileError
from hedera_history.formats.wire import read_tag, read_varint, repeated_spans, singular_spans, skip_field

from .writers import len_field, varint


@pytest.mark.parametrize("value", [0, 1, 127, 128, 300, 2**31 - 1, 2**63, 2**64 - 1])
def test_varint_round_trip(value: int) -> None:
    data = varint(value) + b"\x99"
    assert read_varint(data, 0, len(data), "v", "f") == (value, len(data) - 1)


def test_varint_past_the_end_is_truncated() -> None:
    with pytest.raises(TruncatedFileError, match="field v: varint at offset 0 runs past the end"):
        read_varint(b"\x80\x80", 0, 2, "v", "f")


def test_overlong_varint_is_corrupt() -> None:
    data = b"\xff" * 11 + b"\x01"
    with pytest.raises(CorruptFileError, match="at most 10 bytes"):
        read_varint(data, 0, len(data), "v", "f")


def test_field_number_zero_is_corrupt() -> None:
    with pytest.raises(CorruptFileError, match="field number >= 1"):
        read_tag(b"\x02\x00", 0, 2, "m", "f")


@pytest.mark.parametrize(
    ("wire_type", "value"), [(0, varint(150)), (1, bytes(8)), (2, varint(3) + b"abc"), (5, bytes(4))]
)
def test_skip_each_wire_type(wire_type: int, value: bytes) -> None:
    data = value + b"\x08"
    assert skip_field(data, 0, len(data), wire_type, field="x", name="f") == len(value)


@pytest.mark.parametrize("wire_type", [3, 4, 6, 7])
def test_groups_and_unknown_wire_types_are_corrupt(wire_type: int) -> None:
    with pytest.raises(CorruptFileError, match="expected wire type 0, 1, 2 or 5"):
        skip_field(b"\x00" * 8, 0, 8, wire_type, field="x", name="f")


@pytest.mark.parametrize(("wire_type", "value"), [(1, bytes(7)), (5, bytes(3)), (2, varint(5) + b"abc")])
def test_values_past_the_end_are_truncated(wire_type: int, value: bytes) -> None:
    with pytest.raises(TruncatedFileError):
        skip_field(value, 0, len(value), wire_type, field="x", name="f")


def test_repeated_spans_skip_other_fields() -> None:
    data = b"\x08\x96\x01" + len_field(3, b"one") + b"\x15" + bytes(4) + len_field(3, b"two") + b"\x21" + bytes(8)
    spans = repeated_spans(data, 0, len(data), 3, field="items", name="f")
    assert [data[a:b] for a, b in spans] == [b"one", b"two"]


def test_a_field_with_another_wire_type_is_unknown_as_for_upb() -> None:
    data = b"\x18\x01" + len_field(3, b"one")
    assert repeated_spans(data, 0, len(data), 3, field="items", name="f") == [(4, 7)]
    fields = ((1, "transaction"),)
    assert singular_spans(b"\x08\x01", 0, 2, fields, what="item", name="f") == [None]


def test_singular_spans_in_any_order_and_missing() -> None:
    fields = ((1, "transaction"), (2, "record"))
    data = len_field(2, b"rec") + b"\x28\x01" + len_field(1, b"tx")
    tx, rec = singular_spans(data, 0, len(data), fields, what="item", name="f")
    assert tx is not None and rec is not None
    assert (data[tx[0] : tx[1]], data[rec[0] : rec[1]]) == (b"tx", b"rec")
    assert singular_spans(b"", 0, 0, fields, what="item", name="f") == [None, None]


def test_singular_field_twice_is_corrupt() -> None:
    data = len_field(1, b"a") + len_field(1, b"b")
    with pytest.raises(CorruptFileError, match=r"field item\.transaction: expected once but got it twice"):
        singular_spans(data, 0, len(data), ((1, "transaction"),), what="item", name="f")
