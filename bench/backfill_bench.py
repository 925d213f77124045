"""Backfill throughput on Spark local mode with 1 and 2 cores, against the single-process path.

Baseline, measured in the same run on the same stream: one process verifying the stream with
``verify_stream`` (the codec and the verifier) and writing it with ``BlockWriter``, as
``hedera-history load`` does. The backfill runs the same work as Spark tasks (listing, partitions,
progress rows and boundary checks included), with ``--reprocess`` so every run does all of it, the
partitions left to the default partitioning (one per core here).

The emulator, Spark's JVM and driver and the tasks share this machine's two cores, so wall-clock
rates say how busy the machine was as much as what the backfill costs. Each run therefore also
measures CPU: the tasks' own (``task_cpu_seconds`` of the report: each task's Python worker,
its writer threads included: verification through the write), Spark's (the driver process, the JVM
and the workers outside tasks: the bench's process tree from /proc, less the tasks) and the
emulator's (its process from /proc). The per-core figure is transactions per second of task CPU;
the scaling from 1 to 2 cores is reported twice: wall clock (a floor, the emulator and the JVM on
the same cores) and as work per CPU, ``2 x (rate per task-CPU second at local[2]) / (the same at
local[1])``: what two cores give when each runs tasks all the time, as the default partitioning
lets them (``busy`` prints the share of the two cores' wall time the tasks had here). Pinning the
emulator to one core and Spark to the other would give local[1] a clean core, but leave local[2]
nothing to run on: the CPU accounting measures both alike.

Then, in this process, what reading the next period ahead (``backfill.read_ahead``) does for a
task whose source answers each read after ``READ_LATENCY_SECONDS`` (a bucket's round trip): the
task's wall time and the share of it spent on CPU, with and without, alternating.

Printed last: what a month of mainnet (about 2.6 billion transactions, 630 GiB of stream files)
would need on Dataproc, from the rate per task-CPU second, by transactions and by bytes read.
The emulator is started through ``hedera_history.localstack`` and stopped at the end.
"""

from __future__ import annotations

import logging
import math
import os
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from unittest import mock

from hedera_history.backfill.driver import run_backfill, run_in_process
from hedera_history.backfill.partition_messages import BackfillJob
from hedera_history.backfill.read_ahead import ReadAhead
from hedera_history.backfill.spark import spark_executor, spark_session
from hedera_history.books.address_book import AddressBook
from hedera_history.books.parse import parse_address_book
from hedera_history.config import Settings
from hedera_history.formats.stream_paths import BucketLayout
from hedera_history.gen import GeneratorConfig, generate_stream, write_stream
from hedera_history.localstack.emulators import BigtableEmulator
from hedera_history.sources.base import DEFAULT_MAX_OBJECT_BYTES, PassThroughSource
from hedera_history.sources.local import LocalSource
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.sources.period_files import StreamLocation
from hedera_history.store.bigtable_client import open_admin_instance, open_gateway
from hedera_history.store.rows import block_to_rows
from hedera_history.store.schema import ensure_tables
from hedera_history.store.writer import BlockWriter
from hedera_history.verify.period import PeriodFiles
from hedera_history.verify.stream import verify_stream

from bench.machine import MachineReport, machine_report
from bench.process_cpu import cpu_seconds, tree_cpu_seconds

STREAM = GeneratorConfig(nodes=4, periods=30, transactions=2000, seed=7)
"""Mainnet-sized periods (about 1,000 transactions/s: 2,000 per 2 s period) of the generator's
mainnet-shaped mix (transfers, token and NFT transfers, contract calls with sidecars)."""
PARTITIONS: int | None = None
"""None: the default partitioning (at least one partition per core of the session)."""
ROUNDS = 3
INSTANCE = "bench"
GIB = 1024**3
MAINNET_BYTES_PER_DAY = 21 * GIB
MAINNET_TRANSACTIONS_PER_MONTH = 2.6e9
MONTH_DAYS = 30
TARGET_HOURS = (24, 7 * 24)
BIGTABLE_ROWS_PER_NODE = 14_000
"""Writes per second one SSD node sustains for 1 KB rows (Bigtable's published figure)."""
BIGTABLE_BYTES_PER_NODE = 14_000 * 1024
BIGTABLE_HEADROOM = 0.7
"""Plan for 70 % of a node's capacity."""
READ_LATENCY_SECONDS = 0.03
"""What each read from the stand-in bucket waits before it is answered."""


@dataclass(frozen=True)
class Measured:
    transactions: int
    seconds: float
    cpu_seconds: float
    """The work's own CPU: the tasks', or the single process's."""
    spark_cpu_seconds: float = 0.0
    emulator_cpu_seconds: float = 0.0
    bytes_read: int = 0
    partitions: int = 1

    @property
    def rate(self) -> float:
        return self.transactions / self.seconds

    @property
    def cpu_rate(self) -> float:
        """Transactions per second of the work's own CPU: the rate of one core doing nothing else."""
        return self.transactions / self.cpu_seconds


def single_process(folder: Path, settings: Settings) -> tuple[Measured, int, int]:
    """Verify and write the folder in this process: (measurement, rows, bytes of rows)."""
    book = parse_address_book((folder / "address-book.bin").read_bytes())
    gateway = open_gateway(settings)
    try:
        started, cpu_started = time.perf_counter(), time.process_time()
        results = verify_stream(find_local_periods(folder), book)
        blocks = [r.report.block for r in results if r.report.block is not None]
        written = BlockWriter(gateway, settings).write_blocks(blocks)
        seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu_started
    finally:
        gateway.close()
    assert all(w.complete for w in written), "every generated block must be written"
    built = [block_to_rows(block, settings) for block in blocks]
    rows = sum(len(b.rows) + 1 for b in built)
    size = sum(row.size for b in built for row in (*b.rows, b.completion))
    return Measured(sum(len(b.record.items) for b in blocks), seconds, cpu_seconds), rows, size


def _job(folder: Path, settings: Settings, stream_start: int, stream_end: int, partitions: int | None) -> BackfillJob:
    """The whole stream, every period verified and written again (``--reprocess``)."""
    return BackfillJob(
        source_url=str(folder),
        location=StreamLocation(BucketLayout.ACCOUNT),
        settings=settings,
        book=(folder / "address-book.bin").read_bytes(),
        start_ns=stream_start,
        end_ns=stream_end,
        reprocess=True,
        partitions=partitions,
    )


def backfill(
    folder: Path, settings: Settings, cores: int, stream_start: int, stream_end: int, emulator_pid: int
) -> Measured:
    """The best of ``ROUNDS`` runs, wall clock and CPU each taken from its own best run."""
    spark = spark_session(str(cores))
    try:
        job = _job(folder, settings, stream_start, stream_end, PARTITIONS)
        spark.sparkContext.parallelize(range(cores), cores).count()  # start the Python workers first
        runs: list[Measured] = []
        for _ in range(ROUNDS):
            gateway = open_gateway(settings)
            ours, emulator = tree_cpu_seconds(os.getpid(), emulator_pid), cpu_seconds(emulator_pid)
            try:
                report = run_backfill(job, spark_executor(spark, job), gateway=gateway, source=LocalSource(folder))
            finally:
                gateway.close()
            ours = tree_cpu_seconds(os.getpid(), emulator_pid) - ours
            emulator = cpu_seconds(emulator_pid) - emulator
            assert report.ok, report.summary_lines()
            runs.append(
                Measured(
                    report.counts.transactions,
                    report.seconds,
                    report.task_cpu_seconds,
                    max(0.0, ours - report.task_cpu_seconds),
                    emulator,
                    report.counts.bytes_read,
                    report.partitions,
                )
            )
        fastest = min(runs, key=lambda m: m.seconds)
        cheapest = min(runs, key=lambda m: m.cpu_seconds)
        return replace(
            fastest,
            cpu_seconds=cheapest.cpu_seconds,
            spark_cpu_seconds=cheapest.spark_cpu_seconds,
            emulator_cpu_seconds=cheapest.emulator_cpu_seconds,
        )
    finally:
        spark.stop()


class _DistantSource(PassThroughSource):
    """A local folder answering like a bucket: each read after ``READ_LATENCY_SECONDS``."""

    def read(self, name: str, *, max_bytes: int = DEFAULT_MAX_OBJECT_BYTES) -> bytes:
        time.sleep(READ_LATENCY_SECONDS)
        return self.inner.read(name, max_bytes=max_bytes)


def read_ahead(folder: Path, settings: Settings, stream_start: int, stream_end: int) -> dict[bool, Measured]:
    """In process, one partition from a distant source: the best run with and without reading ahead."""
    job = _job(folder, settings, stream_start, stream_end, 1)
    with_ahead = ReadAhead.period

    def without_ahead(self: ReadAhead, period_key: str, book: AddressBook, next_key: str | None) -> PeriodFiles:
        return with_ahead(self, period_key, book, None)

    best: dict[bool, Measured] = {}
    gateway = open_gateway(settings)
    try:
        for round_number in range(2 * ROUNDS):
            ahead = round_number % 2 == 1
            source = _DistantSource(LocalSource(folder))
            with mock.patch.object(ReadAhead, "period", with_ahead if ahead else without_ahead):
                report = run_backfill(
                    job, run_in_process(job, source=source, gateway=gateway), gateway=gateway, source=source
                )
            assert report.ok, report.summary_lines()
            measured = Measured(report.counts.transactions, report.task_seconds, report.task_cpu_seconds)
            if ahead not in best or measured.seconds < best[ahead].seconds:
                best[ahead] = measured
    finally:
        gateway.close()
    return best


def sizing(one_core: Measured, rows: int, row_bytes: int) -> list[str]:
    month = MAINNET_BYTES_PER_DAY * MONTH_DAYS
    by_transactions = MAINNET_TRANSACTIONS_PER_MONTH / one_core.cpu_rate / 3600
    bytes_per_cpu_second = one_core.bytes_read / one_core.cpu_seconds
    by_bytes = month / bytes_per_cpu_second / 3600
    core_hours = max(by_transactions, by_bytes)
    rows_per_byte = rows / one_core.bytes_read
    written_per_byte = row_bytes / one_core.bytes_read
    lines = [
        f"a month of mainnet on task cores: {MAINNET_TRANSACTIONS_PER_MONTH / 1e9:.1f} G transactions at "
        f"{one_core.cpu_rate:,.0f}/s -> {by_transactions:,.0f} core-hours; {MONTH_DAYS} x 21 GiB = "
        f"{month / GIB:,.0f} GiB at {bytes_per_cpu_second / 1e6:.2f} MB/s -> {by_bytes:,.0f} core-hours",
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
    with machine_report() as machine:
        run(machine)


def run(machine: MachineReport) -> None:
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
            machine.calibrate()
            pid = emulator.pid
            assert pid is not None
            one = backfill(folder, settings["one"], 1, start, end, pid)
            machine.calibrate()
            two = backfill(folder, settings["two"], 2, start, end, pid)
            machine.calibrate()
            distant = read_ahead(folder, settings["one"], start, end)
        calibration = machine.median
        print(
            f"single process (verify_stream + BlockWriter): {baseline.rate:,.0f} transactions/s, "
            f"{baseline.cpu_rate:,.0f} per second of its CPU"
        )
        print(f"  a transaction's CPU here: {calibration.as_work(1 / baseline.cpu_rate)} (median calibration)")
        for name, cores, measured in (("local[1]", 1, one), ("local[2]", 2, two)):
            busy = measured.cpu_seconds / (cores * measured.seconds)
            print(
                f"backfill {name}: {measured.rate:,.0f} transactions/s in {measured.partitions} partition(s) "
                f"(ratio to single process {measured.rate / baseline.rate:.2f}); "
                f"{measured.cpu_rate:,.0f} per second of task CPU; CPU s: tasks {measured.cpu_seconds:.2f}, "
                f"Spark {measured.spark_cpu_seconds:.2f}, emulator {measured.emulator_cpu_seconds:.2f}; "
                f"busy {busy:.2f}"
            )
            print(f"  a transaction's task CPU here: {calibration.as_work(1 / measured.cpu_rate)} (median calibration)")
        print(
            f"scaling local[2] / local[1]: wall clock {two.rate / one.rate:.2f} (2 cores shared with the emulator "
            f"and the JVM), work per CPU 2 x {two.cpu_rate:,.0f} / {one.cpu_rate:,.0f} = "
            f"{2 * two.cpu_rate / one.cpu_rate:.2f}"
        )
        print(f"read per run: {one.bytes_read / 1e6:.1f} MB; task CPU local[1] {one.cpu_seconds:.2f} s")
        for ahead, measured in sorted(distant.items()):
            print(
                f"in process, {READ_LATENCY_SECONDS * 1000:.0f} ms a read, "
                f"{'reading the next period ahead' if ahead else 'no read-ahead'}: task {measured.seconds:.2f} s, "
                f"CPU {measured.cpu_seconds / measured.seconds:.0%} of it"
            )
        for line in sizing(one, rows, row_bytes):
            print(line)
    finally:
        emulator.stop()


if __name__ == "__main__":
    main()
