"""Peak memory of bounded gunzip against its limit: a 1 GiB gzip bomb against the default 256 MiB
limit, and a file that decompresses to exactly the limit. Goal: peak <= 1.2 x the limit.

Peaks are tracemalloc's (every Python allocation, zlib's buffers included), measured around the
call alone: the compressed input, about 1 MiB, is held by the caller either way.
"""

from __future__ import annotations

import time
import tracemalloc
import zlib

from hedera_history.config import Settings
from hedera_history.errors import DecompressionError
from hedera_history.formats.compression import gunzip

from bench.machine import reports_machine

MIB = 1024 * 1024
GOAL = 1.2


def zeros_gzip(size: int) -> bytes:
    compressor = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    piece = bytes(MIB)
    parts = [compressor.compress(piece[: min(MIB, size - done)]) for done in range(0, size, MIB)]
    return b"".join(parts) + compressor.flush()


def measure(label: str, data: bytes, limit: int) -> float:
    tracemalloc.start()
    start = time.perf_counter()
    try:
        outcome = f"{len(gunzip(data, label, limit=limit)) / MIB:.0f} MiB out"
    except DecompressionError:
        outcome = "refused"
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    seconds = time.perf_counter() - start
    ratio = peak / limit
    print(
        f"{label:<32} {len(data) / MIB:7.2f} MiB in  {outcome:<14} peak {peak / MIB:7.1f} MiB "
        f"= {ratio:.3f} x limit ({limit / MIB:.0f} MiB)  {seconds:.2f} s  "
        f"{'ok' if ratio <= GOAL else 'ABOVE GOAL'}"
    )
    return ratio


@reports_machine
def main() -> None:
    limit = Settings().max_decompressed_bytes
    worst = max(
        measure("1 GiB bomb", zeros_gzip(1024 * MIB), limit),
        measure("a file of exactly the limit", zeros_gzip(limit), limit),
    )
    print(f"worst peak {worst:.3f} x the limit (goal <= {GOAL})")


if __name__ == "__main__":
    main()
