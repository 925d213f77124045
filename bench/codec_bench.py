"""Record codec throughput: full V6 parse and hashing against a floor measured on the same files.

The floor is what a verifying reader cannot skip: gunzip, one SHA-384 over the decompressed
bytes, one ``RecordStreamFile.FromString`` and, per item, the two SHA-384 of the running hash
(item hash, then running hash) over item bytes taken out before the clock starts, through the
same recipe the codec uses. The codec does that plus a raw-view parse that yields the exact
transaction and record bytes, each item's consensus time and one ``RecordItem`` per item.

Each sample is one file (5,000 transfers) on each side, in random order, timed in CPU seconds of
this thread (``time.thread_time``) so that other work on a busy machine is charged to neither.
Goal: floor / codec >= 0.8 at p50 and at p99.
"""

from __future__ import annotations

import hashlib
import random
import time
from collections.abc import Callable

from hedera_history import hapi, speedups
from hedera_history.formats.dispatch import parse_record_file
from hedera_history.formats.hashing import running_hash_over

from bench.machine import reports_machine
from bench.record_files import BenchFile, build_files, floor_one, gunzip_content
from bench.timing import p50_p99, paired_samples

FILES = 5
ITEMS_PER_FILE = 5000
ROUNDS = 7
SAMPLES = 300
"""Paired samples (one file each side): enough for p99 to stand on three samples."""
GOAL = 0.8


def codec_one(file: BenchFile) -> None:
    parse_record_file(file.data, file.name)


def best_times(files: list[BenchFile], works: list[Callable[[BenchFile], object]], rounds: int = ROUNDS) -> list[float]:
    """Best wall time of each work over all files. Rounds interleave the works, so that noise from
    other processes on the machine hits them alike."""
    best = [float("inf")] * len(works)
    for _ in range(rounds):
        for index, work in enumerate(works):
            started = time.perf_counter()
            for file in files:
                work(file)
            best[index] = min(best[index], time.perf_counter() - started)
    return best


def _stages(files: list[BenchFile]) -> dict[str, Callable[[BenchFile], object]]:
    """Each stage of the floor alone, to show what bounds the codec."""
    contents = {f.name: gunzip_content(f.data) for f in files}
    return {
        "gunzip": lambda f: gunzip_content(f.data),
        "sha384 of the file": lambda f: hashlib.sha384(contents[f.name]).digest(),
        "upb parse": lambda f: hapi.RecordStreamFile.FromString(memoryview(contents[f.name])[4:]),
        "2 SHA-384 per item": lambda f: running_hash_over(f.start_hash, f.records, f.transactions),
    }


def _line(label: str, seconds: float, transactions: int, megabytes: float) -> str:
    rate = f"{transactions / seconds:10,.0f} tx/s  {megabytes / seconds:7.1f} MB/s"
    return f"{label:38s} {seconds * 1e3:8.1f} ms  {rate}"


@reports_machine
def main() -> None:
    print(f"building {FILES} V6 files x {ITEMS_PER_FILE} crypto transfers ...", flush=True)
    files = build_files(FILES, ITEMS_PER_FILE)
    for file in files:
        record = parse_record_file(file.data, file.name)
        assert record.computed_end_running_hash == record.end_running_hash, "bench file is inconsistent"
    transactions = sum(f.items for f in files)
    megabytes = sum(f.decompressed_size for f in files) / 1e6
    compressed = sum(len(f.data) for f in files) / 1e6
    print(f"{transactions} transactions, {megabytes:.1f} MB decompressed ({compressed:.1f} MB gzip)")
    print(f"compiled core (hedera_history._speedups): {'yes' if speedups.available else 'NO, pure-Python fallback'}")

    rng = random.Random(5)

    def pair() -> tuple[Callable[[], object], Callable[[], object]]:
        file = rng.choice(files)
        return (lambda: codec_one(file)), (lambda: floor_one(file))

    codec_samples, floor_samples = paired_samples(pair, SAMPLES, rng, clock=time.thread_time)
    (codec50, codec99), (floor50, floor99) = p50_p99(codec_samples), p50_p99(floor_samples)
    per_file = ITEMS_PER_FILE
    print(f"{SAMPLES} paired samples of one file ({per_file} transactions), CPU ms of this thread: p50 / p99")
    print(f"  floor (gunzip + sha384 + upb parse + 2 SHA-384/item) {floor50 * 1e3:7.2f} / {floor99 * 1e3:7.2f}")
    print(f"  codec (parse_record_file)                           {codec50 * 1e3:7.2f} / {codec99 * 1e3:7.2f}")
    print(f"  codec {per_file / codec50:,.0f} tx/s at p50, floor {per_file / floor50:,.0f} tx/s")
    ratio50, ratio99 = floor50 / codec50, floor99 / codec99
    verdict = "OK" if min(ratio50, ratio99) >= GOAL else "BELOW GOAL"
    print(f"ratio floor/codec = {ratio50:.2f} at p50, {ratio99:.2f} at p99 (goal >= {GOAL} at both) {verdict}")

    stages = _stages(files)
    codec, *stage_times = best_times(files, [codec_one, *stages.values()])
    print(_line("codec, best of all files", codec, transactions, megabytes))

    print("what bounds the codec (each stage alone, share of codec time):")
    shares = [
        *zip(stages, stage_times, strict=True),
        ("rest: item bytes, times, items", codec - sum(stage_times)),
    ]
    for label, seconds in shares:
        per_tx = seconds / transactions * 1e6
        print(f"  {label:34s} {seconds * 1e3:8.1f} ms  {seconds / codec:5.0%}  {per_tx:5.2f} us/tx")


if __name__ == "__main__":
    main()
