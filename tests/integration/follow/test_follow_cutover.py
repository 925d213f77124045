"""The follower through the cutover on the Bigtable emulator: record periods, then blocks.

A generated network cuts over after three record periods (two wrapped record blocks, the second
rotating a node's key, then native TSS-signed blocks). The follower reads the record periods,
switches to blocks by itself once no period arrives and the next block is there, and publishes
every block: numbering continuous, cells identical to loading the same stream; restarted at the
switch it resumes on blocks with no gap and no duplicate effect; a block missing from the bucket
is filled from the other source."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hedera_history.books.parse import parse_address_book
from hedera_history.follow.block_sources import BucketBlocks, CompositeBlocks, FetchedBlock
from hedera_history.follow.position import read_position
from hedera_history.gen.config_and_output import GeneratedStream
from hedera_history.gen.stream import generate_stream
from hedera_history.gen.writer import write_stream
from hedera_history.localstack.block_node_server import BlockNodeServer
from hedera_history.pipeline.block_load import load_block_runs
from hedera_history.pipeline.ingest import ingest_object
from hedera_history.pipeline.ingest_context import Outcome
from hedera_history.sources.local import LocalSource
from hedera_history.sources.local_blocks import find_block_runs
from hedera_history.store.bigtable_client import gateway_for_instance
from hedera_history.store.schema import ensure_tables
from hedera_history.verify.consensus import DEFAULT_RATIO

from tests.integration.pipeline.harness import history_cells, reference_cells

from . import harness
from .harness import Followed, follow_in_thread, make_followed, wait_for

pytestmark = [pytest.mark.emulator]

ledger_publication = harness.ledger_publication  # other follow tests import it from here

RECORD_PERIODS = 3
CUTOVER = {"follow_cutover_seconds": 0.3, "follow_block_alert_seconds": 60.0}


@pytest.fixture(scope="module")
def stream(generated_cutover_stream: GeneratedStream) -> GeneratedStream:
    """Record files 0-2, wrapped record blocks 3-4 (a key rotation in block 4), native blocks 5-7."""
    return generated_cutover_stream


@pytest.fixture
def bucket(tmp_path: Path, stream: GeneratedStream) -> Path:
    root = tmp_path / "bucket"
    write_stream(stream, root)
    return root


@pytest.fixture
def followed(bigtable_instance: Any, tmp_path: Path, stream: GeneratedStream, bucket: Path) -> Iterator[Followed]:
    overrides: dict[str, Any] = {
        "block_source": str(bucket),
        "ledger_publication": ledger_publication(tmp_path, stream),
        **CUTOVER,
    }
    with make_followed(bigtable_instance, tmp_path, stream, str(bucket), **overrides) as followed:
        yield followed


def follow_to_the_end(followed: Followed, stream: GeneratedStream) -> Any:
    """Follow until every record period and block is complete; the follower's report."""
    thread, stop, reports = follow_in_thread(followed.follower())
    try:
        wait_for(lambda: followed.complete(every_block(stream)), what="every record period and block complete")
    finally:
        stop.set()
        thread.join(60)
    assert sorted(followed.publisher.completions()) == every_block(stream)
    return reports[0]


def every_block(stream: GeneratedStream) -> list[int]:
    return [p.block_number for p in stream.periods] + [b.block_number for b in stream.blocks]


def loaded_cells(bigtable_instance: Any, stream: GeneratedStream, tmp_path: Path, followed: Followed) -> Any:
    """What ``load`` writes for the whole stream: the record periods (``reference_cells``), then
    the block files verified as a run and written by the same writer."""
    reference_cells(bigtable_instance, stream, tmp_path)  # the record periods, into the r_ tables
    settings = followed.settings.with_(table_prefix="r_")
    ensure_tables(bigtable_instance, settings)
    gateway = gateway_for_instance(bigtable_instance, settings)
    try:
        runs = find_block_runs(tmp_path / "reference")
        book = parse_address_book(stream.address_book)
        report = load_block_runs(runs, book, ratio=DEFAULT_RATIO, settings=settings, gateway=gateway)
        assert report.written == len(stream.blocks), report
        return history_cells(gateway)
    finally:
        gateway.close()


def test_follows_records_then_blocks_with_cells_identical_to_a_load(
    followed: Followed, bigtable_instance: Any, stream: GeneratedStream, tmp_path: Path
) -> None:
    blocks = every_block(stream)
    report = follow_to_the_end(followed, stream)
    assert report.mode == "blocks"
    assert report.block == blocks[-1] + 1
    assert report.block_source == "bucket"
    assert report.blocks_published == len(stream.blocks)
    position = read_position(followed.gateway)
    assert position is not None and position.next_block == blocks[-1] + 1
    assert position.block_ns == stream.blocks[-1].consensus_end_ns, "the lag is measured on the last block"
    assert history_cells(followed.gateway) == loaded_cells(bigtable_instance, stream, tmp_path, followed)


def test_restarted_at_the_switch_resumes_on_blocks_without_gap_or_duplicate(
    followed: Followed, stream: GeneratedStream, bucket: Path
) -> None:
    blocks = every_block(stream)
    first_block = stream.blocks[0].block_number
    held_back = {p.relative_to(bucket).as_posix(): p.read_bytes() for p in (bucket / "demo").rglob("*.blk.zstd")}
    for name in held_back:
        if not name.endswith(f"{first_block:03d}.blk.zstd"):
            (bucket / name).unlink()
    thread, stop, _ = follow_in_thread(followed.follower())
    try:
        wait_for(
            lambda: (p := read_position(followed.gateway)) is not None and p.next_block == first_block + 1,
            what="the switch to blocks, its first block published",
        )
    finally:
        stop.set()
        thread.join(60)
    assert followed.complete(blocks[: RECORD_PERIODS + 1])
    for name, data in held_back.items():
        (bucket / name).write_bytes(data)
    publications = followed.publisher.publications
    thread, stop, reports = follow_in_thread(followed.follower())
    try:
        wait_for(lambda: followed.complete(blocks), what="every block after the restart")
    finally:
        stop.set()
        thread.join(60)
    assert reports[0].mode == "blocks"
    assert reports[0].handed_off == 0, "no record period handed off again after the switch"
    assert followed.publisher.publications - publications == len(stream.blocks) - 1
    assert sorted(followed.publisher.completions()) == blocks


class _Missing:
    """A bucket without one block (the block node below serves it)."""

    kind = "bucket"

    def __init__(self, inner: BucketBlocks, missing: int) -> None:
        self.inner, self.missing = inner, missing

    def fetch(self, number: int) -> FetchedBlock | None:
        return None if number == self.missing else self.inner.fetch(number)

    def newest(self) -> int | None:
        return self.inner.newest()


def test_a_block_missing_from_the_bucket_is_filled_from_the_other_source(
    followed: Followed, stream: GeneratedStream, bucket: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocks = every_block(stream)
    missing = stream.blocks[-2].block_number
    bucket_blocks = BucketBlocks(LocalSource(str(bucket)), "demo/block/")
    other = BucketBlocks(LocalSource(str(bucket)), "demo/block/")
    other.kind = "block node"
    sources = CompositeBlocks([_Missing(bucket_blocks, missing), other])
    caplog.set_level(logging.INFO, "hedera_history.follow")
    thread, stop, reports = follow_in_thread(followed.follower().read_blocks_from(sources))
    try:
        wait_for(lambda: followed.complete(blocks), what="every block, one from the other source")
    finally:
        stop.set()
        thread.join(60)
    assert reports[0].blocks_published == len(stream.blocks)
    assert sorted(followed.publisher.completions()) == blocks


def test_an_uploaded_block_is_published_by_ingest_and_a_bad_one_quarantined(
    followed: Followed, stream: GeneratedStream, bucket: Path
) -> None:
    thread, stop, _ = follow_in_thread(followed.follower())
    records = every_block(stream)[:RECORD_PERIODS]
    first_block = stream.blocks[0].block_number
    for path in (bucket / "demo").rglob("*.blk.zstd"):
        path.rename(path.with_suffix(".held"))
    try:
        wait_for(lambda: followed.complete(records), what="the record periods")
    finally:
        stop.set()
        thread.join(60)
    for path in (bucket / "demo").rglob("*.held"):
        path.rename(path.with_suffix(".zstd"))
    names = [f"demo/block/0000/0000/0000/0000/{b.block_number:03d}.blk.zstd" for b in stream.blocks]
    ctx = followed.ctx
    out_of_order = ingest_object(ctx, names[1])
    assert out_of_order.outcome is Outcome.PENDING
    results = [ingest_object(ctx, name) for name in names]
    # The first upload's call publishes the blocks after it that were waiting in the bucket.
    assert [r.outcome for r in results] == [Outcome.PUBLISHED] + [Outcome.ALREADY_PUBLISHED] * (len(names) - 1)
    assert ingest_object(ctx, names[0]).outcome is Outcome.ALREADY_PUBLISHED
    assert followed.complete(every_block(stream))
    # A native block whose predecessor's root it names is changed: refused, never stored.
    last = bucket / names[-1]
    data = bytearray(stream.objects[names[-1]])
    data[len(data) // 2] ^= 0x01
    last.write_bytes(bytes(data))
    bad = ingest_object(ctx, names[-1])
    assert bad.outcome is Outcome.QUARANTINED
    assert any(path == names[-1] for path, _ in ctx.state.quarantined())
    assert first_block == RECORD_PERIODS


@pytest.mark.parametrize("scheme", ["gs", "s3"])
def test_follows_through_the_cutover_on_gcs_and_s3(
    scheme: str, request: pytest.FixtureRequest, bigtable_instance: Any, tmp_path: Path, stream: GeneratedStream
) -> None:
    overrides: dict[str, Any] = {"ledger_publication": ledger_publication(tmp_path, stream), **CUTOVER}
    if scheme == "gs":
        bucket = request.getfixturevalue("gcs_bucket")
        for name, data in sorted(stream.objects.items()):
            bucket.blob(name).upload_from_string(data)
        url = f"gs://{bucket.name}"
    else:
        s3_client, name = request.getfixturevalue("s3_client"), request.getfixturevalue("s3_bucket")
        for key, data in stream.objects.items():
            s3_client.put_object(Bucket=name, Key=key, Body=data)
        url = f"s3://{name}"
        overrides |= {"s3_endpoint_url": request.getfixturevalue("s3_server").endpoint_url}
    with make_followed(bigtable_instance, tmp_path, stream, url, block_source=url, **overrides) as followed:
        report = follow_to_the_end(followed, stream)
    assert (report.mode, report.block_source, report.blocks_published) == ("blocks", "bucket", len(stream.blocks))


def test_follows_the_blocks_from_a_local_block_node(
    bigtable_instance: Any, tmp_path: Path, stream: GeneratedStream, bucket: Path
) -> None:
    server = BlockNodeServer(bucket / "demo" / "block").start()
    try:
        overrides: dict[str, Any] = {
            "ledger_publication": ledger_publication(tmp_path, stream),
            "block_nodes": f"127.0.0.1:{server.port}",
            **CUTOVER,
        }
        with make_followed(bigtable_instance, tmp_path, stream, str(bucket), **overrides) as followed:
            report = follow_to_the_end(followed, stream)
    finally:
        server.stop(0)
    assert (report.mode, report.block_source, report.blocks_published) == ("blocks", "block node", len(stream.blocks))


def test_a_block_that_breaks_the_chain_is_quarantined_and_never_stored(
    followed: Followed, stream: GeneratedStream, bucket: Path
) -> None:
    for path in (bucket / "demo").rglob("*.blk.zstd"):
        path.unlink()
    records = every_block(stream)[:RECORD_PERIODS]
    followed.follower().run(lambda: followed.complete(records))
    # Another network's first wrapped block: signed by the same test keys, chained to other files.
    other = generate_stream(dataclasses.replace(stream.config, transactions=stream.config.transactions + 1))
    name = f"demo/block/0000/0000/0000/0000/{RECORD_PERIODS:03d}.blk.zstd"
    (bucket / name).write_bytes(other.objects[name])
    result = ingest_object(followed.ctx, name)
    assert result.outcome is Outcome.QUARANTINED, result
    assert "previous running hash" in result.reason
    assert (name, result.reason) in followed.ctx.state.quarantined()
    assert not followed.complete([RECORD_PERIODS])


class _CrashOnce:
    """Publishes the first message of the ``nth`` block's batch, then dies (once), as an ingest
    killed in the middle of a block's publication."""

    def __init__(self, inner: Any, nth: int) -> None:
        self.inner, self.left, self.crashed = inner, nth, False

    def publish_all(self, messages: list[Any]) -> None:
        self.left -= 1
        if self.left == 0 and len(messages) > 1:
            self.crashed = True
            self.inner.publish_all(messages[:1])
            raise RuntimeError("killed mid-block")
        self.inner.publish_all(messages)


def test_uploaded_blocks_shuffled_duplicated_and_a_crash_mid_block_end_as_a_clean_load(
    followed: Followed, bigtable_instance: Any, stream: GeneratedStream, tmp_path: Path, bucket: Path
) -> None:
    """Block uploads in any order, each twice, one publication killed half-way: a block waiting
    for its predecessor is published by the call that publishes the predecessor, the killed one
    by its retry, and the tables end as loading the stream writes them."""
    followed.follower().run(lambda: followed.complete(every_block(stream)[:RECORD_PERIODS]))
    names = [f"demo/block/0000/0000/0000/0000/{b.block_number:03d}.blk.zstd" for b in stream.blocks]
    order = [names[2], names[0], names[3], names[2], names[1], names[0], names[3], names[1]]
    crash = _CrashOnce(followed.ctx.publisher, 2)
    ctx = dataclasses.replace(followed.ctx, publisher=crash)
    failed = []
    for name in order:
        try:
            ingest_object(ctx, name)
        except RuntimeError:
            failed.append(name)
    assert len(failed) == 1 and crash.crashed
    assert followed.complete(every_block(stream))
    assert history_cells(followed.gateway) == loaded_cells(bigtable_instance, stream, tmp_path, followed)
