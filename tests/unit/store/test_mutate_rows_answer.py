"""MutateRows answers read by the compiled core (``_speedups.mutate_rows_answer``) give what protobuf
reads from the same bytes: the entry count and each failed entry's index, code and message. Where
protobuf refuses the bytes, or they hold messages whose inside protobuf checks (a status's details,
the rate limit), the compiled reader answers None and leaves the verdict to protobuf."""

from __future__ import annotations

from typing import Any

import pytest
from google.cloud.bigtable_v2.types import bigtable as bigtable_types
from google.protobuf.message import DecodeError
from hedera_history import speedups
from hedera_history.store.bigtable_client import python_read_answer, read_answer
from hypothesis import given, settings
from hypothesis import strategies as st

RESPONSE: Any = bigtable_types.MutateRowsResponse.pb()

pytestmark = pytest.mark.skipif(speedups.mutate_rows_answer is None, reason="the compiled core is not built here")

entries = st.lists(
    st.tuples(
        st.integers(-(2**63), 2**63 - 1),
        st.one_of(st.just(0), st.integers(-(2**31), 2**31 - 1)),
        st.one_of(st.just(""), st.text(max_size=30)),
        st.booleans(),
    ),
    max_size=20,
)
UNKNOWN_FIELDS = [b"", b"\x48\x05", b"\x52\x03abc", b"\x5d\x01\x02\x03\x04", b"\x59" + bytes(8)]
"""Fields no version of the message names (numbers 9, 10, 11): a parser skips them."""


def response(answers: list[tuple[int, int, str, bool]], rate_limited: bool) -> bytes:
    message = RESPONSE()
    for index, code, text, details in answers:
        entry = message.entries.add()
        entry.index = index
        entry.status.code = code
        entry.status.message = text
        if details:
            entry.status.details.add(type_url="type.googleapis.com/x", value=b"\x08\x01")
    if rate_limited:
        message.rate_limit_info.factor = 0.5
    return bytes(message.SerializeToString())


def compiled(answer: bytes) -> tuple[int, list[tuple[int, int, str]]] | None:
    assert speedups.mutate_rows_answer is not None
    return speedups.mutate_rows_answer(answer)


@settings(max_examples=300, deadline=None)
@given(
    answers=entries,
    rate_limited=st.booleans(),
    unknown=st.sampled_from(UNKNOWN_FIELDS),
    split=st.integers(0, 20),
)
def test_the_compiled_reading_is_protobuf_s(
    answers: list[tuple[int, int, str, bool]], rate_limited: bool, unknown: bytes, split: int
) -> None:
    # Two messages back to back parse as one whose entries are both lists, in order.
    data = response(answers[:split], rate_limited) + unknown + response(answers[split:], False)
    expected = (len(answers), [(index, code, text) for index, code, text, _ in answers if code])
    assert python_read_answer(data) == expected
    checked_inside = rate_limited or any(details for *_, details in answers)
    assert compiled(data) == (None if checked_inside else expected)
    assert read_answer(data) == expected


def test_later_fields_of_an_entry_win_as_in_a_parse() -> None:
    # Entry {index 1, status {code 14, message "a"}, index 2, status {code 0}, status {message "b"}}:
    # the last index, and the statuses merged (code 0 given again, the later message).
    entry = b"\x08\x01" + b"\x12\x05\x08\x0e\x12\x01a" + b"\x08\x02" + b"\x12\x02\x08\x0e" + b"\x12\x03\x12\x01b"
    data = b"\x0a" + bytes([len(entry)]) + entry
    assert compiled(data) == python_read_answer(data) == (1, [(2, 14, "b")])


@settings(max_examples=300, deadline=None)
@given(answers=entries, cut=st.integers(0, 400), flip=st.integers(0, 400), bit=st.integers(0, 7))
def test_damaged_bytes_are_left_to_protobuf(
    answers: list[tuple[int, int, str, bool]], cut: int, flip: int, bit: int
) -> None:
    data = bytearray(response(answers, False)[:cut])
    if flip < len(data):
        data[flip] ^= 1 << bit
    ours = compiled(bytes(data))
    try:
        theirs = python_read_answer(bytes(data))
    except DecodeError:
        assert ours is None
        return
    assert ours is None or ours == theirs


@pytest.mark.parametrize(
    "data",
    [
        b"\x08\x01",  # entries as a number
        b"\x0a\x02\x12\x01",  # an entry running past its end
        b"\x0a\x02\x0a\x00",  # an index given as bytes
        b"\x0a\x04\x12\x02\x0a\x00",  # a code given as bytes
        b"\x0a\x05\x12\x03\x12\x01\xff",  # a message that is not UTF-8
        b"\x0b",  # a group
        b"\x80\x80\x80\x80\x10\x00",  # a field number protobuf refuses (2^29)
        b"\x0a\x00\x95\x80\x80\x80\x80\x00\x00\x00\x00\x00",  # a tag in 6 bytes (field 2, overlong)
        b"\x1a\x02\x11\x00",  # a rate limit protobuf refuses
        b"\x0a\x06\x12\x04\x1a\x02\x0a\xff",  # details protobuf refuses (a type URL not UTF-8)
    ],
)
def test_irregular_answers_are_left_to_protobuf(data: bytes) -> None:
    assert compiled(data) is None
    try:
        theirs = python_read_answer(data)
    except DecodeError:
        with pytest.raises(DecodeError):
            read_answer(data)
    else:
        assert read_answer(data) == theirs
