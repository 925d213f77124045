"""The compiled V6 walk (``_speedups.v6_item_lists``, ``record_items``) against the Python readers:
the same bytes, times and items, on the real files, on generated files of any shape and on mutated
ones; where the Python reader refuses a file, the compiled walk answers None (the Python reader then
names the fault)."""

from __future__ import annotations

import gc
import os
from pathlib import Path
from typing import Any

import pytest
from google.protobuf.message import DecodeError
from hedera_history import hapi, speedups
from hedera_history.errors import FormatError
from hedera_history.formats.compression import gunzip
from hedera_history.formats.parsed_files import RecordItem
from hedera_history.formats.v6_items import ItemColumns, item_columns, python_item_columns, record_items
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .writers import len_field, make_items, v6_item_bytes, varint, write_v6_content

pytestmark = pytest.mark.skipif(not speedups.available, reason="the compiled core is not built here")

FUZZ = settings(
    max_examples=int(os.environ.get("HEDERA_HISTORY_FUZZ_EXAMPLES", "300")),
    deadline=None,
    database=None,
    derandomize="HEDERA_HISTORY_FUZZ_EXAMPLES" not in os.environ,
    suppress_health_check=[HealthCheck.too_slow],
)
ITEMS = make_items(4)
LIMIT = 1 << 30


def _both(content: bytes) -> tuple[ItemColumns | None, ItemColumns | FormatError] | None:
    """The compiled walk's answer and the Python reader's (or its error); None when upb refuses
    the file (neither walk runs then)."""
    try:
        parsed: Any = hapi.RecordStreamFile.FromString(content[4:])
    except DecodeError:
        return None
    assert speedups.v6_item_lists is not None
    compiled = speedups.v6_item_lists(content)
    try:
        return compiled, python_item_columns(content, parsed.record_stream_items, "f.rcd.gz")
    except FormatError as e:
        return compiled, e


def _assert_agree(content: bytes) -> None:
    answers = _both(content)
    if answers is None:
        return
    compiled, python = answers
    if isinstance(python, FormatError):
        assert compiled is None, f"compiled walk accepted what the Python reader refuses: {python}"
    elif compiled is not None:
        assert compiled == python


def test_every_real_v6_record_file_walks_the_same(hedera_data: Path) -> None:
    paths = sorted(hedera_data.glob("v6/recordstreams/record*/*.rcd.gz"))
    assert paths
    for path in paths:
        content = gunzip(path.read_bytes(), path.name, limit=LIMIT)
        parsed: Any = hapi.RecordStreamFile.FromString(content[4:])
        python = python_item_columns(content, parsed.record_stream_items, path.name)
        assert speedups.v6_item_lists is not None
        assert speedups.v6_item_lists(content) == python, path
        assert item_columns(content, parsed.record_stream_items, path.name) == python


def _timestamp(seconds: int, nanos: int, encoding: int) -> bytes:
    fields = [varint(1 << 3) + varint(seconds & (1 << 64) - 1), varint(2 << 3) + varint(nanos & (1 << 64) - 1)]
    if encoding == 1:  # reversed, and a field of the wrong wire type (an unknown field)
        fields = [*fields[::-1], len_field(1, b"\x05")]
    if encoding == 2:  # given in two parts: merged as a parse merges them
        return len_field(3, fields[0]) + len_field(3, fields[1])
    return len_field(3, b"".join(fields))


@st.composite
def _items(draw: st.DrawFn) -> list[bytes]:
    encoded = []
    for item in ITEMS[: draw(st.integers(0, len(ITEMS)))]:
        seconds = draw(st.one_of(st.integers(-(2**63), 2**63 - 1), st.integers(-(10**10), 10**10), st.just(0)))
        nanos = draw(st.one_of(st.integers(-(2**31), 2**31 - 1), st.integers(0, 999_999_999)))
        record = hapi.TransactionRecord.FromString(item.record)
        record.ClearField("consensusTimestamp")
        absent = draw(st.integers(0, 7)) == 0
        stamp = b"" if absent else _timestamp(seconds, nanos, draw(st.integers(0, 2)))
        record_bytes = stamp + record.SerializeToString() + draw(st.sampled_from([b"", b"\x98\x06\x01"]))
        parts = [len_field(1, item.transaction), len_field(2, record_bytes)]
        if draw(st.booleans()):
            parts.reverse()
        extra = draw(st.sampled_from([b"", b"\x28\x05", b"\x35\x00\x00\x00\x00", len_field(1, b"")]))
        encoded.append(extra + b"".join(parts) if draw(st.booleans()) else b"".join(parts) + extra)
    return encoded


@FUZZ
@given(_items())
def test_generated_files_walk_the_same(encoded: list[bytes]) -> None:
    _assert_agree(write_v6_content(ITEMS[: len(encoded)], item_bytes=encoded))


@FUZZ
@given(st.data())
def test_mutated_files_walk_the_same_or_go_the_python_way(data: st.DataObject) -> None:
    content = bytearray(write_v6_content(ITEMS[:2]))
    for _ in range(data.draw(st.integers(1, 4))):
        position = data.draw(st.integers(4, len(content) - 1))
        content[position] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(4, len(content)))
    _assert_agree(bytes(content[:cut]))


def test_a_regular_file_is_walked_by_the_compiled_core() -> None:
    content = write_v6_content(ITEMS)
    assert speedups.v6_item_lists is not None
    walked = speedups.v6_item_lists(content)
    assert walked is not None
    assert walked[0] == [i.transaction for i in ITEMS] and walked[2] == [i.consensus_ns for i in ITEMS]


@pytest.mark.parametrize(
    "item",
    [
        v6_item_bytes(ITEMS[0]) + len_field(1, ITEMS[0].transaction),  # a transaction given twice
        len_field(1, ITEMS[0].transaction),  # no record
        len_field(1, b"") + len_field(2, ITEMS[0].record),  # an empty transaction
        len_field(1, ITEMS[0].transaction) + len_field(2, hapi.TransactionRecord(memo="x").SerializeToString()),
        b"\x0b\x0c" + v6_item_bytes(ITEMS[0]),  # an (empty) group: the Python walk names it
    ],
)
def test_an_irregular_item_goes_the_python_way(item: bytes) -> None:
    assert speedups.v6_item_lists is not None
    assert speedups.v6_item_lists(write_v6_content(ITEMS[:1], item_bytes=[item])) is None


def test_compiled_items_equal_the_dataclass_and_stay_out_of_the_collector() -> None:
    made = record_items([b"tx", b"tx2"], [b"rec", b"rec2"], [5, 7])
    assert made == (RecordItem(b"tx", b"rec", 5), RecordItem(b"tx2", b"rec2", 7))
    assert not any(map(gc.is_tracked, made))
    other: list[Any] = [bytearray(b"tx")]  # not bytes: the Python passes build it
    assert record_items(other, [b"rec"], [5]) == (RecordItem(other[0], b"rec", 5),)
