"""``python -m bench.backfill_blocks_bench [--transactions N] [--blocks B] [--samples S]``: the block
backfill's task work on native blocks, per core and on two cores, against the floor of the same run,
and a month of mainnet in core-hours beside the record stream's.

A generated network that cuts over at once (``cutover_after=0``: native blocks, TSS-signed, block 0
publishing the ledger id) writes ``--blocks`` blocks of ``--transactions`` crypto transfers. The
same generator with no cutover writes the same transactions as V6 record files (4 nodes' signature
files), for the record-stream figure. In thread CPU time of one process (the median of ``--samples``):

- **floor**: decompress, parse the ``Block`` into item bytes, SHA-384 every item (``block_bench.floor``);
- **verify**: ``verify_blocks`` as a backfill task runs it: root hash, footer links, and each TSS
  proof checked against block 0's roster (``LedgerTssCheck``), as it really is amortized: the roster
  is adopted once per task (``per key`` below: the first block's check with a fresh ``LedgerTssCheck``
  less the same with one that adopted it already)
  and every block pays one aggregate-signature check (``per block``: verify with TSS less verify
  without, divided by the blocks);
- **task**: verify, then ``verified_block`` and ``block_to_rows``: everything a task does but the
  Bigtable write (the emulator's cost is no production cost; ``bench.backfill_bench`` measures
  writes on it), with the garbage collector set as a task sets it (``collector.task_collector``);
- **record task**: ``verify_stream`` (RSA of every node's signature file, hashes) and
  ``block_to_rows`` over the record files of the same transactions, the collector set the same way.

Two cores: the task work split over two processes, wall clock against one process doing it all
(processes, not Spark: the partitions share nothing, so this is the scaling Spark's tasks get less
the driver's overhead, which ``bench.backfill_bench`` shows is small).
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from hedera_history.books.parse import parse_address_book
from hedera_history.collector import task_collector
from hedera_history.config import Settings
from hedera_history.gen import GeneratorConfig, generate_stream, write_stream
from hedera_history.gen.config_and_output import LEDGER_PUBLICATION_FILE
from hedera_history.sources.local_blocks import find_block_runs
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.store.rows import block_to_rows
from hedera_history.verify.block_tss import LedgerTssCheck, ledger_check
from hedera_history.verify.block_verified import verified_block
from hedera_history.verify.blocks import BlockCheckOptions, verify_blocks
from hedera_history.verify.stream import verify_stream

from bench.backfill_bench import MAINNET_TRANSACTIONS_PER_MONTH
from bench.block_bench import BlockFileBytes, floor
from bench.machine import reports_machine
from bench.timing import median_cpu

SETTINGS = Settings()


def _verify(files: Sequence[BlockFileBytes], publication: bytes | None) -> None:
    options = BlockCheckOptions(tss=ledger_check(publication) if publication is not None else None)
    for report in verify_blocks(files, None, options):
        if report.error is not None and (publication is not None or report.error.kind != "unverified_proof"):
            raise report.error


def _first(files: Sequence[BlockFileBytes], check: LedgerTssCheck) -> None:
    """The first block's TSS check with ``check``: a fresh one adopts the roster first (the per-key cost)."""
    for report in verify_blocks(files[:1], None, BlockCheckOptions(tss=check)):
        if report.error is not None:
            raise report.error


def _task(files: Sequence[BlockFileBytes], publication: bytes) -> int:
    """Under the collector settings a block task runs with (``backfill.block_task``)."""
    rows = 0
    with task_collector():
        for report in verify_blocks(files, None, BlockCheckOptions(tss=ledger_check(publication))):
            rows += len(block_to_rows(verified_block(report), SETTINGS).rows)
    return rows


def _record_task(folder: Path, book: bytes) -> int:
    """The transactions of the record files, verified and turned into rows, under the collector
    settings a record task runs with (``backfill.task``)."""
    items = 0
    with task_collector():
        for result in verify_stream(find_local_periods(folder), parse_address_book(book)):
            assert result.report.block is not None, result.error
            block_to_rows(result.report.block, SETTINGS)
            items += len(result.report.block.record.items)
    return items


def _wall(halves: Sequence[Sequence[BlockFileBytes]], publication: bytes) -> float:
    """Wall seconds for each half's task work in its own process, all at once."""
    context = multiprocessing.get_context("fork")
    with context.Pool(len(halves)) as pool:
        pool.starmap(_task, [(half[:1], publication) for half in halves])  # fork and warm the workers
        started = time.perf_counter()
        pool.starmap(_task, [(half, publication) for half in halves])
        return time.perf_counter() - started


def _files(folder: Path) -> list[BlockFileBytes]:
    (run,) = find_block_runs(folder)
    return [BlockFileBytes(block.name, block.read(), block.number) for block in run]


@reports_machine
def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.backfill_blocks_bench", description=__doc__.split("\n")[0])
    parser.add_argument("--transactions", type=int, default=2000, help="crypto transfers a block")
    parser.add_argument("--blocks", type=int, default=8)
    parser.add_argument("--samples", type=int, default=5)
    args = parser.parse_args(argv)
    shape = {"nodes": 4, "periods": args.blocks, "transactions": args.transactions, "sidecars": False, "seed": 3}
    with tempfile.TemporaryDirectory(prefix="bench-backfill-blocks-") as scratch:
        blocks_dir, records_dir = Path(scratch) / "blocks", Path(scratch) / "records"
        native = generate_stream(GeneratorConfig(**shape, cutover_after=0))
        write_stream(native, blocks_dir)
        records = generate_stream(GeneratorConfig(**shape))
        write_stream(records, records_dir)
        publication = (blocks_dir / LEDGER_PUBLICATION_FILE).read_bytes()
        files = _files(blocks_dir)
        transactions = sum(block.transactions for block in native.blocks)
        record_transactions = _record_task(records_dir, records.address_book)

        floor_s = median_cpu(lambda: floor(files), args.samples)
        plain_s = median_cpu(lambda: _verify(files, None), args.samples)
        tss_s = median_cpu(lambda: _verify(files, publication), args.samples)
        task_s = median_cpu(lambda: _task(files, publication), args.samples)
        warm = ledger_check(publication)
        per_key_s = median_cpu(lambda: _first(files, ledger_check(publication)), args.samples) - median_cpu(
            lambda: _first(files, warm), args.samples
        )
        record_s = median_cpu(lambda: _record_task(records_dir, records.address_book), args.samples)

        half = len(files) // 2
        one = statistics.median(_wall([files], publication) for _ in range(3))
        two = statistics.median(_wall([files[:half], files[half:]], publication) for _ in range(3))

    count = len(files)
    print(f"{count} native blocks of {args.transactions} transfers ({transactions} transactions); thread CPU, median")
    print(f"of {args.samples}; x floor = the same work against the floor of this run")
    rows = [
        ("floor (decompress, parse, SHA-384 items)", floor_s),
        ("verify, TSS proofs unchecked", plain_s),
        ("verify, TSS proofs checked", tss_s),
        ("task: verify + VerifiedBlock + rows", task_s),
    ]
    for label, seconds in rows:
        print(
            f"  {label:<42} {seconds * 1000:>9.1f} ms  {transactions / seconds:>10,.0f} tx/s per core"
            f"  x floor {seconds / floor_s:>5.2f}"
        )
    per_block_tss = (tss_s - plain_s) / count
    print(f"  TSS per block: {per_block_tss * 1000:.1f} ms (one aggregate check); per key: {per_key_s * 1000:.1f} ms")
    amortized = per_key_s / count * 1000
    print(f"    (the roster adopted once per task: a {count}-block task pays it once, {amortized:.2f} ms a block)")
    record_rate = record_transactions / record_s
    print(
        f"  record task (verify_stream + rows, V6, 4 nodes): {record_s * 1000:.1f} ms  {record_rate:,.0f} tx/s per core"
    )
    print(f"two processes: {one:.2f} s on one, {two:.2f} s on two -> scaling {one / two:.2f}")
    block_hours = MAINNET_TRANSACTIONS_PER_MONTH / (transactions / task_s) / 3600
    record_hours = MAINNET_TRANSACTIONS_PER_MONTH / record_rate / 3600
    print(
        f"a month of mainnet ({MAINNET_TRANSACTIONS_PER_MONTH / 1e9:.1f} G transactions), task CPU without writes: "
        f"blocks {block_hours:,.0f} core-hours, record files {record_hours:,.0f} core-hours"
    )


if __name__ == "__main__":
    main()
