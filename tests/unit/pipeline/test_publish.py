"""A verified block as the stream carries it: identical bytes from every producer, signatures apart."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from hedera_history.block import VerifiedBlock
from hedera_history.books.parse import parse_address_book
from hedera_history.cardinal.messages import BatchMsg, decode_message
from hedera_history.cardinal.producer import BatchProducer
from hedera_history.config import Settings
from hedera_history.gen.config_and_output import GeneratedStream
from hedera_history.pipeline.publish import COMPLETION_PREFIX, block_for_stream, pipeline_routing
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.store import schema as s
from hedera_history.store.range_codec import RANGE_PREFIX, decode_item_range
from hedera_history.store.rows import split_block
from hedera_history.transport import topics
from hedera_history.verify.stream import verify_stream

from tests.unit.store.test_item_ranges import ITEM_TABLES


def first_block(stream: GeneratedStream, stream_dir: Path) -> VerifiedBlock:
    results = verify_stream(find_local_periods(stream_dir), parse_address_book(stream.address_book))
    block = next(iter(results)).report.block
    assert block is not None
    return block


def test_the_batch_does_not_depend_on_which_signatures_a_producer_saw(
    generated_stream: GeneratedStream, generated_stream_dir: Path
) -> None:
    block = first_block(generated_stream, generated_stream_dir)
    fewer = replace(block, signatures=block.signatures[:2])
    settings = Settings()
    whole = block_for_stream(block, split_block(block, settings))
    partial = block_for_stream(fewer, split_block(fewer, settings))
    assert whole.batch == partial.batch
    producer = BatchProducer(pipeline_routing())
    assert producer.produce(whole.batch) == producer.produce(partial.batch)
    assert len(whole.signature_rows) == 1 and len(whole.signature_rows[0].cells) == len(block.signatures)
    assert {c.family for row in whole.signature_rows for c in row.cells} == {s.BLOCK_SIGNATURE_FAMILY}


def test_every_row_travels_and_the_completion_is_staged_not_written(
    generated_stream: GeneratedStream, generated_stream_dir: Path
) -> None:
    block = first_block(generated_stream, generated_stream_dir)
    split = split_block(block, Settings())
    batch = block_for_stream(block, split).batch
    tables = {key.split("/", 1)[0] for key in batch.updates}
    assert {COMPLETION_PREFIX, RANGE_PREFIX} <= tables
    assert tables - {COMPLETION_PREFIX, RANGE_PREFIX} <= set(s.HISTORY_TABLES) - ITEM_TABLES
    assert len(batch.updates) == len(split.block_rows.rows) + len(split.ranges) + 1
    messages = BatchProducer(pipeline_routing()).produce(batch)
    assert set(messages) <= {topics.HISTORY, topics.SIDECARS}
    if block.sidecars:
        assert topics.SIDECARS in messages


def test_each_item_range_travels_as_a_message_of_its_own(
    generated_stream: GeneratedStream, generated_stream_dir: Path
) -> None:
    block = first_block(generated_stream, generated_stream_dir)
    split = split_block(block, Settings(), max_items=1)
    assert len(split.ranges) == len(block.record.items) > 1
    messages = BatchProducer(pipeline_routing()).produce(block_for_stream(block, split).batch)
    decoded = [decode_message(message) for message in messages[topics.HISTORY]]
    carried = [decode_item_range(m.key, m.value) for m in decoded if isinstance(m, BatchMsg)]
    assert sorted(carried, key=lambda r: r.first_index) == list(split.ranges)
