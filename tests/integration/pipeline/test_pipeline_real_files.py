"""The real V5 and V6 files in ``../shared/data/hedera`` through the same ingest and store steps."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from hedera_history.pipeline.ingest import ingest_object
from hedera_history.pipeline.sweep import sweep
from hedera_history.store.reader import HistoryReader

from tests.conformance.golden import V1_FILES, V2_FILES

from .harness import make_pipeline

pytestmark = [pytest.mark.emulator]

V6_BLOCKS = {5: "a6c241fad2c636f68a6aa0da92", 6: "3064b824b8b9f9ece011f88a26"}
V6_TRANSACTIONS = 3


def bucket_objects(root: Path) -> dict[str, bytes]:
    return {path.relative_to(root).as_posix(): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}


def test_real_v6_files_become_complete_blocks_with_their_sidecars(
    hedera_data: Path, bigtable_instance: Any, gcs_bucket: Any, pubsub_emulator: Any, tmp_path: Path
) -> None:
    book = (hedera_data / "addressbook" / "test-v6-sidecar-4n.bin").read_bytes()
    for pipeline in make_pipeline(bigtable_instance, gcs_bucket, tmp_path, book, first_block=5):
        rng = random.Random(1)
        for name in pipeline.upload(bucket_objects(hedera_data / "v6"), rng, duplicates=4):
            ingest_object(pipeline.ingest, name)
        pipeline.drain(rng)

        reader = HistoryReader(pipeline.gateway)
        assert reader.get_blocks(0, 100) == sorted(V6_BLOCKS)
        for number, end_hash in V6_BLOCKS.items():
            block = reader.get_block(number)
            assert block is not None
            assert block.end_running_hash is not None and block.end_running_hash.hex().startswith(end_hash)
            assert {s.node_account for s in block.signatures} == {"0.0.3", "0.0.4", "0.0.5", "0.0.6"}
        assert sum(len(reader.block_transactions(n)[0]) for n in V6_BLOCKS) == V6_TRANSACTIONS
        assert reader.sidecar_records(1657701971304284003) or reader.sidecar_records(1657701971304284004)
        watermark = pipeline.store.tracker.watermark()
        assert watermark is not None and watermark.number == 6
        assert pipeline.ingest.state.quarantined() == []


def test_real_v5_files_take_their_numbers_from_the_sweep_and_the_chain(
    hedera_data: Path, bigtable_instance: Any, gcs_bucket: Any, pubsub_emulator: Any, tmp_path: Path
) -> None:
    book = (hedera_data / "addressbook" / "test-resources-testnet.bin").read_bytes()
    for pipeline in make_pipeline(bigtable_instance, gcs_bucket, tmp_path, book, first_block=0, start_block=0):
        rng = random.Random(2)
        for name in pipeline.upload(bucket_objects(hedera_data / "v5"), rng):
            ingest_object(pipeline.ingest, name)
        # Files before V6 carry no number: the first one gets start_block from the sweep only.
        assert len(pipeline.ingest.state.pending(10)) == 2
        report = sweep(pipeline.ingest)
        assert report.outcomes["published"] == 2, report.as_dict()
        pipeline.drain(rng)

        reader = HistoryReader(pipeline.gateway)
        assert reader.get_blocks(0, 10) == [0, 1]
        first, second = reader.get_block(0), reader.get_block(1)
        assert first is not None and second is not None
        assert second.previous_hash == first.end_running_hash
        assert pipeline.ingest.state.pending(10) == []
        assert pipeline.ingest.state.broken_links() == {}


def _legacy_golden(folder: str) -> Any:
    return {"v1": V1_FILES, "v2": V2_FILES}[folder]


@pytest.mark.parametrize(("folder", "book_name"), [("v1", "test-v1.bin"), ("v2", "test-resources-testnet.bin")])
def test_real_v1_and_v2_files_become_the_expected_blocks(
    hedera_data: Path,
    bigtable_instance: Any,
    gcs_bucket: Any,
    pubsub_emulator: Any,
    tmp_path: Path,
    folder: str,
    book_name: str,
) -> None:
    goldens = _legacy_golden(folder)
    book = (hedera_data / "addressbook" / book_name).read_bytes()
    for pipeline in make_pipeline(bigtable_instance, gcs_bucket, tmp_path, book, first_block=0, start_block=0):
        rng = random.Random(3)
        for name in pipeline.upload(bucket_objects(hedera_data / folder), rng, duplicates=2):
            ingest_object(pipeline.ingest, name)
        report = sweep(pipeline.ingest)
        assert report.outcomes["published"] == 2, report.as_dict()
        pipeline.drain(rng)

        reader = HistoryReader(pipeline.gateway)
        assert reader.get_blocks(0, 10) == [g.index for g in goldens]
        for golden in goldens:
            block = reader.get_block(golden.index)
            assert block is not None
            assert (block.file_hash.hex(), block.previous_hash.hex()) == (golden.file_hash, golden.previous_hash)
            assert block.hapi_version == (0, 0, 0)
            assert len(reader.block_transactions(golden.index)[0]) == golden.count
        watermark = pipeline.store.tracker.watermark()
        assert watermark is not None and watermark.number == 1
        assert pipeline.ingest.state.broken_links() == {}
        assert pipeline.ingest.state.quarantined() == []


def test_a_v5_file_naming_another_file_after_v2_is_never_stored_as_a_good_link(
    hedera_data: Path, bigtable_instance: Any, gcs_bucket: Any, pubsub_emulator: Any, tmp_path: Path
) -> None:
    book = (hedera_data / "addressbook" / "test-resources-testnet.bin").read_bytes()
    objects = {**bucket_objects(hedera_data / "v2"), **bucket_objects(hedera_data / "v5")}
    for pipeline in make_pipeline(bigtable_instance, gcs_bucket, tmp_path, book, first_block=0, start_block=0):
        rng = random.Random(4)
        for name in pipeline.upload(objects, rng):
            ingest_object(pipeline.ingest, name)
        for _ in range(3):
            sweep(pipeline.ingest)
            pipeline.drain(rng)

        reader = HistoryReader(pipeline.gateway)
        stored = reader.get_blocks(0, 10)
        assert stored[:2] == [0, 1]
        # The first V5 file is numbered after the last V2 block, does not name it, and nothing lies
        # between them: a break, recorded and kept out of the history; the one after it waits.
        assert stored == [0, 1]
        broken = pipeline.ingest.state.broken_links()
        assert list(broken) == [2] and "block 2 names its predecessor 000000" in broken[2]
        assert [p.period_key for p in pipeline.ingest.state.pending(10)] == [
            "2021-01-11T22_09_24.063739000Z",
            "2021-01-11T22_09_34.097416003Z",
        ]
        watermark = pipeline.store.tracker.watermark()
        assert watermark is not None and watermark.number == 1


def test_a_real_v5_period_replayed_under_a_later_name_is_never_published(
    hedera_data: Path, bigtable_instance: Any, gcs_bucket: Any, pubsub_emulator: Any, tmp_path: Path
) -> None:
    book = (hedera_data / "addressbook" / "test-resources-testnet.bin").read_bytes()
    objects = bucket_objects(hedera_data / "v5")
    first, later = "2021-01-11T22_09_24.063739000Z", "2021-01-11T22_09_44.063739000Z"
    replay = {name.replace(first, later): data for name, data in objects.items() if first in name}
    for pipeline in make_pipeline(bigtable_instance, gcs_bucket, tmp_path, book, first_block=0, start_block=0):
        rng = random.Random(5)
        for name in pipeline.upload({**objects, **replay}, rng):
            ingest_object(pipeline.ingest, name)
        for _ in range(3):
            sweep(pipeline.ingest)
            pipeline.drain(rng)

        reader = HistoryReader(pipeline.gateway)
        assert reader.get_blocks(0, 10) == [0, 1]
        assert reader.get_block(2) is None
        [pending] = pipeline.ingest.state.pending(10)
        assert pending.period_key == later
        state = pipeline.ingest.state.period(pending.consensus_ns)
        assert state is not None and "replayed under another period's name" in state.reason
