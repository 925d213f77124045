"""`hedera-history stack status` shows the follower's position (source, period, lag, last update)
from its state row on the stack's Bigtable, and "not following" before there is one."""

from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner
from hedera_history.cli import stack_cmd
from hedera_history.follow.position import FollowPosition, write_position
from hedera_history.localstack.stack import LocalStack
from hedera_history.localstack.stack_progress import open_gateway_for
from hedera_history.pipeline.state import now_micros

pytestmark = [pytest.mark.emulator]

PERIOD = "2026-11-24T12_00_00.000000000Z"
CONSENSUS_NS = 1_795_003_200_000_000_000


def status(stack: LocalStack, *flags: str) -> Any:
    # wide enough that the table keeps the follower's line on one line
    result = CliRunner().invoke(
        stack_cmd.stack, ["status", "--state-dir", str(stack.state.state_dir), *flags], env={"COLUMNS": "300"}
    )
    assert "Traceback" not in result.output, result.output
    return result


def test_stack_status_shows_the_follower_position(local_stack: LocalStack) -> None:
    before = json.loads(status(local_stack, "--json").stdout)
    assert before["follower"] == {"status": "not following"}, before["error"]
    assert "not following" in status(local_stack).stdout

    gateway = open_gateway_for(local_stack.state)
    try:
        write_position(gateway, FollowPosition("gs://followed-bucket/", PERIOD, CONSENSUS_NS, now_micros(), {}))
    finally:
        gateway.close()

    follower = json.loads(status(local_stack, "--json").stdout)["follower"]
    assert follower["status"] == "following"
    assert (follower["source"], follower["period"]) == ("gs://followed-bucket/", PERIOD)
    assert follower["consensus_timestamp"] == f"{CONSENSUS_NS // 10**9}.000000000"
    assert follower["lag_seconds"] > 0 and follower["last_update_seconds_ago"] >= 0
    table = status(local_stack).stdout
    assert f"gs://followed-bucket/: period {PERIOD}" in table
    assert "s behind" in table
