from __future__ import annotations

import gzip
import random
import zlib

import pytest
from hedera_history.config import Settings
from hedera_history.errors import DecompressionError
from hedera_history.formats.compression import DEFAULT_MAX_DECOMPRESSED_BYTES, INPUT_STEP, gunzip, is_gzip

from tests.helpers.memory import traced_peak

CONTENT = b"record stream " * 100
LIMIT = DEFAULT_MAX_DECOMPRESSED_BYTES


def test_round_trip_and_magic() -> None:
    data = gzip.compress(CONTENT)
    assert is_gzip(data)
    assert not is_gzip(CONTENT)
    assert gunzip(data, "f.rcd.gz", limit=LIMIT) == CONTENT


def test_header_bytes_do_not_change_the_content() -> None:
    # Nodes write different gzip mtimes and FNAME flags for the same content.
    assert gunzip(gzip.compress(CONTENT, mtime=1), "a", limit=LIMIT) == gunzip(
        gzip.compress(CONTENT, mtime=2), "b", limit=LIMIT
    )


def test_limit_is_inclusive() -> None:
    data = gzip.compress(CONTENT)
    assert gunzip(data, "f", limit=len(CONTENT)) == CONTENT
    with pytest.raises(DecompressionError, match=f"exceeds the limit of {len(CONTENT) - 1} bytes") as caught:
        gunzip(data, "f", limit=len(CONTENT) - 1)
    assert caught.value.file == "f"


def _zeros_gzip(size: int) -> bytes:
    """``size`` zero bytes gzipped, built without holding them (a bomb: about 1/1000 the size)."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    piece = bytes(1024 * 1024)
    parts = [compressor.compress(piece[: min(len(piece), size - done)]) for done in range(0, size, len(piece))]
    return b"".join(parts) + compressor.flush()


MIB = 1024 * 1024
SLACK = 2 * MIB
"""Besides the output: a piece or two from zlib and one slice of input."""


def test_gzip_bomb_is_refused_holding_at_most_the_limit() -> None:
    bomb = _zeros_gzip(64 * MIB)
    assert len(bomb) < 200_000
    limit = 16 * MIB

    def refuse() -> None:
        with pytest.raises(DecompressionError, match="exceeds the limit of 16777216 bytes") as caught:
            gunzip(bomb, "bomb.rcd.gz", limit=limit, node="0.0.3")
        assert (caught.value.file, caught.value.node) == ("bomb.rcd.gz", "0.0.3")

    assert traced_peak(refuse) <= 1.2 * limit + SLACK


@pytest.mark.parametrize("size", [16 * MIB, 13 * MIB + 12345])
def test_a_file_up_to_the_limit_is_held_once(size: int) -> None:
    data = _zeros_gzip(size)
    results: list[int] = []
    assert traced_peak(lambda: results.append(len(gunzip(data, "f", limit=16 * MIB)))) <= 1.2 * 16 * MIB + SLACK
    assert results == [size]


def test_many_members_and_input_slices_decompress_whole() -> None:
    rng = random.Random(5)
    contents = [rng.randbytes(10_000) + bytes(70_000) for _ in range(20)]
    data = b"".join(gzip.compress(content) for content in contents)
    assert len(data) > 2 * INPUT_STEP  # members straddle the input slices
    assert gunzip(data, "f", limit=LIMIT) == b"".join(contents)


def test_incompressible_input_larger_than_a_slice() -> None:
    content = random.Random(7).randbytes(3 * INPUT_STEP + 17)
    assert gunzip(gzip.compress(content), "f", limit=LIMIT) == content


def test_the_default_limit_is_the_settings_default() -> None:
    # The readers take the limit from their caller; one that names none gets the settings' default.
    assert Settings().max_decompressed_bytes == DEFAULT_MAX_DECOMPRESSED_BYTES
    with pytest.raises(TypeError):
        gunzip(gzip.compress(CONTENT), "f")  # type: ignore[call-arg]


def test_broken_stream() -> None:
    data = bytearray(gzip.compress(CONTENT))
    data[12] ^= 0xFF  # inside the deflate stream
    with pytest.raises(DecompressionError):
        gunzip(bytes(data), "f", limit=LIMIT)


def test_bad_crc_is_broken() -> None:
    data = bytearray(gzip.compress(CONTENT))
    data[-8] ^= 0x01  # CRC32 in the trailer
    with pytest.raises(DecompressionError, match="broken gzip stream"):
        gunzip(bytes(data), "f", limit=LIMIT)


@pytest.mark.parametrize("keep", [2, 10, 20, -8, -1])
def test_truncated_stream(keep: int) -> None:
    data = gzip.compress(CONTENT)
    with pytest.raises(DecompressionError):
        gunzip(data[:keep], "f", limit=LIMIT)


def test_not_gzip() -> None:
    with pytest.raises(DecompressionError, match="field gzip magic: expected 1f8b but got 0000"):
        gunzip(b"\x00\x00\x00\x06", "f", limit=LIMIT)
    with pytest.raises(DecompressionError, match=r"got \(empty\)"):
        gunzip(b"", "f", limit=LIMIT)


def test_members_are_concatenated_and_garbage_after_them_is_refused() -> None:
    two = gzip.compress(b"one ") + gzip.compress(b"two")
    assert gunzip(two, "f", limit=LIMIT) == b"one two"
    with pytest.raises(DecompressionError, match="limit"):
        gunzip(two, "f", limit=5)
    with pytest.raises(DecompressionError, match="field end of gzip stream: expected no more bytes but got 3"):
        gunzip(gzip.compress(b"one") + b"xyz", "f", limit=LIMIT)


def test_raw_deflate_is_not_gzip() -> None:
    with pytest.raises(DecompressionError):
        gunzip(zlib.compress(CONTENT), "f", limit=LIMIT)
