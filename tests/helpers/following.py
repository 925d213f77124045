"""A local stack following a directory that a live generated network is about to write into."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hedera_history.gen.live import LiveConfig, LivePlayer
from hedera_history.localstack.live_follow import PreparedNetwork, prepare_live_network
from hedera_history.localstack.stack import LocalStack
from hedera_history.sources.base import open_sink

from tests.fixtures.stack import StackFactory


@dataclass(frozen=True)
class FollowedNetwork:
    stack: LocalStack
    network: PreparedNetwork
    """The network's bootstrap book, keys and genesis balances, written before it starts."""
    source: Path
    """The directory the network writes into and the stack follows."""
    player: LivePlayer
    """Not started: set its ``on_period`` first."""


def follow_a_live_network(factory: StackFactory, tmp_path: Path, config: LiveConfig, **changes: Any) -> FollowedNetwork:
    """A stack (``changes``: more ``StackConfig`` fields) following, from now, the directory a live
    network with ``config`` will write into."""
    started = datetime.now(UTC)
    network = prepare_live_network(config, tmp_path / "book")
    source = tmp_path / "bucket"
    stack = factory(
        address_book=network.address_book,
        first_block=network.first_block,
        follow_source=str(source),
        follow_start=started.isoformat(),
        **changes,
    )
    player = LivePlayer(config, open_sink(str(source), stack.settings()), book_dir=network.folder)
    return FollowedNetwork(stack, network, source, player)
