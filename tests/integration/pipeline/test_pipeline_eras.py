"""A generated stream across every format era (V1 -> V2 -> V5 -> V6) through the pipeline in
process: every block completes with its number, no link is recorded broken, the watermark reaches
the last block, and an in-process backfill of the same stream writes the same history cell for cell.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from hedera_history.gen import GeneratedStream, GeneratorConfig, generate_stream, write_stream
from hedera_history.pipeline.ingest import ingest_object
from hedera_history.pipeline.sweep import sweep
from hedera_history.store.bigtable_client import gateway_for_instance
from hedera_history.store.reader import HistoryReader
from hedera_history.store.schema import ensure_tables

from tests.helpers.backfill import backfill_in_process, stream_job

from .harness import history_cells, make_pipeline

pytestmark = [pytest.mark.emulator]

ERAS = ((1, 2), (2, 2), (5, 2), (6, 2))
START_BLOCK = 40


@pytest.fixture(scope="module")
def era_stream() -> GeneratedStream:
    return generate_stream(GeneratorConfig(nodes=4, periods=8, transactions=10, eras=ERAS, start_block=START_BLOCK))


def test_every_era_boundary_is_one_chain_in_the_pipeline_and_the_backfill(
    era_stream: GeneratedStream, bigtable_instance: Any, gcs_bucket: Any, pubsub_emulator: Any, tmp_path: Path
) -> None:
    numbers = list(range(START_BLOCK, START_BLOCK + 8))
    for pipeline in make_pipeline(
        bigtable_instance,
        gcs_bucket,
        tmp_path,
        era_stream.address_book,
        first_block=START_BLOCK,
        start_block=START_BLOCK,
    ):
        rng = random.Random(5)
        for name in pipeline.upload(dict(era_stream.objects), rng, duplicates=6):
            ingest_object(pipeline.ingest, name)
        for _ in range(4):  # the first pre-V6 block is numbered by the sweep; the rest follow their links
            sweep(pipeline.ingest)
            pipeline.drain(rng)

        reader = HistoryReader(pipeline.gateway)
        assert reader.get_blocks(0, 100) == numbers
        versions = [reader.get_block(n).version for n in numbers]  # type: ignore[union-attr]
        assert versions == [1, 1, 2, 2, 5, 5, 6, 6]
        assert pipeline.ingest.state.broken_links() == {}
        assert pipeline.ingest.state.pending(10) == []
        watermark = pipeline.store.tracker.watermark()
        assert watermark is not None and watermark.number == numbers[-1]
        streamed = history_cells(pipeline.gateway)

    folder = tmp_path / "stream"
    write_stream(era_stream, folder)
    settings = pipeline.settings.with_(table_prefix="b_")
    ensure_tables(bigtable_instance, settings)
    gateway = gateway_for_instance(bigtable_instance, settings)
    # Four partitions: a partition boundary on every era boundary.
    report = backfill_in_process(stream_job(era_stream, folder, settings=settings, partitions=4), gateway)
    assert report.ok, report.summary_lines()
    assert report.blocks == (numbers[0], numbers[-1])
    backfilled = history_cells(gateway)
    gateway.close()
    differing = sorted(key for key in set(streamed) | set(backfilled) if streamed.get(key) != backfilled.get(key))
    assert not differing, differing[:5]
