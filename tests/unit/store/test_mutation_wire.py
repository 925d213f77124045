"""The hand-written MutateRows encoding, compiled (``_speedups.mutation_entries``) and in Python, is
byte for byte what the protobuf runtime writes."""

from __future__ import annotations

from typing import Any

import pytest
from google.cloud.bigtable_v2.types import bigtable as bigtable_types
from hedera_history import speedups
from hedera_history.store.model import Cell, Row
from hedera_history.store.mutation_wire import EncodedRows, MutationEncoder, varint
from hypothesis import given, settings
from hypothesis import strategies as st

REQUEST: Any = bigtable_types.MutateRowsRequest.pb()
TABLE = "projects/p/instances/i/tables/transactions"

cells = st.builds(
    Cell,
    family=st.sampled_from(["", "t", "h", "a", "family-with-a-longer-name", "é" * 70]),
    qualifier=st.one_of(st.sampled_from([b"", b"record", b"block"]), st.binary(max_size=40)),
    value=st.one_of(st.binary(max_size=64), st.binary(min_size=16_380, max_size=20_000)),
    timestamp_micros=st.one_of(st.just(0), st.integers(-1, 2**63 - 1), st.sampled_from([-1, 1_700_000_000_000_000])),
)
rows = st.builds(
    Row, table=st.just("transactions"), key=st.binary(max_size=300), cells=st.lists(cells, max_size=5).map(tuple)
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


needs_compiled = pytest.mark.skipif(speedups.mutation_entries is None, reason="the compiled core is not built here")


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
    assert speedups.mutation_entries is not None
    assert speedups.mutation_entries([Row("t", b"k", ()), odd]) is None


@needs_compiled
def test_the_compiled_entries_raise_what_the_python_ones_raise() -> None:
    assert speedups.mutation_entries is not None
    with pytest.raises(AttributeError):
        speedups.mutation_entries([object()])
    with pytest.raises(UnicodeEncodeError):
        speedups.mutation_entries([Row("t", b"k", (Cell("\ud800", b"q", b"v", 1),))])
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
    assert len(encoded.entries) == 2
