from __future__ import annotations

import pytest
from hedera_history.errors import RowDecodeError, RowLayoutError
from hedera_history.store.model import Cell, Row
from hedera_history.store.row_codec import decode_row_message, encode_row_value, encode_varint, message_key
from hypothesis import given
from hypothesis import strategies as st

cells = st.builds(
    Cell,
    family=st.sampled_from(["h", "sig", "t", "a"]),
    qualifier=st.binary(max_size=40),
    value=st.binary(max_size=300),
    timestamp_micros=st.integers(0, 2**63 - 1),
)
rows = st.builds(
    Row,
    table=st.sampled_from(["blocks", "transactions", "account_history"]),
    key=st.text(alphabet="0123456789abcdef./", min_size=1, max_size=40).map(str.encode),
    cells=st.lists(cells, max_size=6).map(tuple),
)


@given(rows)
def test_rows_round_trip_through_messages(row: Row) -> None:
    assert decode_row_message(message_key(row), encode_row_value(row)) == row


@given(rows)
def test_encoding_is_deterministic(row: Row) -> None:
    copy = Row(
        row.table,
        bytes(row.key),
        tuple(Cell(c.family, c.qualifier, c.value, c.timestamp_micros) for c in row.cells),
    )
    assert encode_row_value(copy) == encode_row_value(row)


def test_message_key_is_table_slash_row_key() -> None:
    row = Row("account_history", b"0.0.2/e8fea8d708f1809c", ())
    assert message_key(row) == "account_history/0.0.2/e8fea8d708f1809c"
    assert decode_row_message(message_key(row), encode_row_value(row)).key == row.key


def test_every_truncation_and_trailing_data_is_refused() -> None:
    row = Row(
        "blocks",
        b"000000000000002a",
        (Cell("h", b"name", b"x" * 200, 1_000), Cell("c", b"complete", b"\x00", 0)),
    )
    value = encode_row_value(row)
    for cut in range(len(value)):
        with pytest.raises(RowDecodeError):
            decode_row_message(message_key(row), value[:cut])
    with pytest.raises(RowDecodeError):
        decode_row_message(message_key(row), value + b"\x00")


@pytest.mark.parametrize("key", ["blocks", "/000000000000002a", "blocks/"])
def test_bad_message_keys_are_refused(key: str) -> None:
    with pytest.raises(RowDecodeError):
        decode_row_message(key, b"\x01\x00")


def test_a_negative_varint_is_a_layout_error() -> None:
    with pytest.raises(RowLayoutError):
        encode_varint(-1)
