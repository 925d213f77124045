"""The envelope every history cell value carries: one header byte, then the payload.

The header names how the payload is stored, so the layout can change later without rewriting
old rows: a reader dispatches on the byte and refuses one it does not know. Compression is
chosen deterministically (same payload, same bytes), because a block written twice, by the
stream or by a backfill, must leave identical cells.
"""

from __future__ import annotations

import zlib

from hedera_history.errors import RowDecodeError

RAW = 0x00
ZLIB = 0x01

COMPRESS_MIN_SIZE = 256
"""Smaller payloads are stored raw: they rarely shrink and cost CPU on every read."""
ZLIB_LEVEL = 6
MAX_DECODED_SIZE = 512 * 1024 * 1024


def encode_value(payload: bytes, *, compress: bool = True) -> bytes:
    """``payload`` with its header; zlib is used only when it saves at least an eighth."""
    if compress and len(payload) >= COMPRESS_MIN_SIZE:
        packed = zlib.compress(payload, ZLIB_LEVEL)
        if len(packed) <= len(payload) - len(payload) // 8:
            return bytes([ZLIB]) + packed
    return bytes([RAW]) + payload


def decode_value(value: bytes) -> bytes:
    """The payload of a stored cell value."""
    if not value:
        raise RowDecodeError("empty cell value (no encoding header)")
    header = value[0]
    if header == RAW:
        return value[1:]
    if header == ZLIB:
        inflater = zlib.decompressobj()
        try:
            payload = inflater.decompress(value[1:], MAX_DECODED_SIZE)
        except zlib.error as e:
            raise RowDecodeError(f"zlib cell value is corrupt: {e}") from e
        if inflater.unconsumed_tail or not inflater.eof:
            raise RowDecodeError("zlib cell value is truncated or larger than the decode limit")
        return payload
    raise RowDecodeError(f"unknown cell encoding header 0x{header:02x}")
