"""Bounded gunzip: a gzip bomb or a broken stream is a :class:`DecompressionError`."""

from __future__ import annotations

import zlib

from hedera_history.config import Settings
from hedera_history.errors import DecompressionError

GZIP_MAGIC = b"\x1f\x8b"
_GZIP_WBITS = 16 + zlib.MAX_WBITS


def is_gzip(data: bytes) -> bool:
    return data[:2] == GZIP_MAGIC


def gunzip(data: bytes, name: str, *, limit: int | None = None, node: str | None = None) -> bytes:
    """The decompressed bytes of every gzip member in ``data``, at most ``limit`` of them.

    ``limit`` defaults to ``Settings().max_decompressed_bytes``. Output is produced with
    ``max_length`` so that no more than ``limit + 1`` bytes are ever held.
    """
    if limit is None:
        limit = Settings().max_decompressed_bytes
    if not is_gzip(data):
        raise DecompressionError(
            f"field gzip magic: expected {GZIP_MAGIC.hex()} but got {data[:2].hex() or '(empty)'}",
            file=name,
            node=node,
        )
    parts: list[bytes] = []
    total = 0
    rest: bytes = data
    while True:
        inflater = zlib.decompressobj(_GZIP_WBITS)
        try:
            out = inflater.decompress(rest, limit - total + 1)
        except zlib.error as e:
            raise DecompressionError(f"broken gzip stream: {e}", file=name, node=node) from e
        total += len(out)
        if total > limit:
            raise DecompressionError(f"decompressed size exceeds the limit of {limit} bytes", file=name, node=node)
        parts.append(out)
        if not inflater.eof:
            raise DecompressionError(f"gzip stream ends early after {len(data)} compressed bytes", file=name, node=node)
        rest = inflater.unused_data
        if not rest:
            break
        if not is_gzip(rest):
            raise DecompressionError(
                f"field end of gzip stream: expected no more bytes but got {len(rest)}", file=name, node=node
            )
    return parts[0] if len(parts) == 1 else b"".join(parts)
