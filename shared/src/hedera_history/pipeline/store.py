"""What the store function does with one delivered message: the stateless Cardinal consumer over
Bigtable, writing the rows a batch carries and, once the whole batch is in, the completion cell.

A message carries rows, or an item range whose rows the sink builds (``store.rows.range_rows``): the
range messages of one period go to as many calls. The sink writes every row as it arrives
(idempotent: same cells, same timestamps). The staged completion row (``completion/<block row
key>``, see ``pipeline.publish``) is parked in the tracking table under ``completion/<block hash
hex>`` and copied into the block row by ``finish``, which the tracker calls exactly when every
message of the batch has been recorded — so a block becomes visible only after all of its rows have
landed, whatever order the messages came in. After a block completes, the address-book history is
advanced up to the contiguous watermark, and derived balances are applied behind it (one instance at
a time holds the balance lease; the others go on, and the sweep catches up whatever a call left).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from hedera_history.cardinal.chain_blocks import BlockHeader
from hedera_history.cardinal.messages import WireMessage
from hedera_history.cardinal.tracking import Disposition, StatelessTracker, TrackingOutcome
from hedera_history.derived.lease import ExclusiveBalanceApplier
from hedera_history.errata.network_pass import NETWORK_ERRATA_BLOCKS_PER_RUN, NetworkErrataPass, run_network_errata
from hedera_history.errors import HistoryError, RowDecodeError, StoreUnavailableError, is_transient
from hedera_history.logs import event
from hedera_history.pipeline.address_books import AddressBookHistory
from hedera_history.pipeline.publish import COMPLETION_PREFIX
from hedera_history.store import schema as s
from hedera_history.store.gateway import RowQuery, StoredRow
from hedera_history.store.model import Cell, Row
from hedera_history.store.range_codec import decode_item_range, is_range_key
from hedera_history.store.row_codec import decode_row_message
from hedera_history.store.rows import range_rows
from hedera_history.store.writer import BlockWriter
from hedera_history.transport.message import REPLAYS_ATTRIBUTE, ReceivedMessage

logger = logging.getLogger(__name__)

STAGED = b"completion/"
Q_STAGED = b"row"


class BigtableBlockSink:
    """A Cardinal ``BlockSink`` that writes history rows through a :class:`BlockWriter`."""

    def __init__(self, writer: BlockWriter) -> None:
        self._writer = writer
        self._gateway = writer.gateway

    def write(self, block_hash: bytes, updates: Mapping[str, bytes], deletes: Collection[str]) -> None:
        rows = message_rows(block_hash, updates)
        if deletes:
            # Hedera has finality: a stream batch never deletes history. Say so rather than obey.
            event(logger, "batch deletes ignored", logging.WARNING, block=block_hash.hex(), keys=len(deletes))
        self._writer.write_rows(rows)

    def finish(self, block: BlockHeader) -> None:
        staged = self._read_staged(block.hash)
        if staged is None:
            raise StoreUnavailableError(f"block {block.number}: staged completion row not found")
        key, value = staged
        row = decode_row_message(key, value)
        completion = Row(s.BLOCKS, row.key, row.cells)
        self._writer.write_rows([completion])
        self._writer.complete_duplicates([completion])

    def _read_staged(self, block_hash: bytes) -> tuple[str, bytes] | None:
        query = RowQuery(keys=(STAGED + block_hash.hex().encode(),))
        rows: list[StoredRow] = list(self._gateway.read_rows(s.CARDINAL_TRACKING, query))
        for row in rows:
            cell = row.cell(s.CARDINAL_TRACKING_FAMILY, Q_STAGED)
            if cell is not None:
                key, _, value = cell.value.partition(b"\n")
                return key.decode("ascii"), value
        return None


def message_rows(block_hash: bytes, updates: Mapping[str, bytes]) -> list[Row]:
    """The rows a store message's updates stand for: an item range's rows built
    (``store.rows.range_rows``), a history row decoded, the completion row staged under the block
    hash. Raises ``RowDecodeError`` for a key naming no history table."""
    rows: list[Row] = []
    for key, value in updates.items():
        if is_range_key(key):
            rows.extend(range_rows(decode_item_range(key, value)))
            continue
        row = decode_row_message(key, value)
        if row.table == COMPLETION_PREFIX:
            rows.append(_staged_row(block_hash, key, value))
        elif row.table in s.HISTORY_TABLES:
            rows.append(row)
        else:
            raise RowDecodeError(f"message key {key[:100]!r} names no history table")
    return rows


def _staged_row(block_hash: bytes, key: str, value: bytes) -> Row:
    payload = key.encode("ascii") + b"\n" + value
    return Row(
        s.CARDINAL_TRACKING,
        STAGED + block_hash.hex().encode(),
        (Cell(s.CARDINAL_TRACKING_FAMILY, Q_STAGED, payload, 0),),
    )


@dataclass
class StoreContext:
    tracker: StatelessTracker
    books: AddressBookHistory | None = None
    balances: ExclusiveBalanceApplier | None = None
    balance_blocks_per_run: int = 16
    network_errata: NetworkErrataPass | None = None
    """The network preset's known errata (``errata.network_pass``), applied before balances."""


def store_message(ctx: StoreContext, message: ReceivedMessage) -> TrackingOutcome:
    """Record one delivered message; safe to call again with the same message."""
    started = time.monotonic()
    outcome = ctx.tracker.receive(WireMessage(message.key, message.value))
    replays = message.attributes.get(REPLAYS_ATTRIBUTE)
    if replays is not None:
        # A dead letter sent back by `hedera-history deadletters replay`: counted for the operator.
        event(logger, "dead letter replayed", block=message.attributes.get("block"), replays=replays)
    if outcome.disposition is Disposition.COMPLETED and outcome.completed is not None:
        event(
            logger,
            "block complete",
            block=outcome.completed.number,
            hash=outcome.completed.hash.hex(),
            watermark=outcome.watermark.number if outcome.watermark else None,
            seconds=round(time.monotonic() - started, 3),
        )
    if outcome.disposition is Disposition.CONFLICT:
        event(logger, "conflicting producers", logging.ERROR, block=outcome.block_hash.hex())
    if outcome.watermark is not None and ctx.books is not None:
        ctx.books.advance(outcome.watermark.number)
    if outcome.watermark is not None and ctx.network_errata is not None:
        run_network_errata(ctx.network_errata, NETWORK_ERRATA_BLOCKS_PER_RUN)
    if outcome.watermark is not None and ctx.balances is not None:
        apply_balances(ctx.balances, ctx.balance_blocks_per_run)
    return outcome


def apply_balances(applier: ExclusiveBalanceApplier, max_blocks: int) -> None:
    """One bounded run of the balance applier. Its failure is logged, not raised: the message is
    stored, and failing it would only have Pub/Sub redeliver it; the sweep runs the applier again."""
    try:
        applier.run(max_blocks)
    except HistoryError as e:
        level = logging.WARNING if is_transient(e) else logging.ERROR
        event(logger, "balances not applied", level, error=str(e), error_type=type(e).__name__)
