"""The backfill and the streaming pipeline write the same history, cell for cell (every version).

The 50-period stream goes through ingest and store (the Pub/Sub path, in process) into one set of
tables and through the Spark backfill into another, in the same emulator instance.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from hedera_history.gen import GeneratedStream
from hedera_history.pipeline.ingest import ingest_object
from hedera_history.pipeline.sweep import sweep
from hedera_history.store import schema as s

from tests.fixtures.emulators import PROJECT
from tests.helpers.bigtable_cells import describe_difference, history_cells
from tests.integration.pipeline.harness import make_pipeline

from .conftest import History

pytestmark = [pytest.mark.spark, pytest.mark.emulator, pytest.mark.xdist_group("backfill-spark")]


def test_backfill_and_stream_write_identical_history(
    spark: Any, history: History, stream: GeneratedStream, gcs_bucket: Any, pubsub_emulator: Any, tmp_path: Path
) -> None:
    first = stream.truth["blocks"][0]["number"]
    for pipeline in make_pipeline(
        history.instance, gcs_bucket, tmp_path, stream.address_book, table_prefix="stream_", first_block=first
    ):
        rng = random.Random(9)
        for name in pipeline.upload(dict(stream.objects), rng, duplicates=20):
            ingest_object(pipeline.ingest, name)
        pipeline.drain(rng)
        sweep(pipeline.ingest)  # signatures first seen on the book before the rotation are rechecked
        pipeline.drain(rng)

    report = history.backfill(spark, history.job(f"gs://{gcs_bucket.name}", "backfill_"))
    assert report.ok
    streamed, backfilled = history.cells("stream_"), history.cells("backfill_")
    assert backfilled == streamed, describe_difference(streamed, backfilled)

    # Both record the books that came into force, so a stream started after a backfill knows them.
    def books(prefix: str) -> list[tuple[bytes, bytes]]:
        cells = history_cells(PROJECT, history.instance.instance_id, prefix, tables=(s.ADDRESS_BOOKS,))
        return [(cell[0], cell[4]) for cell in cells[s.ADDRESS_BOOKS] if cell[0].startswith(b"book/")]

    assert books("backfill_") == books("stream_") != []
