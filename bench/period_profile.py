"""Where one period's time goes through ingest and the store's decoding, in one process.

A generated period (``--transactions`` items, ``--nodes`` nodes, sidecars) is written to a temporary
folder and taken through the steps the ingest function runs on it, each timed in CPU seconds of
this thread (the machine may be busy): reading the files (the stand-in for the bucket download),
verifying the period (gunzip, parsing, every node's RSA signature, the file and running hashes),
building the rows, encoding them as the batch's row messages, splitting the batch into Cardinal
messages; then what the store function does before writing: decoding each message's sub-batch and
its rows. Bigtable writes and Pub/Sub are not here: ``bench.e2e_bench`` prints the writer's rate
into the emulator beside the end-to-end one. ``--profile`` adds cProfile's top functions of the
verification by own time.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from hedera_history.books.parse import parse_address_book
from hedera_history.cardinal import avro_schemas
from hedera_history.cardinal.producer import BatchProducer
from hedera_history.config import Settings
from hedera_history.gen import GeneratorConfig, generate_stream, write_stream
from hedera_history.pipeline.publish import block_for_stream, pipeline_routing
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.store.row_codec import decode_row_message
from hedera_history.store.rows import block_to_rows
from hedera_history.verify.period import check_period

T = TypeVar("T")


def step(name: str, action: Callable[[], T], steps: list[tuple[str, float]]) -> T:
    started = time.thread_time()
    result = action()
    steps.append((name, time.thread_time() - started))
    return result


def read_all(root: Path) -> int:
    return sum(len(p.read_bytes()) for p in root.rglob("*") if p.is_file() and "recordstreams" in p.parts)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--transactions", type=int, default=20000)
    parser.add_argument("--nodes", type=int, default=30)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args(argv)
    # Two periods: the second is the one measured (the first carries genesis-like setup).
    stream = generate_stream(
        GeneratorConfig(nodes=args.nodes, periods=2, transactions=args.transactions, sidecars=True, seed=3)
    )
    settings = Settings.from_env()
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
        rows = step("build rows (block_to_rows)", lambda: block_to_rows(block, settings), steps)
        published = step("encode row messages (block_for_stream)", lambda: block_for_stream(block, rows), steps)
        producer = BatchProducer(pipeline_routing())
        by_topic = step("split into Cardinal messages (produce)", lambda: producer.produce(published.batch), steps)
        messages = [m for topic in by_topic.values() for m in topic]

        def decode() -> int:
            count = 0
            for message in messages:
                if message.key[:1] != b"\x02":
                    continue
                record = avro_schemas.decode_sub_batch_record(message.value)
                for key, value in record["updates"].items():
                    decode_row_message(key, value)
                    count += 1
            return count

        decoded = step("store: decode sub-batches and rows", decode, steps)

    items = len(block.record.items)
    print(f"one period: {items} items, {args.nodes} nodes, {size / 1e6:.1f} MB of stream files for the period")
    print(f"  {len(rows.rows)} rows, {len(messages)} messages, {sum(len(m.value) for m in messages) / 1e6:.1f} MB")
    print(f"  store decoded {decoded} row messages")
    total = sum(seconds for _, seconds in steps)
    for name, seconds in steps:
        print(f"  {name:<48} {seconds:6.2f} s CPU ({seconds / total:4.0%})")
    print(f"  {'total':<48} {total:6.2f} s CPU")
    if profiler is not None:
        print("verification, top functions by own time:")
        pstats.Stats(profiler).sort_stats("tottime").print_stats(12)


if __name__ == "__main__":
    main()
