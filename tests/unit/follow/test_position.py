"""The follower's position: a round trip through its state row, and where a restart lists from."""

from __future__ import annotations

import dataclasses
from typing import Any

from hedera_history.follow.position import FollowPosition, read_position, resume_after, write_position
from hedera_history.store import schema as s

from tests.unit.store.fakes import MemoryGateway

KEY = "2024-06-01T00_00_02.000000000Z"


def position(**changes: Any) -> FollowPosition:
    base = FollowPosition(
        "gs://bucket/",
        KEY,
        1_717_200_002_000_000_000,
        1_000,
        {"recordstreams/record0.0.3/": "recordstreams/record0.0.3/2024-06-01T00_00_04.000000000Z.rcd_sig"},
    )
    return dataclasses.replace(base, **changes)


def test_position_round_trip_through_its_row() -> None:
    gateway = MemoryGateway([s.INGEST_PROGRESS])
    assert read_position(gateway) is None
    write_position(gateway, position())
    assert read_position(gateway) == position()
    later = position(period_key="2024-06-01T00_00_04.000000000Z", consensus_ns=1_717_200_004_000_000_000)
    write_position(gateway, later)
    assert read_position(gateway) == later


def test_lag_is_now_minus_the_period_time() -> None:
    assert position().lag_seconds(now_ns=1_717_200_012_500_000_000) == 10.5


def test_after_the_cutover_the_position_keeps_the_next_block_and_the_lag_is_on_the_last_block() -> None:
    gateway = MemoryGateway([s.INGEST_PROGRESS])
    switched = position(next_block=7, block_ns=1_717_200_010_000_000_000)
    write_position(gateway, switched)
    assert read_position(gateway) == switched
    assert switched.lag_seconds(now_ns=1_717_200_012_500_000_000) == 2.5


def test_restart_lists_a_folder_after_its_last_name_but_never_past_the_position() -> None:
    folder = "recordstreams/record0.0.3/"
    ahead = position()
    # Listed beyond the position (periods known but unfinished): lists them again.
    assert resume_after(ahead, folder) == folder + KEY + "~"
    behind = position(listed={folder: folder + "2024-06-01T00_00_00.000000000Z.rcd_sig"})
    # A lagging folder resumes where it was.
    assert resume_after(behind, folder) == folder + "2024-06-01T00_00_00.000000000Z.rcd_sig"
    assert resume_after(behind, "recordstreams/record0.0.4/") == "recordstreams/record0.0.4/" + KEY + "~"
    # The period's own files sort before the resume point, the next period's after it.
    assert folder + KEY + ".rcd_sig" < resume_after(ahead, folder) < folder + "2024-06-01T00_00_02.000000001Z.rcd"
