"""``python -m bench.e2e_bench --block-stream``: upload to queryable for native blocks on the local stack.

A generated network that streams native blocks from its first period (``cutover_after=0``: TSS
signed, block 0 publishing the ledger id, ``--transactions`` a block, 20,000 being mainnet at the
10k TPS throttle) is generated first (a mainnet-sized block takes 3-10 s to generate here, more
than its 2 s: generating as it plays would steal the cores the pipeline is measured on). Then its
block files are written into the local stack's bucket one every ``--period-seconds`` for
``--seconds``, as a network writes them, and the bucket event bridge hands each to ingest's block
handler (verify, publish), then the store function writes it. For each block, after
``--warmup-blocks`` (the functions' instances start on them):

- **from the upload**: from the moment its file's upload began, and from the moment it ended (the
  bucket has the object), to the query function listing the block complete (``getBlocks``, polled
  every 20 ms);
- **behind the network**: from the block's end on the play's clock (the block of period ``i``
  ends when period ``i + 1`` begins, when its file is written) to the block listed: the lag a user
  of the history sees;
- **CPU a block** of each process of the stack (its whole process group from /proc; this process
  uploads and runs the bridges), over the measured blocks, against the **floor** of the same run:
  decompress, parse and SHA-384 every item of the same block files (``block_bench.floor``, thread
  CPU in this process), the work no reader of a block can skip.

The verdict is printed (p50 < 2 s, p99 < 4 s), nothing asserted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import requests
from hedera_history.gen import GeneratorConfig, generate_into
from hedera_history.gen.config_and_output import LEDGER_PUBLICATION_FILE
from hedera_history.gen.writer import ADDRESS_BOOK_FILE
from hedera_history.localstack.stack import DEFAULT_STORE_PROCESSES, LocalStack, StackConfig
from hedera_history.localstack.upload import bucket_sink

from bench.block_bench import BlockFileBytes, floor
from bench.machine import Calibration, machine_report
from bench.process_cpu import stack_cpu
from bench.stack_logs import wait_for_logged
from bench.timing import percentile

GOAL_P50_SECONDS = 2.0
GOAL_P99_SECONDS = 4.0
POLL_SECONDS = 0.02
FLOOR_SAMPLES = 3


@dataclass(frozen=True)
class BlockShape:
    transactions: int = 20_000
    seconds: float = 120.0
    period_seconds: float = 2.0
    warmup_blocks: int = 5
    nodes: int = 4
    wait_seconds: float = 120.0
    store_processes: int = DEFAULT_STORE_PROCESSES

    @property
    def measured_blocks(self) -> int:
        return max(1, round(self.seconds / self.period_seconds))

    @property
    def blocks(self) -> int:
        return self.warmup_blocks + self.measured_blocks


@dataclass(frozen=True)
class BlockFile:
    number: int
    relative: str
    path: Path


@dataclass
class BlockTimes:
    number: int
    upload_started: float
    uploaded: float
    network_end: float
    """The block's end on the play's clock (monotonic seconds)."""
    listed: float | None = None
    published: float | None = None
    """When ingest logged ``block verified`` (monotonic seconds, from the function's log)."""
    complete: float | None = None
    """When the store logged ``block complete``."""

    @property
    def from_upload(self) -> float:
        assert self.listed is not None
        return self.listed - self.upload_started

    @property
    def from_uploaded(self) -> float:
        assert self.listed is not None
        return self.listed - self.uploaded

    @property
    def behind_network(self) -> float:
        assert self.listed is not None
        return self.listed - self.network_end


@dataclass
class BlockFigures:
    warmup: list[BlockTimes]
    measured: list[BlockTimes]
    cpu: dict[str, float]
    """CPU seconds a measured block, by process."""
    floor_seconds: float
    """Thread CPU of the floor a block (median over the measured blocks' files)."""
    file_bytes: float
    """Mean size of a measured block file."""
    load: list[float] = field(default_factory=list)


def parse_block_shape(argv: Sequence[str]) -> BlockShape:
    parser = argparse.ArgumentParser(
        prog="python -m bench.e2e_bench --block-stream", description=__doc__.splitlines()[0]
    )
    defaults = BlockShape()
    parser.add_argument("--block-stream", action="store_true")
    parser.add_argument("--transactions", type=int, default=defaults.transactions)
    parser.add_argument("--seconds", type=float, default=defaults.seconds, help="how long blocks are written")
    parser.add_argument("--period-seconds", type=float, default=defaults.period_seconds)
    parser.add_argument("--warmup-blocks", type=int, default=defaults.warmup_blocks)
    parser.add_argument("--wait", dest="wait_seconds", type=float, default=defaults.wait_seconds)
    parser.add_argument("--store-processes", type=int, default=defaults.store_processes)
    parser.add_argument("--quick", action="store_true", help="2,000 transactions a block for 20 s")
    args = vars(parser.parse_args(argv))
    args.pop("block_stream")
    if args.pop("quick"):
        args.update(transactions=2000, seconds=20.0)
    return BlockShape(**args)


def block_files(stream_dir: Path) -> list[BlockFile]:
    found = []
    for path in stream_dir.rglob("*.blk.zstd"):
        relative = path.relative_to(stream_dir).as_posix()
        number = int("".join(part for part in relative.split("/block/", 1)[1].split(".")[0] if part.isdigit()))
        found.append(BlockFile(number, relative, path))
    return sorted(found, key=lambda f: f.number)


def listed_blocks(session: requests.Session, query: str, first: int, last: int) -> list[int]:
    body = {"jsonrpc": "2.0", "id": 1, "method": "getBlocks", "params": [first, last]}
    answer = session.post(query, json=body, timeout=30).json()
    if "error" in answer:
        raise RuntimeError(f"getBlocks {first}-{last}: {answer['error']}")
    return [int(n) for n in answer.get("result") or ()]


class ListingWatch:
    """Polls ``getBlocks`` over the played blocks on a thread and notes when each was first listed."""

    def __init__(self, query: str, first: int, last: int) -> None:
        self.query, self.first, self.last = query, first, last
        self.listed: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="listing-watch", daemon=True)

    def __enter__(self) -> ListingWatch:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join(30)

    def _run(self) -> None:
        with requests.Session() as session:
            while not self._stop.wait(POLL_SECONDS):
                low = min((n for n in range(self.first, self.last + 1) if n not in self.listed), default=None)
                if low is None:
                    return
                try:
                    numbers = listed_blocks(session, self.query, low, self.last)
                except (requests.RequestException, ValueError, RuntimeError):
                    continue
                now = time.monotonic()
                for number in numbers:
                    self.listed.setdefault(number, now)

    def wait_for(self, numbers: set[int], timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while not numbers <= set(self.listed):
            if time.monotonic() > deadline:
                return False
            time.sleep(0.1)
        return True


def play(stack: LocalStack, files: list[BlockFile], shape: BlockShape) -> tuple[list[BlockTimes], dict[str, float]]:
    """Write each block file at its time; return every block's times and the CPU a measured block."""
    sink = bucket_sink(stack.state)
    contents = {f.number: f.path.read_bytes() for f in files}
    times: list[BlockTimes] = []
    cpu_before: dict[str, float] = {}
    with ListingWatch(stack.url("query"), files[0].number, files[-1].number) as watch:
        start = time.monotonic() + shape.period_seconds
        for index, file in enumerate(files):
            if index == shape.warmup_blocks:
                cpu_before = stack_cpu(stack.state)
            due = start + index * shape.period_seconds
            time.sleep(max(0.0, due - time.monotonic()))
            began = time.monotonic()
            sink.write(file.relative, contents[file.number])
            times.append(BlockTimes(file.number, began, time.monotonic(), network_end=due))
        if not watch.wait_for({f.number for f in files}, shape.wait_seconds):
            missing = sorted({f.number for f in files} - set(watch.listed))
            raise RuntimeError(f"blocks not listed {shape.wait_seconds:.0f} s after the last upload: {missing}")
        cpu_after = stack_cpu(stack.state)
        for block in times:
            block.listed = watch.listed[block.number]
    add_logged_times(stack, times)
    measured = len(files) - shape.warmup_blocks
    cpu = {name: (seconds - cpu_before.get(name, 0.0)) / measured for name, seconds in cpu_after.items()}
    return times, cpu


def add_logged_times(stack: LocalStack, times: list[BlockTimes]) -> None:
    """When ingest published and the store completed each block, from their logs (a function logs
    just after the block became visible: its last lines are given a moment)."""
    published, complete = wait_for_logged(stack, "block verified", (b.number for b in times))
    offset = time.time() - time.monotonic()
    for block in times:
        if block.number in published:
            block.published = published[block.number].timestamp() - offset
        if block.number in complete:
            block.complete = complete[block.number].timestamp() - offset


def floor_seconds(files: list[BlockFile]) -> float:
    """Median thread CPU of the floor over the files, each run ``FLOOR_SAMPLES`` times."""
    samples = []
    for file in files:
        data = [BlockFileBytes(file.relative, file.path.read_bytes())]
        floor(data)
        for _ in range(FLOOR_SAMPLES):
            started = time.thread_time()
            floor(data)
            samples.append(time.thread_time() - started)
    return statistics.median(samples)


def run_blocks(shape: BlockShape) -> BlockFigures:
    started = time.monotonic()
    config = GeneratorConfig(
        nodes=shape.nodes,
        periods=shape.blocks,
        transactions=shape.transactions,
        sidecars=True,
        seed=3,
        cutover_after=0,
    )
    with tempfile.TemporaryDirectory(prefix="e2e-blocks-bench-") as tmp:
        root = Path(tmp)
        stream_dir = root / "stream"
        generate_into(config, stream_dir)
        files = block_files(stream_dir)
        print(f"generated {len(files)} blocks in {time.monotonic() - started:.1f} s", flush=True)
        stack_config = StackConfig(
            state_dir=root / "stack",
            address_book=stream_dir / ADDRESS_BOOK_FILE,
            first_block=files[0].number,
            sweep_interval_seconds=2.0,
            poll_interval_seconds=0.05,
            store_processes=shape.store_processes,
            extra_env={"HEDERA_HISTORY_LEDGER_PUBLICATION": str(stream_dir / LEDGER_PUBLICATION_FILE)},
        )
        with LocalStack(stack_config) as stack:
            os.environ.update(stack.client_env())
            times, cpu = play(stack, files, shape)
        measured_files = files[shape.warmup_blocks :]
        return BlockFigures(
            warmup=times[: shape.warmup_blocks],
            measured=times[shape.warmup_blocks :],
            cpu=cpu,
            floor_seconds=floor_seconds(measured_files),
            file_bytes=statistics.mean(f.path.stat().st_size for f in measured_files),
        )


def _since(when: float | None, start: float) -> str:
    return "    ?" if when is None else f"{when - start:5.2f}"


def _p(samples: list[float]) -> str:
    return f"p50 {statistics.median(samples):.2f} s, p99 {percentile(samples, 0.99):.2f} s, max {max(samples):.2f} s"


def report_blocks(shape: BlockShape, figures: BlockFigures, calibration: Calibration) -> None:
    blocks = figures.measured
    from_upload = [b.from_upload for b in blocks]
    from_uploaded = [b.from_uploaded for b in blocks]
    behind = [b.behind_network for b in blocks]
    print(
        f"native blocks: {shape.transactions:,} transactions a block ({figures.file_bytes / 1e6:.1f} MB zstd), one "
        f"every {shape.period_seconds:g} s for {len(blocks) * shape.period_seconds:.0f} s ({len(blocks)} blocks after "
        f"{shape.warmup_blocks} warm-up), uploaded into the local stack's bucket, bucket events -> ingest -> store"
    )
    print(f"  upload began -> listed by getBlocks:  {_p(from_upload)}")
    print(f"  upload ended -> listed by getBlocks:  {_p(from_uploaded)}")
    print(f"  behind the network (block end on the play's clock -> listed): {_p(behind)}")
    print(f"  uploading a block file: p50 {statistics.median([b.uploaded - b.upload_started for b in blocks]):.2f} s")
    for block in figures.warmup:
        print(f"  warm-up block {block.number}: listed {block.from_upload:.1f} s after its upload began")
    print("  each block, seconds from its file in the bucket: ingest published it, store completed it, listed")
    for block in blocks:
        print(
            f"    block {block.number}: {_since(block.published, block.uploaded)} "
            f"{_since(block.complete, block.uploaded)} {block.from_uploaded:5.2f}"
        )
    total = sum(figures.cpu.values())
    print(
        f"CPU seconds a block, by process ({total:.2f} s in all = {total / figures.floor_seconds:.1f} x the floor; "
        f"{calibration.as_work(total)}):"
    )
    for name, seconds in sorted(figures.cpu.items(), key=lambda item: -item[1]):
        print(f"    {name:32} {seconds:6.2f}  ({seconds / figures.floor_seconds:5.1f} x the floor)")
    print(
        f"  floor (decompress, parse, SHA-384 every item of the same block, thread CPU): "
        f"{figures.floor_seconds * 1000:.0f} ms a block"
    )
    print(f"verdict at {shape.transactions} transactions a block, {shape.store_processes} store processes:")
    for label, value, goal in (
        ("p50 < 2 s from the upload", statistics.median(from_upload), GOAL_P50_SECONDS),
        ("p99 < 4 s from the upload", percentile(from_upload, 0.99), GOAL_P99_SECONDS),
        ("p50 < 2 s from the file in the bucket", statistics.median(from_uploaded), GOAL_P50_SECONDS),
        ("p99 < 4 s from the file in the bucket", percentile(from_uploaded, 0.99), GOAL_P99_SECONDS),
    ):
        print(f"  {label}: {'met' if value < goal else 'NOT met'} ({value:.2f} s)")


def main_blocks(argv: Sequence[str]) -> None:
    shape = parse_block_shape(argv)
    with machine_report() as machine:
        figures = run_blocks(shape)
        machine.calibrate()
        report_blocks(shape, figures, machine.median)
