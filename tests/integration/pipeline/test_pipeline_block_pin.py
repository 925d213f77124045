"""The stream numbers pre-V6 blocks from a block pin as the backfill does (real V5 files, emulators)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from hedera_history.pipeline.ingest import ingest_object
from hedera_history.pipeline.sweep import sweep
from hedera_history.store.reader import HistoryReader

from .harness import make_pipeline
from .test_pipeline_real_files import bucket_objects

pytestmark = [pytest.mark.emulator]

SECOND_END = 1610402974097416003
"""Consensus end of the second real V5 file (2021-01-11T22_09_34.097416003Z)."""


def test_the_sweep_counts_the_first_pre_v6_block_from_the_pin(
    hedera_data: Path, bigtable_instance: Any, gcs_bucket: Any, pubsub_emulator: Any, tmp_path: Path
) -> None:
    book = (hedera_data / "addressbook" / "test-resources-testnet.bin").read_bytes()
    pin = f"{SECOND_END}:34305852"
    for pipeline in make_pipeline(bigtable_instance, gcs_bucket, tmp_path, book, first_block=34305851, block_pin=pin):
        rng = random.Random(5)
        for name in pipeline.upload(bucket_objects(hedera_data / "v5"), rng):
            ingest_object(pipeline.ingest, name)
        report = sweep(pipeline.ingest)
        assert report.outcomes["published"] == 2, report.as_dict()
        pipeline.drain(rng)

        assert HistoryReader(pipeline.gateway).get_blocks(34305800, 34305900) == [34305851, 34305852]
        assert pipeline.ingest.state.pending(10) == []


def test_a_pin_no_file_ends_at_keeps_the_period_pending(
    hedera_data: Path, bigtable_instance: Any, gcs_bucket: Any, pubsub_emulator: Any, tmp_path: Path
) -> None:
    book = (hedera_data / "addressbook" / "test-resources-testnet.bin").read_bytes()
    pin = f"{SECOND_END - 1}:34305852"  # inside the second file: no file ends there
    for pipeline in make_pipeline(bigtable_instance, gcs_bucket, tmp_path, book, first_block=0, block_pin=pin):
        rng = random.Random(6)
        for name in pipeline.upload(bucket_objects(hedera_data / "v5"), rng):
            ingest_object(pipeline.ingest, name)
        report = sweep(pipeline.ingest)
        assert report.outcomes["published"] == 0, report.as_dict()
        assert any("pin" in error for error in report.errors), report.as_dict()
        assert (
            HistoryReader(pipeline.gateway).get_blocks(0) == []
            and HistoryReader(pipeline.gateway).get_blocks(34305800) == []
        )
