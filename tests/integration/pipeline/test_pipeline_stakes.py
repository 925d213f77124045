"""Stake-weighted consensus through ingest and store on the emulators, called in process.

The stream's stakes change in block 1 so that a count and the stakes disagree both ways
(``tests/helpers/staked_stream.py``): the pipeline must publish what the stakes say, leave the
block only a count accepts pending, and write what the single-process path writes. A stream
started after a backfill must weigh the nodes with the stakes the backfill put in force.

Block 4 never verifies, so the stream stops there: block 5 (which the single-process path, going
on with the state it knows, writes) is held, since block 4 might change the keys or stakes it is
verified with. As the mirror node, which never reads past a file it could not verify.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hedera_history.books.parse import parse_address_book
from hedera_history.books.stakes import NodeStakes
from hedera_history.config import Settings
from hedera_history.gen import GeneratedStream, generate_stream, write_stream
from hedera_history.pipeline.ingest import HELD_FOR_STATE, ingest_object
from hedera_history.pipeline.sweep import sweep
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.store.bigtable_client import gateway_for_instance
from hedera_history.store.reader import HistoryReader
from hedera_history.store.schema import ensure_tables
from hedera_history.store.writer import BlockWriter
from hedera_history.verify.stream import verify_stream

from tests.fixtures.emulators import PROJECT
from tests.helpers.backfill import backfill_in_process, stream_job
from tests.helpers.staked_stream import ONLY_BY_COUNT, ONLY_BY_STAKE, STAKED, STAKES, VERIFIED

from .harness import Pipeline, history_cells, make_pipeline

pytestmark = [pytest.mark.emulator]

STREAMED = tuple(n for n in VERIFIED if n < ONLY_BY_COUNT)
"""What the stream publishes: the verified blocks before the one that never verifies."""


@pytest.fixture(scope="module")
def stream() -> GeneratedStream:
    return generate_stream(STAKED)


@pytest.fixture(scope="module")
def folder(stream: GeneratedStream, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("staked-stream")
    write_stream(stream, out)
    return out


def _objects(stream: GeneratedStream, periods: range) -> dict[str, bytes]:
    paths = {path for period in periods for node in stream.nodes for path in stream.period_paths(node.node_id, period)}
    return {path: stream.objects[path] for path in sorted(paths) if path in stream.objects}  # signers only


def _feed(pipeline: Pipeline, objects: dict[str, bytes], rng: random.Random) -> None:
    for name in pipeline.upload(objects, rng, duplicates=4):
        ingest_object(pipeline.ingest, name)
    pipeline.drain(rng)


def _pending_blocks(pipeline: Pipeline, stream: GeneratedStream) -> list[int]:
    by_time = {p.record_name.consensus_ns: i for i, p in enumerate(stream.periods)}
    return [by_time[p.consensus_ns] for p in pipeline.ingest.state.pending(100)]


@pytest.fixture
def pipeline(
    bigtable_instance: Any, gcs_bucket: Any, pubsub_emulator: Any, tmp_path: Path, stream: GeneratedStream
) -> Iterator[Pipeline]:
    yield from make_pipeline(bigtable_instance, gcs_bucket, tmp_path, stream.address_book, first_block=0)


def test_the_stream_publishes_what_the_stakes_say(
    pipeline: Pipeline, stream: GeneratedStream, folder: Path, bigtable_instance: Any
) -> None:
    rng = random.Random(21)
    # Blocks 0-2 first (block 1 carries the update), then every copy of 3-5 shuffled with
    # duplicates: published predecessors give each later period the stakes in force, applied by
    # the keeper or not yet.
    _feed(pipeline, _objects(stream, range(0, 3)), rng)
    _feed(pipeline, _objects(stream, range(3, 6)), rng)
    sweep(pipeline.ingest)
    pipeline.drain(rng)

    reader = HistoryReader(pipeline.gateway)
    assert reader.complete_blocks(range(6)) == set(STREAMED)
    assert _pending_blocks(pipeline, stream) == [ONLY_BY_COUNT, ONLY_BY_COUNT + 1]
    state = pipeline.ingest.state.period(stream.periods[ONLY_BY_COUNT].record_name.consensus_ns)
    assert state is not None and "stake 30 of 100" in state.reason
    held = pipeline.ingest.state.period(stream.periods[ONLY_BY_COUNT + 1].record_name.consensus_ns)
    assert held is not None and held.reason.startswith(HELD_FOR_STATE)
    block = reader.get_block(ONLY_BY_STAKE)
    assert block is not None and [s.node_account for s in block.signatures] == ["0.0.3"]
    assert history_cells(pipeline.gateway) == _reference(bigtable_instance, stream, folder)


def test_a_stream_started_after_a_backfill_weighs_with_its_stakes(
    bigtable_instance: Any, gcs_bucket: Any, pubsub_emulator: Any, tmp_path: Path, stream: GeneratedStream, folder: Path
) -> None:
    first_streamed = ONLY_BY_STAKE
    periods = stream.periods
    for pipeline in make_pipeline(
        bigtable_instance, gcs_bucket, tmp_path, stream.address_book, first_block=first_streamed
    ):
        job = stream_job(stream, folder, last=first_streamed - 1, settings=pipeline.settings, partitions=2)
        report = backfill_in_process(job, pipeline.gateway)
        assert report.ok and report.counts.written == first_streamed

        rng = random.Random(22)
        _feed(pipeline, _objects(stream, range(first_streamed, len(periods))), rng)
        sweep(pipeline.ingest)
        pipeline.drain(rng)

        start = periods[first_streamed].record_name.consensus_ns
        assert pipeline.ingest.books.stakes_at(start) == NodeStakes.of(dict(enumerate(STAKES)))
        reader = HistoryReader(pipeline.gateway)
        assert reader.complete_blocks(range(6)) == set(STREAMED)
        assert _pending_blocks(pipeline, stream) == [ONLY_BY_COUNT, ONLY_BY_COUNT + 1]


def _reference(bigtable_instance: Any, stream: GeneratedStream, folder: Path) -> dict[Any, Any]:
    """What the single-process path writes for the blocks the stream publishes (tables under
    another prefix)."""
    settings = Settings.from_env(project=PROJECT, bigtable_instance=bigtable_instance.instance_id, table_prefix="sr_")
    ensure_tables(bigtable_instance, settings)
    results = list(verify_stream(find_local_periods(folder), parse_address_book(stream.address_book)))
    gateway = gateway_for_instance(bigtable_instance, settings)
    try:
        blocks = [r.report.block for r in results if r.report.block is not None and r.block_number in STREAMED]
        assert all(r.complete for r in BlockWriter(gateway, settings).write_blocks(blocks))
        return history_cells(gateway)
    finally:
        gateway.close()


def test_a_block_verified_before_the_stakes_are_certain_is_never_published_on_them(
    pipeline: Pipeline, stream: GeneratedStream, caplog: pytest.LogCaptureFixture
) -> None:
    rng = random.Random(23)
    # Block 4 arrives before blocks 1-3 are published: nothing tells of the stake update yet, and
    # by the book's weights three of four signers are consensus. It is held, not published.
    _feed(pipeline, _objects(stream, range(0, 1)), rng)
    _feed(pipeline, _objects(stream, range(ONLY_BY_COUNT, ONLY_BY_COUNT + 1)), rng)
    early = pipeline.ingest.state.period(stream.periods[ONLY_BY_COUNT].record_name.consensus_ns)
    assert early is not None and early.published is None and early.reason.startswith(HELD_FOR_STATE)
    # Its predecessors arrive: once block 3 is published, block 4 is verified again at once with the
    # stakes block 1 put in force (30 of 100), and stays pending for want of consensus.
    with caplog.at_level("INFO"):
        _feed(pipeline, _objects(stream, range(1, ONLY_BY_COUNT)), rng)
        sweep(pipeline.ingest)
        pipeline.drain(rng)
    assert HistoryReader(pipeline.gateway).complete_blocks(range(6)) == set(STREAMED)
    state = pipeline.ingest.state.period(stream.periods[ONLY_BY_COUNT].record_name.consensus_ns)
    assert state is not None and state.published is None and "stake 30 of 100" in state.reason
    assert not state.reason.startswith(HELD_FOR_STATE)
    assert not [r for r in caplog.records if r.getMessage() in ("consensus lost", "period verified") and _block(r) == 4]


def _block(record: Any) -> object:
    return getattr(record, "fields", {}).get("block")
