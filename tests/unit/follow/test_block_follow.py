"""The follower's block side with ingest replaced by a recording fake: each block decompressed once
for ingest and for the block nodes it registers, the next block asked for between ticks and not
read again, the wait between ticks ended by a block, and the alert when no block arrives."""

from __future__ import annotations

import logging
from typing import Any, cast

import pytest
from hedera_history.config import Settings
from hedera_history.follow import block_follow as block_follow_module
from hedera_history.follow.block_follow import BlockFollow
from hedera_history.follow.block_sources import CompositeBlocks, FetchedBlock
from hedera_history.follow.follower import Follower, FollowerClock
from hedera_history.formats import block as block_format
from hedera_history.formats.block import BlockFile
from hedera_history.formats.block_protos import StateChanges
from hedera_history.formats.zstd import unzstd
from hedera_history.pipeline.ingest import IngestContext, IngestResult, Outcome
from hedera_history.store import schema as s

from tests.unit.store.fakes import ConditionalMemoryGateway

from .test_registered_nodes import BLOCK_NODE_APIS, block_with, registered

BLOCK = 9


class Served:
    """A bucket whose blocks the test puts; counts the reads."""

    kind = "bucket"

    def __init__(self) -> None:
        self.blocks: dict[int, bytes] = {}
        self.reads = 0

    def fetch(self, number: int) -> FetchedBlock | None:
        self.reads += 1
        data = self.blocks.get(number)
        return None if data is None else FetchedBlock(number, f"{number}.blk.zstd", data, self.kind)

    def newest(self) -> int | None:
        return max(self.blocks, default=None)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(round(seconds, 6))
        self.now += seconds


@pytest.fixture
def ingested(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, BlockFile | None]]:
    """What the fake ingest was given: each block's name and the parse handed with it."""
    given: list[tuple[str, BlockFile | None]] = []

    def ingest_block(ctx: Any, name: str, data: bytes, checker: Any, *, parsed: BlockFile | None) -> IngestResult:
        given.append((name, parsed))
        checker.last_consensus_ns = 1
        return IngestResult(Outcome.PUBLISHED, name, int(name.partition(".")[0]))

    monkeypatch.setattr(block_follow_module, "ingest_block", ingest_block)
    return given


def following(served: Served, clock: Clock, **settings: Any) -> BlockFollow:
    chosen = Settings(**settings)
    gateway = ConditionalMemoryGateway([s.INGEST_PROGRESS])
    unused: Any = None  # parts of the context only ingest (faked here) uses
    ctx = IngestContext(chosen, unused, unused, unused, unused, cast(Any, gateway), unused, unused)
    return BlockFollow(ctx, chosen, CompositeBlocks([served]), next_block=BLOCK, monotonic=clock)


def test_a_block_is_decompressed_once_for_ingest_and_the_block_nodes_it_registers(
    monkeypatch: pytest.MonkeyPatch, ingested: list[tuple[str, BlockFile | None]]
) -> None:
    decompressed: list[str] = []

    def counted(data: bytes, name: str, **kwargs: Any) -> bytes:
        decompressed.append(name)
        return unzstd(data, name, **kwargs)

    monkeypatch.setattr(block_format, "unzstd", counted)
    changes = StateChanges()
    registered(changes, 1, {"ip_address": bytes([127, 0, 0, 1]), "port": 40840, "apis": list(BLOCK_NODE_APIS)})
    served = Served()
    served.blocks[BLOCK] = block_with(changes)
    follow = following(served, Clock(), block_node_discovery=True)
    assert follow.step() == 1
    assert decompressed == [f"{BLOCK}.blk.zstd"]
    [(name, parsed)] = ingested
    assert parsed is not None and parsed.number == BLOCK and name == f"{BLOCK}.blk.zstd"
    assert follow.registry.endpoints == ("127.0.0.1:40840",)
    assert follow.sources.kinds == "registered block node, bucket"


def test_the_next_block_asked_for_between_ticks_is_not_read_again(
    ingested: list[tuple[str, BlockFile | None]],
) -> None:
    served = Served()
    follow = following(served, Clock())
    assert not follow.block_arrived()
    served.blocks[BLOCK] = block_with(StateChanges())
    assert follow.block_arrived() and follow.block_arrived()
    reads = served.reads
    assert follow.step() == 1
    assert [name for name, _ in ingested] == [f"{BLOCK}.blk.zstd"]
    assert served.reads == reads + 1  # only block 10, not there yet
    assert follow.next_block == BLOCK + 1


class Arriving:
    """Stands for the block side: active, its next block there at the ``at``-th question."""

    active = True

    def __init__(self, at: int) -> None:
        self.at, self.asked = at, 0

    def block_arrived(self) -> bool:
        self.asked += 1
        return self.asked >= self.at


def waiting_follower(clock: Clock, blocks: object, **settings: Any) -> Follower:
    chosen = Settings(follow_poll_seconds=0.5, **settings)
    unused: Any = None
    ctx = IngestContext(chosen, unused, cast(Any, Served()), unused, unused, unused, unused, unused)
    follower = Follower(
        ctx, chosen, source_url="memory://", lease=unused, clock=FollowerClock(monotonic=clock, sleep=clock.sleep)
    )
    follower.blocks = cast(Any, blocks)
    return follower


def test_on_blocks_the_wait_for_the_next_tick_ends_when_the_block_is_there() -> None:
    clock = Clock()
    waiting_follower(clock, Arriving(at=3), follow_block_poll_seconds=0.1)._wait_until(0.5)
    assert clock.sleeps == [0.1, 0.1, 0.1]


def test_on_blocks_with_no_block_the_wait_lasts_the_poll_interval() -> None:
    clock = Clock()
    blocks = Arriving(at=100)
    waiting_follower(clock, blocks, follow_block_poll_seconds=0.2)._wait_until(0.5)
    assert clock.sleeps == [0.2, 0.2, 0.1] and blocks.asked == 3


def test_before_the_switch_or_with_no_block_poll_the_follower_sleeps_to_the_tick() -> None:
    for blocks, poll in ((None, 0.1), (Arriving(at=1), 0.0)):
        clock = Clock()
        waiting_follower(clock, blocks, follow_block_poll_seconds=poll)._wait_until(0.5)
        assert clock.sleeps == [0.5]


def test_no_block_for_the_alert_interval_logs_follower_no_block_again_each_interval(
    caplog: pytest.LogCaptureFixture, ingested: list[tuple[str, BlockFile | None]]
) -> None:
    """The event the deployment's alert counts (infra/follow.tf, ``blocks_not_arriving``)."""
    clock = Clock()
    served = Served()
    follow = following(served, clock, follow_block_alert_seconds=30.0)
    alerts: list[tuple[float, dict[str, Any]]] = []
    caplog.set_level(logging.ERROR, logger=block_follow_module.logger.name)
    for now in (0.0, 29.9, 30.0, 45.0, 59.9, 60.0):
        clock.now = now
        caplog.clear()
        assert follow.step() == 0
        alerts += [(now, r.fields) for r in caplog.records if r.getMessage() == "follower no block"]  # type: ignore[attr-defined]
    assert [now for now, _ in alerts] == [30.0, 60.0]
    assert alerts[0][1] == {"block": BLOCK, "waited_seconds": 30.0, "sources": "bucket"}
    served.blocks[BLOCK] = block_with(StateChanges())
    clock.now = 61.0
    assert follow.step() == 1
    clock.now = 61.0 + 29.9
    caplog.clear()
    assert follow.step() == 0
    assert not [r for r in caplog.records if r.getMessage() == "follower no block"]
