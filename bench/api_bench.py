"""Query-API latency on the Bigtable emulator, against the same lookups on ``HistoryReader`` in the same run.

A generated stream (contract calls with sidecars included) is verified and written once. Then, per
REST route and JSON-RPC method, requests go through the ``query`` function itself
(``functions/query/main.py`` under the functions-framework test client: WSGI request, routing,
validation, the reads, rendering, JSON) and the baseline makes the same reads directly on a
``HistoryReader`` (no HTTP, no rendering). Each side has its own warm reader, as in a long-running
function instance. p50 and p99 of both are printed with the p50 ratio and the p50 difference,
then the ReadRows requests each of the fee collector's first pages takes from a new reader, and
its newest page's rows timed read in one window and read from every key range to the page size.

Goal: API p50 / reader p50 <= 1.5, or the API adding at most 1 ms at p50. The second half is for
routes that make one small read: the emulator answers those in about 1.3 ms, while the request
itself (test client, WSGI, functions-framework, JSON both ways) costs about 0.4 ms before any of
our code runs, so their ratio measures Flask more than the API; on Bigtable, where a read takes
several milliseconds, the same fixed cost is a small fraction.

The emulator is started through ``hedera_history.localstack`` and stopped at the end. Nothing is
asserted: the ratios are printed.
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import functions_framework
from hedera_history.block import VerifiedBlock
from hedera_history.books.parse import parse_address_book
from hedera_history.config import Settings
from hedera_history.formats.parsed_files import SidecarType
from hedera_history.gen import GeneratedStream, GeneratorConfig, generate_stream, write_stream
from hedera_history.gen.ledger import FEE_COLLECTOR
from hedera_history.gen.writer import ADDRESS_BOOK_FILE
from hedera_history.localstack.emulators import BigtableEmulator
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.store import reader as reader_module
from hedera_history.store import schema as s
from hedera_history.store.account_rows import RANGES, AccountPaces, newest_rows
from hedera_history.store.bigtable_client import BigtableDataGateway, open_admin_instance
from hedera_history.store.decode import decode_sidecar_message
from hedera_history.store.gateway import BigtableGateway, MutationFailure, RowQuery, StoredRow
from hedera_history.store.keys import entity_id
from hedera_history.store.model import Row
from hedera_history.store.reader import HistoryReader
from hedera_history.store.schema import ensure_tables
from hedera_history.store.writer import BlockWriter
from hedera_history.verify.stream import verify_stream

from bench.machine import reports_machine
from bench.timing import Call, p50_p99, paired_samples

BLOCKS = 20
TRANSACTIONS_PER_BLOCK = 100
LOOKUPS = 150
PAGE = 25
GOAL = 1.5
GOAL_ADDED_MS = 1.0
INSTANCE = "apibench"
PREFIX = "api_"
SOURCE = Path(__file__).resolve().parents[1] / "functions" / "query" / "main.py"


def build(stream: GeneratedStream, count: int) -> list[VerifiedBlock]:
    """Verified blocks of the stream, through the same verification as the pipeline."""
    with tempfile.TemporaryDirectory(prefix="api-bench-") as folder:
        write_stream(stream, folder)
        book = parse_address_book((Path(folder) / ADDRESS_BOOK_FILE).read_bytes(), ADDRESS_BOOK_FILE)
        results = list(verify_stream(find_local_periods(Path(folder)), book))
    blocks = [r.report.block for r in results if r.ok and r.report.block is not None]
    assert len(blocks) == count, "every generated period must verify"
    return blocks


def ts(ns: int) -> str:
    return f"{ns // 1_000_000_000}.{ns % 1_000_000_000:09d}"


class Api:
    """Requests through the function's test client; a non-200 or an error answer stops the bench."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.rpc_id = 0

    def get(self, path: str) -> Call:
        def call() -> object:
            response = self.client.get(path)
            if response.status_code != 200:
                raise RuntimeError(f"GET {path}: {response.status_code} {response.data[:200]!r}")
            return response.get_json()

        return call

    def rpc(self, method: str, *params: Any) -> Call:
        def call() -> object:
            self.rpc_id += 1
            message = {"jsonrpc": "2.0", "id": self.rpc_id, "method": method, "params": list(params)}
            answer = self.client.post("/", json=message).get_json()
            if "result" not in answer:
                raise RuntimeError(f"{method}{list(params)}: {answer}")
            return answer["result"]

        return call


def cases(api: Api, reader: HistoryReader, truth: dict[str, Any], rng: random.Random) -> list[tuple[str, Any]]:
    """(name, make) where ``make()`` gives one (API call, reader call) pair doing the same lookups."""
    numbers = [b["number"] for b in truth["blocks"]]
    transactions = truth["transactions"]
    with_actions = [t for t in transactions if int(SidecarType.CONTRACT_ACTION) in t["sidecar_types"]]
    with_state = [t for t in transactions if int(SidecarType.CONTRACT_STATE_CHANGE) in t["sidecar_types"]]
    accounts = sorted({t["payer"] for t in transactions})

    def blocks_and_rows(found: list[int]) -> object:
        return reader.get_many_blocks(found)

    def history(account: str) -> object:
        page = reader.account_history(account, limit=PAGE)
        return reader.transactions(page.entries)

    def sidecar(ns: int, kind: SidecarType) -> object:
        return [decode_sidecar_message(r) for r in reader.sidecar_records(ns, [kind])]

    def by_id(tx: dict[str, Any]) -> object:
        results = reader.transactions_by_id(tx["payer"], tx["transaction_id"]["valid_start_ns"])
        return reader.transactions(results)

    def block_with_transactions(n: int) -> object:
        return reader.get_block(n), reader.block_transactions(n)

    def rest_block() -> tuple[Call, Call]:
        n = rng.choice(numbers)
        return api.get(f"/api/v1/blocks/{n}"), lambda: reader.get_block(n)

    def rest_blocks_asc() -> tuple[Call, Call]:
        n = rng.choice(numbers)
        return (
            api.get(f"/api/v1/blocks?order=asc&block.number=gte:{n}&limit={PAGE}"),
            lambda: blocks_and_rows(reader.blocks_ascending(n, None, PAGE)),
        )

    def rest_blocks_desc() -> tuple[Call, Call]:
        return (
            api.get(f"/api/v1/blocks?order=desc&limit={PAGE}"),
            lambda: blocks_and_rows(list(reader.blocks_descending(None, 0, PAGE).numbers)),
        )

    def rest_transaction() -> tuple[Call, Call]:
        tx = rng.choice(transactions)
        return api.get(f"/api/v1/transactions/{tx['transaction_id_string']}"), lambda: by_id(tx)

    def rest_history() -> tuple[Call, Call]:
        account = rng.choice(accounts)
        return api.get(f"/api/v1/accounts/{account}/transactions?limit={PAGE}"), lambda: history(account)

    def rest_fee_history() -> tuple[Call, Call]:
        account = entity_id(0, 0, FEE_COLLECTOR)
        return api.get(f"/api/v1/accounts/{account}/transactions?limit={PAGE}"), lambda: history(account)

    def rest_actions() -> tuple[Call, Call]:
        ns = rng.choice(with_actions)["consensus_ns"]
        return (
            api.get(f"/api/v1/contracts/results/{ts(ns)}/actions"),
            lambda: sidecar(ns, SidecarType.CONTRACT_ACTION),
        )

    def rest_state() -> tuple[Call, Call]:
        ns = rng.choice(with_state)["consensus_ns"]
        return (
            api.get(f"/api/v1/contracts/results/{ts(ns)}/state"),
            lambda: sidecar(ns, SidecarType.CONTRACT_STATE_CHANGE),
        )

    def rpc_first() -> tuple[Call, Call]:
        return api.rpc("getFirstAvailableBlock"), reader.first_available_block

    def rpc_latest() -> tuple[Call, Call]:
        return api.rpc("getLatestBlock"), reader.latest_block

    def rpc_block() -> tuple[Call, Call]:
        n = rng.choice(numbers)
        return api.rpc("getBlock", n), lambda: block_with_transactions(n)

    def rpc_blocks() -> tuple[Call, Call]:
        n = rng.choice(numbers)
        return api.rpc("getBlocks", n, n + 99), lambda: reader.get_blocks(n, n + 99)

    def rpc_block_time() -> tuple[Call, Call]:
        n = rng.choice(numbers)
        return api.rpc("getBlockTime", n), lambda: reader.block_time(n)

    def rpc_transaction() -> tuple[Call, Call]:
        tx = rng.choice(transactions)
        digest = bytes.fromhex(tx["hash"])
        return api.rpc("getTransaction", tx["hash"]), lambda: reader.transaction_by_hash(digest)

    def rpc_statuses() -> tuple[Call, Call]:
        hashes = [rng.choice(transactions)["hash"] for _ in range(100)]
        digests = [bytes.fromhex(h) for h in hashes]
        return api.rpc("getTransactionStatuses", hashes), lambda: reader.transaction_statuses(digests)

    def rpc_history() -> tuple[Call, Call]:
        account = rng.choice(accounts)
        return api.rpc("getTransactionsForAccount", account, {"limit": PAGE}), lambda: history(account)

    return [
        ("GET blocks/{n}", rest_block),
        (f"GET blocks asc ({PAGE})", rest_blocks_asc),
        (f"GET blocks desc ({PAGE})", rest_blocks_desc),
        ("GET transactions/{id}", rest_transaction),
        (f"GET accounts/{{id}}/tx ({PAGE})", rest_history),
        (f"GET accounts/0.0.98/tx ({PAGE})", rest_fee_history),
        ("GET results/{ts}/actions", rest_actions),
        ("GET results/{ts}/state", rest_state),
        ("getFirstAvailableBlock", rpc_first),
        ("getLatestBlock", rpc_latest),
        ("getBlock", rpc_block),
        ("getBlocks(100)", rpc_blocks),
        ("getBlockTime", rpc_block_time),
        ("getTransaction(hash)", rpc_transaction),
        ("getTransactionStatuses(100)", rpc_statuses),
        (f"getTransactionsForAccount({PAGE})", rpc_history),
    ]


def bench(api: Api, reader: HistoryReader, truth: dict[str, Any], only: str | None = None) -> None:
    rng = random.Random(3)
    print(f"{'route / method':32} {'API p50/p99 ms':>20} {'reader p50/p99 ms':>20} {'p50 ratio':>10} {'added ms':>9}")
    for name, make in cases(api, reader, truth, rng):
        if only is not None and only not in name:
            continue
        for _ in range(3):  # warm both sides: completion caches, the latest-block hint, code paths
            for call in make():
                call()
        ours, plain = paired_samples(make, LOOKUPS, rng)
        (o50, o99), (p50, p99) = p50_p99(ours), p50_p99(plain)
        ratio, added_ms = o50 / p50, (o50 - p50) * 1e3
        verdict = "ok" if ratio <= GOAL or added_ms <= GOAL_ADDED_MS else "ABOVE GOAL"
        print(
            f"{name:32} {o50 * 1e3:9.2f}/{o99 * 1e3:<9.2f} {p50 * 1e3:9.2f}/{p99 * 1e3:<9.2f} "
            f"{ratio:9.2f} {added_ms:9.2f} {verdict}"
        )


class CountingGateway:
    """A gateway counting the ``account_history`` ReadRows requests made through it."""

    def __init__(self, inner: BigtableGateway) -> None:
        self.inner = inner
        self.history_reads = 0

    def read_rows(self, table: str, query: RowQuery) -> Iterator[StoredRow]:
        self.history_reads += table == s.ACCOUNT_HISTORY
        return self.inner.read_rows(table, query)

    def mutate_rows(self, table: str, rows: Sequence[Row]) -> list[MutationFailure]:
        return self.inner.mutate_rows(table, rows)

    def close(self) -> None:
        self.inner.close()


def print_fee_history_requests(gateway: BigtableGateway, pages: int = 4) -> None:
    """ReadRows requests of each of the fee collector's first pages, from a reader that has not
    read the account yet (the first page reads every key range, the next ones one window each),
    then the newest page's rows timed both ways: one window, and every range to the page size."""
    counting = CountingGateway(gateway)
    reader = HistoryReader(counting)
    fee_collector = entity_id(0, 0, FEE_COLLECTOR)
    requests = []
    before = None
    for _ in range(pages):
        counting.history_reads = 0
        page = reader.account_history(fee_collector, before=before, limit=PAGE)
        requests.append(counting.history_reads)
        before = page.next_before
        if before is None:
            break
    print(f"account_history ReadRows per page of {fee_collector} ({PAGE}), pages 1 to {len(requests)}: {requests}")
    paces = AccountPaces()
    newest_rows(gateway, fee_collector, None, None, PAGE, paces)

    def pair() -> tuple[Call, Call]:
        return (
            lambda: newest_rows(gateway, fee_collector, None, None, PAGE, paces),
            lambda: newest_rows(gateway, fee_collector, None, None, PAGE),
        )

    window, ranges = paired_samples(pair, LOOKUPS, random.Random(4))
    (w50, w99), (r50, r99) = p50_p99(window), p50_p99(ranges)
    print(
        f"newest page rows p50/p99 ms: one window {w50 * 1e3:.2f}/{w99 * 1e3:.2f}, "
        f"{RANGES} range requests {r50 * 1e3:.2f}/{r99 * 1e3:.2f}"
    )


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=BLOCKS, help="generated blocks (periods)")
    parser.add_argument(
        "--transactions", type=int, default=TRANSACTIONS_PER_BLOCK, help="transactions per generated block"
    )
    parser.add_argument("--only", help="bench only the routes and methods whose name contains this")
    parser.add_argument(
        "--cache",
        type=int,
        help="items blocks (and items cells) each reader keeps parsed; 1 measures reads that miss the cache",
    )
    return parser.parse_args()


def limit_caches(size: int) -> None:
    """Every reader of this process keeps at most ``size`` parsed items blocks and cells."""
    reader_module.FILE_CACHE_SIZE = size
    reader_module.CELL_CACHE_SIZE = size


@contextmanager
def emulator_store(instance: str, prefix: str) -> Iterator[tuple[Settings, BigtableDataGateway]]:
    """A started Bigtable emulator with the tables made and this process's environment naming it,
    as the ``query`` function reads it; the environment put back and the emulator stopped after."""
    emulator = BigtableEmulator()
    print("starting the Bigtable emulator ...", flush=True)
    emulator.start()
    saved = dict(os.environ)
    try:
        settings = Settings(
            project="bench", bigtable_instance=instance, bigtable_emulator_host=emulator.host, table_prefix=prefix
        )
        os.environ.update(emulator.env())
        os.environ.update(
            {
                "GOOGLE_CLOUD_PROJECT": settings.project,
                "HEDERA_HISTORY_BIGTABLE_INSTANCE": instance,
                "HEDERA_HISTORY_TABLE_PREFIX": prefix,
            }
        )
        ensure_tables(open_admin_instance(settings), settings)
        gateway = BigtableDataGateway(settings.project, instance, settings)
        try:
            yield settings, gateway
        finally:
            gateway.close()
    finally:
        os.environ.clear()
        os.environ.update(saved)
        emulator.stop()


@reports_machine
def main() -> None:
    args = arguments()
    if args.cache is not None:
        limit_caches(args.cache)
    with emulator_store(INSTANCE, PREFIX) as (settings, gateway):
        print(f"generating, verifying and writing {args.blocks} blocks x {args.transactions} transactions ...")
        stream = generate_stream(GeneratorConfig(periods=args.blocks, transactions=args.transactions, seed=5))
        assert all(r.complete for r in BlockWriter(gateway, settings).write_blocks(build(stream, args.blocks)))
        client = functions_framework.create_app(target="query", source=str(SOURCE)).test_client()
        bench(Api(client), HistoryReader(gateway), stream.truth, args.only)
        print_fee_history_requests(gateway)


if __name__ == "__main__":
    main()
