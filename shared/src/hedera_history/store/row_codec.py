"""A row as a message: key ``<table>/<row key>``, value a compact, deterministic binary of its cells.

Value layout (all varints unsigned LEB128)::

    byte  layout (1)
    varint cell count
    per cell: varint len + family, varint len + qualifier, varint timestamp micros,
              varint len + value

The same row always encodes to the same bytes; decoding refuses trailing or missing bytes.
"""

from __future__ import annotations

from hedera_history.errors import RowDecodeError, RowLayoutError
from hedera_history.formats.wire import varint
from hedera_history.store.model import Cell, Row

LAYOUT = 1
SEPARATOR = "/"


def message_key(row: Row) -> str:
    """``<table>/<row key>``; row keys are ASCII (see ``store.keys``)."""
    return row.table + SEPARATOR + row.key.decode("ascii")


def encode_row_value(row: Row) -> bytes:
    out = bytearray([LAYOUT])
    out += encode_varint(len(row.cells))
    for cell in row.cells:
        family = cell.family.encode("ascii")
        out += encode_varint(len(family)) + family
        out += encode_varint(len(cell.qualifier)) + cell.qualifier
        out += encode_varint(cell.timestamp_micros)
        out += encode_varint(len(cell.value)) + cell.value
    return bytes(out)


def decode_row_message(key: str, value: bytes) -> Row:
    """The row a message carries; RowDecodeError names what is wrong."""
    table, sep, row_key = key.partition(SEPARATOR)
    if not sep or not table or not row_key:
        raise RowDecodeError(f"message key {key!r} is not <table>/<row key>")
    reader = ByteReader(value, f"row message {key!r}")
    layout = reader.byte()
    if layout != LAYOUT:
        raise RowDecodeError(f"row message {key!r}: unknown layout {layout}")
    cells: list[Cell] = []
    for _ in range(reader.varint()):
        family = reader.sized().decode("ascii", "replace")
        qualifier = reader.sized()
        timestamp = reader.varint()
        cells.append(Cell(family, qualifier, reader.sized(), timestamp))
    if not reader.at_end:
        raise RowDecodeError(f"row message {key!r}: {reader.remaining} bytes after the last cell")
    return Row(table, row_key.encode("ascii"), tuple(cells))


def encode_varint(value: int) -> bytes:
    """Unsigned LEB128 (the protobuf varint)."""
    if value < 0:
        raise RowLayoutError(f"varint of a negative number: {value}")
    return varint(value)


class ByteReader:
    """Reads the varint-framed layouts of this project (row messages, errata originals, ...);
    every problem is a RowDecodeError naming ``what`` and the byte it happened at."""

    def __init__(self, data: bytes, what: str, pos: int = 0) -> None:
        self.data = data
        self.what = what
        self.pos = pos

    @property
    def remaining(self) -> int:
        return len(self.data) - self.pos

    @property
    def at_end(self) -> bool:
        return self.pos == len(self.data)

    def byte(self) -> int:
        if self.at_end:
            raise RowDecodeError(f"{self.what}: no byte left at {self.pos}")
        self.pos += 1
        return self.data[self.pos - 1]

    def varint(self) -> int:
        value = shift = 0
        while True:
            if self.at_end:
                raise RowDecodeError(f"{self.what}: truncated varint at byte {self.pos}")
            byte = self.data[self.pos]
            self.pos += 1
            value |= (byte & 0x7F) << shift
            if not byte & 0x80:
                return value
            shift += 7
            if shift > 63:
                raise RowDecodeError(f"{self.what}: varint longer than 64 bits at byte {self.pos}")

    def sized(self) -> bytes:
        length = self.varint()
        if length > self.remaining:
            raise RowDecodeError(f"{self.what}: needs {length} bytes at {self.pos}, has {self.remaining}")
        self.pos += length
        return self.data[self.pos - length : self.pos]
