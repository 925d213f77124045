"""The deployed ``query`` function's GET /api/v1/status on the Bigtable emulator: the follower's
position written by ``write_position`` comes back with its source, period, lag and last update;
before any position, "not following"."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from hedera_history.config import Settings
from hedera_history.follow.position import FollowPosition, write_position
from hedera_history.pipeline.state import now_micros
from hedera_history.store.bigtable_client import gateway_for_instance
from hedera_history.store.schema import ensure_tables

from tests.integration.query_function import query_client

PREFIX = "st_"
PERIOD = "2026-11-24T12_00_00.000000000Z"
CONSENSUS_NS = 1_795_003_200_000_000_000


@pytest.fixture
def settings(bigtable_instance: Any) -> Settings:
    settings = Settings.from_env({}, table_prefix=PREFIX)
    ensure_tables(bigtable_instance, settings)
    return settings


@pytest.fixture
def client(bigtable_instance: Any, settings: Settings) -> Iterator[Any]:
    with query_client(bigtable_instance.instance_id, PREFIX) as client:
        yield client


def status(client: Any) -> dict[str, Any]:
    response = client.get("/api/v1/status")
    assert response.status_code == 200, response.data
    body: dict[str, Any] = response.get_json()
    return body


def test_status_is_not_following_before_a_position_then_shows_it(
    client: Any, bigtable_instance: Any, settings: Settings
) -> None:
    assert status(client) == {"follower": {"status": "not following"}}

    written = now_micros()
    gateway = gateway_for_instance(bigtable_instance, settings)
    try:
        write_position(
            gateway,
            FollowPosition(
                "s3://hedera-mainnet-streams/",
                PERIOD,
                CONSENSUS_NS,
                written,
                {"recordstreams/record0.0.3/": f"recordstreams/record0.0.3/{PERIOD}.rcd_sig"},
            ),
        )
    finally:
        gateway.close()

    asked = time.time_ns()
    follower = status(client)["follower"]
    answered = time.time_ns()
    assert follower["status"] == "following"
    assert follower["source"] == "s3://hedera-mainnet-streams/"
    assert follower["period"] == PERIOD
    assert follower["consensus_timestamp"] == f"{CONSENSUS_NS // 10**9}.000000000"
    assert follower["last_update"] == f"{written // 10**6}.{written % 10**6:06d}000"
    assert follower["last_update_seconds_ago"] >= 0
    # the lag is measured when asked: now minus the period's consensus time (rounded to the ms)
    assert (asked - CONSENSUS_NS) / 1e9 - 0.001 <= follower["lag_seconds"] <= (answered - CONSENSUS_NS) / 1e9 + 0.001
