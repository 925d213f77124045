"""The contiguous watermark crosses every legitimate boundary and stops only at a real break.

A generated stream in every record format (V1, V2, V5, V6), starting at the deployment's first
block, with a duplicate block number (as mainnet's 44029066), goes through ingest and store in
shuffled order; the watermark must reach its last block. A stream whose link is really broken
stops the watermark before the break, and the break is recorded and alerted.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hedera_history.formats.names import parse_timestamp
from hedera_history.gen import GeneratorConfig, generate_stream
from hedera_history.gen.config_and_output import GeneratedStream
from hedera_history.pipeline.ingest import ingest_object
from hedera_history.pipeline.sweep import sweep
from hedera_history.store.reader import HistoryReader

from .harness import Pipeline, make_pipeline

pytestmark = [pytest.mark.emulator]

START = 10
DUPLICATE = 17


@pytest.fixture(scope="module")
def stream() -> GeneratedStream:
    return generate_stream(
        GeneratorConfig(
            nodes=4,
            periods=10,
            transactions=6,
            seed=8,
            start_block=START,
            eras=((1, 2), (2, 2), (5, 2), (6, 4)),
            duplicate_block_at=DUPLICATE,
        )
    )


@pytest.fixture
def pipeline(
    bigtable_instance: Any, gcs_bucket: Any, pubsub_emulator: Any, tmp_path: Path, stream: GeneratedStream
) -> Iterator[Pipeline]:
    yield from make_pipeline(
        bigtable_instance, gcs_bucket, tmp_path, stream.address_book, first_block=START, start_block=START
    )


def run(pipeline: Pipeline, objects: dict[str, bytes], seed: int, sweeps: int = 4) -> None:
    # the first pre-V6 block is numbered by the sweep; the rest follow it
    pipeline.run_stream(objects, random.Random(seed), sweeps=sweeps)


def test_the_watermark_crosses_every_format_boundary_and_the_duplicate_number(
    pipeline: Pipeline, stream: GeneratedStream
) -> None:
    run(pipeline, dict(stream.objects), seed=21)
    last = stream.truth["blocks"][-1]["number"]
    watermark = pipeline.store.tracker.watermark()
    assert watermark is not None and watermark.number == last
    assert pipeline.ingest.state.broken_links() == {}
    assert pipeline.ingest.state.pending(100) == []


def test_a_real_break_stops_the_watermark_before_it_and_is_alerted(
    pipeline: Pipeline, stream: GeneratedStream, caplog: pytest.LogCaptureFixture
) -> None:
    # Without the first of the two files numbered 17 anywhere, the second names a file no node has:
    # nothing lies between block 16 and it, so the link is broken, not a twin still to come.
    first_twin = next(b for b in stream.truth["blocks"] if b["number"] == DUPLICATE)
    key = first_twin["name"].split(".rcd")[0]
    objects = {name: data for name, data in stream.objects.items() if key not in name}
    with caplog.at_level("ERROR"):
        run(pipeline, objects, seed=22)
    watermark = pipeline.store.tracker.watermark()
    assert watermark is not None and watermark.number == DUPLICATE - 1
    broken = pipeline.ingest.state.broken_links()
    assert list(broken) == [DUPLICATE] and "names its predecessor" in broken[DUPLICATE]
    assert any(record.getMessage() == "chain link broken" for record in caplog.records)
    # Never published: the second file numbered 17 stays pending with the break as its reason.
    second_twin = [b for b in stream.truth["blocks"] if b["number"] == DUPLICATE][1]
    assert HistoryReader(pipeline.gateway).get_block(DUPLICATE) is None
    pending = {p.period_key: p for p in pipeline.ingest.state.pending(100)}
    state = pipeline.ingest.state.period(parse_timestamp(second_twin["name"].split(".rcd")[0]))
    assert state is not None and state.reason.startswith("broken chain link, kept out of the history")
    assert second_twin["name"].split(".rcd")[0] in pending


def test_pre_v6_blocks_an_outage_apart_are_numbered_and_the_watermark_follows(
    bigtable_instance: Any, gcs_bucket: Any, pubsub_emulator: Any, tmp_path: Path
) -> None:
    # Files before V6 take their number from the previous file, however long the network was quiet
    # in between (here an hour and a half between files): the gap must not leave them pending.
    quiet = generate_stream(
        GeneratorConfig(
            nodes=4, periods=4, transactions=4, seed=3, start_block=START, eras=((2, 2), (5, 2)), period_seconds=5400
        )
    )
    for pipeline in make_pipeline(
        bigtable_instance, gcs_bucket, tmp_path, quiet.address_book, first_block=START, start_block=START
    ):
        run(pipeline, dict(quiet.objects), seed=23)
        watermark = pipeline.store.tracker.watermark()
        assert watermark is not None and watermark.number == START + 3
        assert pipeline.ingest.state.pending(100) == []


def test_a_first_block_setting_below_the_streams_first_number_is_reported_not_a_silent_stall(
    bigtable_instance: Any, gcs_bucket: Any, pubsub_emulator: Any, tmp_path: Path, stream: GeneratedStream
) -> None:
    # The stream's first file is numbered 10 (the start block) but the watermark would wait for 4.
    for pipeline in make_pipeline(
        bigtable_instance, gcs_bucket, tmp_path, stream.address_book, first_block=START - 6, start_block=START
    ):
        rng = random.Random(24)
        for name in pipeline.upload(dict(stream.objects), rng):
            ingest_object(pipeline.ingest, name)
        report = sweep(pipeline.ingest)
        assert any(f"HEDERA_HISTORY_FIRST_BLOCK={START}" in error for error in report.errors), report.errors
        first = pipeline.ingest.state.period(parse_timestamp(stream.periods[0].record_name.period_key))
        assert first is not None and first.published is None and "could never start" in first.reason
