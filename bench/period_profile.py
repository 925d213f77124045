"""Where one period's time goes through ingest and the store calls, in one process, and its critical
path now that the work is spread over store calls by item range.

A generated period (``--transactions`` items, ``--nodes`` nodes, sidecars) is written to a temporary
folder and taken through the steps the ingest function runs on it, each timed in CPU seconds of
this thread (the machine may be busy): reading the files (the stand-in for the bucket download),
verifying the period (gunzip, parsing, every node's RSA signature, the file and running hashes),
building the block-level rows and cutting the items into ranges (``store.rows.split_block``),
encoding the batch's messages, splitting the batch into Cardinal messages. Then what each store
call does before writing, one message at a time: decoding a sub-batch's rows, or decoding an item
range and building its rows (``store.rows.range_rows``). The critical path is ingest's part plus
the largest store call's (the store calls run at once on as many instances); beside it, the same
work done in one call. Bigtable writes and Pub/Sub are not here: ``bench.e2e_bench`` prints the
writer's rate into the emulator beside the end-to-end one. ``--profile`` adds cProfile's top
functions of the verification by own time.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from hedera_history.books.parse import parse_address_book
from hedera_history.cardinal.messages import BatchMsg, SubBatchMsg, WireMessage, decode_message
from hedera_history.cardinal.producer import BatchProducer
from hedera_history.collector import settle_after_start
from hedera_history.config import Settings
from hedera_history.gen import GeneratorConfig, generate_stream, write_stream
from hedera_history.pipeline.publish import block_for_stream, pipeline_routing
from hedera_history.pipeline.store import message_rows
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.store.range_codec import is_range_key
from hedera_history.store.rows import split_block
from hedera_history.verify.period import check_period

from bench.machine import reports_machine

T = TypeVar("T")


def step(name: str, action: Callable[[], T], steps: list[tuple[str, float]]) -> T:
    started = time.thread_time()
    result = action()
    steps.append((name, time.thread_time() - started))
    return result


def read_all(root: Path) -> int:
    return sum(len(p.read_bytes()) for p in root.rglob("*") if p.is_file() and "recordstreams" in p.parts)


@reports_machine
def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--transactions", type=int, default=20000)
    parser.add_argument("--nodes", type=int, default=30)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument(
        "--default-collector",
        action="store_true",
        help="the interpreter's collector settings, not a function instance's (collector.settle_after_start)",
    )
    args = parser.parse_args(argv)
    # Two periods: the second is the one measured (the first carries genesis-like setup).
    stream = generate_stream(
        GeneratorConfig(nodes=args.nodes, periods=2, transactions=args.transactions, sidecars=True, seed=3)
    )
    settings = Settings.from_env()
    if not args.default_collector:
        settle_after_start()  # as a function instance does once its context is built
    steps: list[tuple[str, float]] = []
    with tempfile.TemporaryDirectory(prefix="period-profile-") as tmp:
        root = Path(tmp)
        write_stream(stream, root)
        book = parse_address_book(stream.address_book)
        number = int(stream.truth["blocks"][1]["number"])
        files = find_local_periods(root)[1]
        size = step("read every node's files (download stand-in)", lambda: read_all(root) // 2, steps)
        profiler = cProfile.Profile() if args.profile else None

        def verify() -> object:
            if profiler is None:
                return check_period(files, book, block_number=number)
            return profiler.runcall(check_period, files, book, block_number=number)

        report = step("verify: gunzip, parse, signatures, hashes", verify, steps)
        block = report.block  # type: ignore[attr-defined]
        assert block is not None, report.error  # type: ignore[attr-defined]
        split = step("block-level rows, items in ranges (split_block)", lambda: split_block(block, settings), steps)
        published = step("encode messages (block_for_stream)", lambda: block_for_stream(block, split), steps)
        producer = BatchProducer(pipeline_routing())
        by_topic = step("split into Cardinal messages (produce)", lambda: producer.produce(published.batch), steps)
        messages = [m for topic in by_topic.values() for m in topic]
        calls = [store_call(message) for message in messages]

    items = len(block.record.items)
    ranges = [call for call in calls if call.ranges]
    print(f"one period: {items} items, {args.nodes} nodes, {size / 1e6:.1f} MB of stream files for the period")
    print(
        f"  {len(split.block_rows.rows)} block-level rows and {len(split.ranges)} item ranges; "
        f"{len(messages)} messages, {sum(len(m.value) for m in messages) / 1e6:.1f} MB"
    )
    print(f"  the store calls build or decode {sum(call.rows for call in calls)} rows")
    ingest = sum(seconds for _, seconds in steps)
    print("ingest, one call:")
    for name, seconds in steps:
        print(f"  {name:<48} {seconds:6.2f} s CPU ({seconds / ingest:4.0%})")
    print(f"  {'total':<48} {ingest:6.2f} s CPU")
    store = sum(call.seconds for call in calls)
    largest = max(calls, key=lambda call: call.seconds)
    print(f"store, {len(calls)} calls (one per message):")
    print(f"  {'decode rows of the block-level sub-batches':<48} {store - sum(c.seconds for c in ranges):6.2f} s CPU")
    print(
        f"  {'decode item ranges and build their rows':<48} {sum(c.seconds for c in ranges):6.2f} s CPU "
        f"({len(ranges)} calls, the largest {max((c.seconds for c in ranges), default=0):.2f} s)"
    )
    path = ingest + largest.seconds
    whole = ingest + store
    label = f"critical path: ingest + the largest store call ({largest.rows} rows)"
    print(f"{label:<58} {path:6.2f} s CPU")
    print(f"{'the same work in one call':<58} {whole:6.2f} s CPU (path / one call: {path / whole:.2f})")
    if profiler is not None:
        print("verification, top functions by own time:")
        pstats.Stats(profiler).sort_stats("tottime").print_stats(12)


@dataclass(frozen=True)
class StoreCall:
    seconds: float
    """CPU seconds of the call before its writes."""
    rows: int
    ranges: int


def store_call(message: WireMessage) -> StoreCall:
    """What a store call does with ``message`` before writing: its rows decoded or built
    (``pipeline.store.message_rows``, as the store sink does)."""
    started = time.thread_time()
    decoded = decode_message(message)
    updates: Mapping[str, bytes] = {}
    if isinstance(decoded, BatchMsg):
        updates = {decoded.key: decoded.value}
    elif isinstance(decoded, SubBatchMsg):
        updates = decoded.updates
    rows = len(message_rows(decoded.block_hash, updates))
    ranges = sum(1 for key in updates if is_range_key(key))
    return StoreCall(time.thread_time() - started, rows, ranges)


if __name__ == "__main__":
    main()
