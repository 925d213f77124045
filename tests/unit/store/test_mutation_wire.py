"""The hand-written MutateRows encoding, compiled (``_speedups.mutation_entries``, ``mutation_runs``)
and in Python, is byte for byte what the protobuf runtime writes."""

from __future__ import annotations

from itertools import accumulate, groupby
from typing import Any

import pytest
from google.cloud.bigtable_v2.types import bigtable as bigtable_types
from hedera_history import speedups
from hedera_history.store.model import Cell, Row
from hedera_history.store.mutation_wire import EncodedRows, MutationEncoder, TableRun, varint
from hypothesis import given, settings
from hypothesis import strategies as st

REQUEST: Any = bigtable_types.MutateRowsRequest.pb()
TABLE = "projects/p/instances/i/tables/transactions"

# Values whose length varint crosses two bytes (16,384) are made by repeating a short pattern: the
# encoders copy a value's bytes as they are, so its length is what matters, and Hypothesis draws
# 20,000 bytes one at a time (most of these tests' time).
long_values = st.builds(
    lambda pattern, length: (pattern * length)[:length], st.binary(min_size=1, max_size=16), st.integers(16_380, 20_000)
)
cells = st.builds(
    Cell,
    family=st.sampled_from(["", "t", "h", "a", "family-with-a-longer-name", "é" * 70]),
    qualifier=st.one_of(st.sampled_from([b"", b"record", b"block"]), st.binary(max_size=40)),
    value=st.one_of(st.binary(max_size=64), long_values),
    timestamp_micros=st.one_of(st.just(0), st.integers(-1, 2**63 - 1), st.sampled_from([-1, 1_700_000_000_000_000])),
)
rows = st.builds(
    Row, table=st.just("transactions"), key=st.binary(max_size=300), cells=st.lists(cells, max_size=5).map(tuple)
)
tables_rows = st.builds(
    Row,
    table=st.sampled_from(["transactions", "blocks", "items"]),
    key=st.binary(max_size=40),
    cells=st.lists(cells, max_size=3).map(tuple),
)


def protobuf_bytes(table_name: str, batch: list[Row], app_profile: str | None) -> bytes:
    request = REQUEST(table_name=table_name)
    if app_profile:
        request.app_profile_id = app_profile
    for row in batch:
        entry = request.entries.add()
        entry.row_key = row.key
        for cell in row.cells:
            set_cell = entry.mutations.add().set_cell
            set_cell.family_name = cell.family
            set_cell.column_qualifier = cell.qualifier
            set_cell.timestamp_micros = cell.timestamp_micros
            set_cell.value = cell.value
    return bytes(request.SerializeToString())


@settings(max_examples=150, deadline=None)
@given(batch=st.lists(rows, max_size=6), app_profile=st.sampled_from([None, "", "writers"]))
def test_requests_are_the_bytes_protobuf_writes(batch: list[Row], app_profile: str | None) -> None:
    encoder = MutationEncoder()
    expected = protobuf_bytes(TABLE, batch, app_profile)
    assert encoder.request(TABLE, encoder.entries(batch), app_profile) == expected
    for _ in range(2):  # the second time from the encoder's cache of cell prefixes
        assert encoder.request(TABLE, encoder.python_entries(batch), app_profile) == expected


@settings(max_examples=150, deadline=None)
@given(batch=st.lists(tables_rows, max_size=12), app_profile=st.sampled_from([None, "writers"]))
def test_runs_hold_the_entries_of_each_run_of_one_table(batch: list[Row], app_profile: str | None) -> None:
    encoder = MutationEncoder()
    entries = encoder.python_entries(batch)
    runs = encoder.runs(batch)
    assert [run.table for run in runs] == [table for table, _ in groupby(r.table for r in batch)]
    start = 0
    for run in runs:
        assert all(row.table == run.table for row in batch[start : run.stop])
        assert run.body == b"".join(entries[start : run.stop])
        assert [bytes(run.chunk(i, i + 1)) for i in range(run.stop - start)] == entries[start : run.stop]
        assert list(run.cells) == list(accumulate(len(row.cells) for row in batch[start : run.stop]))
        start = run.stop
    assert start == len(batch)
    chunks = [run.chunk(0, len(run.ends)) for run in runs]
    assert encoder.request(TABLE, chunks, app_profile) == protobuf_bytes(TABLE, batch, app_profile)


needs_compiled = pytest.mark.skipif(speedups.mutation_entries is None, reason="the compiled core is not built here")


@needs_compiled
@settings(max_examples=150, deadline=None)
@given(batch=st.lists(tables_rows, max_size=12))
def test_the_compiled_runs_are_the_python_ones(batch: list[Row]) -> None:
    """Tables equal but not the same object, as rows built apart carry them."""
    assert speedups.mutation_runs is not None
    apart = [Row("".join(row.table), row.key, row.cells) for row in batch]
    assert speedups.mutation_runs(apart) == MutationEncoder().python_runs(batch)
    assert speedups.mutation_runs(tuple(batch)) == MutationEncoder().python_runs(batch)


@needs_compiled
@settings(max_examples=150, deadline=None)
@given(batch=st.lists(tables_rows, min_size=1, max_size=12), extra=st.lists(tables_rows, max_size=3))
def test_the_compiled_runs_of_many_rows_are_the_python_ones(batch: list[Row], extra: list[Row]) -> None:
    """Runs of many rows, whose buffers grow and whose totals run long."""
    assert speedups.mutation_runs is not None
    many = (batch * (80 // len(batch) + 1)) + extra
    assert speedups.mutation_runs(many) == MutationEncoder().python_runs(many)


class OtherRow(Row):
    """A subclass: a type the encoder's slot cache has not seen."""

    __slots__ = ()


@needs_compiled
@pytest.mark.parametrize(
    "odd",
    [
        OtherRow("t", b"k", (Cell("f", b"q", b"v", 1),)),
        Row("t", b"k", (Cell("f", b"q", b"v", 2**61),)),  # three int digits
        Row("t", b"k", (Cell("é", b"q", b"v", 1),)),  # a family not ASCII
        Row("é", b"k", (Cell("f", b"q", b"v", 1),)),  # a table not ASCII
        Row("".join(["t", "x"]), b"k", (Cell("f", b"q", b"v", 1),)),  # equal tables, not the same object
    ],
)
def test_an_odd_row_amid_many_is_encoded_as_the_python_encoder_does(odd: Row) -> None:
    assert speedups.mutation_runs is not None
    plain = [Row("tx", b"k%d" % i, (Cell("f", b"q", b"v%d" % i, 1_700_000_000_000_000 + i),)) for i in range(100)]
    for at in (0, 50, 99):
        rows = [*plain[:at], odd, *plain[at:]]
        assert speedups.mutation_runs(rows) == MutationEncoder().python_runs(rows)


@needs_compiled
def test_runs_of_many_and_large_rows_grow_their_buffer() -> None:
    assert speedups.mutation_runs is not None
    batch = [Row("t", b"k%d" % i, (Cell("f", b"q", bytes(i % 7) * 5_000, i),)) for i in range(100)]
    batch += [Row("u", b"", ())]
    assert speedups.mutation_runs(batch) == MutationEncoder().python_runs(batch)
    assert speedups.mutation_runs([]) == [] == MutationEncoder().python_runs([])


@needs_compiled
@settings(max_examples=150, deadline=None)
@given(batch=st.lists(rows, max_size=6))
def test_the_compiled_entries_are_the_python_ones(batch: list[Row]) -> None:
    assert speedups.mutation_entries is not None
    assert speedups.mutation_entries(batch) == MutationEncoder().python_entries(batch)
    assert speedups.mutation_entries(tuple(batch)) == MutationEncoder().python_entries(batch)


@needs_compiled
@pytest.mark.parametrize(
    "odd",
    [
        Row("t", "key", ()),  # type: ignore[arg-type]
        Row("t", b"key", [Cell("f", b"q", b"v", 1)]),  # type: ignore[arg-type]
        Row("t", b"key", (Cell("f", "q", b"v", 1),)),  # type: ignore[arg-type]
        Row("t", b"key", (Cell("f", b"q", b"v", 1), Cell("f", b"q", bytearray(b"v"), 1))),  # type: ignore[arg-type]
        Row("t", b"key", (Cell("f", b"q", b"v", 2**64),)),
        Row("t", b"key", (Cell(b"f", b"q", b"v", 1),)),  # type: ignore[arg-type]
    ],
)
def test_a_value_of_another_type_is_left_to_the_python_encoder(odd: Row) -> None:
    assert speedups.mutation_entries is not None and speedups.mutation_runs is not None
    assert speedups.mutation_entries([Row("t", b"k", ()), odd]) is None
    assert speedups.mutation_runs([Row("t", b"k", ()), odd]) is None
    assert speedups.mutation_runs([Row("other", b"k", ()), odd]) is None


@needs_compiled
def test_the_compiled_entries_raise_what_the_python_ones_raise() -> None:
    assert speedups.mutation_entries is not None
    with pytest.raises(AttributeError):
        speedups.mutation_entries([object()])
    with pytest.raises(UnicodeEncodeError):
        speedups.mutation_entries([Row("t", b"k", (Cell("\ud800", b"q", b"v", 1),))])
    assert speedups.mutation_runs is not None
    with pytest.raises(AttributeError):
        speedups.mutation_runs([Row("t", b"k", ()), object()])
    with pytest.raises(UnicodeEncodeError):
        speedups.mutation_runs([Row("t", b"k", (Cell("\ud800", b"q", b"v", 1),))])
    with pytest.raises(UnicodeEncodeError):
        MutationEncoder().python_entries([Row("t", b"k", (Cell("\ud800", b"q", b"v", 1),))])


def test_the_caches_of_frames_start_over_when_full() -> None:
    encoder = MutationEncoder()
    batch = [Row("t", b"k%d" % i, (Cell("a", b"q%d" % i, b"v", i),)) for i in range(20_000)]
    wide = [Row("t", b"k%d" % i, (Cell("a", b"q", b"v", i), Cell("b", b"", b"", i))) for i in range(20_000)]
    assert encoder.request(TABLE, encoder.python_entries(batch + wide)) == protobuf_bytes(TABLE, batch + wide, None)
    encoder.python_entries(batch[:1] + wide[:1])
    assert (len(encoder._entry_frames), len(encoder._cell_frames)) == (1, 2)


def test_varints() -> None:
    for number in (0, 1, 127, 128, 300, 16_383, 16_384, 2**32, 2**63 - 1):
        message = REQUEST(entries=[{"mutations": [{"set_cell": {"timestamp_micros": number}}]}])
        assert varint(number) in bytes(message.SerializeToString())
    assert varint(-1) == b"\xff" * 9 + b"\x01"


def test_encoded_rows_read_as_their_rows() -> None:
    batch = [Row("t", b"a", ()), Row("t", b"b", (Cell("f", b"q", b"v", 1),))]
    encoded = MutationEncoder().encode(batch)
    assert isinstance(encoded, EncodedRows)
    assert list(encoded) == batch and len(encoded) == 2 and encoded[1] == batch[1] and list(encoded[:1]) == batch[:1]
    assert b"".join(encoded.chunks) == b"".join(MutationEncoder().python_entries(batch))


def test_a_run_of_given_entries() -> None:
    batch = [Row("t", b"a", ()), Row("t", b"b", (Cell("f", b"q", b"v", 1), Cell("f", b"r", b"", 1)))]
    run = TableRun.of_entries("t", batch, [b"1", memoryview(b"22")])
    assert (run.stop, run.body, list(run.ends), list(run.cells), run.size, run.cell_count) == (
        2,
        b"122",
        [1, 3],
        [0, 2],
        3,
        2,
    )
    assert bytes(run.chunk(1, 2)) == b"22" and bytes(run.chunk(0, 2)) == b"122"
    empty = TableRun.of_entries("t", [], [])
    assert (empty.size, empty.cell_count) == (0, 0)
