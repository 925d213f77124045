"""``python -m bench.backfill_blocks_resume_bench [--transactions N] [--blocks B] [--rounds R]``: what a
rerun of a block backfill costs against its first run, on the Bigtable emulator.

A generated network that cuts over at once (native blocks, TSS-signed, block 0 publishing the
ledger id) writes ``--blocks`` blocks of ``--transactions`` crypto transfers. Each round backfills
them in process (one partition, ``block_driver.in_process``) into fresh tables, then runs the same
job again: the rerun reads, hashes and links every block, finds it stored complete with that hash
and neither checks its proof nor writes it. Printed: the wall clock and this process's CPU of each
run (the emulator's own CPU apart), the best round of each, and their ratio.
"""

from __future__ import annotations

import argparse
import logging
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from hedera_history.backfill.block_driver import BlockBackfillReport, in_process, run_block_backfill
from hedera_history.backfill.block_plan import BlockJob
from hedera_history.config import Settings
from hedera_history.gen import GeneratorConfig, generate_stream, write_stream
from hedera_history.gen.config_and_output import LEDGER_PUBLICATION_FILE
from hedera_history.localstack.emulators import BigtableEmulator
from hedera_history.store.bigtable_client import open_admin_instance, open_gateway
from hedera_history.store.schema import ensure_tables

INSTANCE = "bench-resume"
BLOCK_FOLDER = "demo/block/"


@dataclass(frozen=True, slots=True)
class Run:
    seconds: float
    cpu_seconds: float
    written: int
    skipped: int


def _run(job: BlockJob) -> Run:
    gateway = open_gateway(job.settings)
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        report: BlockBackfillReport = run_block_backfill(job, in_process(gateway), gateway)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    finally:
        gateway.close()
    assert report.ok, report.summary_lines()
    return Run(wall, cpu, report.written, report.skipped)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.backfill_blocks_resume_bench", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--transactions", type=int, default=2000, help="crypto transfers a block")
    parser.add_argument("--blocks", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    logging.getLogger("hedera_history").setLevel(logging.WARNING)
    shape = {"nodes": 4, "periods": args.blocks, "transactions": args.transactions, "sidecars": False, "seed": 3}
    firsts: list[Run] = []
    reruns: list[Run] = []
    with BigtableEmulator() as emulator, tempfile.TemporaryDirectory(prefix="bench-resume-blocks-") as scratch:
        os.environ.update(emulator.env())
        folder = Path(scratch)
        write_stream(generate_stream(GeneratorConfig(**shape, cutover_after=0)), folder)
        base = Settings(
            project="bench",
            bigtable_instance=INSTANCE,
            bigtable_emulator_host=emulator.host,
            ledger_publication=str(folder / LEDGER_PUBLICATION_FILE),
        )
        instance = open_admin_instance(base)
        for round_number in range(args.rounds):
            settings = base.with_(table_prefix=f"r{round_number}_")
            ensure_tables(instance, settings)
            job = BlockJob(settings, 0, None, source_url=str(folder), folder=BLOCK_FOLDER, partitions=1)
            firsts.append(_run(job))
            reruns.append(_run(job))
            assert (reruns[-1].written, reruns[-1].skipped) == (0, firsts[-1].written)
    first, rerun = min(firsts, key=lambda r: r.seconds), min(reruns, key=lambda r: r.seconds)
    transactions = args.blocks * args.transactions
    print(f"{args.blocks} native blocks, {transactions:,} transactions, best of {args.rounds} rounds:")
    for name, measured in (("first run", first), ("rerun", rerun)):
        print(
            f"  {name}: {measured.seconds:.2f} s wall, {measured.cpu_seconds:.2f} s CPU of this process "
            f"({measured.written} written, {measured.skipped} already complete)"
        )
    wall, cpu = rerun.seconds / first.seconds, rerun.cpu_seconds / first.cpu_seconds
    print(f"  rerun / first run: {wall:.2f} wall, {cpu:.2f} CPU")


if __name__ == "__main__":
    main()
