"""Backfill throughput on Spark local mode with 1 and 2 cores, against the single-process path.

Baseline, measured in the same run on the same stream: one process verifying the stream with
``verify_stream`` (the codec and the verifier) and writing it with ``BlockWriter``, as
``hedera-history load`` does. The backfill runs the same work as Spark tasks (listing, partitions,
progress rows and boundary checks included), with ``--reprocess`` so every run does all of it.
Printed: transactions/s of each, the ratios to the baseline, the scaling from 1 to 2 cores, and
what a month of mainnet (about 21 GiB of stream files a day) would need on Dataproc.

Everything shares this machine's cores with the Bigtable emulator, so the scaling printed is a
floor; the sizing uses the work rate of one task core (bytes read per second of task time).
The emulator is started through ``hedera_history.localstack`` and stopped at the end.
"""

from __future__ import annotations

import logging
import math
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from hedera_history.backfill.driver import run_backfill
from hedera_history.backfill.partition_messages import BackfillJob
from hedera_history.backfill.report import BackfillReport
from hedera_history.backfill.spark import spark_executor, spark_session
from hedera_history.books.parse import parse_address_book
from hedera_history.config import Settings
from hedera_history.formats.stream_paths import BucketLayout
from hedera_history.gen import GeneratorConfig, generate_stream, write_stream
from hedera_history.localstack.emulators import BigtableEmulator
from hedera_history.sources.local import LocalSource
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.sources.period_files import StreamLocation
from hedera_history.store.bigtable_client import open_admin_instance, open_gateway
from hedera_history.store.rows import block_to_rows
from hedera_history.store.schema import ensure_tables
from hedera_history.store.writer import BlockWriter
from hedera_history.verify.stream import verify_stream

STREAM = GeneratorConfig(nodes=4, periods=40, transactions=300, seed=7)
PARTITIONS: int | None = None
"""None: the default partitioning (at least one partition per core of the session)."""
ROUNDS = 3
INSTANCE = "bench"
GIB = 1024**3
MAINNET_BYTES_PER_DAY = 21 * GIB
MONTH_DAYS = 30
TARGET_HOURS = (24, 7 * 24)
BIGTABLE_ROWS_PER_NODE = 14_000
"""Writes per second one SSD node sustains for 1 KB rows (Bigtable's published figure)."""
BIGTABLE_BYTES_PER_NODE = 14_000 * 1024
BIGTABLE_HEADROOM = 0.7
"""Plan for 70 % of a node's capacity."""


@dataclass(frozen=True)
class Measured:
    transactions: int
    seconds: float
    task_seconds: float = 0.0
    bytes_read: int = 0
    partitions: int = 1

    @property
    def rate(self) -> float:
        return self.transactions / self.seconds


def single_process(folder: Path, settings: Settings) -> tuple[Measured, int, int]:
    """Verify and write the folder in this process: (measurement, rows, bytes of rows)."""
    book = parse_address_book((folder / "address-book.bin").read_bytes())
    gateway = open_gateway(settings)
    try:
        started = time.perf_counter()
        results = verify_stream(find_local_periods(folder), book)
        blocks = [r.report.block for r in results if r.report.block is not None]
        written = BlockWriter(gateway, settings).write_blocks(blocks)
        seconds = time.perf_counter() - started
    finally:
        gateway.close()
    assert all(w.complete for w in written), "every generated block must be written"
    built = [block_to_rows(block, settings) for block in blocks]
    rows = sum(len(b.rows) + 1 for b in built)
    size = sum(row.size for b in built for row in (*b.rows, b.completion))
    return Measured(sum(len(b.record.items) for b in blocks), seconds), rows, size


def backfill(folder: Path, settings: Settings, cores: int, stream_start: int, stream_end: int) -> Measured:
    spark = spark_session(str(cores))
    try:
        job = BackfillJob(
            source_url=str(folder),
            location=StreamLocation(BucketLayout.ACCOUNT),
            settings=settings,
            book=(folder / "address-book.bin").read_bytes(),
            start_ns=stream_start,
            end_ns=stream_end,
            reprocess=True,
            partitions=PARTITIONS,
        )
        spark.sparkContext.parallelize(range(cores), cores).count()  # start the Python workers first
        best: BackfillReport | None = None
        for _ in range(ROUNDS):
            gateway = open_gateway(settings)
            try:
                report = run_backfill(job, spark_executor(spark, job), gateway=gateway, source=LocalSource(folder))
            finally:
                gateway.close()
            assert report.ok, report.summary_lines()
            if best is None or report.seconds < best.seconds:
                best = report
        assert best is not None
        return Measured(
            best.counts.transactions, best.seconds, best.task_seconds, best.counts.bytes_read, best.partitions
        )
    finally:
        spark.stop()


def sizing(one_core: Measured, rows: int, row_bytes: int) -> list[str]:
    per_core = one_core.bytes_read / one_core.task_seconds
    month = MAINNET_BYTES_PER_DAY * MONTH_DAYS
    core_hours = month / per_core / 3600
    rows_per_byte = rows / one_core.bytes_read
    written_per_byte = row_bytes / one_core.bytes_read
    lines = [
        f"one task core: {per_core / 1e6:.2f} MB of stream files/s; a month of mainnet = {MONTH_DAYS} x 21 GiB "
        f"= {month / GIB:,.0f} GiB -> {core_hours:,.0f} core-hours",
        f"rows: {rows_per_byte * 1024:.1f} per KiB read, {written_per_byte:.2f} bytes written per byte read "
        f"-> {month * rows_per_byte / 1e6:,.0f} M rows, {month * written_per_byte / GIB:,.0f} GiB written",
    ]
    for hours in TARGET_HOURS:
        seconds = hours * 3600
        cores = core_hours / hours
        rows_rate = month * rows_per_byte / seconds
        bytes_rate = month * written_per_byte / seconds
        nodes = max(
            rows_rate / (BIGTABLE_ROWS_PER_NODE * BIGTABLE_HEADROOM),
            bytes_rate / (BIGTABLE_BYTES_PER_NODE * BIGTABLE_HEADROOM),
        )
        lines.append(
            f"in {hours} h: {cores:.1f} -> {math.ceil(cores)} executor core(s); Bigtable {rows_rate:,.0f} rows/s, "
            f"{bytes_rate / 1e6:,.1f} MB/s -> {nodes:.1f} -> {max(1, math.ceil(nodes))} SSD node(s) "
            "at 70 % of 14,000 rows/s"
        )
    return lines


def main() -> None:
    logging.getLogger("py4j").setLevel(logging.ERROR)
    emulator = BigtableEmulator()
    print("starting the Bigtable emulator ...", flush=True)
    emulator.start()
    try:
        os.environ.update(emulator.env())
        base = Settings(project="bench", bigtable_instance=INSTANCE, bigtable_emulator_host=emulator.host)
        print(
            f"generating {STREAM.periods} periods x {STREAM.transactions} transactions, {STREAM.nodes} nodes ...",
            flush=True,
        )
        stream = generate_stream(STREAM)
        start = stream.periods[0].record_name.consensus_ns
        end = stream.periods[-1].record_name.consensus_ns + 1
        with tempfile.TemporaryDirectory(prefix="backfill-bench-") as scratch:
            folder = Path(scratch)
            write_stream(stream, folder)
            settings = {name: base.with_(table_prefix=f"{name}_") for name in ("single", "one", "two")}
            instance = open_admin_instance(base)
            for chosen in settings.values():
                ensure_tables(instance, chosen)
            baseline, rows, row_bytes = min(
                (single_process(folder, settings["single"]) for _ in range(ROUNDS)), key=lambda m: m[0].seconds
            )
            one = backfill(folder, settings["one"], 1, start, end)
            two = backfill(folder, settings["two"], 2, start, end)
        print(f"single process (verify_stream + BlockWriter): {baseline.rate:,.0f} transactions/s")
        for name, measured in (("local[1]", one), ("local[2]", two)):
            ratio = measured.rate / baseline.rate
            print(
                f"backfill {name}: {measured.rate:,.0f} transactions/s in {measured.partitions} partition(s), "
                f"ratio to single process {ratio:.2f}"
            )
        print(f"scaling local[2] / local[1] = {two.rate / one.rate:.2f} (2 cores shared with the emulator)")
        print(f"read per run: {one.bytes_read / 1e6:.1f} MB; task time local[1] {one.task_seconds:.2f} s")
        for line in sizing(one, rows, row_bytes):
            print(line)
    finally:
        emulator.stop()


if __name__ == "__main__":
    main()
