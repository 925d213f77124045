"""Rows as the wire bytes of a Bigtable ``MutateRowsRequest``, encoded by hand.

Filling a protobuf message cell by cell (``entries.add()``, five attribute sets, then a
serialisation) costs more than the RPC itself on a large write; the request is simple enough
to write directly. Each row becomes one ``entries`` field (``Entry{row_key, mutations}``) whose
mutations are all ``SetCell``; a request is the table name, the entries it carries and the app
profile, so a retry resends a subset of the same bytes without encoding them again.

The bytes are what the protobuf runtime itself produces for the same message (fields in number
order, default values left out); tests compare the two.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import overload

from hedera_history.store.model import Row

# Tags (field number << 3 | wire type 2 "length-delimited", 0 "varint"). Written inline below:
# MutateRowsRequest.entries = 2 (0x12), Entry.row_key = 1 (0x0a), Entry.mutations = 2 (0x12),
# Mutation.set_cell = 1 (0x0a), SetCell.value = 4 (0x22).
_TABLE_NAME = b"\x0a"  # MutateRowsRequest.table_name = 1
_APP_PROFILE = b"\x1a"  # MutateRowsRequest.app_profile_id = 3
_FAMILY = b"\x0a"  # SetCell.family_name = 1
_QUALIFIER = b"\x12"  # SetCell.column_qualifier = 2
_TIMESTAMP = b"\x18"  # SetCell.timestamp_micros = 3 (varint)

_SMALL = 1 << 14
_UINT64 = (1 << 64) - 1
_CACHE_LIMIT = 16_384
"""Cell prefixes (family, qualifier, timestamp, value length) remembered; the cache starts over
past this (qualifiers that carry an id would otherwise grow it without bound in a long-lived
process)."""


def _encode_varint(number: int) -> bytes:
    number &= _UINT64  # int64: a negative number takes ten bytes, as protobuf writes it
    out = bytearray()
    while number >= 0x80:
        out.append((number & 0x7F) | 0x80)
        number >>= 7
    out.append(number)
    return bytes(out)


_VARINTS = [_encode_varint(n) for n in range(_SMALL)]


def varint(number: int) -> bytes:
    """``number`` as a protobuf varint."""
    return _VARINTS[number] if 0 <= number < _SMALL else _encode_varint(number)


def _length_delimited(tag: bytes, payload: bytes) -> bytes:
    size = len(payload)
    return tag + (_VARINTS[size] if size < _SMALL else _encode_varint(size)) + payload


class EncodedRows(Sequence[Row]):
    """Rows with their ``entries`` fields: what the writer hands the gateway, so a batch is encoded
    once (its exact size known before it is sent) and a retry reuses the bytes of its subset.
    Any gateway may read it as the plain sequence of rows it is."""

    __slots__ = ("entries", "rows")

    def __init__(self, rows: Sequence[Row], entries: Sequence[bytes]) -> None:
        self.rows = rows
        self.entries = entries

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
    """Encodes rows to ``entries`` fields; keeps the encoded prefixes of recent cells."""

    def __init__(self) -> None:
        self._prefixes: dict[tuple[str, bytes, int, int], bytes] = {}
        self._fields: dict[str | int, bytes] = {}
        """Encoded family fields by family and timestamp fields by timestamp."""

    def request(self, table_name: str, entries: Sequence[bytes], app_profile_id: str | None = None) -> bytes:
        """A whole request carrying ``entries`` (fields in number order, as protobuf writes them)."""
        head = _length_delimited(_TABLE_NAME, table_name.encode()) if table_name else b""
        tail = _length_delimited(_APP_PROFILE, app_profile_id.encode()) if app_profile_id else b""
        return b"".join((head, *entries, tail))

    def entries(self, rows: Sequence[Row]) -> list[bytes]:
        """One ``entries`` field per row, in order."""
        prefixes = self._prefixes
        if len(prefixes) > _CACHE_LIMIT:
            prefixes.clear()
        if len(self._fields) > _CACHE_LIMIT:
            self._fields.clear()
        small = _VARINTS
        limit = _SMALL
        wide = _encode_varint
        out: list[bytes] = []
        append = out.append
        # Everything of a cell before its value depends only on (family, qualifier, timestamp,
        # value length): one dictionary look-up per cell, one formatting call per row.
        for row in rows:
            cells = row.cells
            if len(cells) == 1:
                cell = cells[0]
                value = cell.value
                column = (cell.family, cell.qualifier, cell.timestamp_micros, len(value))
                prefix = prefixes.get(column)
                if prefix is None:
                    prefix = prefixes[column] = self._cell_prefix(*column)
                body = prefix + value
            else:
                parts: list[bytes] = []
                for cell in cells:
                    value = cell.value
                    column = (cell.family, cell.qualifier, cell.timestamp_micros, len(value))
                    prefix = prefixes.get(column)
                    if prefix is None:
                        prefix = prefixes[column] = self._cell_prefix(*column)
                    parts.append(prefix)
                    parts.append(value)
                body = b"".join(parts)
            key = row.key
            if key:
                key_size = len(key)
                key_varint = small[key_size] if key_size < limit else wide(key_size)
                size = 1 + len(key_varint) + key_size + len(body)
                append(b"\x12%b\x0a%b%b%b" % (small[size] if size < limit else wide(size), key_varint, key, body))
            else:
                size = len(body)
                append(b"\x12%b%b" % (small[size] if size < limit else wide(size), body))
        return out

    def _cell_prefix(self, family: str, qualifier: bytes, timestamp_micros: int, value_size: int) -> bytes:
        """A cell's ``mutations`` field up to its value: the Mutation and SetCell tags and lengths,
        family, qualifier, timestamp and the value's tag and length (defaults left out).

        Often a miss (a qualifier that carries an id), so the family and timestamp fields come
        from caches of their own."""
        fields = self._fields
        family_field = fields.get(family)
        if family_field is None:
            family_field = fields[family] = _length_delimited(_FAMILY, family.encode()) if family else b""
        stamp_field = fields.get(timestamp_micros)
        if stamp_field is None:
            stamp_field = fields[timestamp_micros] = _TIMESTAMP + varint(timestamp_micros) if timestamp_micros else b""
        head = family_field
        if qualifier:
            head += _length_delimited(_QUALIFIER, qualifier)
        head += stamp_field
        if value_size:
            head += b"\x22" + varint(value_size)
        set_cell = b"\x0a" + varint(len(head) + value_size) + head
        return b"\x12" + varint(len(set_cell) + value_size) + set_cell

    def encode(self, rows: Sequence[Row]) -> EncodedRows:
        return EncodedRows(rows, self.entries(rows))
