"""One follower at a time: a lease in the ingest state table, taken and renewed by compare-and-set.

Two followers of one bucket would list and hand off the same periods (harmless: ingest is
idempotent) but would both write the position, an older one possibly last. So a follower only
follows while it holds ``follow/lease`` (cell ``p:lease``: expiry in wall-clock µs and holder, in
the encoding of ``derived.lease``). It renews the lease every tick once less than half of its
lifetime is left (``follow_lease_seconds``, 15 s, far above a tick), stops when a renewal fails,
and releases it when its window ends, so the next scheduled call takes over at once; a crashed
follower's lease lapses after its lifetime.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable

from hedera_history.derived.lease import LeaseState, decode_lease, encode_lease
from hedera_history.errors import StoreError
from hedera_history.logs import event
from hedera_history.store import schema as s
from hedera_history.store.gateway import ConditionalGateway, RowQuery

logger = logging.getLogger(__name__)

LEASE_KEY = b"follow/lease"
Q_LEASE = b"lease"
CELL_TIMESTAMP = 0
"""Always the same cell time, so each write replaces the last whatever the writers' clocks say."""


class FollowLease:
    def __init__(
        self,
        gateway: ConditionalGateway,
        *,
        ttl_seconds: float,
        holder: str | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.gateway = gateway
        self.holder = holder or uuid.uuid4().hex
        self.ttl_micros = int(ttl_seconds * 1_000_000)
        self._clock = clock
        self._held: bytes | None = None

    @property
    def held(self) -> bool:
        return self._held is not None

    def holder_now(self) -> LeaseState | None:
        """Who holds the lease (None: nobody, or it lapsed)."""
        current = self._read()
        state = None if current is None else decode_lease(current)
        if state is None or state.expires_micros <= self._now():
            return None
        return state

    def acquire(self) -> bool:
        """Take the lease when it is free, lapsed or ours; False when another follower holds it."""
        current = self._read()
        state = None if current is None else decode_lease(current)
        if state is not None and state.holder != self.holder and state.expires_micros > self._now():
            return False
        return self._set(current)

    def keep(self) -> bool:
        """True while the lease is held, renewing it once less than half of its time is left."""
        if self._held is None:
            return False
        state = decode_lease(self._held)
        if state is not None and state.expires_micros - self._now() > self.ttl_micros // 2:
            return True
        return self._set(self._held)

    def release(self) -> None:
        held, self._held = self._held, None
        if held is None:
            return
        try:
            self.gateway.check_and_set(
                s.INGEST_PROGRESS,
                LEASE_KEY,
                family=s.INGEST_PROGRESS_FAMILY,
                qualifier=Q_LEASE,
                expected=held,
                value=encode_lease(LeaseState(self.holder, 0)),
                timestamp_micros=CELL_TIMESTAMP,
            )
        except StoreError as e:
            event(logger, "follower lease not released", logging.WARNING, holder=self.holder, error=str(e))

    def _set(self, expected: bytes | None) -> bool:
        value = encode_lease(LeaseState(self.holder, self._now() + self.ttl_micros))
        won = self.gateway.check_and_set(
            s.INGEST_PROGRESS,
            LEASE_KEY,
            family=s.INGEST_PROGRESS_FAMILY,
            qualifier=Q_LEASE,
            expected=expected,
            value=value,
            timestamp_micros=CELL_TIMESTAMP,
        )
        self._held = value if won else None
        return won

    def _read(self) -> bytes | None:
        query = RowQuery(keys=(LEASE_KEY,), families=(s.INGEST_PROGRESS_FAMILY,))
        for row in self.gateway.read_rows(s.INGEST_PROGRESS, query):
            cell = row.cell(s.INGEST_PROGRESS_FAMILY, Q_LEASE)
            return None if cell is None else cell.value
        return None

    def _now(self) -> int:
        return int(self._clock() * 1_000_000)


__all__ = ["LEASE_KEY", "FollowLease"]
