"""A local stack that follows a network already running (``stack up --follow`` on an empty store,
no first block given, default start), as ``docs/local-stack.md`` shows it: every block from the
follower's first period on completes, ``stack wait --blocks`` counts from there and the derived
balances begin there. And a follower whose calls keep failing: ``stack status`` says why and
``stack wait`` gives up at once with that error instead of waiting for blocks that never come."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from hedera_history.cli import stack_cmd
from hedera_history.config import Settings
from hedera_history.derived.balances import read_progress
from hedera_history.gen.live import LiveConfig, LivePlayer, PeriodWritten
from hedera_history.localstack.live_follow import prepare_live_network
from hedera_history.localstack.stack import LocalStack
from hedera_history.localstack.stack_progress import open_gateway_for
from hedera_history.pipeline.address_books import read_stream_start
from hedera_history.sources.base import open_sink
from hedera_history.store.bigtable_client import BigtableDataGateway
from hedera_history.store.reader import HistoryReader

from tests.fixtures.stack import StackFactory
from tests.integration.follow.harness import wait_for

pytestmark = [pytest.mark.emulator, pytest.mark.e2e]

WAIT_SECONDS = 240.0
PLAYED_BEFORE = 4
"""Periods the network has written before the stack starts."""
FOLLOWED = 6
"""Blocks the stack completes before the network is stopped."""


def stack_cli(stack: LocalStack, *args: str) -> Result:
    result = CliRunner().invoke(stack_cmd.stack, [*args, "--state-dir", stack.state.state_dir], env={"COLUMNS": "300"})
    assert "Traceback" not in result.output, result.output
    return result


def first_followed_block(gateway: BigtableDataGateway) -> int | None:
    start = read_stream_start(gateway)
    return None if start is None else start.block


def test_the_stack_follows_a_live_network_that_started_before_it(
    local_stack_factory: StackFactory, tmp_path: Path
) -> None:
    config = LiveConfig(nodes=4, periods=None, period_seconds=0.5, transactions=5, seed=9)
    network = prepare_live_network(config, tmp_path / "book")
    source = tmp_path / "bucket"
    written: list[PeriodWritten] = []
    enough = threading.Event()

    def period_written(period: PeriodWritten) -> None:
        written.append(period)
        if len(written) >= PLAYED_BEFORE:
            enough.set()

    player = LivePlayer(config, open_sink(str(source), Settings()), book_dir=network.folder, on_period=period_written)
    player.start()
    try:
        assert enough.wait(WAIT_SECONDS), "the network did not get going"
        # As a user would: the book the network was given, nothing about its first block or start.
        stack = local_stack_factory(address_book=network.address_book, follow_source=str(source))
        assert stack.state.first_block == 0
        gateway = open_gateway_for(stack.state)
        reader = HistoryReader(gateway)
        wait_for(lambda: first_followed_block(gateway) is not None, WAIT_SECONDS, "the follower's first block")
        first = first_followed_block(gateway)
        assert first is not None and first >= PLAYED_BEFORE  # the network was well under way
        followed = list(range(first, first + FOLLOWED))
        wait_for(lambda: reader.complete_blocks(followed) == set(followed), WAIT_SECONDS, f"blocks {followed}")
    finally:
        player.stop()  # the files of the periods generated so far are all written first
        summary = player.join(WAIT_SECONDS)
    assert summary.last_block is not None and summary.last_block >= followed[-1]
    every = list(range(first, summary.last_block + 1))
    wait_for(lambda: reader.complete_blocks(every) == set(every), WAIT_SECONDS, f"every block from {first}")
    assert not reader.complete_blocks(range(first))  # the blocks before its start were never read

    done = stack_cli(stack, "wait", "--blocks", str(len(every)), "--timeout", "60")
    assert done.exit_code == 0 and f"blocks {first}-{summary.last_block}: all" in done.stdout
    wait_for(lambda: read_progress(gateway) is not None, WAIT_SECONDS, "derived balances to begin")
    report = json.loads(stack_cli(stack, "status", "--json").stdout)
    assert report["follower"]["status"] == "following"
    assert report["progress"]["first_block"] == first
    gateway.close()


def test_a_follower_whose_calls_fail_shows_in_status_and_stops_a_wait(
    local_stack_factory: StackFactory, tmp_path: Path
) -> None:
    not_a_book = tmp_path / "not-a-book.bin"
    not_a_book.write_bytes(b"this is not a NodeAddressBook")
    stack = local_stack_factory(address_book=not_a_book, follow_source=str(tmp_path / "network"))

    def follower() -> dict[str, Any]:
        follower: dict[str, Any] = json.loads(stack_cli(stack, "status", "--json").stdout)["follower"]
        return follower

    wait_for(lambda: follower()["status"] == "failing", WAIT_SECONDS, "the follower to be reported failing")
    reason = follower()["error"]
    assert "AddressBook" in reason  # the function's own error: the file given is no book
    assert "failing: " in stack_cli(stack, "status").stdout

    waited = stack_cli(stack, "wait", "--blocks", "1", "--timeout", "600")
    assert waited.exit_code == 1
    assert "the follower is failing, no block will come" in waited.stderr and reason[:60] in waited.stderr
