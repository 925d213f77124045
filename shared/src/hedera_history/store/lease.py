"""A lease in one Bigtable cell, taken, renewed and released by compare-and-set.

Whoever must run alone (the balance applier, the follower) holds a :class:`CellLease` on its own
cell. The cell holds when the lease expires (wall clock, µs) and who holds it. A holder renews it
once less than half of its time is left, stops when a renewal fails, and releases it at the end; a
crashed holder's lease lapses after ``ttl_seconds``. This is safe while the holder's unit of work
takes well within half the lease time and the instances' clocks agree to far better than that.
The cell is always written at one fixed cell time, so each write replaces the last whatever the
writers' clocks say.
"""

from __future__ import annotations

import logging
import struct
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from hedera_history.errors import RowDecodeError, StoreError
from hedera_history.logs import event
from hedera_history.store.encoding import decode_value, encode_value
from hedera_history.store.gateway import CellSwap, ConditionalGateway, RowQuery

logger = logging.getLogger(__name__)

_EXPIRY = struct.Struct(">Q")


@dataclass(frozen=True, slots=True)
class LeaseState:
    holder: str
    expires_micros: int


@dataclass(frozen=True, slots=True)
class LeaseCell:
    """Where a lease lives: one cell of one row."""

    table: str
    key: bytes
    family: str
    qualifier: bytes
    timestamp_micros: int
    name: str
    """For logs: what the lease guards."""


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


class CellLease:
    def __init__(
        self,
        gateway: ConditionalGateway,
        cell: LeaseCell,
        *,
        ttl_seconds: float,
        holder: str | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.gateway = gateway
        self.cell = cell
        self.holder = holder or uuid.uuid4().hex
        self.ttl_micros = int(ttl_seconds * 1_000_000)
        self._clock = clock
        self._held: bytes | None = None
        """The cell value this holder wrote last, while it holds the lease."""

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
            self._check_and_set(held, encode_lease(LeaseState(self.holder, 0)))
        except StoreError as e:
            event(logger, "lease not released", logging.WARNING, lease=self.cell.name, holder=self.holder, error=str(e))

    def _set(self, expected: bytes | None) -> bool:
        value = encode_lease(LeaseState(self.holder, self._now() + self.ttl_micros))
        won = self._check_and_set(expected, value)
        self._held = value if won else None
        return won

    def _check_and_set(self, expected: bytes | None, value: bytes) -> bool:
        cell = self.cell
        return self.gateway.check_and_set(
            cell.table, cell.key, CellSwap(cell.family, cell.qualifier, expected, value, cell.timestamp_micros)
        )

    def _read(self) -> bytes | None:
        query = RowQuery(keys=(self.cell.key,), families=(self.cell.family,))
        for row in self.gateway.read_rows(self.cell.table, query):
            found = row.cell(self.cell.family, self.cell.qualifier)
            return None if found is None else found.value
        return None

    def _now(self) -> int:
        return int(self._clock() * 1_000_000)
