"""Which partitions run again after an address-book change; links between partitions; the state codec."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from hedera_history.backfill.boundaries import BoundaryStatus, check_boundaries, link_edges
from hedera_history.backfill.partition_messages import BlockEdge, PartitionCounts, PartitionPlan, PartitionSummary
from hedera_history.backfill.partitioning import assumed_starts
from hedera_history.backfill.waves import partitions_to_rerun, ran_from
from hedera_history.books.codec import BookState
from hedera_history.books.parse import parse_address_book
from hedera_history.books.stakes import NodeStakes
from hedera_history.errors import BrokenChainError, CorruptFileError
from hedera_history.gen import GeneratedStream
from hedera_history.sources.period_listing import ListedPeriod


@pytest.fixture(scope="module")
def states(small_stream: GeneratedStream) -> dict[str, BookState]:
    old = parse_address_book(small_stream.address_books[0].book)
    new = parse_address_book(small_stream.address_books[-1].book)
    return {
        "old": BookState.of(old),
        "new": BookState.of(new, {102: small_stream.address_books[-1].book}),
        "old+101": BookState.of(old, {101: b"endpoints"}),
    }


def _plan(index: int) -> PartitionPlan:
    return PartitionPlan(index, (ListedPeriod(f"p{index}", index, 4),), index)


def _summary(index: int, start: BookState, end: BookState | None = None, touched: bool = False) -> PartitionSummary:
    return PartitionSummary(
        index=index,
        start=start,
        end=end or start,
        book_files_touched=touched,
        first=None,
        last=None,
        leading_failures=0,
        trailing_failures=0,
        counts=PartitionCounts(),
    )


# ---- address-book states -------------------------------------------------------------------------


def test_book_state_round_trip_and_fingerprints(states: dict[str, BookState]) -> None:
    for state in states.values():
        assert BookState.decode(state.encode()) == state
    assert states["old"].book_fingerprint == states["old+101"].book_fingerprint
    assert states["old"].fingerprint != states["old+101"].fingerprint
    assert states["old"].book_fingerprint != states["new"].book_fingerprint
    tracker = states["new"].tracker()
    assert BookState.of_tracker(tracker) == states["new"]
    with pytest.raises(CorruptFileError):
        BookState.decode(states["old"].encode()[:-3])
    with pytest.raises(CorruptFileError):
        BookState.decode(states["old"].encode() + b"x")


def test_stakes_travel_with_the_book_state(states: dict[str, BookState]) -> None:
    old = states["old"]
    staked = BookState.of(old.address_book(), stakes=NodeStakes.of({0: 60, 1: 40}))
    restaked = BookState.of(old.address_book(), stakes=NodeStakes.of({0: 40, 1: 60}))
    assert old.encode() == BookState(old.book).encode()  # no stakes: the encoding from before stakes
    assert BookState.decode(staked.encode()) == staked and staked.node_stakes() == NodeStakes.of({0: 60, 1: 40})
    assert len({old.book_fingerprint, staked.book_fingerprint, restaked.book_fingerprint}) == 3
    tracker = staked.tracker()
    assert tracker.stakes == NodeStakes.of({0: 60, 1: 40}) and BookState.of_tracker(tracker) == staked
    # a partition that ran on other stakes ran on another verification state: it runs again
    assert not ran_from(_summary(0, old), staked)


def test_daily_stake_updates_do_not_stop_the_walk(states: dict[str, BookState]) -> None:
    old = states["old"]
    day = [BookState.of(old.address_book(), stakes=NodeStakes.of({0: 10 + d, 1: 10})) for d in range(3)]

    def updated(index: int, start: BookState, end: BookState) -> PartitionSummary:
        return replace(_summary(index, start, end), stakes_updated=True)

    plans = [_plan(i) for i in range(5)]
    # wave 1: every partition from the bootstrap state; 1, 2 and 3 each carry a day's update
    summaries = {
        0: _summary(0, old),
        1: updated(1, old, day[0]),
        2: updated(2, old, day[1]),
        3: updated(3, old, day[2]),
        4: _summary(4, old),
    }
    reruns = partitions_to_rerun(plans, summaries, old)
    # 1 stands (it ran from the right state); 2, 3 and 4 run again in one wave, each from the
    # update of the partition before it
    assert [(r.plan.index, r.start) for r in reruns] == [(2, day[0]), (3, day[1]), (4, day[2])]
    summaries.update({2: updated(2, day[0], day[1]), 3: updated(3, day[1], day[2]), 4: _summary(4, day[2])})
    assert partitions_to_rerun(plans, summaries, old) == []


def test_no_change_confirms_every_partition_in_one_wave(states: dict[str, BookState]) -> None:
    plans = [_plan(i) for i in range(4)]
    summaries = {i: _summary(i, states["old"]) for i in range(4)}
    assert partitions_to_rerun(plans, summaries, states["old"]) == []


def test_partitions_after_a_change_run_again_from_the_new_state(states: dict[str, BookState]) -> None:
    old, new = states["old"], states["new"]
    plans = [_plan(i) for i in range(4)]
    summaries = {0: _summary(0, old), 1: _summary(1, old, new, touched=True), 2: _summary(2, old), 3: _summary(3, old)}
    reruns = partitions_to_rerun(plans, summaries, old)
    assert [(r.plan.index, r.start) for r in reruns] == [(2, new), (3, new)]
    summaries.update({2: _summary(2, new), 3: _summary(3, new)})
    assert partitions_to_rerun(plans, summaries, old) == []


def test_the_walk_stops_after_a_rerun_partition_that_changes_books(states: dict[str, BookState]) -> None:
    old, new = states["old"], states["new"]
    plans = [_plan(i) for i in range(4)]
    summaries = {
        0: _summary(0, old, new, touched=True),
        1: _summary(1, old, old, touched=True),  # under the wrong start its own change is unknown
        2: _summary(2, old),
        3: _summary(3, old),
    }
    assert [r.plan.index for r in partitions_to_rerun(plans, summaries, old)] == [1]


def test_same_book_other_contents(states: dict[str, BookState]) -> None:
    old, with_101 = states["old"], states["old+101"]
    # Nothing touched the book files and the partition knew every file the true state knows: it stands.
    assert ran_from(_summary(0, with_101), old)
    # It did not know 0.0.101, which the true state knows: an append to it would have been ignored.
    assert not ran_from(_summary(0, old), with_101)
    assert not ran_from(_summary(0, with_101, touched=True), old)
    assert ran_from(_summary(0, old, touched=True), old)


# ---- links -----------------------------------------------------------------------------------------


def _edge(number: int, previous: bytes, following: bytes, version: int = 6) -> BlockEdge:
    return BlockEdge(number, version, f"block-{number}.rcd.gz", previous, following)


def test_link_edges() -> None:
    a, b = b"\x01" * 48, b"\x02" * 48
    assert link_edges(_edge(5, a, b), _edge(6, b, a)).ok
    with pytest.raises(BrokenChainError, match="start running hash"):
        link_edges(_edge(5, a, b), _edge(6, a, a))
    with pytest.raises(BrokenChainError, match="numbers jump"):
        link_edges(_edge(5, a, b), _edge(7, b, a))
    assert link_edges(_edge(5, a, b, version=2), _edge(6, b, a, version=5)).ok  # V2 -> V5 names the V2 file hash
    with pytest.raises(BrokenChainError, match="start running hash"):
        link_edges(_edge(5, a, b, version=2), _edge(6, a, a, version=5))


def _edged(index: int, first: BlockEdge | None, last: BlockEdge | None, **failures: Any) -> PartitionSummary:
    return replace(_summary(index, BookState(b"")), first=first, last=last, **failures)


def test_boundaries_between_partitions() -> None:
    h = [bytes([i]) * 48 for i in range(8)]
    summaries = [
        _edged(0, _edge(0, h[0], h[1]), _edge(1, h[1], h[2])),
        _edged(1, _edge(2, h[2], h[3]), _edge(3, h[3], h[4]), trailing_failures=1),
        _edged(2, _edge(5, h[5], h[6]), _edge(5, h[5], h[6])),
        _edged(3, None, None, leading_failures=2, trailing_failures=2),
        _edged(4, _edge(8, h[7], h[7]), _edge(8, h[7], h[7])),
    ]
    checks = check_boundaries(summaries)
    assert [(c.previous_partition, c.partition, c.status) for c in checks] == [
        (0, 1, BoundaryStatus.OK),
        (1, 2, BoundaryStatus.UNVERIFIABLE),
        (2, 4, BoundaryStatus.UNVERIFIABLE),
    ]
    assert "3 period(s)" not in checks[2].reason and "2 period(s)" in checks[2].reason
    broken = check_boundaries([summaries[0], _edged(1, _edge(2, h[5], h[3]), _edge(2, h[5], h[3]))])
    assert [c.status for c in broken] == [BoundaryStatus.BROKEN]


def test_deferred_blocks_are_written_by_a_confirmed_run(states: dict[str, BookState]) -> None:
    old = states["old"]
    staked = BookState.of(old.address_book(), stakes=NodeStakes.of({0: 60, 1: 40}))
    plans = [_plan(i) for i in range(3)]
    summaries = {
        0: replace(_summary(0, old, staked), stakes_updated=True),
        1: replace(_summary(1, staked), deferred=2),  # guessed right, but wrote only unanimous blocks
        2: replace(_summary(2, old), deferred=1),
    }
    reruns = partitions_to_rerun(plans, summaries, old)
    assert [(r.plan.index, r.start, r.confirmed) for r in reruns] == [(1, staked, True), (2, staked, True)]
    # after a guessed stake update the runs that follow are guesses again
    other = BookState.of(old.address_book(), stakes=NodeStakes.of({0: 1}))
    summaries[1] = replace(_summary(1, old, other), stakes_updated=True)
    reruns = partitions_to_rerun(plans, summaries, old)
    assert [(r.plan.index, r.confirmed) for r in reruns] == [(1, True), (2, False)]


def test_only_the_first_partition_from_the_bootstrap_state_is_confirmed(states: dict[str, BookState]) -> None:
    runs = assumed_starts([_plan(i) for i in range(3)], states["old"], {})
    assert [run.confirmed for run in runs] == [True, False, False]
