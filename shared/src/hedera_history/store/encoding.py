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
ZLIB_DICTIONARY = 0x02
"""zlib with a preset dictionary the reader must bring: an items cell after the first, whose
dictionary is the first cell of its file (``store.block_items``)."""

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


def encode_value_with_dictionary(payload: bytes, dictionary: bytes) -> bytes:
    """``payload`` compressed against ``dictionary`` (same rule as :func:`encode_value`), for
    cells always read together with the cell that holds the dictionary."""
    if len(payload) >= COMPRESS_MIN_SIZE and dictionary:
        deflater = zlib.compressobj(ZLIB_LEVEL, zdict=dictionary)
        packed = deflater.compress(payload) + deflater.flush()
        if len(packed) <= len(payload) - len(payload) // 8:
            return bytes([ZLIB_DICTIONARY]) + packed
    return encode_value(payload)


def decode_value(value: bytes, dictionary: bytes | None = None) -> bytes:
    """The payload of a stored cell value; ``dictionary`` for a value compressed against one."""
    if not value:
        raise RowDecodeError("empty cell value (no encoding header)")
    header = value[0]
    if header == RAW:
        return value[1:]
    if header in (ZLIB, ZLIB_DICTIONARY):
        if header == ZLIB:
            inflater = zlib.decompressobj()
        elif dictionary is None:
            raise RowDecodeError("cell value compressed against a dictionary, read without it")
        else:
            inflater = zlib.decompressobj(zdict=dictionary)
        try:
            payload = inflater.decompress(value[1:], MAX_DECODED_SIZE)
        except zlib.error as e:
            raise RowDecodeError(f"zlib cell value is corrupt: {e}") from e
        if inflater.unconsumed_tail or not inflater.eof:
            raise RowDecodeError("zlib cell value is truncated or larger than the decode limit")
        return payload
    raise RowDecodeError(f"unknown cell encoding header 0x{header:02x}")
