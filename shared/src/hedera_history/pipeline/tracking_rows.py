"""The store function's Cardinal tracking rows as ingest and the sweep touch them: read a published
batch's row (the reconciler), declare the first block of a stream followed from its middle a root
of the watermark (``pipeline.ingest_verify``), connect what a crashed store call left unconnected
(``pipeline.watermark_recovery``). None delivers messages."""

from __future__ import annotations

from collections.abc import Mapping

from hedera_history.block import VerifiedBlock
from hedera_history.block_identity import IDENTITY_SIZE, block_header
from hedera_history.cardinal.chain_blocks import BlockHeader
from hedera_history.cardinal.tracking import StatelessTracker
from hedera_history.pipeline.state_cells import Published
from hedera_history.store.gateway import ConditionalGateway
from hedera_history.store.tracking_store import BigtableTrackingStore


class _NoSink:
    """These rows are only read, or marked; no message is delivered through them."""

    def write(self, *_: object) -> None:
        raise AssertionError("tracking rows are not a consumer: nothing is delivered")

    def finish(self, *_: object) -> None:
        raise AssertionError("tracking rows are not a consumer: nothing is delivered")


class TrackingRows:
    """The store function's tracking rows (its tracker's row names, over the same table)."""

    def __init__(self, gateway: ConditionalGateway, first_block: int) -> None:
        self._store = BigtableTrackingStore(gateway)
        self._tracker = StatelessTracker(self._store, _NoSink(), first_number=first_block)

    def batch_row(self, published: Published) -> Mapping[bytes, bytes]:
        return self._store.read_row(self._tracker.block_row(published.hash[:IDENTITY_SIZE]))

    def declare_root(self, block: VerifiedBlock) -> None:
        """The watermark starts at ``block`` (``StatelessTracker.declare_root``)."""
        self._tracker.declare_root(block_header(block))

    def watermark(self) -> BlockHeader | None:
        return self._tracker.watermark()

    def reconnect(self) -> BlockHeader | None:
        """Connect the complete blocks a crash left unconnected (``StatelessTracker.reconnect``);
        the watermark if that moved it."""
        return self._tracker.reconnect()
