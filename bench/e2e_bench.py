"""End-to-end pipeline throughput and upload-to-queryable latency on the local stack.

One local stack (its own emulators, the four functions under functions-framework, the bridges).
A generated stream with sidecars (``--transactions`` per period, ``--nodes`` nodes, ``--periods``
periods; the defaults are small, ``--transactions 20000 --nodes 30`` is mainnet at the throttle) is
split in two:

- latency: after ``--warmup-periods`` (1: the functions' instances start on it, and are timed
  apart), ``--latency-periods`` periods are uploaded one at a time, every node's files
  at once from ``--upload-workers`` threads, as nodes upload live (each node's signature, record and
  sidecar files); for each, the time from the first upload of the period, and from the last,
  until the query function lists it complete (``getBlocks``). p50 and p99 are printed, for each
  period when ingest logged it published and the store logged it complete (read from the
  functions' logs), and the CPU seconds each process of the stack spent on it (from /proc: the
  emulators, the functions, this process's uploads and bridges), which say where its latency went.
  Uploading 90 files of a mainnet-sized period into the GCS emulator (Python) takes seconds of the
  same two cores, which nodes spend on their own machines: the goals are judged both ways.
- throughput: the other periods are uploaded at once, every node's copy shuffled, with the bucket
  event bridge paused; then the bridge resumes and the pipeline works the backlog. Transactions per
  second from the resume to the last block complete, against the store writer's throughput
  writing the same blocks' rows into the same emulator in the same run (``BlockWriter``, the
  single-process path).

The store function runs ``--store-processes`` worker processes (the local stack's default: two),
so the item ranges of one period are built and written on both cores.

``--block-stream`` measures native blocks instead (``bench/e2e_blocks.py``): a mainnet-sized block
written into the bucket every 2 s, upload to queryable and CPU a block against the floor.

Last, a verdict against the goals: p50 < 2 s, p99 < 4 s, end to end at least 0.7 of the writer.
The verdict is printed, nothing is asserted (a 2-core machine runs every node, emulator and
function of the network at once).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import requests
from google.cloud import bigtable
from hedera_history.books.parse import parse_address_book
from hedera_history.config import Settings
from hedera_history.gen import GeneratorConfig, generate_into
from hedera_history.gen.writer import ADDRESS_BOOK_FILE
from hedera_history.localstack.stack import DEFAULT_STORE_PROCESSES, LocalStack, StackConfig
from hedera_history.localstack.stack_progress import first_blocks_target, open_gateway_for, wait_for_blocks
from hedera_history.localstack.stack_state import StackState
from hedera_history.localstack.upload import Upload, bucket_sink, find_stream_files, plan_uploads
from hedera_history.sources.gcs import GcsSink
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.store.bigtable_client import gateway_for_instance
from hedera_history.store.reader import HistoryReader
from hedera_history.store.schema import ensure_tables
from hedera_history.store.writer import BlockWriter
from hedera_history.verify.stream import verify_stream

from bench.e2e_blocks import listed_blocks, main_blocks
from bench.machine import Calibration, machine_report
from bench.process_cpu import stack_cpu
from bench.stack_logs import wait_for_logged
from bench.timing import percentile

GOAL_P50_SECONDS = 2.0
GOAL_P99_SECONDS = 4.0
GOAL_RATIO = 0.7


@dataclass(frozen=True)
class BenchShape:
    transactions: int = 200
    nodes: int = 4
    periods: int = 40
    latency_periods: int = 12
    warmup_periods: int = 1
    upload_workers: int = 8
    latency_wait_seconds: float = 120.0
    throughput_wait_seconds: float = 600.0
    store_processes: int = DEFAULT_STORE_PROCESSES

    @property
    def throughput_periods(self) -> int:
        return self.periods - self.warmup_periods - self.latency_periods


@dataclass(frozen=True)
class Figures:
    periods: list[PeriodTimes]
    get_block: str
    e2e_seconds: float
    """From the bucket event bridge resumed, the periods' files all uploaded, to the last block complete."""
    e2e_transactions: int
    backlog_upload_seconds: float
    """How long uploading those files took, the bridge paused."""
    writer_seconds: float
    writer_transactions: int
    warmup: list[PeriodTimes] = field(default_factory=list)
    """The periods that started the functions, timed apart."""

    @property
    def latencies(self) -> list[float]:
        return [p.listed for p in self.periods]

    @property
    def upload_seconds(self) -> list[float]:
        return [p.uploaded for p in self.periods]

    @property
    def after_upload(self) -> list[float]:
        return [p.listed - p.uploaded for p in self.periods]

    @property
    def ratio(self) -> float:
        return (self.e2e_transactions / self.e2e_seconds) / (self.writer_transactions / self.writer_seconds)


def parse_shape(argv: Sequence[str] | None = None) -> BenchShape:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    defaults = BenchShape()
    options = {
        "--transactions": "transactions",
        "--nodes": "nodes",
        "--periods": "periods",
        "--latency-periods": "latency_periods",
        "--warmup-periods": "warmup_periods",
        "--upload-workers": "upload_workers",
        "--latency-wait": "latency_wait_seconds",
        "--throughput-wait": "throughput_wait_seconds",
        "--store-processes": "store_processes",
    }
    for flag, name in options.items():
        default = getattr(defaults, name)
        parser.add_argument(flag, dest=name, type=type(default), default=default)
    shape = BenchShape(**vars(parser.parse_args(argv)))
    if shape.warmup_periods < 0 or not 0 < shape.latency_periods < shape.periods - shape.warmup_periods:
        parser.error("--latency-periods must be at least 1 and fewer than --periods less --warmup-periods")
    return shape


def block_queryable(query: str, number: int) -> bool:
    """Whether the query function lists the block as complete (``getBlocks`` over its number alone:
    ``getBlock`` would also time rendering every transaction of a mainnet-sized block)."""
    with requests.Session() as session:
        return number in listed_blocks(session, query, number, number)


def time_get_block(query: str, number: int) -> str:
    """How long ``getBlock`` takes to answer a whole block (every transaction rendered), or why not."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "getBlock", "params": [number]}
    started = time.monotonic()
    try:
        response = requests.post(query, json=body, timeout=120)
    except requests.RequestException as e:
        return f"no answer after {time.monotonic() - started:.1f} s: {e!r}"
    seconds = time.monotonic() - started
    try:
        answer = response.json()
    except ValueError:
        return f"HTTP {response.status_code} after {seconds:.1f} s, not JSON: {response.text[:200]!r}"
    if answer.get("result") is None:
        return f"no block after {seconds:.1f} s: {str(answer.get('error'))[:300]}"
    count = len(answer["result"].get("transactions", ()))
    return f"{count} transactions, {len(response.content) / 1e6:.1f} MB in {seconds:.1f} s"


def bucket_sinks(state: StackState, count: int) -> list[GcsSink]:
    """One bucket client per uploading thread, made before any clock starts (a client takes a
    while to make, a node's uploader has one already)."""
    return [bucket_sink(state) for _ in range(count)]


def upload_parallel(sinks: list[GcsSink], plan: list[Upload]) -> None:
    """The plan's uploads from one thread per sink (as nodes upload at once); the order inside each
    thread's share is the plan's."""
    shares = [(sink, plan[i :: len(sinks)]) for i, sink in enumerate(sinks) if plan[i :: len(sinks)]]

    def upload(sink: GcsSink, share: list[Upload]) -> None:
        for item in share:
            sink.write(item.file.relative, item.file.path.read_bytes())

    with concurrent.futures.ThreadPoolExecutor(max_workers=len(shares)) as pool:
        for done in [pool.submit(upload, sink, share) for sink, share in shares]:
            done.result()


@dataclass(frozen=True)
class PeriodTimes:
    """One latency period, in seconds from the first upload of its files."""

    number: int
    uploaded: float
    listed: float
    published: float | None = None
    """When ingest logged ``period verified`` (from the function's log)."""
    complete: float | None = None
    """When the store logged ``block complete``."""
    cpu: dict[str, float] = field(default_factory=dict)
    """CPU seconds each process of the stack spent from the first upload until listed."""


def measure_latency(
    stack: LocalStack, stream_dir: Path, blocks: list[dict[str, Any]], shape: BenchShape
) -> list[PeriodTimes]:
    files = find_stream_files(stream_dir)
    query = stack.url("query")
    sinks = bucket_sinks(stack.state, shape.upload_workers)
    periods: list[PeriodTimes] = []
    started_at: dict[int, datetime] = {}
    for period in blocks:
        key = period["name"].split(".rcd")[0]
        mine = [f for f in files if key in f.relative]
        cpu_before = stack_cpu(stack.state)
        started = time.monotonic()
        started_at[period["number"]] = datetime.now(UTC)
        upload_parallel(sinks, plan_uploads(mine, shuffle=True, duplicates=0, seed=period["number"]))
        uploaded = time.monotonic() - started
        while not block_queryable(query, period["number"]):
            if time.monotonic() - started > shape.latency_wait_seconds:
                raise RuntimeError(f"block {period['number']} not queryable after {shape.latency_wait_seconds:.0f} s")
            time.sleep(0.02)
        listed = time.monotonic() - started
        cpu = {name: seconds - cpu_before.get(name, 0.0) for name, seconds in stack_cpu(stack.state).items()}
        periods.append(PeriodTimes(period["number"], uploaded, listed, cpu=cpu))
    published, complete = wait_for_logged(stack, "period verified", (p.number for p in periods))

    def since_start(found: dict[int, datetime], number: int) -> float | None:
        when = found.get(number)
        return None if when is None else (when - started_at[number]).total_seconds()

    return [
        replace(p, published=since_start(published, p.number), complete=since_start(complete, p.number))
        for p in periods
    ]


def measure_throughput(
    stack: LocalStack, stream_dir: Path, blocks: list[dict[str, Any]], shape: BenchShape
) -> tuple[float, int, float]:
    """The pipeline's rate on a backlog: every copy of the periods uploaded with the bucket event
    bridge paused (the nodes' upload is not the pipeline's work, and on this machine it would share
    the cores), then the bridge resumed and timed until the last block is complete. Returns
    (pipeline seconds, transactions, upload seconds)."""
    keys = {b["name"].split(".rcd")[0] for b in blocks}
    files = [f for f in find_stream_files(stream_dir) if any(k in f.relative for k in keys)]
    plan = plan_uploads(files, shuffle=True, duplicates=0, seed=1)
    reader = HistoryReader(open_gateway_for(stack.state))
    sinks = bucket_sinks(stack.state, shape.upload_workers)
    bridges = stack.bridges
    events = bridges.events if bridges is not None else None
    if events is None:
        raise RuntimeError("the stack takes no bucket events (it follows a bucket)")
    events.stop()
    uploading = time.monotonic()
    upload_parallel(sinks, plan)
    uploaded = time.monotonic() - uploading
    started = time.monotonic()
    events.start()
    target = first_blocks_target(blocks[0]["number"], len(blocks))
    outcome = wait_for_blocks(reader, target, shape.throughput_wait_seconds, poll_seconds=0.05)
    if not outcome.done:
        raise RuntimeError(f"blocks missing after {outcome.seconds:.0f} s: {outcome.missing}")
    return time.monotonic() - started, sum(b["item_count"] for b in blocks), uploaded


def measure_writer(stack: LocalStack, stream_dir: Path, book_bytes: bytes, wanted: set[int]) -> tuple[float, int]:
    """The single-process writer on the same blocks, into other tables of the same emulator."""
    state = stack.state
    settings = Settings.from_env(
        project=state.project, bigtable_instance=state.bigtable_instance, table_prefix="writer_bench_"
    )
    client = bigtable.Client(project=state.project, admin=True)
    instance = client.instance(state.bigtable_instance)
    ensure_tables(instance, settings)
    book = parse_address_book(book_bytes)
    results = verify_stream(find_local_periods(stream_dir), book)
    blocks = [r.report.block for r in results if r.report.block is not None and r.report.block.block_number in wanted]
    gateway = gateway_for_instance(instance, settings)
    started = time.monotonic()
    BlockWriter(gateway, settings).write_blocks(blocks)
    elapsed = time.monotonic() - started
    gateway.close()
    return elapsed, sum(len(b.record.items) for b in blocks)


def run(shape: BenchShape) -> Figures:
    started = time.monotonic()
    generated = GeneratorConfig(
        nodes=shape.nodes, periods=shape.periods, transactions=shape.transactions, sidecars=True, seed=3
    )
    with tempfile.TemporaryDirectory(prefix="e2e-bench-") as tmp:
        root = Path(tmp)
        stream_dir = root / "stream"
        # Each period written and dropped as it is made: a mainnet-sized period is ~150 MB in memory.
        stream, _ = generate_into(generated, stream_dir)
        blocks: list[dict[str, Any]] = stream.truth["blocks"]
        book_bytes = stream.address_book
        print(f"generated and written in {time.monotonic() - started:.1f} s", flush=True)
        config = StackConfig(
            state_dir=root / "stack",
            address_book=stream_dir / ADDRESS_BOOK_FILE,
            first_block=int(blocks[0]["number"]),
            sweep_interval_seconds=2.0,
            poll_interval_seconds=0.05,
            store_processes=shape.store_processes,
        )
        with LocalStack(config) as stack:
            os.environ.update(stack.client_env())
            # The first periods start every function's instance (its context, caches, connections):
            # cold start is bench.cold_start_bench's; these are timed and left out of the figures.
            warmup = measure_latency(stack, stream_dir, blocks[: shape.warmup_periods], shape)
            measured = blocks[shape.warmup_periods : shape.warmup_periods + shape.latency_periods]
            periods = measure_latency(stack, stream_dir, measured, shape)
            rest = blocks[shape.warmup_periods + shape.latency_periods :]
            e2e_seconds, e2e_transactions, backlog_upload = measure_throughput(stack, stream_dir, rest, shape)
            writer_seconds, writer_transactions = measure_writer(
                stack, stream_dir, book_bytes, {b["number"] for b in rest}
            )
            get_block = time_get_block(stack.url("query"), int(blocks[0]["number"]))
    return Figures(
        periods, get_block, e2e_seconds, e2e_transactions, backlog_upload, writer_seconds, writer_transactions, warmup
    )


def verdict_line(name: str, ok: bool, detail: str) -> str:
    return f"  {name}: {'met' if ok else 'NOT met'} ({detail})"


def report(shape: BenchShape, figures: Figures, calibration: Calibration) -> None:
    e2e_rate = figures.e2e_transactions / figures.e2e_seconds
    writer_rate = figures.writer_transactions / figures.writer_seconds
    p50 = statistics.median(figures.latencies)
    p99 = percentile(figures.latencies, 0.99)
    print(
        f"throughput: {shape.throughput_periods} blocks x {shape.transactions} tx, {shape.nodes} nodes, every copy "
        f"uploaded with the bucket events paused ({figures.backlog_upload_seconds:.1f} s), then resumed"
    )
    print(f"  end to end (events resumed -> last block complete): {e2e_rate:,.0f} tx/s ({figures.e2e_seconds:.1f} s)")
    print(
        f"  store writer on the same blocks (baseline):         {writer_rate:,.0f} tx/s "
        f"({figures.writer_seconds:.1f} s)"
    )
    print(f"  ratio end to end / writer: {figures.ratio:.2f}")
    print(f"latency: upload of a period -> block listed by getBlocks, over {len(figures.latencies)} periods")
    print(f"  p50 {p50 * 1000:,.0f} ms, p99 {p99 * 1000:,.0f} ms, max {max(figures.latencies) * 1000:,.0f} ms")
    print(
        f"  of which uploading the period's {shape.nodes} nodes' files: "
        f"p50 {statistics.median(figures.upload_seconds) * 1000:,.0f} ms"
    )
    after_p50, after_p99 = statistics.median(figures.after_upload), percentile(figures.after_upload, 0.99)
    print(f"  from the period's last file uploaded: p50 {after_p50 * 1000:,.0f} ms, p99 {after_p99 * 1000:,.0f} ms")
    print_cpu(figures.periods, calibration)
    for period in figures.warmup:
        print(f"  warm-up block {period.number} (the functions starting, left out): listed after {period.listed:.1f} s")
    print("  each period, seconds from its first upload: uploaded, ingest published it, store completed it, listed")
    for period in figures.periods:
        print(
            f"    block {period.number}: {period.uploaded:5.1f} {_seconds(period.published)} "
            f"{_seconds(period.complete)} {period.listed:5.1f}"
        )
    print(f"getBlock of the first block: {figures.get_block}")
    print(f"verdict at {shape.transactions} tx x {shape.nodes} nodes, {shape.store_processes} store processes:")
    print(verdict_line("p50 < 2 s", p50 < GOAL_P50_SECONDS, f"{p50:.2f} s"))
    print(verdict_line("p99 < 4 s", p99 < GOAL_P99_SECONDS, f"{p99:.2f} s"))
    print(verdict_line("p50 < 2 s from the last file uploaded", after_p50 < GOAL_P50_SECONDS, f"{after_p50:.2f} s"))
    print(verdict_line("p99 < 4 s from the last file uploaded", after_p99 < GOAL_P99_SECONDS, f"{after_p99:.2f} s"))
    print(verdict_line("end to end >= 0.7 of the writer", figures.ratio >= GOAL_RATIO, f"{figures.ratio:.2f}"))


def print_cpu(periods: list[PeriodTimes], calibration: Calibration) -> None:
    """Where the machine's CPU went during a latency period, by process, on average; the sum also as
    the calibration's work, which another machine's run can be compared with."""
    names = {name for period in periods for name in period.cpu}
    mean = {name: statistics.mean(p.cpu.get(name, 0.0) for p in periods) for name in names}
    wall = statistics.mean(p.listed for p in periods)
    total = sum(mean.values())
    print(f"  CPU seconds a period, mean ({total:.1f} s in all; {os.cpu_count()} cores x {wall:.1f} s):")
    print(f"    in all, as calibration work here: {calibration.as_work(total)} (median calibration)")
    for name, seconds in sorted(mean.items(), key=lambda item: -item[1]):
        print(f"    {name:28} {seconds:6.2f}")


def _seconds(value: float | None) -> str:
    return "    ?" if value is None else f"{value:5.1f}"


def main(argv: Sequence[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else list(argv)
    if "--block-stream" in args:
        main_blocks(args)
        return
    shape = parse_shape(args)
    with machine_report() as machine:
        figures = run(shape)
        machine.calibrate()
        report(shape, figures, machine.median)


if __name__ == "__main__":
    main()
