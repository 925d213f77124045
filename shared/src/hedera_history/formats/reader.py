"""The one checked big-endian byte reader behind every binary stream format.

Each read names the field it reads. Input that ends too early raises
:class:`TruncatedFileError`; a value that cannot be right raises :class:`CorruptFileError`
worded ``field X: expected A but got B``. Both carry the file name (and node, when known).
"""

from __future__ import annotations

import struct

from hedera_history.errors import CorruptFileError, TruncatedFileError

_INT32 = struct.Struct(">i")
_INT64 = struct.Struct(">q")


class ByteReader:
    """Reads fields from ``data[start:end]`` in order, checking every step."""

    __slots__ = ("_data", "_end", "_pos", "name", "node")

    def __init__(
        self, data: bytes, name: str, *, node: str | None = None, start: int = 0, end: int | None = None
    ) -> None:
        self._data = data
        self._pos = start
        self._end = len(data) if end is None else end
        self.name = name
        self.node = node

    @property
    def position(self) -> int:
        return self._pos

    @property
    def remaining(self) -> int:
        return self._end - self._pos

    @property
    def at_end(self) -> bool:
        return self._pos >= self._end

    # ---- errors -------------------------------------------------------------------------------

    def corrupt(self, message: str) -> CorruptFileError:
        return CorruptFileError(message, file=self.name, node=self.node)

    def expect(self, field: str, expected: object, actual: object) -> None:
        """Raise :class:`CorruptFileError` unless ``actual == expected``."""
        if actual != expected:
            raise self.corrupt(f"field {field}: expected {_show(expected)} but got {_show(actual)}")

    def _need(self, n: int, field: str) -> int:
        start = self._pos
        if self._end - start < n:
            raise TruncatedFileError(
                f"field {field}: expected {n} bytes at offset {start} but only {max(self._end - start, 0)} remain",
                file=self.name,
                node=self.node,
            )
        self._pos = start + n
        return start

    # ---- reads --------------------------------------------------------------------------------

    def read_byte(self, field: str) -> int:
        return self._data[self._need(1, field)]

    def read_int32(self, field: str) -> int:
        value: int = _INT32.unpack_from(self._data, self._need(4, field))[0]
        return value

    def read_int64(self, field: str) -> int:
        value: int = _INT64.unpack_from(self._data, self._need(8, field))[0]
        return value

    def read_bytes(self, n: int, field: str) -> bytes:
        start = self._need(n, field)
        return self._data[start : start + n]

    def peek_bytes(self, n: int, field: str) -> bytes:
        """The next ``n`` bytes, without moving on."""
        start = self._need(n, field)
        self._pos = start
        return self._data[start : start + n]

    def read_length_prefixed(self, field: str, *, min_length: int = 0, max_length: int | None = None) -> bytes:
        """An int32 length, then that many bytes."""
        length = self.read_int32(f"{field} length")
        upper = self.remaining if max_length is None else max_length
        if length < min_length or (max_length is not None and length > max_length):
            raise self.corrupt(f"field {field} length: expected {min_length}..{upper} but got {length}")
        return self.read_bytes(length, field)

    # ---- reads that must match ----------------------------------------------------------------

    def expect_byte(self, field: str, expected: int) -> int:
        value = self.read_byte(field)
        self.expect(field, expected, value)
        return value

    def expect_int32(self, field: str, expected: int) -> int:
        value = self.read_int32(field)
        self.expect(field, expected, value)
        return value

    def expect_bytes(self, field: str, expected: bytes) -> bytes:
        value = self.read_bytes(len(expected), field)
        self.expect(field, expected, value)
        return value

    def expect_end(self, what: str = "end of file") -> None:
        """Raise :class:`CorruptFileError` when bytes remain."""
        if self._pos < self._end:
            raise self.corrupt(
                f"field {what}: expected no more bytes but got {self._end - self._pos} at offset {self._pos}"
            )


def _show(value: object) -> str:
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).hex() or "(empty)"
    return str(value)
