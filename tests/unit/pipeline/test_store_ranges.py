"""The store side of item ranges: a block whose items travel as many range messages, delivered in
any order and more than once, completes once and leaves exactly the cells the single-process
writer leaves; a damaged range message is refused before anything of it is recorded."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hedera_history.block import VerifiedBlock
from hedera_history.block_identity import block_header
from hedera_history.cardinal.messages import BatchMsg, WireMessage, decode_message
from hedera_history.cardinal.producer import BatchProducer
from hedera_history.cardinal.tracking import Disposition, InMemoryTrackingStore, StatelessTracker
from hedera_history.config import Settings
from hedera_history.errors import MessageFormatError, RowDecodeError
from hedera_history.gen.config_and_output import GeneratedStream
from hedera_history.pipeline.publish import COMPLETION_PREFIX, block_for_stream, pipeline_routing
from hedera_history.pipeline.store import STAGED, BigtableBlockSink, message_rows
from hedera_history.store.model import Cell, Row
from hedera_history.store.range_codec import decode_item_range, is_range_key
from hedera_history.store.row_codec import decode_row_message, encode_row_value, message_key
from hedera_history.store.rows import range_rows, split_block
from hedera_history.store.schema import ACCOUNT_HISTORY, CARDINAL_TRACKING, HISTORY_TABLES
from hedera_history.store.writer import BlockWriter

from tests.unit.pipeline.test_publish import first_block
from tests.unit.store.fakes import Cells, MemoryGateway
from tests.unit.store.held_markers import assert_whole_and_range_markers

SETTINGS = Settings()


def stream_messages(block: VerifiedBlock, writer: BlockWriter) -> list[WireMessage]:
    """The block's messages with its items in one-item ranges; its signature cells written as
    ingest writes them."""
    published = block_for_stream(block, split_block(block, SETTINGS, max_items=1))
    writer.write_rows(published.signature_rows)
    return [m for messages in BatchProducer(pipeline_routing()).produce(published.batch).values() for m in messages]


def history(gateway: MemoryGateway) -> dict[str, dict[bytes, Cells]]:
    return {table: rows for table, rows in gateway.snapshot().items() if table in HISTORY_TABLES}


@pytest.fixture
def block(generated_stream: GeneratedStream, generated_stream_dir: Path) -> VerifiedBlock:
    found = first_block(generated_stream, generated_stream_dir)
    assert len(found.record.items) > 1
    return found


def test_ranges_in_any_order_and_twice_complete_once_with_the_writers_cells(block: VerifiedBlock) -> None:
    single = MemoryGateway()
    BlockWriter(single, SETTINGS).write_blocks([block])

    streamed = MemoryGateway()
    writer = BlockWriter(streamed, SETTINGS)
    tracker = StatelessTracker(InMemoryTrackingStore(), BigtableBlockSink(writer), first_number=block.block_number)
    messages = stream_messages(block, writer)
    assert sum(1 for m in messages if isinstance(d := decode_message(m), BatchMsg) and is_range_key(d.key)) == len(
        block.record.items
    )
    shuffled = messages * 2
    random.Random(7).shuffle(shuffled)
    outcomes = [tracker.receive(message).disposition for message in shuffled]
    assert outcomes.count(Disposition.COMPLETED) == 1
    assert tracker.is_complete(block_header(block).hash)
    streamed_history, single_history = history(streamed), history(single)
    streamed_rows, single_rows = streamed_history.pop(ACCOUNT_HISTORY), single_history.pop(ACCOUNT_HISTORY)
    assert streamed_history == single_history
    assert_whole_and_range_markers(streamed_rows, single_rows, lambda key: key)


def test_a_damaged_range_message_is_refused_and_not_recorded(block: VerifiedBlock) -> None:
    gateway = MemoryGateway()
    writer = BlockWriter(gateway, SETTINGS)
    tracker = StatelessTracker(InMemoryTrackingStore(), BigtableBlockSink(writer), first_number=block.block_number)
    messages = stream_messages(block, writer)
    index, ranged = next(
        (i, d) for i, m in enumerate(messages) if isinstance(d := decode_message(m), BatchMsg) and is_range_key(d.key)
    )
    damaged = BatchMsg(ranged.block_hash, ranged.key, b"\x09" + ranged.value[1:]).encode()
    with pytest.raises(MessageFormatError, match="unknown layout 9"):
        tracker.receive(damaged)
    for message in messages[:index] + messages[index + 1 :]:
        assert tracker.receive(message).disposition is not Disposition.COMPLETED
    assert tracker.receive(messages[index]).disposition is Disposition.COMPLETED


def test_message_rows_build_ranges_decode_history_rows_and_stage_the_completion(block: VerifiedBlock) -> None:
    batch = block_for_stream(block, split_block(block, SETTINGS, max_items=1)).batch
    for key, value in batch.updates.items():
        rows = message_rows(batch.hash, {key: value})
        if is_range_key(key):
            assert rows == list(range_rows(decode_item_range(key, value)))
        elif key.startswith(COMPLETION_PREFIX + "/"):
            assert [(row.table, row.key) for row in rows] == [(CARDINAL_TRACKING, STAGED + batch.hash.hex().encode())]
        else:
            assert rows == [decode_row_message(key, value)]


def test_message_rows_refuse_a_key_naming_no_history_table() -> None:
    stray = Row("nowhere", b"k", (Cell("f", b"q", b"v", 0),))
    with pytest.raises(RowDecodeError, match="names no history table"):
        message_rows(b"\x00" * 48, {message_key(stray): encode_row_value(stray)})
