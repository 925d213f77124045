"""Bounded gunzip: a gzip bomb or a broken stream is a :class:`DecompressionError`.

Memory: the output grows in one buffer, a bounded piece at a time, and the limit is checked
before each piece is kept, so a bomb is refused holding at most the limit (plus the buffer's
growth margin of at most 1/8 and one piece). The compressed input is read through a view in
bounded slices (zlib copies only the unread rest of one slice). The result is the buffer itself:
``io.BytesIO.getvalue`` hands over its bytes without a copy when nothing else holds them.
"""

from __future__ import annotations

import io
import zlib

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


def gunzip(data: bytes, name: str, *, limit: int | None = None, node: str | None = None) -> bytes:
    """The decompressed bytes of every gzip member in ``data``, at most ``limit`` of them.

    ``limit`` defaults to :data:`DEFAULT_MAX_DECOMPRESSED_BYTES`. Peak memory besides ``data``:
    at most ``limit × 9/8`` plus a few pieces of :data:`OUTPUT_STEP` and :data:`INPUT_STEP`.
    """
    if limit is None:
        limit = DEFAULT_MAX_DECOMPRESSED_BYTES
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
