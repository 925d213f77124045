"""The tracker: settle, backoff, retry on a new signature, give-up (reported), late files, position."""

from __future__ import annotations

import itertools

from hedera_history.follow.discovery import Sighting
from hedera_history.follow.tracker import Status, Tracker, backoff_seconds, just_before
from hedera_history.formats.names import format_timestamp
from hedera_history.pipeline.ingest import Outcome

T0 = 1_717_200_000_000_000_000
FOLDERS = [f"recordstreams/record0.0.{n}/" for n in (3, 4, 5)]


def sighting(index: int, node: int = 0) -> Sighting:
    ns = T0 + index * 2_000_000_000
    key = format_timestamp(ns)
    return Sighting(f"{FOLDERS[node]}{key}.rcd_sig", FOLDERS[node], key, ns)


def tracker(**kwargs: float) -> Tracker:
    start_key, start_ns = just_before(T0)
    return Tracker(
        start_key, start_ns, settle_seconds=kwargs.get("settle", 1.0), give_up_seconds=kwargs.get("give_up", 300.0)
    )


def test_backoff_doubles_up_to_thirty_seconds() -> None:
    assert [backoff_seconds(n) for n in range(1, 8)] == [1, 2, 4, 8, 16, 30, 30]


def test_a_period_is_handed_off_once_settled_and_ends_the_position_when_published() -> None:
    t = tracker()
    assert not t.saw(sighting(0), now=10.0)
    assert not t.saw(sighting(0, node=1), now=10.4)
    assert t.due(10.9) == []
    (period,) = t.due(11.0)
    assert period.status is Status.RUNNING and t.due(11.0) == []
    assert t.finished(period.period_key, Outcome.PUBLISHED, "", now=11.2) == []
    t.advance()
    assert t.position() == (sighting(0).period_key, sighting(0).consensus_ns)
    assert t.unfinished == 0 and t.published == 1 and t.handed_off == 1


def test_pending_periods_back_off_and_a_new_signature_retries_at_once() -> None:
    t = tracker()
    t.saw(sighting(0), now=0.0)
    attempts: list[float] = []
    now = 1.0
    for _ in range(4):
        (period,) = t.due(now)
        attempts.append(now)
        t.finished(period.period_key, Outcome.PENDING, "no consensus yet", now=now)
        now = period.due
    assert [b - a for a, b in itertools.pairwise(attempts)] == [1.0, 2.0, 4.0]
    # The next is 8 s away, but a new signature file brings it forward.
    t.saw(sighting(0, node=2), now=now + 0.1)
    assert [p.period_key for p in t.due(now + 0.1)] == [sighting(0).period_key]
    # A signature listed while it runs retries at once once it ends pending ...
    t.saw(sighting(0, node=1), now=now + 0.2)
    t.finished(sighting(0).period_key, None, "store unavailable", now=now + 0.3)
    assert t.due(now + 0.3)


def test_a_period_without_consensus_is_given_up_reported_and_passed() -> None:
    t = tracker(give_up=300.0)
    t.saw(sighting(0), now=0.0)
    t.saw(sighting(1), now=0.0)
    now = 1.0
    while t.unfinished:
        for period in t.due(now):
            outcome = Outcome.PUBLISHED if period.period_key == sighting(1).period_key else Outcome.PENDING
            t.finished(period.period_key, outcome, "not enough stake signed", now=now)
        t.advance()
        if t.unfinished:
            # Until given up, the position stays before the stuck period.
            assert t.position() == just_before(T0)
        now += 1.0
    (given,) = t.given_up
    assert given.period_key == sighting(0).period_key and given.waited_seconds >= 300.0
    assert given.reason == "not enough stake signed"
    assert t.position() == (sighting(1).period_key, sighting(1).consensus_ns)
    # Its signatures listed later are late files (ingest_object, as an upload), not a new period.
    assert t.saw(sighting(0, node=2), now=now)


def test_late_files_and_a_late_found_period_move_the_position_back() -> None:
    t = tracker()
    for i in (0, 1, 2):
        t.saw(sighting(i), now=0.0)
    for period in t.due(1.0):
        t.finished(period.period_key, Outcome.PUBLISHED, "", now=1.0)
    t.advance()
    assert t.position()[0] == sighting(2).period_key
    # A lagging node's signature of a published period: a late file.
    assert t.saw(sighting(1, node=2), now=2.0)
    assert t.late_files == 1
    # A period behind the position that ingest left pending (only a lagging node had it).
    lone = Sighting(
        sighting(1).name.replace(sighting(1).period_key, format_timestamp(T0 + 3_000_000_000)),
        FOLDERS[0],
        format_timestamp(T0 + 3_000_000_000),
        T0 + 3_000_000_000,
    )
    assert t.saw(lone, now=2.0)
    t.adopt(lone, now=2.0, reason="no consensus yet")
    assert t.position() == just_before(lone.consensus_ns)
    (period,) = t.due(3.0)
    t.finished(period.period_key, Outcome.PUBLISHED, "", now=3.0)
    t.advance()
    assert t.position()[0] == sighting(2).period_key


def test_signatures_another_run_may_not_have_read_are_handed_on() -> None:
    t = tracker()
    t.saw(sighting(0), now=0.0)
    (period,) = t.due(1.0)
    # Held (an earlier block unpublished): the run publishing that block publishes this one too.
    t.finished(period.period_key, Outcome.PENDING, "held", now=1.0)
    t.saw(sighting(0, node=1), now=1.5)  # listed after that run may have read the signatures
    (period,) = t.due(1.5)
    assert t.finished(period.period_key, Outcome.ALREADY_PUBLISHED, "", now=1.6) == [sighting(0, node=1).name]
    # After a restart, a period listed again that turns out published hands every signature on.
    resumed = tracker()
    resumed.resumed_through_ns = sighting(0).consensus_ns
    resumed.saw(sighting(0), now=0.0)
    resumed.saw(sighting(0, node=2), now=0.0)
    (period,) = resumed.due(1.0)
    late = resumed.finished(period.period_key, Outcome.ALREADY_PUBLISHED, "", now=1.0)
    assert late == sorted([sighting(0).name, sighting(0, node=2).name])
