"""Store throughput and read latency on the Bigtable emulator, against the plain client in the same run.

Writes: ``BlockWriter`` (encoding, batching, per-entry retry bookkeeping, completion cells last)
against the raw operation: the same rows as MutateRows requests serialised before the clock
starts, in batches of the writer's limits, sent on the same channel with as many requests in
flight as the writer keeps (``writer.IN_FLIGHT``), completion cells last (only the send and the
per-entry answers, parsed by protobuf, are timed). Paired samples in random order; goal: writer
rows/s / pre-built rows/s >= 0.9 at p50 and at p99. The CPU time of this process per write (all
threads) is printed beside them: unlike the wall time, the rest of the machine barely moves it.
The client library's ``bulk_mutate_rows`` is printed for reference.

Reads: p50 and p99 of each ``HistoryReader`` method against plain ``read_row`` / ``read_rows``
calls doing the same lookups (the reader adds decoding and the completion check, cached as in a
long-running query function). Goal: reader p50 / plain p50 <= 1.5.

The emulator is started through ``hedera_history.localstack`` and stopped at the end. Nothing is
asserted: the ratios are printed. ``--writes`` runs the writes alone.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from operator import attrgetter
from pathlib import Path
from typing import Any
from urllib.parse import quote

from google.cloud.bigtable.data import (
    BigtableDataClient,
    ReadRowsQuery,
    RowMutationEntry,
    RowRange,
    SetCell,
    row_filters,
)
from google.cloud.bigtable_v2.types import bigtable as bigtable_types
from hedera_history import hapi, speedups
from hedera_history.block import VerifiedBlock
from hedera_history.books.parse import parse_address_book
from hedera_history.config import Settings
from hedera_history.formats.parsed_files import RecordItem
from hedera_history.gen import GeneratorConfig, generate_stream, write_stream
from hedera_history.gen.writer import ADDRESS_BOOK_FILE
from hedera_history.localstack.emulators import BigtableEmulator
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.store import schema as s
from hedera_history.store.bigtable_client import BigtableDataGateway, open_admin_instance
from hedera_history.store.keys import (
    account_history_range,
    row_key_for_block,
    row_key_for_transaction,
    row_key_for_tx_hash,
    row_key_for_tx_id,
)
from hedera_history.store.model import BlockRows, Row
from hedera_history.store.mutation_wire import MutationEncoder
from hedera_history.store.reader import HistoryReader
from hedera_history.store.rows import block_to_rows
from hedera_history.store.schema import ensure_tables
from hedera_history.store.writer import IN_FLIGHT, MAX_BATCH_BYTES, MAX_BATCH_CELLS, BlockWriter
from hedera_history.verify.consensus import DEFAULT_RATIO
from hedera_history.verify.stream import verify_stream

from bench.machine import reports_machine
from bench.timing import p50_p99, paired_samples, percentile, timed

BLOCKS = 30
TRANSACTIONS_PER_BLOCK = 200
WRITE_SAMPLES = 200
CPU_SAMPLES = 20
LOOKUPS = 200
WRITE_GOAL = 0.9
READ_GOAL = 1.5
NS = 1_000_000_000
_status_code = attrgetter("status.code")
INSTANCE = "bench"
Request = tuple[bytes, Any]
"""A serialised MutateRowsRequest and the metadata (routing header) it is sent with."""


def build_blocks() -> list[VerifiedBlock]:
    """Verified blocks of a generated stream, through the same verification as the pipeline."""
    stream = generate_stream(GeneratorConfig(periods=BLOCKS, transactions=TRANSACTIONS_PER_BLOCK, seed=7))
    with tempfile.TemporaryDirectory(prefix="store-bench-") as folder:
        write_stream(stream, folder)
        book = parse_address_book((Path(folder) / ADDRESS_BOOK_FILE).read_bytes(), ADDRESS_BOOK_FILE)
        results = list(
            verify_stream(
                find_local_periods(Path(folder)),
                book,
                ratio=DEFAULT_RATIO,
                start_block=0,
                sidecars=True,
                max_decompressed=None,
            )
        )
    blocks = [result.report.block for result in results if result.report.block is not None]
    assert len(blocks) == BLOCKS, "every generated period must verify"
    return blocks


def _entries(rows: Sequence[Row]) -> list[Any]:
    return [
        RowMutationEntry(
            r.key, [SetCell(c.family, c.qualifier, c.value, timestamp_micros=c.timestamp_micros) for c in r.cells]
        )
        for r in rows
    ]


def plain_write(client: BigtableDataClient, settings: Settings, built: Sequence[BlockRows]) -> int:
    """The same rows (completion cells included) through bare ``bulk_mutate_rows``."""
    by_table: dict[str, list[Row]] = {}
    for block in built:
        for row in (*block.rows, block.completion):
            by_table.setdefault(row.table, []).append(row)
    count = 0
    for table, rows in by_table.items():
        handle = client.get_table(INSTANCE, s.table_id(table, settings))
        batch: list[Row] = []
        cells = 0
        for row in rows:
            if batch and cells + len(row.cells) > MAX_BATCH_CELLS:
                handle.bulk_mutate_rows(_entries(batch))
                batch, cells = [], 0
            batch.append(row)
            cells += len(row.cells)
        if batch:
            handle.bulk_mutate_rows(_entries(batch))
        count += len(rows)
    return count


def prebuilt_requests(settings: Settings, built: Sequence[BlockRows]) -> tuple[list[Request], list[Request]]:
    """Serialised MutateRows requests for every row, cut at the writer's limits, each with its
    routing header: the data rows, then the completion cells (sent after all data, as the writer
    sends them)."""
    encoder = MutationEncoder()
    by_table: dict[str, list[Row]] = {}
    for block in built:
        for row in block.rows:
            by_table.setdefault(row.table, []).append(row)
    completions = [block.completion for block in built]

    def cut(table: str, rows: list[Row]) -> list[Request]:
        table_name = f"projects/{settings.project}/instances/{INSTANCE}/tables/{s.table_id(table, settings)}"
        metadata = (("x-goog-request-params", f"table_name={quote(table_name, safe='')}"),)
        entries = encoder.entries(rows)
        requests: list[Request] = []
        start = size = cells = 0
        for end, (row, entry) in enumerate(zip(rows, entries, strict=True)):
            if end > start and (size + len(entry) > MAX_BATCH_BYTES or cells + len(row.cells) > MAX_BATCH_CELLS):
                requests.append((encoder.request(table_name, entries[start:end]), metadata))
                start, size, cells = end, 0, 0
            size += len(entry)
            cells += len(row.cells)
        requests.append((encoder.request(table_name, entries[start:]), metadata))
        return requests

    data = [request for table, rows in by_table.items() for request in cut(table, rows)]
    return data, cut(s.BLOCKS, completions)


def prebuilt_write(client: BigtableDataClient, data: list[Request], completions: list[Request]) -> None:
    """Send the pre-built requests, ``IN_FLIGHT`` at a time as the writer does, then the completion
    cells; read every entry's status (as any writer must)."""
    rpc = client.transport.grpc_channel.unary_stream(
        "/google.bigtable.v2.Bigtable/MutateRows",
        request_serializer=bytes,
        response_deserializer=bigtable_types.MutateRowsResponse.pb().FromString,
    )

    def send(request: Request) -> None:
        for response in rpc(request[0], timeout=60, metadata=request[1]):
            if any(map(_status_code, response.entries)):
                raise RuntimeError("pre-built write failed")

    if IN_FLIGHT == 1:
        for request in data:
            send(request)
    else:
        with ThreadPoolExecutor(max_workers=IN_FLIGHT) as pool:
            list(pool.map(send, data))
    for request in completions:
        send(request)


def bench_writes(
    client: BigtableDataClient,
    gateway: BigtableDataGateway,
    settings: Settings,
    base: Settings,
    blocks: list[VerifiedBlock],
) -> None:
    built = [block_to_rows(b, settings) for b in blocks]
    rows = sum(len(b.rows) + 1 for b in built)
    print(f"compiled core (hedera_history._speedups): {'yes' if speedups.available else 'NO, pure-Python fallback'}")
    writer = BlockWriter(gateway, settings)
    data, completions = prebuilt_requests(settings, built)
    rng = random.Random(3)

    def pair() -> tuple[Callable[[], object], Callable[[], object]]:
        return (lambda: all(r.complete for r in writer.iter_write_rows(built))), (
            lambda: prebuilt_write(client, data, completions)
        )

    ours, raw = paired_samples(pair, WRITE_SAMPLES, rng)
    ours_cpu, raw_cpu = paired_samples(pair, CPU_SAMPLES, rng, clock=time.process_time)
    plain = [timed(lambda: plain_write(client, base, built)) for _ in range(2)]
    print(
        f"write: {rows} rows in {len(data) + len(completions)} requests, {IN_FLIGHT} in flight on both sides, "
        f"{WRITE_SAMPLES} paired samples (rows/s at p50 / p99 time)"
    )
    for name, samples in (("writer", ours), ("pre-built MutateRows", raw), ("client bulk_mutate_rows", plain)):
        print(f"  {name:24} {rows / statistics.median(samples):>10,.0f} {rows / percentile(samples, 0.99):>10,.0f}")
    cpu = f"{statistics.median(ours_cpu) * 1e3:.1f} ms writer, {statistics.median(raw_cpu) * 1e3:.1f} ms pre-built"
    print(f"CPU of this process per write (all threads, p50 of {CPU_SAMPLES}): {cpu}")
    (ours50, ours99), (raw50, raw99) = p50_p99(ours), p50_p99(raw)
    ratio50, ratio99 = raw50 / ours50, raw99 / ours99
    verdict = "ok" if min(ratio50, ratio99) >= WRITE_GOAL else "BELOW GOAL"
    goal = f"(goal >= {WRITE_GOAL} at both)"
    print(f"write ratio writer/pre-built = {ratio50:.2f} at p50, {ratio99:.2f} at p99 {goal} {verdict}")


def bench_reads(
    client: BigtableDataClient, gateway: BigtableDataGateway, settings: Settings, blocks: list[VerifiedBlock]
) -> None:
    rng = random.Random(11)
    reader = HistoryReader(gateway)
    table = {name: client.get_table(INSTANCE, s.table_id(name, settings)) for name in s.HISTORY_TABLES}
    items = [(b.block_number, i) for b in blocks for i in b.record.items]
    records = {i.consensus_ns: hapi.TransactionRecord.FromString(i.record_bytes) for _, i in items}
    done = row_filters.FamilyNameRegexFilter(f"^{s.BLOCK_COMPLETION_FAMILY}$")

    def pick() -> tuple[int, RecordItem, Any]:
        number, item = rng.choice(items)
        return number, item, records[item.consensus_ns]

    def tx_id(record: Any) -> tuple[str, int]:
        tid = record.transactionID
        start = tid.transactionValidStart
        return f"0.0.{tid.accountID.accountNum}", start.seconds * NS + start.nanos

    def history_range(account: str) -> Any:
        start, end = account_history_range(account, None, None)
        return ReadRowsQuery(row_ranges=[RowRange(start, end)], limit=100)

    cases: list[tuple[str, Callable[[], tuple[Callable[[], object], Callable[[], object]]]]] = []

    def case_get_block() -> tuple[Callable[[], object], Callable[[], object]]:
        n = rng.randrange(BLOCKS)
        return (lambda: reader.get_block(n)), (lambda: table[s.BLOCKS].read_row(row_key_for_block(n)))

    def case_get_blocks() -> tuple[Callable[[], object], Callable[[], object]]:
        n = rng.randrange(BLOCKS - 10)
        query = ReadRowsQuery(row_ranges=[RowRange(row_key_for_block(n), row_key_for_block(n + 10))], row_filter=done)
        return (lambda: reader.get_blocks(n, n + 9)), (lambda: table[s.BLOCKS].read_rows(query))

    def case_first() -> tuple[Callable[[], object], Callable[[], object]]:
        query = ReadRowsQuery(limit=1, row_filter=done)
        return reader.first_available_block, (lambda: table[s.BLOCKS].read_rows(query))

    def case_block_time() -> tuple[Callable[[], object], Callable[[], object]]:
        n = rng.randrange(BLOCKS)
        return (lambda: reader.block_time(n)), (lambda: table[s.BLOCKS].read_row(row_key_for_block(n)))

    def case_transaction() -> tuple[Callable[[], object], Callable[[], object]]:
        _, item, _ = pick()
        key = row_key_for_transaction(item.consensus_ns)
        return (lambda: reader.transaction(item.consensus_ns)), (lambda: table[s.TRANSACTIONS].read_row(key))

    def case_by_hash() -> tuple[Callable[[], object], Callable[[], object]]:
        _, item, record = pick()
        key = row_key_for_tx_hash(record.transactionHash)
        tx_key = row_key_for_transaction(item.consensus_ns)

        def plain() -> None:
            table[s.TX_BY_HASH].read_row(key)
            table[s.TRANSACTIONS].read_row(tx_key)

        return (lambda: reader.transaction_by_hash(record.transactionHash)), plain

    def case_by_id() -> tuple[Callable[[], object], Callable[[], object]]:
        _, _, record = pick()
        payer, start = tx_id(record)
        key = row_key_for_tx_id(payer, start)
        return (lambda: reader.transactions_by_id(payer, start)), (lambda: table[s.TX_BY_ID].read_row(key))

    def case_statuses() -> tuple[Callable[[], object], Callable[[], object]]:
        hashes = [pick()[2].transactionHash for _ in range(100)]
        query = ReadRowsQuery(row_keys=[row_key_for_tx_hash(h) for h in hashes])
        return (lambda: reader.transaction_statuses(hashes)), (lambda: table[s.TX_BY_HASH].read_rows(query))

    def case_history() -> tuple[Callable[[], object], Callable[[], object]]:
        account = tx_id(pick()[2])[0]  # a payer, so the history is never empty
        query = history_range(account)
        return (lambda: reader.account_history(account, limit=100)), (lambda: table[s.ACCOUNT_HISTORY].read_rows(query))

    cases = [
        ("get_block", case_get_block),
        ("get_blocks(10)", case_get_blocks),
        ("first_available_block", case_first),
        ("block_time", case_block_time),
        ("transaction", case_transaction),
        ("transaction_by_hash", case_by_hash),
        ("transactions_by_id", case_by_id),
        ("transaction_statuses(100)", case_statuses),
        ("account_history(100)", case_history),
    ]
    print(f"{'read':28} {'reader p50/p99 ms':>20} {'plain p50/p99 ms':>20} {'p50 ratio':>10}")
    for name, make in cases:
        ours, plain = paired_samples(make, LOOKUPS, rng)
        (o50, o99), (p50, p99) = p50_p99(ours), p50_p99(plain)
        ratio = o50 / p50
        verdict = "ok" if ratio <= READ_GOAL else "ABOVE GOAL"
        print(f"{name:28} {o50 * 1e3:9.2f}/{o99 * 1e3:<9.2f} {p50 * 1e3:9.2f}/{p99 * 1e3:<9.2f} {ratio:9.2f} {verdict}")


@reports_machine
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writes", action="store_true", help="time the writes only")
    writes_only = parser.parse_args().writes
    emulator = BigtableEmulator()
    print("starting the Bigtable emulator ...", flush=True)
    emulator.start()
    try:
        os.environ.update(emulator.env())
        settings = Settings(project="bench", bigtable_instance=INSTANCE, bigtable_emulator_host=emulator.host)
        base = settings.with_(table_prefix="plain_")
        instance = open_admin_instance(settings)
        ensure_tables(instance, settings)
        ensure_tables(instance, base)
        print(f"generating and verifying {BLOCKS} blocks x {TRANSACTIONS_PER_BLOCK} transactions ...", flush=True)
        blocks = build_blocks()
        client = BigtableDataClient(project=settings.project)
        gateway = BigtableDataGateway(settings.project, INSTANCE, settings)
        try:
            bench_writes(client, gateway, settings, base, blocks)
            if not writes_only:
                bench_reads(client, gateway, settings, blocks)
        finally:
            gateway.close()
            client.close()
    finally:
        emulator.stop()


if __name__ == "__main__":
    main()
