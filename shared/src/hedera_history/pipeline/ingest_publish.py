"""Publishing a verified block: its signature cells, its Cardinal batch, its chain link, and the
period's PUBLISH transition."""

from __future__ import annotations

from hedera_history.block import VerifiedBlock
from hedera_history.logs import event
from hedera_history.pipeline.ingest_context import IngestContext, lag_seconds, logger, write_block_cells
from hedera_history.pipeline.ingest_links import check_links_after
from hedera_history.pipeline.period_state import PeriodProgress
from hedera_history.pipeline.publish import block_for_stream
from hedera_history.pipeline.state_cells import Published
from hedera_history.sources.period_files import StreamLocation
from hedera_history.store.chaintime import block_time_ns
from hedera_history.store.rows import split_block
from hedera_history.transport.message import OutgoingMessage


def publish_verified(ctx: IngestContext, progress: PeriodProgress, block: VerifiedBlock) -> Published:
    """Record the block's book changes, publish its batch, record and check its chain link, and
    mark the period published (last: a run that dies before leaves it claimed, then pending)."""
    period_key = progress.period_key
    location: StreamLocation | None = progress.location
    assert location is not None, "a period is published from where its files are"
    ctx.books.record_block(block)
    messages = publish_batch(ctx, block)
    record = block.record
    ctx.state.record_link(block.block_number, block.hash, block.previous_hash, period_key)
    check_links_after(ctx, block, location, period_key)
    signers = frozenset(signature.node_account for signature in block.signatures)
    published = Published(
        block.block_number, record.file_hash, block.hash, block.previous_hash, block_time_ns(record), signers
    )
    progress.publish(published)
    event(
        logger,
        "period verified",
        period=period_key,
        block=block.block_number,
        items=len(record.items),
        sidecars=len(block.sidecars),
        signatures=len(block.signatures),
        messages=messages,
        lag_seconds=lag_seconds(record.consensus_end),
    )
    return published


def publish_batch(ctx: IngestContext, block: VerifiedBlock) -> int:
    """Write the block's signature cells and publish its Cardinal batch (the same bytes every time:
    publishing again is harmless). Returns the number of messages."""
    stream = block_for_stream(block, split_block(block, ctx.settings))
    write_block_cells(ctx, list(stream.signature_rows))
    messages = [
        OutgoingMessage(topic, message.key, message.value)
        for topic, topic_messages in ctx.producer.produce(stream.batch).items()
        for message in topic_messages
    ]
    ctx.publisher.publish_all(messages)
    return len(messages)
