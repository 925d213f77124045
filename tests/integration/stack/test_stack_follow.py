"""A local stack that follows a source (``stack up --follow``) as the deployed follower follows a
network's bucket: the follow function from the catalogue called back to back, no ingest and no
bucket events; a live network writes into a directory (or an S3 bucket on the moto server) while it
is followed, every block becomes queryable and complete, and the status shows the follower's
position and calls."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hedera_history.cli import stack_cmd
from hedera_history.gen.live import LiveConfig, LivePlayer
from hedera_history.localstack.balances import load_directory_snapshot
from hedera_history.localstack.emulators import S3_TEST_CREDENTIALS, S3Emulator
from hedera_history.localstack.live_follow import BlockArrivals, prepare_live_network
from hedera_history.localstack.stack_progress import open_gateway_for
from hedera_history.localstack.stack_state import read_state
from hedera_history.pipeline.history_start import SnapshotLoad
from hedera_history.sources.base import open_sink
from hedera_history.store.reader import HistoryReader

from tests.fixtures.stack import StackFactory
from tests.helpers.following import follow_a_live_network

pytestmark = [pytest.mark.emulator, pytest.mark.e2e]

PERIODS = 10
WAIT_SECONDS = 240.0


def test_the_stack_follows_a_directory_a_live_network_writes_into(
    local_stack_factory: StackFactory, tmp_path: Path
) -> None:
    config = LiveConfig(nodes=4, periods=PERIODS, period_seconds=0.5, transactions=5, seed=4)
    # short windows, so the run crosses from one call of the follow function to the next
    followed = follow_a_live_network(
        local_stack_factory, tmp_path, config, extra_env={"HEDERA_HISTORY_FOLLOW_WINDOW_SECONDS": "6"}
    )
    stack, network, source, player = followed.stack, followed.network, followed.source, followed.player
    state = stack.state
    assert state.following and state.follow_source == str(source.resolve())
    assert {record.name for record in state.functions} == {"sweep", "store", "follow", "query"}
    assert state.function_env["HEDERA_HISTORY_STREAM_BUCKET"] == str(source.resolve())
    assert load_directory_snapshot(state, network.folder) is SnapshotLoad.LOADED
    bridges = stack.bridges
    assert bridges is not None and bridges.events is None and bridges.follower is not None

    blocks = set(range(network.first_block, network.first_block + PERIODS))
    with BlockArrivals(stack.url("query"), network.first_block) as arrivals:
        player.on_period = arrivals.period_written
        player.start()
        summary = player.join(WAIT_SECONDS)
        assert summary.periods == PERIODS
        assert arrivals.wait_for(blocks, WAIT_SECONDS), f"answered: {sorted(arrivals.answered())}"

    gateway = open_gateway_for(state)
    try:
        assert HistoryReader(gateway).complete_blocks(sorted(blocks)) == blocks
    finally:
        gateway.close()
    # windows of 6 s: calls return and the next one takes over from the stored position
    follower = bridges.follower
    deadline = time.monotonic() + WAIT_SECONDS
    while follower.calls < 1 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert follower.calls >= 1

    result = CliRunner().invoke(
        stack_cmd.stack, ["status", "--state-dir", state.state_dir, "--json"], env={"COLUMNS": "300"}
    )
    report = json.loads(result.stdout)
    assert report["follow_source"] == str(source.resolve())
    follower = report["follower"]
    assert follower["status"] == "following", report
    assert follower["source"].rstrip("/") == str(source.resolve()) and follower["lag_seconds"] >= 0
    table = CliRunner().invoke(stack_cmd.stack, ["status", "--state-dir", state.state_dir], env={"COLUMNS": "300"})
    assert "s behind" in table.stdout
    assert read_state(Path(state.state_dir)) is not None


def test_the_stack_follows_an_s3_bucket_on_the_moto_server(
    local_stack_factory: StackFactory, s3_server: S3Emulator, s3_bucket: str, tmp_path: Path
) -> None:
    config = LiveConfig(nodes=4, periods=4, period_seconds=0.5, transactions=5, seed=6)
    started = datetime.now(UTC)
    network = prepare_live_network(config, tmp_path / "book")
    s3_env: dict[str, Any] = {"HEDERA_HISTORY_S3_ENDPOINT_URL": s3_server.endpoint_url, **S3_TEST_CREDENTIALS}
    stack = local_stack_factory(
        address_book=network.address_book,
        first_block=network.first_block,
        follow_source=f"s3://{s3_bucket}",
        follow_start=started.isoformat(),
        extra_env=s3_env,
    )
    settings = stack.settings().with_(s3_endpoint_url=s3_server.endpoint_url)
    player = LivePlayer(config, open_sink(f"s3://{s3_bucket}", settings))
    blocks = set(range(network.first_block, network.first_block + 4))
    with BlockArrivals(stack.url("query"), network.first_block) as arrivals:
        player.on_period = arrivals.period_written
        player.start()
        assert player.join(WAIT_SECONDS).periods == 4
        assert arrivals.wait_for(blocks, WAIT_SECONDS), f"answered: {sorted(arrivals.answered())}"
    gateway = open_gateway_for(stack.state)
    try:
        assert HistoryReader(gateway).complete_blocks(sorted(blocks)) == blocks
    finally:
        gateway.close()
