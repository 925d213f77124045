"""End-to-end pipeline throughput and upload-to-queryable latency on the local stack.

One local stack (its own emulators, the four functions under functions-framework, the bridges).
A generated four-node stream with sidecars is split in two:

- latency: its first periods are uploaded one at a time, as nodes upload live (each node's
  signature, record and sidecar files); for each, the time from the first upload of the period
  until the query function answers ``getBlock`` for it. p50 and p99 are printed.
- throughput: the other periods are uploaded at once, every node's copy shuffled; transactions per
  second from the first upload to the last block complete, against the store writer's throughput
  writing the same blocks' rows into the same emulator in the same run (``BlockWriter``, the
  single-process path). The ratio is printed; nothing is asserted.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path

import requests
from google.cloud import bigtable
from hedera_history.books.parse import parse_address_book
from hedera_history.config import Settings
from hedera_history.gen import GeneratorConfig, generate_stream, write_stream
from hedera_history.gen.model import GeneratedStream
from hedera_history.gen.writer import ADDRESS_BOOK_FILE
from hedera_history.localstack.progress import first_blocks_target, open_gateway_for, wait_for_blocks
from hedera_history.localstack.stack import LocalStack, StackConfig
from hedera_history.localstack.upload import find_stream_files, plan_uploads, upload_files
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.store.bigtable_client import gateway_for_instance
from hedera_history.store.reader import HistoryReader
from hedera_history.store.schema import ensure_tables
from hedera_history.store.writer import BlockWriter
from hedera_history.verify.stream import verify_stream

from bench.timing import percentile

PERIODS = 40
LATENCY_PERIODS = 12
TRANSACTIONS = 200
WAIT_SECONDS = 600.0


def block_queryable(query: str, number: int) -> bool:
    body = {"jsonrpc": "2.0", "id": 1, "method": "getBlock", "params": [number]}
    return requests.post(query, json=body, timeout=30).json().get("result") is not None


def measure_latency(stack: LocalStack, stream_dir: Path, stream: GeneratedStream) -> list[float]:
    files = find_stream_files(stream_dir)
    query = stack.url("query")
    latencies: list[float] = []
    for period in stream.truth["blocks"][:LATENCY_PERIODS]:
        key = period["name"].split(".rcd")[0]
        mine = [f for f in files if key in f.relative]
        started = time.monotonic()
        upload_files(stack.state, plan_uploads(mine, shuffle=True, duplicates=0, seed=period["number"]))
        while not block_queryable(query, period["number"]):
            if time.monotonic() - started > 120:
                raise RuntimeError(f"block {period['number']} not queryable after 120 s")
            time.sleep(0.02)
        latencies.append(time.monotonic() - started)
    return latencies


def measure_throughput(stack: LocalStack, stream_dir: Path, stream: GeneratedStream) -> tuple[float, int]:
    blocks = stream.truth["blocks"][LATENCY_PERIODS:]
    keys = {b["name"].split(".rcd")[0] for b in blocks}
    files = [f for f in find_stream_files(stream_dir) if any(k in f.relative for k in keys)]
    plan = plan_uploads(files, shuffle=True, duplicates=0, seed=1)
    reader = HistoryReader(open_gateway_for(stack.state))
    started = time.monotonic()
    upload_files(stack.state, plan)
    target = first_blocks_target(blocks[0]["number"], len(blocks))
    outcome = wait_for_blocks(reader, target, WAIT_SECONDS, poll_seconds=0.05)
    if not outcome.done:
        raise RuntimeError(f"blocks missing after {outcome.seconds:.0f} s: {outcome.missing}")
    transactions = sum(b["item_count"] for b in blocks)
    return time.monotonic() - started, transactions


def measure_writer(stack: LocalStack, stream_dir: Path, stream: GeneratedStream) -> tuple[float, int]:
    """The single-process writer on the same blocks, into other tables of the same emulator."""
    state = stack.state
    settings = Settings.from_env(
        project=state.project, bigtable_instance=state.bigtable_instance, table_prefix="writer_bench_"
    )
    client = bigtable.Client(project=state.project, admin=True)
    instance = client.instance(state.bigtable_instance)
    ensure_tables(instance, settings)
    book = parse_address_book(stream.address_book)
    results = list(verify_stream(find_local_periods(stream_dir), book))
    wanted = {b["number"] for b in stream.truth["blocks"][LATENCY_PERIODS:]}
    blocks = [r.report.block for r in results if r.report.block is not None and r.report.block.block_number in wanted]
    gateway = gateway_for_instance(instance, settings)
    started = time.monotonic()
    BlockWriter(gateway, settings).write_blocks(blocks)
    elapsed = time.monotonic() - started
    gateway.close()
    return elapsed, sum(len(b.record.items) for b in blocks)


def main() -> None:
    stream = generate_stream(
        GeneratorConfig(nodes=4, periods=PERIODS, transactions=TRANSACTIONS, sidecars=True, seed=3)
    )
    with tempfile.TemporaryDirectory(prefix="e2e-bench-") as tmp:
        root = Path(tmp)
        stream_dir = root / "stream"
        write_stream(stream, stream_dir)
        config = StackConfig(
            state_dir=root / "stack",
            address_book=stream_dir / ADDRESS_BOOK_FILE,
            first_block=int(stream.truth["blocks"][0]["number"]),
            sweep_interval_seconds=2.0,
            poll_interval_seconds=0.05,
        )
        with LocalStack(config) as stack:
            os.environ.update(stack.client_env())
            latencies = measure_latency(stack, stream_dir, stream)
            e2e_seconds, e2e_transactions = measure_throughput(stack, stream_dir, stream)
            writer_seconds, writer_transactions = measure_writer(stack, stream_dir, stream)

    e2e_rate = e2e_transactions / e2e_seconds
    writer_rate = writer_transactions / writer_seconds
    print(f"throughput: {PERIODS - LATENCY_PERIODS} blocks x {TRANSACTIONS} tx, 4 nodes, every copy uploaded at once")
    print(f"  end to end (first upload -> last block complete): {e2e_rate:,.0f} tx/s ({e2e_seconds:.1f} s)")
    print(f"  store writer on the same blocks (baseline):       {writer_rate:,.0f} tx/s ({writer_seconds:.1f} s)")
    print(f"  ratio end to end / writer: {e2e_rate / writer_rate:.2f}")
    print(f"latency: upload of a period -> block answered by getBlock, over {len(latencies)} periods")
    print(
        f"  p50 {statistics.median(latencies) * 1000:,.0f} ms, p99 {percentile(latencies, 0.99) * 1000:,.0f} ms, "
        f"max {max(latencies) * 1000:,.0f} ms"
    )


if __name__ == "__main__":
    main()
