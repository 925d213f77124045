"""One lease home for whoever must run alone: taken when free or lapsed, renewed at half time, released."""

from __future__ import annotations

from hedera_history.derived.lease import BALANCE_LEASE_CELL, BalanceLease
from hedera_history.follow.lease import FOLLOW_LEASE_CELL, FollowLease
from hedera_history.store.lease import CellLease, LeaseState, decode_lease, encode_lease

from tests.unit.store.fakes import ConditionalMemoryGateway


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def test_a_held_lease_keeps_others_out_until_it_lapses_or_is_released() -> None:
    gateway, clock = ConditionalMemoryGateway(), Clock()
    first = CellLease(gateway, FOLLOW_LEASE_CELL, ttl_seconds=10, holder="a", clock=clock)
    second = CellLease(gateway, FOLLOW_LEASE_CELL, ttl_seconds=10, holder="b", clock=clock)
    assert first.acquire() and not second.acquire()
    assert second.holder_now() == LeaseState("a", 1_010 * 1_000_000)
    clock.now += 4
    assert first.keep()  # more than half left: nothing written
    clock.now += 2
    assert first.keep()  # renewed
    clock.now += 9
    assert not second.acquire()  # the renewal moved the expiry
    clock.now += 2
    assert second.acquire() and not first.keep()  # lapsed: taken over, the old holder learns it
    second.release()
    assert second.holder_now() is None and first.acquire()


def test_each_user_has_its_own_cell() -> None:
    gateway, clock = ConditionalMemoryGateway(), Clock()
    assert BALANCE_LEASE_CELL != FOLLOW_LEASE_CELL
    assert BalanceLease(gateway, clock=clock).acquire()
    assert FollowLease(gateway, ttl_seconds=15, clock=clock).acquire()


def test_an_undecodable_lease_counts_as_free() -> None:
    assert decode_lease(b"garbage") is None
    state = LeaseState("holder", 42)
    assert decode_lease(encode_lease(state)) == state
