"""Row building alone: transactions/s of ``block_to_rows`` against the honest floor.

The floor is what any row builder must do at least: parse each transaction's record and body once
with the installed protobuf runtime (upb), the ``Transaction`` envelope and ``SignedTransaction``
included. Row building does that plus every key, value and cell of the seven history tables.
Input: a generated mainnet-shaped stream (transfers, token and NFT transfers, contract calls with
sidecars), verified once beforehand so only row building is timed. Best of ``ROUNDS`` each, in
CPU seconds of this process (``time.process_time``): the machine may be busy with other work,
and wall time would charge that to whichever side ran under it.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from hedera_history import hapi
from hedera_history.block import VerifiedBlock
from hedera_history.books.parse import parse_address_book
from hedera_history.config import Settings
from hedera_history.gen import GeneratorConfig, generate_stream, write_stream
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.store.rows import block_to_rows
from hedera_history.verify.stream import verify_stream

from bench.machine import reports_machine

STREAM = GeneratorConfig(nodes=4, periods=10, transactions=2000, seed=5)
ROUNDS = 5
SETTINGS = Settings()


def verified_blocks() -> list[VerifiedBlock]:
    with tempfile.TemporaryDirectory(prefix="rows-bench-") as scratch:
        folder = Path(scratch)
        write_stream(generate_stream(STREAM), folder)
        book = parse_address_book((folder / "address-book.bin").read_bytes())
        results = list(verify_stream(find_local_periods(folder), book))
    blocks = [r.report.block for r in results]
    return [b for b in blocks if b is not None]


def floor(blocks: list[VerifiedBlock]) -> None:
    record_parse = hapi.TransactionRecord.FromString
    transaction_parse = hapi.Transaction.FromString
    signed_parse = hapi.SignedTransaction.FromString
    body_parse = hapi.TransactionBody.FromString
    for block in blocks:
        for item in block.record.items:
            record_parse(item.record_bytes)
            body_parse(signed_parse(transaction_parse(item.transaction_bytes).signedTransactionBytes).bodyBytes)


def row_building(blocks: list[VerifiedBlock]) -> None:
    for block in blocks:
        block_to_rows(block, SETTINGS)


def best_seconds(work: Callable[[list[VerifiedBlock]], None], blocks: list[VerifiedBlock]) -> float:
    best = float("inf")
    for _ in range(ROUNDS):
        started = time.process_time()
        work(blocks)
        best = min(best, time.process_time() - started)
    return best


@reports_machine
def main() -> None:
    print(f"generating and verifying {STREAM.periods} periods x {STREAM.transactions} transactions ...", flush=True)
    blocks = verified_blocks()
    transactions = sum(len(b.record.items) for b in blocks)
    built = [block_to_rows(b, SETTINGS) for b in blocks]
    rows = sum(len(b.rows) for b in built)
    cells = sum(b.cell_count for b in built)
    print(f"{transactions:,} transactions: {rows / transactions:.2f} rows and {cells / transactions:.2f} cells each")
    floor_rate = transactions / best_seconds(floor, blocks)
    rows_rate = transactions / best_seconds(row_building, blocks)
    print(f"floor (one upb parse of each record and body): {floor_rate:,.0f} transactions/s of CPU")
    print(
        f"row building (block_to_rows): {rows_rate:,.0f} transactions/s of CPU, "
        f"ratio to the floor {rows_rate / floor_rate:.2f}"
    )


if __name__ == "__main__":
    main()
