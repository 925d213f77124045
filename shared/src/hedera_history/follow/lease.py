"""One follower at a time: a lease in the ingest state table, taken and renewed by compare-and-set.

Two followers of one bucket would list and hand off the same periods (harmless: ingest is
idempotent) but would both write the position, an older one possibly last. So a follower only
follows while it holds ``follow/lease`` (cell ``p:lease``: expiry in wall-clock µs and holder, in
the encoding of ``store.lease``). It renews the lease every tick once less than half of its
lifetime is left (``follow_lease_seconds``, 15 s, far above a tick), stops when a renewal fails,
and releases it when its window ends, so the next scheduled call takes over at once; a crashed
follower's lease lapses after its lifetime.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from hedera_history.store import schema as s
from hedera_history.store.gateway import ConditionalGateway
from hedera_history.store.lease import CellLease, LeaseCell

LEASE_KEY = b"follow/lease"
Q_LEASE = b"lease"
CELL_TIMESTAMP = 0
FOLLOW_LEASE_CELL = LeaseCell(
    s.INGEST_PROGRESS, LEASE_KEY, s.INGEST_PROGRESS_FAMILY, Q_LEASE, CELL_TIMESTAMP, "follower"
)


class FollowLease(CellLease):
    def __init__(
        self,
        gateway: ConditionalGateway,
        *,
        ttl_seconds: float,
        holder: str | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__(gateway, FOLLOW_LEASE_CELL, ttl_seconds=ttl_seconds, holder=holder, clock=clock)


__all__ = ["LEASE_KEY", "FollowLease"]
