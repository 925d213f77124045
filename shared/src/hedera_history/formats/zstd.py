"""Bounded zstd decompression for block files (``.blk.zstd``), as :func:`compression.gunzip` is for gzip.

A zstd bomb or a broken stream is a :class:`DecompressionError` naming the file; the caller names
the limit. The frames are walked first (RFC 8878: frame header, block headers, checksum), so a
stream cut short is refused before anything is decompressed, and every frame is known to end where
its blocks say. Then:

- one frame that states its content size, no more than the limit (what the block node and the
  ``zstd`` tool write): decompressed in one call into a buffer of exactly that size; the decoder
  refuses a frame whose output differs from what it states, so the stated size is a buffer size,
  never trusted as a fact;
- anything else (no stated size, several frames): decompressed twice in bounded pieces, first only
  counting (refused at the limit, holding one piece), then into a buffer of exactly the counted size.

Memory besides ``data``: the output once (at most the limit), a few pieces of :data:`OUTPUT_STEP`,
and the decoder's window, which the streaming path caps at :func:`max_window_size`.
"""

from __future__ import annotations

import io

import zstandard

from hedera_history.errors import DecompressionError

ZSTD_MAGIC = bytes.fromhex("28b52ffd")
"""0xFD2FB528, little-endian."""
_SKIPPABLE_MAGIC_LOW = 0x184D2A50
"""Skippable frames: 0x184D2A50 to 0x184D2A5F, little-endian, then a 4-byte size."""
INPUT_STEP = 64 * 1024
"""Compressed bytes handed to the decoder at once on the streaming path."""
OUTPUT_STEP = 256 * 1024
"""Decompressed bytes taken from the decoder at once on the streaming path."""
_BLOCK_HEADER_SIZE = 3
_CHECKSUM_SIZE = 4
_RAW, _RLE, _COMPRESSED = 0, 1, 2


def is_zstd(data: bytes | memoryview) -> bool:
    return bytes(data[:4]) == ZSTD_MAGIC


def max_window_size(limit: int) -> int:
    """The largest decoder window accepted on the streaming path: 8 MiB, or a sixteenth of the
    limit when that is more. zstd picks its window from the input size and level (the block
    node's files use well under 1 MiB); a larger one only costs memory beside the output."""
    return max(8 * 1024 * 1024, limit // 16)


def unzstd(data: bytes, name: str, *, limit: int, node: str | None = None) -> bytes:
    """The decompressed bytes of every zstd frame in ``data``, at most ``limit`` of them."""
    if not is_zstd(data):
        raise DecompressionError(
            f"field zstd magic: expected {ZSTD_MAGIC.hex()} but got {data[:4].hex() or '(empty)'}", file=name, node=node
        )
    view = memoryview(data)
    try:
        frames = _frames(view, name, node)
        decompressor = zstandard.ZstdDecompressor(max_window_size=max_window_size(limit))
        if len(frames) == 1:
            stated = zstandard.frame_content_size(frames[0])
            if 0 <= stated <= limit:
                out: bytes = decompressor.decompress(frames[0], max_output_size=stated, allow_extra_data=False)
                return out
            if stated > limit:
                raise DecompressionError(
                    f"decompressed size exceeds the limit of {limit} bytes: the frame states {stated}",
                    file=name,
                    node=node,
                )
        total = 0
        for frame in frames:
            total = _stream(decompressor, frame, None, total, limit, name, node)
        buffer = _exact_buffer(total)
        written = 0
        for frame in frames:
            written = _stream(decompressor, frame, buffer, written, total, name, node)
        if written != total:
            raise DecompressionError(f"zstd stream gave {total} bytes, then {written}", file=name, node=node)
        return buffer.getvalue()
    except zstandard.ZstdError as e:
        raise DecompressionError(f"broken zstd stream: {e}", file=name, node=node) from e
    finally:
        view.release()


def _stream(
    decompressor: zstandard.ZstdDecompressor,
    frame: memoryview,
    sink: io.BytesIO | None,
    total: int,
    limit: int,
    name: str,
    node: str | None,
) -> int:
    """Decompress one frame a piece at a time into ``sink`` (or only count it): the bytes so far,
    ``total`` before it; refused past ``limit``."""
    with decompressor.stream_reader(frame, read_size=INPUT_STEP, closefd=False) as reader:
        while piece := reader.read(OUTPUT_STEP):
            total += len(piece)
            if total > limit:
                raise DecompressionError(f"decompressed size exceeds the limit of {limit} bytes", file=name, node=node)
            if sink is not None:
                sink.write(piece)
    return total


def _exact_buffer(size: int) -> io.BytesIO:
    """An empty buffer that holds ``size`` bytes without growing: ``getvalue`` then hands its bytes
    over without a copy (a buffer that grew would have overshot by up to an eighth)."""
    buffer = io.BytesIO()
    if size:
        buffer.seek(size - 1)
        buffer.write(b"\0")
        buffer.seek(0)
    return buffer


def _frames(view: memoryview, name: str, node: str | None) -> list[memoryview]:
    """Each zstd frame of ``view`` (skippable frames left out), after checking it is whole."""
    frames: list[memoryview] = []
    position = 0
    while position < len(view):
        magic = int.from_bytes(view[position : position + 4], "little")
        if len(view) - position >= 8 and magic & 0xFFFFFFF0 == _SKIPPABLE_MAGIC_LOW:
            position = _need(
                view, position + 8, int.from_bytes(view[position + 4 : position + 8], "little"), name, node
            )
            continue
        if bytes(view[position : position + 4]) != ZSTD_MAGIC:
            raise DecompressionError(
                f"field zstd frame at offset {position}: expected magic {ZSTD_MAGIC.hex()} "
                f"but got {bytes(view[position : position + 4]).hex()}",
                file=name,
                node=node,
            )
        end = _frame_end(view, position, name, node)
        frames.append(view[position:end])
        position = end
    return frames


def _frame_end(view: memoryview, start: int, name: str, node: str | None) -> int:
    """Where the frame starting at ``start`` ends: after its header, every block and its checksum."""
    if len(view) - start < 5:
        raise DecompressionError(f"zstd frame at offset {start} ends inside its header", file=name, node=node)
    descriptor = view[start + 4]
    header_size = zstandard.frame_header_size(view[start : start + 18])
    position = _need(view, start, header_size, name, node)
    while True:
        header_end = _need(view, position, _BLOCK_HEADER_SIZE, name, node)
        header = int.from_bytes(view[position:header_end], "little")
        last, kind, size = header & 1, (header >> 1) & 3, header >> 3
        if kind not in (_RAW, _RLE, _COMPRESSED):
            raise DecompressionError(f"zstd block at offset {position} has the reserved type 3", file=name, node=node)
        position = _need(view, header_end, 1 if kind == _RLE else size, name, node)
        if last:
            break
    has_checksum = descriptor & 0x04
    return _need(view, position, _CHECKSUM_SIZE, name, node) if has_checksum else position


def _need(view: memoryview, position: int, size: int, name: str, node: str | None) -> int:
    end = position + size
    if end > len(view):
        raise DecompressionError(
            f"zstd stream ends early: {size} bytes needed at offset {position}, {len(view) - position} remain",
            file=name,
            node=node,
        )
    return end
