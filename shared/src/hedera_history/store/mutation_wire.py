"""Rows as the wire bytes of a Bigtable ``MutateRowsRequest``, encoded by hand.

Filling a protobuf message cell by cell (``entries.add()``, five attribute sets, then a
serialisation) costs more than the RPC itself on a large write; the request is simple enough
to write directly. Each row becomes one ``entries`` field (``Entry{row_key, mutations}``) whose
mutations are all ``SetCell``; a request is the table name, the entries it carries and the app
profile, so a retry resends a subset of the same bytes without encoding them again.

The writer encodes a block's rows as ``TableRun``s: each run of rows of one table written back to
back into one buffer, with where each row's entry ends and the running count of cells, so that
batches are cut from those totals and sent as slices of the buffers, without an object per row.

The bytes are what the protobuf runtime itself produces for the same message (fields in number
order, default values left out); tests compare the two. Where the compiled core is built
(``hedera_history.speedups``) it writes the entries and the runs (the same bytes and totals, tests
compare them too): the encoding then holds the interpreter lock for a fraction of the time, which
the sender threads need to answer the requests in flight.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate, groupby
from operator import attrgetter
from typing import overload

from hedera_history.formats.wire import varint as _encode_varint
from hedera_history.speedups import mutation_entries as compiled_entries
from hedera_history.speedups import mutation_runs as compiled_runs
from hedera_history.store.model import Cell, Row

# Tags (field number << 3 | wire type 2 "length-delimited", 0 "varint").
_TABLE_NAME = b"\x0a"  # MutateRowsRequest.table_name = 1
_ENTRIES = b"\x12"  # MutateRowsRequest.entries = 2
_APP_PROFILE = b"\x1a"  # MutateRowsRequest.app_profile_id = 3
_ROW_KEY = b"\x0a"  # Entry.row_key = 1
_MUTATIONS = b"\x12"  # Entry.mutations = 2
_SET_CELL = b"\x0a"  # Mutation.set_cell = 1
_FAMILY = b"\x0a"  # SetCell.family_name = 1
_QUALIFIER = b"\x12"  # SetCell.column_qualifier = 2
_TIMESTAMP = b"\x18"  # SetCell.timestamp_micros = 3 (varint)
_VALUE = b"\x22"  # SetCell.value = 4

_SMALL = 1 << 14
_CACHE_LIMIT = 16_384
"""Frames of cell shapes remembered; the cache starts over past this (each block brings its own
timestamp, which would otherwise grow it without bound in a long-lived process)."""


_VARINTS = [_encode_varint(n) for n in range(_SMALL)]
_table_of = attrgetter("table")
_INT64 = "q"


def varint(number: int) -> bytes:
    """``number`` as a protobuf varint."""
    return _VARINTS[number] if 0 <= number < _SMALL else _encode_varint(number)


def _length_delimited(tag: bytes, payload: bytes) -> bytes:
    size = len(payload)
    return tag + (_VARINTS[size] if size < _SMALL else _encode_varint(size)) + payload


Chunk = bytes | memoryview
"""Bytes of one or more whole ``entries`` fields."""
RawRun = tuple[str, int, bytes, bytes, bytes]
"""A ``TableRun`` as the encoder writes it: its ``ends`` and ``cells`` as native int64 arrays."""


@dataclass(frozen=True, slots=True)
class TableRun:
    """Consecutive rows of one table, encoded: ``body`` holds their ``entries`` fields back to back,
    row ``i`` of the run (counted from its start) ends at ``ends[i]`` in it, and rows ``0..i``
    carry ``cells[i]`` cells."""

    table: str
    stop: int
    """The index after the run's last row in the rows encoded."""
    body: bytes
    ends: Sequence[int]
    cells: Sequence[int]

    @classmethod
    def of(cls, raw: RawRun) -> TableRun:
        table, stop, body, ends, cells = raw
        # Arrays, one object each (the collector counts objects; a cast memoryview costs three).
        return cls(table, stop, body, array(_INT64, ends), array(_INT64, cells))

    @classmethod
    def of_entries(cls, table: str, rows: Sequence[Row], entries: Sequence[Chunk]) -> TableRun:
        """The run of ``rows``, all of ``table``, whose ``entries`` fields are given one by one."""
        return cls.of(_raw_run(table, len(rows), rows, entries))

    @property
    def size(self) -> int:
        return self.ends[-1] if self.ends else 0

    @property
    def cell_count(self) -> int:
        return self.cells[-1] if self.cells else 0

    def chunk(self, start: int, end: int) -> memoryview:
        """The entries of rows ``start`` to ``end`` (exclusive) of the run, as one slice of ``body``."""
        return memoryview(self.body)[self.ends[start - 1] if start else 0 : self.ends[end - 1]]


def _raw_run(table: str, stop: int, rows: Sequence[Row], entries: Sequence[Chunk]) -> RawRun:
    ends = array(_INT64, accumulate(map(len, entries)))
    cells = array(_INT64, accumulate(len(row.cells) for row in rows))
    return table, stop, b"".join(entries), ends.tobytes(), cells.tobytes()


class EncodedRows(Sequence[Row]):
    """Rows with their encoding: ``chunks`` joined are their ``entries`` fields, in order. What the
    writer hands the gateway, so a batch is encoded once (its exact size known before it is sent)
    and a retry reuses the bytes of its subset. Any gateway may read it as the plain sequence of
    rows it is."""

    __slots__ = ("chunks", "rows")

    def __init__(self, rows: Sequence[Row], chunks: Sequence[Chunk]) -> None:
        self.rows = rows
        self.chunks = chunks

    def __len__(self) -> int:
        return len(self.rows)

    @overload
    def __getitem__(self, index: int) -> Row: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Row]: ...

    def __getitem__(self, index: int | slice) -> Row | Sequence[Row]:
        return self.rows[index]

    def __iter__(self) -> Iterator[Row]:
        return iter(self.rows)


class MutationEncoder:
    """Encodes rows to ``entries`` fields; keeps the framing bytes of recent cell shapes.

    Everything of an entry but its key, qualifier and value (tags, lengths, family, timestamp)
    depends only on its shape: the key's, qualifier's and value's lengths, the family and the
    timestamp. A few shapes cover a whole block's rows, qualifiers that carry an id included, so
    a single-cell row costs one dictionary look-up and one join.
    """

    def __init__(self) -> None:
        self._entry_frames: dict[tuple[int, str, int, int, int], tuple[bytes, bytes, bytes]] = {}
        """(key size, family, qualifier size, timestamp, value size) of a single-cell row: the bytes
        before its key, between key and qualifier, and between qualifier and value."""
        self._cell_frames: dict[tuple[str, int, int, int], tuple[bytes, bytes]] = {}
        """(family, qualifier size, timestamp, value size) of a cell: its ``mutations`` field up to
        the qualifier, and from there to the value."""

    def request(self, table_name: str, entries: Sequence[Chunk], app_profile_id: str | None = None) -> bytes:
        """A whole request carrying ``entries`` (any chunks of whole ``entries`` fields; fields in
        number order, as protobuf writes them)."""
        head = _length_delimited(_TABLE_NAME, table_name.encode()) if table_name else b""
        tail = _length_delimited(_APP_PROFILE, app_profile_id.encode()) if app_profile_id else b""
        return b"".join((head, *entries, tail))

    def entries(self, rows: Sequence[Row]) -> list[bytes]:
        """One ``entries`` field per row, in order."""
        encoded = None if compiled_entries is None else compiled_entries(rows)
        return self.python_entries(rows) if encoded is None else encoded

    def runs(self, rows: Sequence[Row]) -> list[TableRun]:
        """The runs of ``rows`` of one table, each encoded into one buffer."""
        raw = None if compiled_runs is None else compiled_runs(rows)
        return [TableRun.of(run) for run in (self.python_runs(rows) if raw is None else raw)]

    def python_runs(self, rows: Sequence[Row]) -> list[RawRun]:
        """``runs`` without the compiled core, as it writes them."""
        entries = self.python_entries(rows)
        runs: list[RawRun] = []
        start = 0
        for table, run in groupby(map(_table_of, rows)):
            stop = start + len(list(run))
            runs.append(_raw_run(table, stop, rows[start:stop], entries[start:stop]))
            start = stop
        return runs

    def python_entries(self, rows: Sequence[Row]) -> list[bytes]:
        """``entries`` without the compiled core."""
        entry_frames = self._entry_frames
        if len(entry_frames) > _CACHE_LIMIT:
            entry_frames.clear()
        if len(self._cell_frames) > _CACHE_LIMIT:
            self._cell_frames.clear()
        join = b"".join
        out: list[bytes] = []
        append = out.append
        for row in rows:
            cells = row.cells
            key = row.key
            if len(cells) == 1:
                cell = cells[0]
                qualifier = cell.qualifier
                value = cell.value
                shape = (len(key), cell.family, len(qualifier), cell.timestamp_micros, len(value))
                frame = entry_frames.get(shape)
                if frame is None:
                    frame = entry_frames[shape] = self._entry_frame(*shape)
                head, middle, tail = frame
                append(join((head, key, middle, qualifier, tail, value)))
            else:
                append(self._many_cells(key, cells))
        return out

    def _many_cells(self, key: bytes, cells: Sequence[Cell]) -> bytes:
        frames = self._cell_frames
        parts: list[bytes] = []
        for cell in cells:
            qualifier = cell.qualifier
            value = cell.value
            shape = (cell.family, len(qualifier), cell.timestamp_micros, len(value))
            frame = frames.get(shape)
            if frame is None:
                frame = frames[shape] = self._cell_frame(*shape)
            parts += (frame[0], qualifier, frame[1], value)
        body = b"".join(parts)
        key_field = _length_delimited(_ROW_KEY, key) if key else b""
        return _length_delimited(_ENTRIES, key_field + body)

    def _entry_frame(
        self, key_size: int, family: str, qualifier_size: int, timestamp_micros: int, value_size: int
    ) -> tuple[bytes, bytes, bytes]:
        before, between = self._cell_frame(family, qualifier_size, timestamp_micros, value_size)
        key_tag = _ROW_KEY + varint(key_size) if key_size else b""
        size = len(key_tag) + key_size + len(before) + qualifier_size + len(between) + value_size
        return _ENTRIES + varint(size) + key_tag, before, between

    def _cell_frame(
        self, family: str, qualifier_size: int, timestamp_micros: int, value_size: int
    ) -> tuple[bytes, bytes]:
        """A cell's ``mutations`` field up to its qualifier (Mutation and SetCell tags and lengths,
        family, qualifier tag and length) and from there to its value (timestamp, value tag and
        length); default values are left out, as protobuf does."""
        head = _length_delimited(_FAMILY, family.encode()) if family else b""
        if qualifier_size:
            head += _QUALIFIER + varint(qualifier_size)
        between = _TIMESTAMP + varint(timestamp_micros) if timestamp_micros else b""
        if value_size:
            between += _VALUE + varint(value_size)
        set_cell_size = len(head) + qualifier_size + len(between) + value_size
        set_cell = _SET_CELL + varint(set_cell_size)
        mutation_size = len(set_cell) + set_cell_size
        return _MUTATIONS + varint(mutation_size) + set_cell + head, between

    def encode(self, rows: Sequence[Row]) -> EncodedRows:
        return EncodedRows(rows, self.entries(rows))
