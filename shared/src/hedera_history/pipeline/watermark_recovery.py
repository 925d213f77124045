"""The sweep's repair of the contiguous watermark and the address-book keeper after a store crash.

The store function moves both as a side effect of a message: the call that completes a block
connects it (``connected``), offers it to the watermark and walks down to the complete blocks
waiting for it, then advances the keeper to the watermark. A call killed part way leaves a
complete block unconnected, or the keeper behind the watermark, and the next delivery of one of
that block's messages repairs it (the keeper: the next call that moves the watermark). When none
comes (the message parked as a dead letter, or lost with a Pub/Sub restart; the last block of a
quiet stream), nothing else would: the reconciler counts a block as confirmed once it is
complete, and every later block waits on it. The stream then stops once the keeper is 1,000 blocks behind
(ingest holds every later period: docs/pipeline.md).

So each sweep (:func:`recover_watermark`) connects the complete blocks hanging off the watermark,
or the roots while there is none (``StatelessTracker.reconnect``), and advances the keeper to the
watermark (``AddressBookHistory.advance``, a no-op when it is there). Both are idempotent and safe
beside store calls doing the same; when nothing needs repair they cost a few reads.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from hedera_history.logs import event
from hedera_history.pipeline.ingest_context import IngestContext
from hedera_history.pipeline.tracking_rows import TrackingRows

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class WatermarkRecovery:
    watermark: int | None
    """The watermark's block after the repair (None: no block connected yet)."""
    reconnected: bool
    """This sweep moved the watermark: a crash had left complete blocks unconnected."""
    books_in_force: int
    """Address books the keeper put in force in this sweep (it was behind the watermark)."""

    def as_dict(self) -> dict[str, object]:
        return {"watermark": self.watermark, "reconnected": self.reconnected, "books_in_force": self.books_in_force}


def recover_watermark(ctx: IngestContext) -> WatermarkRecovery:
    """Connect what a crashed store call left unconnected, then bring the keeper to the watermark."""
    rows = TrackingRows(ctx.gateway, ctx.settings.first_block)
    moved = rows.reconnect()
    tip = moved or rows.watermark()
    books = ctx.books.advance(tip.number) if tip is not None else []
    if moved is not None:
        event(logger, "watermark recovered", logging.WARNING, watermark=moved.number, hash=moved.hash.hex())
    return WatermarkRecovery(None if tip is None else tip.number, moved is not None, len(books))
