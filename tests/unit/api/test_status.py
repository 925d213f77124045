"""GET /api/v1/status shows the follower's position from its state row, or "not following"."""

from __future__ import annotations

from typing import Any

from hedera_history.api.app import handle
from hedera_history.api.status import follower_status
from hedera_history.follow.position import FollowPosition, write_position
from hedera_history.store import schema as s
from hedera_history.store.reader import HistoryReader

from tests.unit.store.fakes import MemoryGateway

PERIOD = "2024-06-01T00_00_02.000000000Z"
CONSENSUS_NS = 1_717_200_002_000_000_000
POSITION = FollowPosition(
    "gs://hedera-mainnet-streams/",
    PERIOD,
    CONSENSUS_NS,
    1_717_200_003_250_000,
    {"recordstreams/record0.0.3/": f"recordstreams/record0.0.3/{PERIOD}.rcd_sig"},
)


def status_of(gateway: MemoryGateway) -> dict[str, Any]:
    response = handle(lambda: HistoryReader(gateway), "GET", "/api/v1/status", {}, b"")
    assert response.status == 200, response.body
    body: dict[str, Any] = response.body
    return body


def test_without_a_position_the_deployment_is_not_following() -> None:
    assert status_of(MemoryGateway([s.INGEST_PROGRESS])) == {"follower": {"status": "not following"}}


def test_the_status_shows_source_period_lag_and_last_update() -> None:
    gateway = MemoryGateway([s.INGEST_PROGRESS])
    write_position(gateway, POSITION)
    follower = status_of(gateway)["follower"]
    assert follower["status"] == "following"
    assert follower["source"] == "gs://hedera-mainnet-streams/"
    assert follower["period"] == PERIOD
    assert follower["consensus_timestamp"] == "1717200002.000000000"
    assert follower["last_update"] == "1717200003.250000000"
    # read now, so the lag of a position written long ago is large and positive
    assert follower["lag_seconds"] > 0
    assert follower["last_update_seconds_ago"] > 0


def test_lag_and_age_are_measured_when_asked() -> None:
    answer = follower_status(POSITION, now_ns=CONSENSUS_NS + 12_500_000_000)
    assert answer["lag_seconds"] == 12.5
    assert answer["last_update_seconds_ago"] == 11.25
    assert follower_status(None) == {"status": "not following"}
