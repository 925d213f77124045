from __future__ import annotations

import gzip
import tracemalloc
import zlib

import pytest
from hedera_history.config import Settings
from hedera_history.errors import DecompressionError
from hedera_history.formats.compression import gunzip, is_gzip

CONTENT = b"record stream " * 100


def test_round_trip_and_magic() -> None:
    data = gzip.compress(CONTENT)
    assert is_gzip(data)
    assert not is_gzip(CONTENT)
    assert gunzip(data, "f.rcd.gz") == CONTENT


def test_header_bytes_do_not_change_the_content() -> None:
    # Nodes write different gzip mtimes and FNAME flags for the same content.
    assert gunzip(gzip.compress(CONTENT, mtime=1), "a") == gunzip(gzip.compress(CONTENT, mtime=2), "b")


def test_limit_is_inclusive() -> None:
    data = gzip.compress(CONTENT)
    assert gunzip(data, "f", limit=len(CONTENT)) == CONTENT
    with pytest.raises(DecompressionError, match=f"exceeds the limit of {len(CONTENT) - 1} bytes") as caught:
        gunzip(data, "f", limit=len(CONTENT) - 1)
    assert caught.value.file == "f"


def test_gzip_bomb_is_refused_without_holding_it() -> None:
    bomb = gzip.compress(bytes(64 * 1024 * 1024), compresslevel=9)  # 64 MiB of zeros in ~64 KiB
    assert len(bomb) < 200_000
    limit = 1024 * 1024
    tracemalloc.start()
    try:
        with pytest.raises(DecompressionError, match="exceeds the limit"):
            gunzip(bomb, "bomb.rcd.gz", limit=limit)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 3 * limit


def test_default_limit_comes_from_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("hedera_history.formats.compression.Settings", lambda: Settings(max_decompressed_bytes=10))
    with pytest.raises(DecompressionError, match="limit of 10 bytes"):
        gunzip(gzip.compress(CONTENT), "f")


def test_broken_stream() -> None:
    data = bytearray(gzip.compress(CONTENT))
    data[12] ^= 0xFF  # inside the deflate stream
    with pytest.raises(DecompressionError):
        gunzip(bytes(data), "f")


def test_bad_crc_is_broken() -> None:
    data = bytearray(gzip.compress(CONTENT))
    data[-8] ^= 0x01  # CRC32 in the trailer
    with pytest.raises(DecompressionError, match="broken gzip stream"):
        gunzip(bytes(data), "f")


@pytest.mark.parametrize("keep", [2, 10, 20, -8, -1])
def test_truncated_stream(keep: int) -> None:
    data = gzip.compress(CONTENT)
    with pytest.raises(DecompressionError):
        gunzip(data[:keep], "f")


def test_not_gzip() -> None:
    with pytest.raises(DecompressionError, match="field gzip magic: expected 1f8b but got 0000"):
        gunzip(b"\x00\x00\x00\x06", "f")
    with pytest.raises(DecompressionError, match=r"got \(empty\)"):
        gunzip(b"", "f")


def test_members_are_concatenated_and_garbage_after_them_is_refused() -> None:
    two = gzip.compress(b"one ") + gzip.compress(b"two")
    assert gunzip(two, "f") == b"one two"
    with pytest.raises(DecompressionError, match="limit"):
        gunzip(two, "f", limit=5)
    with pytest.raises(DecompressionError, match="field end of gzip stream: expected no more bytes but got 3"):
        gunzip(gzip.compress(b"one") + b"xyz", "f")


def test_raw_deflate_is_not_gzip() -> None:
    with pytest.raises(DecompressionError):
        gunzip(zlib.compress(CONTENT), "f")
