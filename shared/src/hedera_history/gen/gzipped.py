"""Per-node gzip copies of one file: compressed once, wrapped in a different gzip header per node.

Real nodes upload V6 record and sidecar files whose gzip headers differ (upload time, ``FNAME``)
while the deflate stream and the decompressed bytes are the same. Compressing once and varying only
the header reproduces that, and keeps large periods cheap.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

_GZIP_MAGIC_DEFLATE = b"\x1f\x8b\x08"
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
