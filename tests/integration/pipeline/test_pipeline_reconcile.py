"""The sweep's reconciler on the emulators, in process: a published period whose messages were lost
(the store killed, a push dead-lettered) is republished until its block completes, and a period
whose ingest run died before it could publish is verified again; the tables end cell for cell as
the single-process path writes them."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from hedera_history.formats.stream_paths import parse_object_path
from hedera_history.gen.config_and_output import GeneratedStream, GeneratorConfig
from hedera_history.gen.stream import generate_stream
from hedera_history.pipeline.ingest import ingest_object
from hedera_history.pipeline.period_state import PeriodProgress, Stage
from hedera_history.pipeline.store import store_message
from hedera_history.pipeline.sweep import sweep
from hedera_history.sources.period_files import StreamLocation
from hedera_history.store.reader import HistoryReader
from hedera_history.transport.message import ReceivedMessage

from .harness import Pipeline, history_cells, reference_cells

pytestmark = [pytest.mark.emulator]


@pytest.fixture(scope="module")
def stream() -> GeneratedStream:
    return generate_stream(GeneratorConfig(nodes=4, periods=4, transactions=12, sidecars=True, seed=13))


@pytest.fixture
def pipeline_settings() -> dict[str, Any]:
    return {"reconcile_after_seconds": 0}


def lose_messages(pipeline: Pipeline, share: float, rng: random.Random) -> int:
    """Pull what waits on the store subscriptions and acknowledge a ``share`` of it unseen (a store
    killed after the push was acknowledged, a dead-lettered message gone); store the rest."""
    lost = 0

    def store_or_lose(message: ReceivedMessage) -> None:
        nonlocal lost
        if rng.random() < share:
            lost += 1
        else:
            store_message(pipeline.store, message)

    pipeline.take_waiting(store_or_lose)
    return lost


def test_lost_messages_are_republished_until_every_block_is_complete(
    pipeline: Pipeline, stream: GeneratedStream, bigtable_instance: Any, tmp_path: Path
) -> None:
    rng = random.Random(11)
    for name in pipeline.upload(dict(stream.objects), rng):
        ingest_object(pipeline.ingest, name)
    assert lose_messages(pipeline, 0.5, rng) > 0
    numbers = [b["number"] for b in stream.truth["blocks"]]
    reader = HistoryReader(pipeline.gateway)
    assert reader.get_blocks(numbers[0], numbers[-1]) != numbers, "some block must have lost a message"
    assert pipeline.ingest.state.pending(100) == []  # nothing pending: only the reconciler can heal it

    report = sweep(pipeline.ingest)
    assert report.reconciled.republished > 0
    pipeline.drain(rng)
    sweep(pipeline.ingest)  # the key rotation's rechecks, and the reconciler confirms what completed
    pipeline.drain(rng)
    final = sweep(pipeline.ingest)

    assert reader.get_blocks(numbers[0], numbers[-1]) == numbers
    assert pipeline.ingest.state.unconfirmed(100) == []
    assert final.reconciled.republished == 0
    assert all(count == 1 for count in pipeline.completions().values()), "a block completes once"
    assert history_cells(pipeline.gateway) == reference_cells(bigtable_instance, stream, tmp_path)


def test_a_period_whose_ingest_run_died_before_publishing_is_verified_again(
    pipeline: Pipeline, stream: GeneratedStream, bigtable_instance: Any, tmp_path: Path
) -> None:
    rng = random.Random(12)
    names = pipeline.upload(dict(stream.objects), rng)
    last_key = stream.periods[-1].record_name.period_key
    skipped = [name for name in names if last_key in name]
    assert skipped
    for name in names:
        if name not in skipped:
            ingest_object(pipeline.ingest, name)
    pipeline.drain(rng)
    # The run for the last period died right after it marked the period (no pending row, nothing
    # published), its claim run out.
    path = parse_object_path(skipped[0])
    died = PeriodProgress.of(pipeline.ingest.state, path.file.period_key, StreamLocation.of(path), Stage.NEW)
    assert died.claim(ttl_seconds=0)
    died.start_verifying()
    for _ in range(3):
        sweep(pipeline.ingest)
        pipeline.drain(rng)

    numbers = [b["number"] for b in stream.truth["blocks"]]
    assert HistoryReader(pipeline.gateway).get_blocks(numbers[0], numbers[-1]) == numbers
    assert pipeline.ingest.state.unconfirmed(100) == []
    assert history_cells(pipeline.gateway) == reference_cells(bigtable_instance, stream, tmp_path)
