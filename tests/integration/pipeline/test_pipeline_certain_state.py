"""A period is published only on a certain state: the address book and node stakes in force, every
earlier block's changes applied by the keeper or projected from their recorded rows. And a fork is
held and alerted, never decided. Ingest and store on the emulators, called in process.

The stream: four nodes, node 0.0.6 holds 40 of 100 stake (over the 1/3 threshold alone), and its
key rotates in block 4 (the new book is in force from block 5).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hedera_history.formats.dispatch import parse_record_file
from hedera_history.gen import GeneratedStream, GeneratorConfig, generate_stream, tamper
from hedera_history.gen.signing import signed_signature_file
from hedera_history.pipeline.ingest import HELD_FOR_STATE, Outcome, ingest_object
from hedera_history.pipeline.sweep import sweep
from hedera_history.store.reader import HistoryReader

from .harness import Pipeline, make_pipeline

pytestmark = [pytest.mark.emulator]

ROTATED = 3
"""Node id 3 (0.0.6): its key rotates in block ``ROTATION``."""
ROTATION = 4
WINDOW = ROTATION + 1
"""The first block verified with the new key: the window is while block ``ROTATION`` is unpublished."""
CONFIG = GeneratorConfig(nodes=4, periods=8, transactions=4, seed=3, stakes=(20, 20, 20, 40))


@pytest.fixture(scope="module")
def stream() -> GeneratedStream:
    stream = generate_stream(CONFIG)
    assert stream.book_for_block(ROTATION).key_generations[ROTATED] == 0
    assert stream.book_for_block(WINDOW).key_generations[ROTATED] == 1
    return stream


@pytest.fixture
def pipeline(
    bigtable_instance: Any, gcs_bucket: Any, pubsub_emulator: Any, tmp_path: Path, stream: GeneratedStream
) -> Iterator[Pipeline]:
    yield from make_pipeline(bigtable_instance, gcs_bucket, tmp_path, stream.address_book, first_block=0)


def _objects(stream: GeneratedStream, periods: range) -> dict[str, bytes]:
    paths = {path for period in periods for node in stream.nodes for path in stream.period_paths(node.node_id, period)}
    return {path: stream.objects[path] for path in sorted(paths) if path in stream.objects}


def _ingest(pipeline: Pipeline, objects: dict[str, bytes], rng: random.Random) -> list[Outcome]:
    outcomes = [ingest_object(pipeline.ingest, name).outcome for name in pipeline.upload(objects, rng)]
    pipeline.drain(rng)
    return outcomes


def _period(pipeline: Pipeline, stream: GeneratedStream, block: int) -> Any:
    return pipeline.ingest.state.period(stream.periods[block].record_name.consensus_ns)


def test_a_rotated_out_key_with_a_third_of_the_stake_never_gets_a_block_published(
    pipeline: Pipeline, stream: GeneratedStream
) -> None:
    rng = random.Random(31)
    _ingest(pipeline, _objects(stream, range(ROTATION)), rng)
    # In the window (block 4, which rotates the key, not published yet), the old key signs block 5
    # before any other node does: 40 of 100 by the book the keeper knows, consensus there.
    old_key = stream.signing_key(ROTATED, ROTATION)
    record = parse_record_file(stream.objects[stream.record_path(ROTATED, WINDOW)], "r.rcd.gz")
    stale = signed_signature_file(old_key, record.file_hash, record.metadata_hash)
    window = {path: data for path, data in _objects(stream, range(WINDOW, WINDOW + 1)).items() if "_sig" not in path}
    window[stream.signature_path(ROTATED, WINDOW)] = stale
    assert Outcome.PUBLISHED not in _ingest(pipeline, window, rng)
    held = _period(pipeline, stream, WINDOW)
    assert held.published is None and held.reason.startswith(HELD_FOR_STATE)

    # Block 4 is published: block 5 is verified again with the new key at once, and the stale
    # signature counts for nothing.
    _ingest(pipeline, _objects(stream, range(ROTATION, WINDOW)), rng)
    sweep(pipeline.ingest)
    pipeline.drain(rng)
    reader = HistoryReader(pipeline.gateway)
    assert reader.complete_blocks(range(CONFIG.periods)) == set(range(WINDOW))
    state = _period(pipeline, stream, WINDOW)
    assert state.published is None and not state.reason.startswith(HELD_FOR_STATE)
    assert state.reason.startswith("no valid signature among 4 nodes"), state.reason

    # The nodes' own signatures arrive: block 5 is published with the new key's signature.
    signatures = [stream.signature_path(n.node_id, WINDOW) for n in stream.nodes]
    _ingest(pipeline, {path: stream.objects[path] for path in signatures}, rng)
    assert reader.complete_blocks(range(CONFIG.periods)) == set(range(WINDOW + 1))
    block = reader.get_block(WINDOW)
    assert block is not None and len(block.signatures) == CONFIG.nodes


def test_in_order_every_period_is_published_at_once_while_the_keeper_lags(
    pipeline: Pipeline, stream: GeneratedStream
) -> None:
    rng = random.Random(32)
    # No store run between the periods: the keeper applies nothing, yet every earlier block is
    # recorded, so the state in force (the rotation of block 4 included) is projected exactly.
    for period in range(CONFIG.periods):
        names = pipeline.upload(_objects(stream, range(period, period + 1)), rng)
        outcomes = [ingest_object(pipeline.ingest, name).outcome for name in names]
        assert outcomes.count(Outcome.PUBLISHED) == 1, (period, outcomes)
        assert pipeline.ingest.books.applied_through() == -1
    assert pipeline.ingest.state.pending(10) == []
    pipeline.drain(rng)
    assert HistoryReader(pipeline.gateway).complete_blocks(range(CONFIG.periods)) == set(range(CONFIG.periods))


def test_a_fork_is_held_and_alerted_and_stops_the_stream_there(
    pipeline: Pipeline, stream: GeneratedStream, caplog: pytest.LogCaptureFixture
) -> None:
    rng = random.Random(33)
    forked = stream
    for node in (0, 1):  # 40 of 100 each side: 0.0.3 and 0.0.4 sign one other file, 0.0.5 and 0.0.6 the real one
        forked = tamper(forked, node, 2, resign=True)
    with caplog.at_level("INFO"):
        _ingest(pipeline, _objects(forked, range(4)), rng)
        sweep(pipeline.ingest)
        pipeline.drain(rng)
    assert HistoryReader(pipeline.gateway).complete_blocks(range(4)) == {0, 1}
    state = _period(pipeline, stream, 2)
    assert state.published is None and state.reason.startswith("fork: two file hashes each reach the threshold")
    forks = [r for r in caplog.records if r.getMessage() == "consensus fork"]
    assert forks and all(r.levelname == "ERROR" for r in forks)
    assert _period(pipeline, stream, 3).reason.startswith(HELD_FOR_STATE)


@pytest.mark.parametrize("late", [False, True], ids=["verifying", "after publication"])
def test_a_book_read_before_the_keeper_applied_a_rotation_is_read_again(
    pipeline: Pipeline, stream: GeneratedStream, late: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race between a run reading the book and the keeper applying a rotation: the run's first
    book read for the window's period answers the old book, while the keeper has already applied
    everything (so the certainty check passes)."""
    rng = random.Random(34)
    _ingest(pipeline, _objects(stream, range(WINDOW)), rng)
    assert pipeline.ingest.books.applied_through() >= ROTATION
    window_ns = stream.periods[WINDOW].record_name.consensus_ns
    stale = pipeline.ingest.books.consensus_book_at(stream.periods[ROTATION].record_name.consensus_ns)
    assert stale != pipeline.ingest.books.consensus_book_at(window_ns)
    rotated_signature = stream.signature_path(ROTATED, WINDOW)
    objects = _objects(stream, range(WINDOW, WINDOW + 1))
    if late:
        # Published on the others' signatures first; the rotated node's file arrives afterwards.
        _ingest(pipeline, {path: data for path, data in objects.items() if path != rotated_signature}, rng)
        assert _period(pipeline, stream, WINDOW).published is not None
        objects = {rotated_signature: objects[rotated_signature]}
    read_book = pipeline.ingest.books.consensus_book_at
    stale_answers: list[int] = []

    def book_read_before_the_keeper(consensus_ns: int) -> Any:
        if consensus_ns == window_ns and not stale_answers:
            stale_answers.append(consensus_ns)
            return stale
        return read_book(consensus_ns)

    monkeypatch.setattr(pipeline.ingest.books, "consensus_book_at", book_read_before_the_keeper)
    names = pipeline.upload(objects, rng)
    first = next(name for name in names if name.endswith(rotated_signature))
    # The rotated node's own file triggers the run that reads the stale book.
    order = [first, *(name for name in names if name != first)]
    outcomes = [ingest_object(pipeline.ingest, name).outcome for name in order]
    pipeline.drain(rng)
    assert stale_answers == [window_ns]
    assert Outcome.QUARANTINED not in outcomes, outcomes
    assert pipeline.ingest.state.quarantined(10) == []
    block = HistoryReader(pipeline.gateway).get_block(WINDOW)
    assert block is not None and len(block.signatures) == CONFIG.nodes
