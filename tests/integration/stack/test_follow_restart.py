"""The follow function of a stack that follows a live network, killed mid-stream and restarted: the
restart is over within seconds although the stack calls the function back to back (each call
follows for a window), and following goes on from the stored position until every block is
complete."""

from __future__ import annotations

from pathlib import Path

import pytest
from hedera_history.gen.live import LiveConfig, PeriodWritten
from hedera_history.localstack.live_follow import BlockArrivals
from hedera_history.localstack.stack_progress import open_gateway_for
from hedera_history.store.reader import HistoryReader

from tests.fixtures.stack import StackFactory
from tests.helpers.following import follow_a_live_network

pytestmark = [pytest.mark.emulator, pytest.mark.e2e]

PERIODS = 40
RESTART_SECONDS = 30.0
"""A restart takes seconds; before, the readiness check waited behind follow windows (130 s and more)."""
WAIT_SECONDS = 240.0


def test_the_follow_function_restarts_in_seconds_and_following_goes_on(
    local_stack_factory: StackFactory, tmp_path: Path
) -> None:
    config = LiveConfig(nodes=4, periods=PERIODS, period_seconds=1.0, transactions=5, seed=8)
    # The deployed window (65 s): each call holds the function, which serves one at a time, that long.
    followed = follow_a_live_network(local_stack_factory, tmp_path, config)
    stack, network, player = followed.stack, followed.network, followed.player
    blocks = set(range(network.first_block, network.first_block + PERIODS))
    written: list[int] = []
    with BlockArrivals(stack.url("query"), network.first_block) as arrivals:

        def period_written(period: PeriodWritten) -> None:
            written.append(period.block_number)
            arrivals.period_written(period)

        player.on_period = period_written
        player.start()
        assert arrivals.wait_for({network.first_block, network.first_block + 1}, WAIT_SECONDS)
        follow = stack.function("follow")
        follow.kill()
        follow.restart(RESTART_SECONDS)  # while the stack's scheduler calls it again and again
        # A block whose period was written after the restart: a call of the new process follows
        # now, for its window, in the one request the function serves; it still answers its check.
        after = max(written) + 1
        assert after < network.first_block + PERIODS, "the network ended before the restart"
        assert arrivals.wait_for({after}, WAIT_SECONDS), f"answered: {sorted(arrivals.answered())}"
        follow.wait_ready(RESTART_SECONDS)
        assert player.join(WAIT_SECONDS).periods == PERIODS
        assert arrivals.wait_for(blocks, WAIT_SECONDS), f"answered: {sorted(arrivals.answered())}"

    gateway = open_gateway_for(stack.state)
    try:
        assert HistoryReader(gateway).complete_blocks(sorted(blocks)) == blocks
    finally:
        gateway.close()
