"""The duplicate block through the Pub/Sub pipeline and through the backfill: the same cells, every
version, and one merged block with both files kept (``store.duplicates``, docs/schema.md)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hedera_history.gen import GeneratorConfig, generate_stream, write_stream
from hedera_history.gen.config_and_output import GeneratedStream
from hedera_history.store.bigtable_client import gateway_for_instance
from hedera_history.store.duplicates import DuplicateBlock
from hedera_history.store.reader import HistoryReader
from hedera_history.store.schema import ensure_tables

from tests.fixtures.emulators import PROJECT
from tests.helpers.backfill import backfill_in_process, stream_job
from tests.helpers.bigtable_cells import describe_difference, history_cells

from .harness import Pipeline, make_pipeline

pytestmark = [pytest.mark.emulator]

DUPLICATE = 3


@pytest.fixture(scope="module")
def stream() -> GeneratedStream:
    return generate_stream(GeneratorConfig(nodes=4, periods=8, transactions=6, seed=5, duplicate_block_at=DUPLICATE))


def _fact(stream: GeneratedStream) -> str:
    first, second = (p for p in stream.periods if p.block_number == DUPLICATE)
    return str(DuplicateBlock(DUPLICATE, first.consensus_end_ns, second.consensus_end_ns))


@pytest.fixture
def pipeline(
    bigtable_instance: Any, gcs_bucket: Any, pubsub_emulator: Any, tmp_path: Path, stream: GeneratedStream
) -> Iterator[Pipeline]:
    yield from make_pipeline(
        bigtable_instance,
        gcs_bucket,
        tmp_path,
        stream.address_book,
        table_prefix="stream_",
        duplicate_blocks=_fact(stream),
    )


def test_stream_and_backfill_store_the_duplicate_block_alike(
    pipeline: Pipeline, stream: GeneratedStream, bigtable_instance: Any, tmp_path: Path
) -> None:
    rng = random.Random(31)
    pipeline.run_stream(dict(stream.objects), rng, duplicates=5)
    watermark = pipeline.store.tracker.watermark()
    assert watermark is not None and watermark.number == stream.truth["blocks"][-1]["number"]

    folder = tmp_path / "stream"
    write_stream(stream, folder)
    settings = pipeline.settings.with_(table_prefix="backfill_")
    ensure_tables(bigtable_instance, settings)
    gateway = gateway_for_instance(bigtable_instance, settings)
    try:
        report = backfill_in_process(stream_job(stream, folder, settings=settings, partitions=3), gateway)
        assert report.ok, report.summary_lines()
    finally:
        gateway.close()

    streamed = history_cells(PROJECT, bigtable_instance.instance_id, "stream_")
    backfilled = history_cells(PROJECT, bigtable_instance.instance_id, "backfill_")
    assert backfilled == streamed, describe_difference(streamed, backfilled)

    reader = HistoryReader(pipeline.gateway)
    block = reader.get_block(DUPLICATE)
    assert block is not None and [p.name for p in block.parts] == [
        b["name"] for b in stream.truth["blocks"] if b["number"] == DUPLICATE
    ]
    listed, errors = reader.block_transactions(DUPLICATE)
    truth = [t for t in stream.truth["transactions"] if t["block_number"] == DUPLICATE]
    assert not errors and [(t.consensus_ns, t.index) for t in listed] == [
        (t["consensus_ns"], t["index"]) for t in truth
    ]
