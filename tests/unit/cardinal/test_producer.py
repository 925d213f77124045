"""Routing, sub-batch packing and what the producer emits per topic."""

from __future__ import annotations

import hashlib
import random

import pytest
from hedera_history.cardinal import messages as msg
from hedera_history.cardinal.chain_blocks import Block
from hedera_history.cardinal.chunking import pack_chunks
from hedera_history.cardinal.consumer import InMemoryConsumer
from hedera_history.cardinal.identity import sub_batch_id
from hedera_history.cardinal.producer import DEFAULT_CHUNK_BYTES, BatchProducer
from hedera_history.cardinal.routing import Delivery, PrefixRoute, Routing
from hedera_history.cardinal.subscription import Subscription
from hedera_history.errors import ConfigError, MessageFormatError

from .chains import GENESIS, ROUTING, START, all_messages, block_hash, feed, make_block

H = block_hash("x")


def test_routes_match_in_order_and_regex_prefixes_are_the_matched_text() -> None:
    routing = Routing(
        "batches",
        (
            PrefixRoute("tx/", "core"),
            PrefixRoute(r"acct/[0-9.]+/", "accounts", regex=True),
            PrefixRoute("sidecar/", "sidecars"),
        ),
    )
    match = routing.match("acct/0.0.98/123")
    assert match is not None and match.prefix == "acct/0.0.98/" and match.route.topic == "accounts"
    assert routing.match("tx/abc") is not None
    assert routing.match("acct/x") is None
    assert routing.match("balances/1") is None


@pytest.mark.parametrize(
    "routes",
    [
        (PrefixRoute("tx/", "a"), PrefixRoute("tx/by-id/", "b")),
        (PrefixRoute("", "a"),),
        (PrefixRoute("(", "a", regex=True),),
        (PrefixRoute("tx/", ""),),
    ],
)
def test_bad_routes_are_configuration_errors(routes: tuple[PrefixRoute, ...]) -> None:
    with pytest.raises(ConfigError):
        Routing("batches", routes)


def test_overlapping_regex_prefixes_are_found_per_block() -> None:
    routing = Routing("batches", (PrefixRoute(r"t/[a-z]*", "core", regex=True),))
    block = Block(H, 1, GENESIS, 1, {"t/ab1": b"1", "t/a1": b"2"})
    with pytest.raises(ConfigError, match="overlap"):
        BatchProducer(routing).produce(block)


def test_a_prefix_used_for_counts_and_for_a_sub_batch_is_an_error() -> None:
    routing = Routing(
        "batches",
        (PrefixRoute(r"t/(?=1)", "core", Delivery.PER_KEY, regex=True), PrefixRoute("t/", "core")),
    )
    with pytest.raises(ConfigError, match="two routes"):
        BatchProducer(routing).produce(Block(H, 1, GENESIS, 1, {"t/1": b"1", "t/2": b"2"}))


def test_empty_regex_match_is_an_error() -> None:
    routing = Routing("batches", (PrefixRoute("x*", "core", regex=True),))
    with pytest.raises(ConfigError, match="empty prefix"):
        BatchProducer(routing).produce(Block(H, 1, GENESIS, 1, {"y": b"1"}))


def test_messages_per_topic() -> None:
    block = make_block("x", GENESIS, 1, 1)
    produced = BatchProducer(ROUTING).produce(block)
    assert list(produced) == ["batches", "core", "side"]
    decoded = {topic: [msg.decode_message(m) for m in messages] for topic, messages in produced.items()}

    def id_of(chunk_values: list[bytes], prefix: str) -> bytes:
        return sub_batch_id(block.hash, prefix, [hashlib.sha256(v).digest() for v in chunk_values])

    a_id = id_of([produced["core"][1].value], "a/")
    c_id = id_of([produced["side"][1].value], "c/")
    [batch] = decoded["batches"]
    assert isinstance(batch, msg.Batch)
    assert batch.entries == {
        "a/": msg.SubBatchRef(a_id),
        "b/": msg.PrefixCount(2),
        "c/": msg.SubBatchRef(c_id),
        "zx": msg.InlineValue(b"inline"),
    }
    assert decoded["core"] == [
        msg.SubBatchHeader(block.hash, a_id, 1),
        msg.SubBatchMsg(block.hash, a_id, 0, ("a/old-x",), {"a/x/1": b"a1-x", "a/x/2": b"a2-xa2-xa2-x"}),
        msg.BatchDeleteMsg(block.hash, "b/old-x"),
        msg.BatchMsg(block.hash, "b/x", b"b-x"),
    ]
    assert decoded["side"] == [
        msg.SubBatchHeader(block.hash, c_id, 1),
        msg.SubBatchMsg(block.hash, c_id, 0, (), {"c/x": b"c-x"}),
    ]


def test_sub_batch_ids_follow_the_content() -> None:
    block = make_block("x", GENESIS, 1, 1)
    other = Block(block.hash, 1, GENESIS, 1, {**block.updates, "a/x/1": b"changed"}, block.deletes)
    first, second = (msg.decode_message(BatchProducer(ROUTING).produce(b)["batches"][0]) for b in (block, other))
    assert isinstance(first, msg.Batch) and isinstance(second, msg.Batch)
    assert first.entries["a/"] != second.entries["a/"]
    assert first.entries["c/"] == second.entries["c/"]


def test_unmatched_deletes_travel_inline() -> None:
    produced = BatchProducer(ROUTING).produce(Block(H, 1, GENESIS, 1, {}, frozenset({"q"})))
    batch = msg.decode_message(produced["batches"][0])
    assert isinstance(batch, msg.Batch) and batch.entries == {"q": msg.InlineDelete()}
    assert set(produced) == {"batches"}


def test_production_is_deterministic() -> None:
    block = make_block("x", GENESIS, 1, 1)
    assert BatchProducer(ROUTING).produce(block) == BatchProducer(ROUTING).produce(block)


def test_pack_chunks_respects_the_budget_and_keeps_everything() -> None:
    rng = random.Random(7)
    updates = {f"k{i:05}": rng.randbytes(rng.randrange(0, 300)) for i in range(2000)}
    deletes = [f"d{i}" for i in range(500)]
    chunks = pack_chunks(deletes, updates, 4096)
    assert sum(len(c.deletes) for c in chunks) == 500
    assert {k: v for c in chunks for k, v in c.updates.items()} == updates
    for chunk in chunks:
        encoded = msg.encode_sub_batch_value(chunk.deletes, chunk.updates)
        assert len(encoded) <= chunk.size <= 4096
    total = sum(c.size for c in chunks)
    assert len(chunks) <= 2 * total // 4096 + 1


def test_a_value_over_the_budget_gets_its_own_chunk_and_one_over_the_limit_is_refused() -> None:
    producer = BatchProducer(Routing("b", (PrefixRoute("t/", "core"),)), chunk_bytes=1000, max_message_bytes=5000)
    produced = producer.produce(Block(H, 1, GENESIS, 1, {"t/1": b"x" * 3000, "t/2": b"y", "t/3": b"z"}))
    header = msg.decode_message(produced["core"][0])
    assert isinstance(header, msg.SubBatchHeader) and header.item_count == 2
    with pytest.raises(MessageFormatError, match="limit"):
        producer.produce(Block(H, 1, GENESIS, 1, {"t/1": b"x" * 6000}))
    with pytest.raises(MessageFormatError, match="limit"):
        producer.produce(Block(H, 1, GENESIS, 1, {"inline": b"x" * 6000}))


@pytest.mark.parametrize("budget", [10, 10_000_001])
def test_chunk_budget_must_be_sane(budget: int) -> None:
    with pytest.raises(ConfigError):
        BatchProducer(ROUTING, chunk_bytes=budget)


def test_a_large_block_travels_in_a_bounded_number_of_bounded_messages() -> None:
    rng = random.Random(1)
    updates = {f"tx/{i:08}": rng.randbytes(rng.randrange(200, 600)) for i in range(30_000)}
    updates |= {f"items/{i:08}": rng.randbytes(120) for i in range(20_000)}
    updates |= {f"sidecars/{i:08}": rng.randbytes(1500) for i in range(3_000)}
    block = Block(H, 1, GENESIS, 1, updates, frozenset(f"tx/gone/{i}" for i in range(1000)))
    routing = Routing.literal("batches", {"tx/": "core", "items/": "core", "sidecars/": "sidecars"})
    producer = BatchProducer(routing)
    produced = producer.produce(block)

    messages = [m for ms in produced.values() for m in ms]
    total = sum(len(k) + len(v) for k, v in updates.items())
    assert total > 15_000_000
    assert all(m.size <= DEFAULT_CHUNK_BYTES + 100 for m in messages)
    # One Batch, and per prefix a header and chunks: the chunks fill at least half the budget.
    assert len(messages) <= 1 + 3 * 2 + 2 * total // DEFAULT_CHUNK_BYTES
    assert len(messages) < 20
    assert [m.key[0] for m in produced["sidecars"]][:1] == [0x01]

    consumer = InMemoryConsumer(start=START)
    updates_out = feed(consumer, reversed(messages))
    assert [u.added for u in updates_out] == [(block,)]

    subset = InMemoryConsumer(start=START, subscription=Subscription(("sidecars/",)))
    out = feed(subset, [*produced["batches"], *produced["sidecars"]])
    assert [u.added for u in out] == [(Subscription(("sidecars/",)).filter_block(block),)]


def test_reorg_channel_is_reorg_then_blocks_in_order_then_reorg_complete() -> None:
    ancestor = make_block("a", GENESIS, 1, 1)
    fork = [make_block("f1", ancestor.hash, 2, 2), make_block("f2", block_hash("f1"), 3, 3)]
    producer = BatchProducer(ROUTING)
    channel = producer.produce_reorg(ancestor.header, fork)
    decoded = [msg.decode_message(m) for m in channel]
    assert decoded[0] == msg.Reorg(ancestor.hash, 1)
    assert decoded[-1] == msg.ReorgComplete(ancestor.hash, 1)
    assert list(channel[1:-1]) == all_messages(producer, fork[0]) + all_messages(producer, fork[1])
    batches = [m for m in decoded if isinstance(m, msg.Batch)]
    assert [b.block_hash for b in batches] == [fork[0].hash, fork[1].hash]
