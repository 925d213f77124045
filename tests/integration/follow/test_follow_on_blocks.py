"""A follower started on an empty store when the network is already on blocks, and the cutover
decided by HAPI versions, on the Bigtable emulator with blocks from the GCS emulator, a directory
and the local block-node gRPC server.

The generated network cuts over after three record periods (record files 0-2 at HAPI 0.56, wrapped
record blocks 3-4 at 0.56, native blocks 5-7 at 0.78, block 0 publishing the ledger's roster)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from hedera_history.books.parse import parse_address_book
from hedera_history.errors import LedgerRosterNotGivenError
from hedera_history.follow.position import read_position
from hedera_history.gen.config_and_output import GeneratedStream, GeneratorConfig
from hedera_history.gen.stream import generate_stream
from hedera_history.localstack.block_node_server import BlockNodeServer
from hedera_history.pipeline.address_books import read_stream_start
from hedera_history.pipeline.block_load import load_block_runs
from hedera_history.pipeline.tracking_rows import TrackingRows
from hedera_history.sources.local_blocks import find_block_runs
from hedera_history.verify.consensus import DEFAULT_RATIO

from .harness import block_bucket, follow_until, ledger_publication, make_followed

pytestmark = [pytest.mark.emulator]

BLOCK_FOLDER = "demo/block/"


@pytest.fixture(scope="module")
def stream(generated_cutover_stream: GeneratedStream) -> GeneratedStream:
    return generated_cutover_stream


def block_objects(stream: GeneratedStream) -> dict[str, bytes]:
    return {name: data for name, data in sorted(stream.objects.items()) if name.startswith(BLOCK_FOLDER)}


def test_starts_on_the_newest_block_of_a_gcs_bucket_and_begins_the_history_there(
    bigtable_instance: Any, gcs_bucket: Any, tmp_path: Path, stream: GeneratedStream
) -> None:
    """No record file in the bucket, nothing stored: the newest block (6) is found by listing the
    number folders, verified against the configured roster, and begins the history; block 7,
    uploaded later, follows it."""
    *held, last = block_objects(stream).items()
    for name, data in held:
        gcs_bucket.blob(name).upload_from_string(data)
    url = f"gs://{gcs_bucket.name}"
    overrides: dict[str, Any] = {
        "follow_start": "now",
        "block_source": url,
        "ledger_publication": ledger_publication(tmp_path, stream),
    }
    with make_followed(bigtable_instance, tmp_path, stream, url, **overrides) as followed:

        def newest_then_the_next() -> bool:
            if followed.complete([6]) and not gcs_bucket.blob(last[0]).exists():
                gcs_bucket.blob(last[0]).upload_from_string(last[1])
            return followed.complete([6, 7])

        report = follow_until(followed.follower(), newest_then_the_next, "the newest block, then the one uploaded")
        assert (report.mode, report.block, report.handed_off, report.blocks_published) == ("blocks", 8, 0, 2)
        assert dict(followed.publisher.completions()) == {6: 1, 7: 1}, "nothing before the newest block"
        start = read_stream_start(followed.gateway)
        assert start is not None and start.block == 6, "the history begins at the block the follower started on"
        watermark = TrackingRows(followed.gateway, 0).watermark()
        assert watermark is not None and watermark.number == 7, "the store's watermark is rooted at block 6"
        position = read_position(followed.gateway)
        assert position is not None and position.next_block == 8


def test_starts_on_a_given_block_from_the_local_block_node(
    bigtable_instance: Any, tmp_path: Path, stream: GeneratedStream
) -> None:
    bucket, overrides = block_bucket(tmp_path, stream, follow_start="block:4", block_source="")
    (tmp_path / "no-records").mkdir()
    server = BlockNodeServer(bucket / "demo" / "block").start()
    try:
        overrides["block_nodes"] = f"127.0.0.1:{server.port}"
        with make_followed(bigtable_instance, tmp_path, stream, str(tmp_path / "no-records"), **overrides) as followed:
            report = follow_until(followed.follower(), lambda: followed.complete([4, 5, 6, 7]), "blocks 4 to 7")
            assert dict(followed.publisher.completions()) == {4: 1, 5: 1, 6: 1, 7: 1}
            start = read_stream_start(followed.gateway)
            assert start is not None and start.block == 4
    finally:
        server.stop(0)
    assert (report.mode, report.block_source, report.blocks_published) == ("blocks", "block node", 4)


def test_after_blocks_a_load_wrote_the_follower_starts_with_the_next_block(
    bigtable_instance: Any, tmp_path: Path, stream: GeneratedStream
) -> None:
    """Blocks 5 and 6 loaded as a backfill writes them (no ingest state, no chain links), then a
    follower with no position: it starts on block 7, not on record periods, and does not wait for
    a stored link of block 6."""
    bucket, overrides = block_bucket(tmp_path, stream, follow_start="backfill")
    loaded = tmp_path / "loaded"
    for number in (5, 6):
        path = stream.block(number).path
        (loaded / path).parent.mkdir(parents=True, exist_ok=True)
        (loaded / path).write_bytes((bucket / path).read_bytes())
    with make_followed(bigtable_instance, tmp_path, stream, str(bucket), **overrides) as followed:
        book = parse_address_book(stream.address_book)
        load = load_block_runs(
            find_block_runs(loaded), book, ratio=DEFAULT_RATIO, settings=followed.settings, gateway=followed.gateway
        )
        assert load.written == 2, load
        report = follow_until(followed.follower(), lambda: followed.complete([5, 6, 7]), "the block after the load")
        assert dict(followed.publisher.completions()) == {7: 1}
    assert (report.mode, report.handed_off, report.block) == ("blocks", 0, 8)


def test_refuses_to_start_on_blocks_without_the_ledger_roster(
    bigtable_instance: Any, tmp_path: Path, stream: GeneratedStream
) -> None:
    bucket, overrides = block_bucket(tmp_path, stream, follow_start="now", ledger_publication="")
    with make_followed(bigtable_instance, tmp_path, stream, str(bucket), **overrides) as followed:
        with pytest.raises(LedgerRosterNotGivenError, match="HEDERA_HISTORY_LEDGER_PUBLICATION"):
            followed.follower().run_window(5.0)
        assert followed.publisher.publications == 0


@pytest.fixture(scope="module")
def pinned_stream() -> GeneratedStream:
    """Record files 0-2 at HAPI 0.79 (the presets' last record-writing release), native blocks 3-4 at 0.80."""
    config = GeneratorConfig(
        nodes=4,
        periods=5,
        transactions=8,
        seed=7,
        cutover_after=3,
        hapi_version=(0, 79, 0),
        block_hapi_version=(0, 80, 0),
    )
    return generate_stream(config)


def test_at_the_last_record_release_the_next_block_switches_without_a_quiet_interval(
    bigtable_instance: Any, tmp_path: Path, pinned_stream: GeneratedStream
) -> None:
    """The quiet interval is an hour: only the versions can make the follower switch."""
    bucket, overrides = block_bucket(
        tmp_path, pinned_stream, follow_cutover_hapi_version="0.79.0", follow_cutover_seconds=3600.0
    )
    with make_followed(bigtable_instance, tmp_path, pinned_stream, str(bucket), **overrides) as followed:
        every = [0, 1, 2, 3, 4]
        report = follow_until(
            followed.follower(), lambda: followed.complete(every), "the record files, then the blocks"
        )
    assert (report.mode, report.blocks_published) == ("blocks", 2)


def test_below_the_last_record_release_a_wrapped_block_does_not_switch_a_quiet_follower(
    bigtable_instance: Any, tmp_path: Path, stream: GeneratedStream, caplog: pytest.LogCaptureFixture
) -> None:
    """Record files at 0.56 with 0.60 pinned: the network has a release to go, so the wrapped block 3
    (0.56) in the block bucket is a copy beside the record stream, not its end, however quiet."""
    bucket, overrides = block_bucket(tmp_path, stream, follow_cutover_hapi_version="0.60.0", follow_cutover_seconds=0.3)
    caplog.set_level(logging.INFO, "hedera_history.follow")
    with make_followed(bigtable_instance, tmp_path, stream, str(bucket), **overrides) as followed:
        follower = followed.follower()

        def block_3_declined() -> bool:
            return followed.complete([0, 1, 2]) and follower.blocks is not None and follower.blocks.declined == 3

        report = follow_until(follower, block_3_declined, "the record files, then block 3 found and declined")
        assert sorted(followed.publisher.completions()) == [0, 1, 2]
    assert report.mode == "records"
    declined = [r for r in caplog.records if r.getMessage() == "follower stays on record files"]
    assert declined and "before the last release writing record files" in declined[0].fields["reason"]  # type: ignore[attr-defined]
