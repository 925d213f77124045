"""Gzip both ways: bounded gunzip for the readers, per-node gzip copies for the writers.

Reading: a gzip bomb or a broken stream is a :class:`DecompressionError`, and the caller names
the limit (``Settings.max_decompressed_bytes`` in a deployment); nothing here reads settings.

Memory: the output grows in one buffer, a bounded piece at a time, and the limit is checked
before each piece is kept, so a bomb is refused holding at most the limit (plus the buffer's
growth margin of at most 1/8 and one piece). The compressed input is read through a view in
bounded slices (zlib copies only the unread rest of one slice). The result is the buffer itself:
``io.BytesIO.getvalue`` hands over its bytes without a copy when nothing else holds them.
"""

from __future__ import annotations

import io
import struct
import zlib
from dataclasses import dataclass

from hedera_history.errors import DecompressionError

GZIP_MAGIC = b"\x1f\x8b"
DEFAULT_MAX_DECOMPRESSED_BYTES = 256 * 1024 * 1024
"""The limit when a caller names none: the default of ``Settings.max_decompressed_bytes``."""
_GZIP_WBITS = 16 + zlib.MAX_WBITS
INPUT_STEP = 64 * 1024
"""Compressed bytes handed to zlib at once."""
OUTPUT_STEP = 256 * 1024
"""Decompressed bytes taken from zlib at once (the limit is checked after each)."""


def is_gzip(data: bytes | memoryview) -> bool:
    return bytes(data[:2]) == GZIP_MAGIC


def gunzip(data: bytes, name: str, *, limit: int, node: str | None = None) -> bytes:
    """The decompressed bytes of every gzip member in ``data``, at most ``limit`` of them.

    Peak memory besides ``data``: at most ``limit × 9/8`` plus a few pieces of
    :data:`OUTPUT_STEP` and :data:`INPUT_STEP`.
    """
    if not is_gzip(data):
        raise DecompressionError(
            f"field gzip magic: expected {GZIP_MAGIC.hex()} but got {data[:2].hex() or '(empty)'}",
            file=name,
            node=node,
        )
    out = io.BytesIO()
    view = memoryview(data)
    position = 0  # compressed bytes handed to zlib so far
    total = 0
    while True:  # one gzip member per round
        inflater = zlib.decompressobj(_GZIP_WBITS)
        while not inflater.eof:
            chunk: bytes | memoryview = inflater.unconsumed_tail
            if not chunk and position < len(view):
                chunk = view[position : position + INPUT_STEP]
                position += len(chunk)
            try:
                # An empty chunk drains what zlib still holds (a long match's pending output).
                piece = inflater.decompress(chunk, min(OUTPUT_STEP, limit - total + 1))
            except zlib.error as e:
                raise DecompressionError(f"broken gzip stream: {e}", file=name, node=node) from e
            total += len(piece)
            if total > limit:
                raise DecompressionError(f"decompressed size exceeds the limit of {limit} bytes", file=name, node=node)
            if not piece and not chunk and not inflater.eof:
                raise DecompressionError(
                    f"gzip stream ends early after {len(data)} compressed bytes", file=name, node=node
                )
            out.write(piece)
        position -= len(inflater.unused_data)  # the next member starts where this one ended
        if position >= len(view):
            break
        if not is_gzip(view[position : position + 2]):
            raise DecompressionError(
                f"field end of gzip stream: expected no more bytes but got {len(view) - position}",
                file=name,
                node=node,
            )
    view.release()
    return out.getvalue()


# ---- writing -------------------------------------------------------------------------------------
# Real nodes upload V6 record and sidecar files whose gzip headers differ (upload time, ``FNAME``)
# while the deflate stream and the decompressed bytes are the same. Compressing once and varying
# only the header reproduces that, and keeps large periods cheap.

_GZIP_MAGIC_DEFLATE = GZIP_MAGIC + b"\x08"
_FLAG_FNAME = 0x08
_OS_UNIX = 3


@dataclass(frozen=True, slots=True)
class Deflated:
    """A raw deflate stream with what the gzip trailer needs."""

    body: bytes
    crc32: int
    size: int


def deflate(data: bytes, level: int = 6) -> Deflated:
    compressor = zlib.compressobj(level, zlib.DEFLATED, -zlib.MAX_WBITS)
    body = compressor.compress(data) + compressor.flush()
    return Deflated(body=body, crc32=zlib.crc32(data), size=len(data))


def gzip_member(deflated: Deflated, *, mtime: int, file_name: str) -> bytes:
    """One gzip file holding ``deflated``, with ``mtime`` and ``FNAME`` in its header."""
    header = (
        _GZIP_MAGIC_DEFLATE
        + bytes([_FLAG_FNAME])
        + struct.pack("<I", mtime & 0xFFFFFFFF)
        + bytes([0, _OS_UNIX])
        + file_name.encode("latin-1")
        + b"\x00"
    )
    return header + deflated.body + struct.pack("<II", deflated.crc32, deflated.size & 0xFFFFFFFF)
