"""One balance applier at a time: a lease in the ``balances`` table, taken and renewed by
compare-and-set, and ``ExclusiveBalanceApplier``, the applier that runs only while it holds it.

Why a lease and not a compare-and-set on the progress cell: a block's balance rows are written
before its progress, so a run that loses a race on the progress has already written its rows
(same keys, same cell timestamps) — stale ones when a late compensation rewound the progress in
the meantime. The lease keeps a second run from writing at all.

The lease (``store.lease``) is the cell ``p/lease`` (qualifier ``l``); the applier renews it before
each block, which is safe while one block is applied well within half the lease time (a block is a
few reads and writes).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from hedera_history.config import Settings
from hedera_history.derived.applier import ApplyReport, BalanceApplier
from hedera_history.derived.balances import read_progress
from hedera_history.derived.rows import STATE_TIMESTAMP
from hedera_history.store.gateway import ConditionalGateway
from hedera_history.store.lease import CellLease, LeaseCell, LeaseState, decode_lease, encode_lease
from hedera_history.store.schema import BALANCES, BALANCES_FAMILY

LEASE_KEY = b"p/lease"
Q_LEASE = b"l"
DEFAULT_TTL_SECONDS = 60.0
BALANCE_LEASE_CELL = LeaseCell(BALANCES, LEASE_KEY, BALANCES_FAMILY, Q_LEASE, STATE_TIMESTAMP, "balances")

LeaseGateway = ConditionalGateway


class BalanceLease(CellLease):
    def __init__(
        self,
        gateway: LeaseGateway,
        *,
        ttl_seconds: float = DEFAULT_TTL_SECONDS,
        holder: str | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__(gateway, BALANCE_LEASE_CELL, ttl_seconds=ttl_seconds, holder=holder, clock=clock)


class ExclusiveBalanceApplier:
    """A :class:`BalanceApplier` that runs only while it holds the balance lease.

    The first run of a deployment begins application at its first block (``first_block``: the
    root of the contiguous watermark; by default ``settings.first_block``), not at the lowest block
    stored so far: blocks complete out of order.
    A snapshot loaded before (``derived.snapshot.load_snapshot``) has begun it already. Without
    one, nothing is begun until that block is complete, so a snapshot loaded after the functions
    came up but before the stream's first block (the local stack, a new deployment) still counts
    instead of being refused because balances already started from zero.

    One object may be shared by the threads of an instance (they share its lease holder id, so a
    local lock keeps them apart as the lease keeps instances apart).
    """

    def __init__(
        self,
        gateway: LeaseGateway,
        settings: Settings,
        *,
        lease: BalanceLease | None = None,
        first_block: Callable[[], int] | None = None,
    ) -> None:
        """``first_block``: read only until application begins (a stream followed from its middle
        learns its first block when that block's period is verified)."""
        self.gateway = gateway
        self.applier = BalanceApplier(gateway, settings)
        self.lease = lease or BalanceLease(gateway)
        self.first_block = first_block or (lambda: settings.first_block)
        self._running = threading.Lock()

    def run(self, max_blocks: int | None = None) -> ApplyReport | None:
        """Apply up to ``max_blocks`` blocks; None when another run holds the lease (it, or a later
        call, does the work)."""
        if not self._running.acquire(blocking=False):
            return None
        try:
            if not self.lease.acquire():
                return None
            try:
                if read_progress(self.gateway) is None:
                    first = self.first_block()
                    if not self.applier.reader.complete_blocks([first]):
                        return ApplyReport(stopped_at=first)
                    self.applier.start(first, 0)
                return self.applier.run(max_blocks, should_continue=self.lease.keep)
            finally:
                self.lease.release()
        finally:
            self._running.release()


__all__ = ["BalanceLease", "ExclusiveBalanceApplier", "LeaseGateway", "LeaseState", "decode_lease", "encode_lease"]
