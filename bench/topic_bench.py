"""Topic message pages on the Bigtable emulator, against a raw Bigtable read of the same rows.

A generated stream with many topics (``GeneratorConfig.topics``) is verified and written once. Then
each sample picks a topic and a sequence number at random and times, in random order:

- the API: ``GET /api/v1/topics/{id}/messages?limit=25&sequencenumber=gte:N`` through the ``query``
  function (functions-framework test client: WSGI, routing, the reads, rendering, JSON);
- the raw read: the same page's ``topic/`` index rows in one ReadRows, then the items cells those
  rows point at in one ReadRows, on the same gateway, bytes only (no decoding, no completion check).

p50 and p99 of both are printed with the p99 ratio. Goal: API p99 / raw p99 <= 1.5. Nothing is asserted.
The function's reader keeps the items cells it parsed (as a deployed instance does), so repeated
blocks cost it no read; ``--cache 1`` makes nearly every page read its items as the raw side does.

    python -m bench.topic_bench [--blocks 20] [--transactions 100] [--topics 24] [--samples 300]
"""

from __future__ import annotations

import argparse
import random
from typing import Any

import functions_framework
from hedera_history.gen import GeneratorConfig, generate_stream
from hedera_history.store import schema as s
from hedera_history.store.block_items import cells_regex
from hedera_history.store.decode import decode_pointer_cell
from hedera_history.store.gateway import BigtableGateway, KeyRange, RowQuery
from hedera_history.store.keys import row_key_for_block
from hedera_history.store.topic_index import topic_message_range
from hedera_history.store.writer import BlockWriter

from bench.api_bench import SOURCE, Api, build, emulator_store, limit_caches
from bench.machine import reports_machine
from bench.timing import Call, p50_p99, paired_samples

PAGE = 25
GOAL = 1.5
INSTANCE = "topicbench"
PREFIX = "topic_"


def raw_page(gateway: BigtableGateway, topic: str, low: int) -> Call:
    """The page's index rows, then the items cells they point at: two ReadRows, bytes only."""

    def call() -> object:
        start, end = topic_message_range(topic, low, None)
        rows = list(gateway.read_rows(s.ACCOUNT_HISTORY, RowQuery(ranges=(KeyRange(start, end),), limit=PAGE)))
        pointers = [p for p in (decode_pointer_cell(row) for row in rows) if p is not None]
        keys = tuple(sorted({row_key_for_block(p.block_number) for p in pointers}))
        regex = cells_regex((p.part, p.cell) for p in pointers if p.cell is not None)
        return list(gateway.read_rows(s.ITEMS, RowQuery(keys=keys, qualifier_regex=regex)))

    return call


def bench(api: Api, gateway: BigtableGateway, messages: dict[str, int], samples: int, rng: random.Random) -> None:
    topics = sorted(messages)

    def make() -> tuple[Call, Call]:
        topic = rng.choice(topics)
        low = rng.randint(1, max(1, messages[topic] - PAGE // 2))
        url = f"/api/v1/topics/{topic}/messages?limit={PAGE}&sequencenumber=gte:{low}"
        return api.get(url), raw_page(gateway, topic, low)

    for _ in range(20):  # warm both sides
        for call in make():
            call()
    ours, raw = paired_samples(make, samples, rng)
    (o50, o99), (r50, r99) = p50_p99(ours), p50_p99(raw)
    print(f"{len(topics)} topics, {sum(messages.values())} messages, {samples} pages of {PAGE}")
    print(f"{'':24} {'p50 ms':>8} {'p99 ms':>8}")
    print(f"{'API page':24} {o50 * 1e3:8.2f} {o99 * 1e3:8.2f}")
    print(f"{'raw Bigtable read':24} {r50 * 1e3:8.2f} {r99 * 1e3:8.2f}")
    ratio = o99 / r99
    print(f"p99 ratio {ratio:.2f} (goal <= {GOAL}): {'met' if ratio <= GOAL else 'NOT met'}")


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=20)
    parser.add_argument("--transactions", type=int, default=100)
    parser.add_argument("--topics", type=int, default=24)
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument(
        "--cache", type=int, help="items blocks and cells the function's reader keeps parsed; 1: every page misses"
    )
    return parser.parse_args()


@reports_machine
def main() -> None:
    args = arguments()
    if args.cache is not None:
        limit_caches(args.cache)
    with emulator_store(INSTANCE, PREFIX) as (settings, gateway):
        config = GeneratorConfig(periods=args.blocks, transactions=args.transactions, seed=7, topics=args.topics)
        print(f"generating, verifying and writing {args.blocks} blocks x {args.transactions} transactions ...")
        stream = generate_stream(config)
        messages: dict[str, int] = {}
        for transaction in stream.truth["transactions"]:
            message: dict[str, Any] | None = transaction.get("topic_message")
            if message is not None:
                messages[message["topic"]] = max(messages.get(message["topic"], 0), message["sequence_number"])
        assert all(r.complete for r in BlockWriter(gateway, settings).write_blocks(build(stream, args.blocks)))
        client = functions_framework.create_app(target="query", source=str(SOURCE)).test_client()
        bench(Api(client), gateway, messages, args.samples, random.Random(11))


if __name__ == "__main__":
    main()
