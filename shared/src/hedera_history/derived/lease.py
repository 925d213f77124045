"""One balance applier at a time: a lease in the ``balances`` table, taken and renewed by
compare-and-set, and ``ExclusiveBalanceApplier``, the applier that runs only while it holds it.

Why a lease and not a compare-and-set on the progress cell: a block's balance rows are written
before its progress, so a run that loses a race on the progress has already written its rows
(same keys, same cell timestamps) — stale ones when a late compensation rewound the progress in
the meantime. The lease keeps a second run from writing at all.

The cell ``p/lease`` (qualifier ``l``) holds when the lease expires (wall clock, µs) and who holds
it. A holder renews it before a block once less than half of its time is left, stops when a
renewal fails, and releases it at the end; a crashed holder's lease lapses after ``ttl_seconds``.
This is safe while one block is applied well within half the lease time (a block is a few reads
and writes) and the instances' clocks agree to far better than that.
"""

from __future__ import annotations

import logging
import struct
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from hedera_history.config import Settings
from hedera_history.derived.applier import ApplyReport, BalanceApplier
from hedera_history.derived.balances import read_progress
from hedera_history.derived.rows import STATE_TIMESTAMP
from hedera_history.errors import RowDecodeError, StoreError
from hedera_history.logs import event
from hedera_history.store.encoding import decode_value, encode_value
from hedera_history.store.gateway import ConditionalGateway, RowQuery
from hedera_history.store.schema import BALANCES, BALANCES_FAMILY

logger = logging.getLogger(__name__)

LEASE_KEY = b"p/lease"
Q_LEASE = b"l"
DEFAULT_TTL_SECONDS = 60.0
_EXPIRY = struct.Struct(">Q")


LeaseGateway = ConditionalGateway


@dataclass(frozen=True, slots=True)
class LeaseState:
    holder: str
    expires_micros: int


def encode_lease(state: LeaseState) -> bytes:
    return encode_value(_EXPIRY.pack(state.expires_micros) + state.holder.encode("ascii"))


def decode_lease(value: bytes) -> LeaseState | None:
    """None for a value that does not decode: such a lease counts as free."""
    try:
        payload = decode_value(value)
    except RowDecodeError:
        return None
    if len(payload) <= _EXPIRY.size:
        return None
    (expires,) = _EXPIRY.unpack_from(payload)
    return LeaseState(payload[_EXPIRY.size :].decode("ascii", "replace"), int(expires))


class BalanceLease:
    def __init__(
        self,
        gateway: LeaseGateway,
        *,
        ttl_seconds: float = DEFAULT_TTL_SECONDS,
        holder: str | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.gateway = gateway
        self.holder = holder or uuid.uuid4().hex
        self.ttl_micros = int(ttl_seconds * 1_000_000)
        self._clock = clock
        self._held: bytes | None = None
        """The cell value this holder wrote last, while it holds the lease."""

    @property
    def held(self) -> bool:
        return self._held is not None

    def acquire(self) -> bool:
        """Take the lease when it is free, lapsed or already ours; False when another holds it."""
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
        """Give the lease up (a failure to say so only delays the next holder until it lapses)."""
        held, self._held = self._held, None
        if held is None:
            return
        try:
            self.gateway.check_and_set(
                BALANCES,
                LEASE_KEY,
                family=BALANCES_FAMILY,
                qualifier=Q_LEASE,
                expected=held,
                value=encode_lease(LeaseState(self.holder, 0)),
                timestamp_micros=STATE_TIMESTAMP,
            )
        except StoreError as e:
            event(logger, "balance lease not released", logging.WARNING, holder=self.holder, error=str(e))

    def _set(self, expected: bytes | None) -> bool:
        value = encode_lease(LeaseState(self.holder, self._now() + self.ttl_micros))
        won = self.gateway.check_and_set(
            BALANCES,
            LEASE_KEY,
            family=BALANCES_FAMILY,
            qualifier=Q_LEASE,
            expected=expected,
            value=value,
            timestamp_micros=STATE_TIMESTAMP,
        )
        self._held = value if won else None
        return won

    def _read(self) -> bytes | None:
        for row in self.gateway.read_rows(BALANCES, RowQuery(keys=(LEASE_KEY,))):
            cell = row.cell(BALANCES_FAMILY, Q_LEASE)
            return None if cell is None else cell.value
        return None

    def _now(self) -> int:
        return int(self._clock() * 1_000_000)


class ExclusiveBalanceApplier:
    """A :class:`BalanceApplier` that runs only while it holds the balance lease.

    The first run of a deployment begins application at ``settings.first_block`` (the root of the
    contiguous watermark), not at the lowest block stored so far: blocks complete out of order.
    A snapshot loaded before (``derived.snapshot.load_snapshot``) has begun it already. Without
    one, nothing is begun until that block is complete, so a snapshot loaded after the functions
    came up but before the stream's first block (the local stack, a new deployment) still counts
    instead of being refused because balances already started from zero.

    One object may be shared by the threads of an instance (they share its lease holder id, so a
    local lock keeps them apart as the lease keeps instances apart).
    """

    def __init__(self, gateway: LeaseGateway, settings: Settings, *, lease: BalanceLease | None = None) -> None:
        self.gateway = gateway
        self.applier = BalanceApplier(gateway, settings)
        self.lease = lease or BalanceLease(gateway)
        self.first_block = settings.first_block
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
                    if not self.applier.reader.complete_blocks([self.first_block]):
                        return ApplyReport(stopped_at=self.first_block)
                    self.applier.start(self.first_block, 0)
                return self.applier.run(max_blocks, should_continue=self.lease.keep)
            finally:
                self.lease.release()
        finally:
            self._running.release()


__all__ = ["BalanceLease", "ExclusiveBalanceApplier", "LeaseGateway", "LeaseState", "decode_lease", "encode_lease"]
