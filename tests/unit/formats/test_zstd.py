from __future__ import annotations

import contextlib
import random

import pytest
import zstandard
from hedera_history.errors import DecompressionError
from hedera_history.formats.zstd import is_zstd, max_window_size, unzstd

from tests.helpers.memory import traced_peak

_RNG = random.Random(7)
CONTENT = bytes(_RNG.randrange(256) for _ in range(5000)) * 40 + bytes(100_000)
MIB = 1024 * 1024
LIMIT = 16 * MIB
SKIPPABLE = b"\x50\x2a\x4d\x18" + (4).to_bytes(4, "little") + b"skip"


def _zstd(data: bytes, *, content_size: bool = True, checksum: bool = False) -> bytes:
    return zstandard.ZstdCompressor(write_content_size=content_size, write_checksum=checksum).compress(data)


@pytest.mark.parametrize("content_size", [True, False])
def test_round_trip_with_and_without_a_stated_size(content_size: bool) -> None:
    data = _zstd(CONTENT, content_size=content_size)
    assert is_zstd(data) and not is_zstd(CONTENT)
    assert unzstd(data, "7.blk.zstd", limit=LIMIT) == CONTENT


def test_frames_are_concatenated_and_skippable_frames_skipped() -> None:
    data = _zstd(CONTENT) + SKIPPABLE + _zstd(b"second", content_size=False)
    assert unzstd(data, "f", limit=LIMIT) == CONTENT + b"second"


@pytest.mark.parametrize("content_size", [True, False])
def test_limit_is_inclusive(content_size: bool) -> None:
    data = _zstd(CONTENT, content_size=content_size)
    assert unzstd(data, "f", limit=len(CONTENT)) == CONTENT
    with pytest.raises(DecompressionError, match=f"exceeds the limit of {len(CONTENT) - 1} bytes") as caught:
        unzstd(data, "f", limit=len(CONTENT) - 1, node="0.0.3")
    assert (caught.value.file, caught.value.node) == ("f", "0.0.3")


def test_several_frames_count_together_against_the_limit() -> None:
    data = _zstd(CONTENT) + _zstd(CONTENT)
    with pytest.raises(DecompressionError, match="exceeds the limit"):
        unzstd(data, "f", limit=2 * len(CONTENT) - 1)


@pytest.mark.parametrize("keep", [0, 3, 4, 5, 9, 100, -4, -1])
def test_a_stream_cut_short_is_refused(keep: int) -> None:
    data = _zstd(CONTENT, checksum=True)
    with pytest.raises(DecompressionError):
        unzstd(data[:keep], "f", limit=LIMIT)


def test_bytes_after_the_last_frame_are_refused() -> None:
    with pytest.raises(DecompressionError, match="expected magic"):
        unzstd(_zstd(CONTENT) + b"xyz", "f", limit=LIMIT)


def test_not_zstd_and_a_broken_checksum() -> None:
    with pytest.raises(DecompressionError, match="zstd magic"):
        unzstd(b"\x1f\x8b...", "f", limit=LIMIT)
    data = bytearray(_zstd(CONTENT, checksum=True))
    data[-1] ^= 1
    with pytest.raises(DecompressionError, match="broken zstd stream"):
        unzstd(bytes(data), "f", limit=LIMIT)


def test_every_bit_flip_is_a_decompression_error_or_other_content() -> None:
    rng = random.Random(3)
    data = _zstd(CONTENT, content_size=False)
    for _ in range(400):
        flipped = bytearray(data)
        flipped[rng.randrange(len(flipped))] ^= 1 << rng.randrange(8)
        with contextlib.suppress(DecompressionError):
            unzstd(bytes(flipped), "f", limit=LIMIT)


def _zeros(size: int, *, content_size: bool) -> bytes:
    compressor = zstandard.ZstdCompressor(level=19, write_content_size=content_size)
    stream = compressor.compressobj(size=size if content_size else -1)
    piece = bytes(MIB)
    parts = [stream.compress(piece[: min(MIB, size - done)]) for done in range(0, size, MIB)]
    return b"".join(parts) + stream.flush()


@pytest.mark.parametrize("content_size", [True, False])
def test_a_zstd_bomb_is_refused_at_the_limit_holding_at_most_the_limit(content_size: bool) -> None:
    bomb = _zeros(256 * MIB, content_size=content_size)
    assert len(bomb) < 100_000

    def refuse() -> None:
        with pytest.raises(DecompressionError, match=f"exceeds the limit of {LIMIT} bytes"):
            unzstd(bomb, "bomb.blk.zstd", limit=LIMIT)

    assert traced_peak(refuse) <= 1.1 * LIMIT


@pytest.mark.parametrize("content_size", [True, False])
def test_a_file_of_exactly_the_limit_is_held_once(content_size: bool) -> None:
    data = _zeros(LIMIT, content_size=content_size)
    sizes: list[int] = []
    assert traced_peak(lambda: sizes.append(len(unzstd(data, "f", limit=LIMIT)))) <= 1.1 * LIMIT
    assert sizes == [LIMIT]


def test_a_window_larger_than_the_streaming_cap_is_refused() -> None:
    params = zstandard.ZstdCompressionParameters.from_level(3, window_log=24)
    compressor = zstandard.ZstdCompressor(compression_params=params).compressobj()  # no stated size
    frame = compressor.compress(CONTENT) + compressor.flush()
    assert zstandard.get_frame_parameters(frame).window_size == 1 << 24 > max_window_size(LIMIT)
    with pytest.raises(DecompressionError, match="broken zstd stream"):
        unzstd(frame, "f", limit=LIMIT)
