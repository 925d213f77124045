"""The in-process backfill weighs consensus by the stream's node stakes, as the single-process path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hedera_history.books.stakes import NodeStakes
from hedera_history.gen import GeneratedStream, generate_stream, write_stream
from hedera_history.store import schema as s
from hedera_history.store.reader import HistoryReader

from tests.helpers.staked_stream import ONLY_BY_COUNT, STAKED, STAKES, VERIFIED
from tests.unit.store.fakes import MemoryGateway

from .conftest import InProcess, history_of, written_single_process


@pytest.fixture(scope="module")
def staked_stream() -> GeneratedStream:
    return generate_stream(STAKED)


@pytest.fixture(scope="module")
def staked_dir(staked_stream: GeneratedStream, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("staked-stream")
    write_stream(staked_stream, out)
    return out


@pytest.fixture(scope="module")
def staked_reference(staked_stream: GeneratedStream, staked_dir: Path) -> dict[str, Any]:
    return history_of(written_single_process(staked_dir, staked_stream))


@pytest.mark.parametrize(("partitions", "waves"), [(1, 1), (2, 2), (3, 2), (6, 2)])
def test_history_equals_the_single_process_path(
    staked_stream: GeneratedStream,
    staked_dir: Path,
    staked_reference: dict[str, Any],
    partitions: int,
    waves: int,
) -> None:
    backfill = InProcess(staked_stream, staked_dir, MemoryGateway())
    report = backfill.run(partitions=partitions)
    assert report.waves == waves
    assert report.counts.written == len(VERIFIED)
    # Block 4 verifies by count: a partition that guessed no stakes verified it, yet must not
    # have written it (history is never taken back); the confirmed run refuses it.
    assert [f.block_number for f in report.failures] == [ONLY_BY_COUNT]
    assert HistoryReader(backfill.gateway).complete_blocks(range(6)) == set(VERIFIED)
    assert backfill.history() == staked_reference


def test_the_stakes_a_backfill_puts_in_force_are_where_the_stream_finds_them(
    staked_stream: GeneratedStream, staked_dir: Path
) -> None:
    backfill = InProcess(staked_stream, staked_dir, MemoryGateway())
    backfill.run(partitions=3)
    rows = backfill.gateway.snapshot()[s.ADDRESS_BOOKS]
    stake_rows = {key: cells for key, cells in rows.items() if key.startswith(b"stakes/")}
    assert len(stake_rows) == 1
    ((_, value),) = next(iter(stake_rows.values())).values()
    assert NodeStakes.decode(value) == NodeStakes.of(dict(enumerate(STAKES)))
    again = backfill.run(partitions=2)  # resumes from its checkpoints: nothing to verify again
    assert again.waves == 1 and again.counts.skipped == len(VERIFIED) and again.counts.written == 0
