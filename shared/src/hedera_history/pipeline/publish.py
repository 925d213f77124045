"""A verified block as the stream carries it: one Cardinal Streams batch, plus its signature cells.

The batch must be the same bytes whichever ingest instance builds it (redundant producers are
told apart from conflicting ones by content), so it holds only what the signed record file and
its sidecars determine. Which nodes' signatures an instance has seen depends on when it ran, so
the signature cells travel apart: the ingest function writes them straight into the block row,
one cell per node (a set that only grows, and converges with what a backfill writes).

The block-level rows (header, items row, sidecars: ``store.rows.split_block``) travel as rows,
keys ``<table>/<row key>`` (see ``store.row_codec``); every table is its own prefix and travels as
one sub-batch; the sidecar table has a topic of its own. The items travel as ranges
(``range/<block row key>/<first index>``, see ``store.range_codec``), one message each, so that
each store call builds and writes the rows of one range and a period's work spreads over as many
calls as it has ranges. The completion row travels as ``completion/<block row key>``: the store
function stages it and writes it into the block row only when the whole batch has arrived
(``pipeline.store``).
"""

from __future__ import annotations

from dataclasses import dataclass

from hedera_history.block import VerifiedBlock
from hedera_history.block_identity import block_header
from hedera_history.cardinal.chain_blocks import Block
from hedera_history.cardinal.routing import Delivery, PrefixRoute, Routing
from hedera_history.store import schema as s
from hedera_history.store.model import Row
from hedera_history.store.range_codec import RANGE_PREFIX, encode_item_range, range_key
from hedera_history.store.row_codec import SEPARATOR, encode_row_value, message_key
from hedera_history.store.rows import SplitBlock
from hedera_history.transport import topics

COMPLETION_PREFIX = "completion"
"""Pseudo-table of the staged completion row."""


def pipeline_routing() -> Routing:
    """History tables on the history topic, sidecars on their own; one sub-batch per table, one
    message per item range."""
    routes = [
        PrefixRoute(table + SEPARATOR, topics.SIDECARS if table == s.SIDECARS else topics.HISTORY)
        for table in s.HISTORY_TABLES
    ]
    routes.append(PrefixRoute(RANGE_PREFIX + SEPARATOR, topics.HISTORY, Delivery.PER_KEY))
    routes.append(PrefixRoute(COMPLETION_PREFIX + SEPARATOR, topics.HISTORY))
    return Routing(topics.HISTORY, tuple(routes))


@dataclass(frozen=True, slots=True)
class PublishedBlock:
    batch: Block
    """What every producer publishes, byte for byte."""
    signature_rows: tuple[Row, ...]
    """The signature cells this producer verified (written directly, not published)."""


def block_for_stream(block: VerifiedBlock, split: SplitBlock) -> PublishedBlock:
    rows = split.block_rows
    updates: dict[str, bytes] = {}
    signature_rows: list[Row] = []
    for row in rows.rows:
        published = row
        if row.table == s.BLOCKS:
            signatures = tuple(c for c in row.cells if c.family == s.BLOCK_SIGNATURE_FAMILY)
            if signatures:
                signature_rows.append(Row(row.table, row.key, signatures))
            published = Row(row.table, row.key, tuple(c for c in row.cells if c.family != s.BLOCK_SIGNATURE_FAMILY))
        updates[message_key(published)] = encode_row_value(published)
    for item_range in split.ranges:
        updates[range_key(item_range)] = encode_item_range(item_range)
    staged = Row(COMPLETION_PREFIX, rows.completion.key, rows.completion.cells)
    updates[message_key(staged)] = encode_row_value(staged)
    header = block_header(block)
    batch = Block(header.hash, header.number, header.parent, header.weight, updates)
    return PublishedBlock(batch, tuple(signature_rows))
