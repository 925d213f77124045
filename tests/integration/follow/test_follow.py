"""The follower on the real emulators (Bigtable, GCS) and moto's S3 server.

A generated stream is written into a bucket in steps while a follower follows it; ingest runs in
process and publishes straight into the store step (``harness.DirectPublisher``). The history
tables must end exactly as the single-process path writes the whole stream: every block once,
every node's signature (a lagging node's too), nothing skipped across a restart.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
from hedera_history.follow.lease import FollowLease
from hedera_history.follow.position import read_position
from hedera_history.formats.names import parse_timestamp
from hedera_history.gen.config_and_output import GeneratedStream, GeneratorConfig
from hedera_history.gen.stream import generate_stream
from hedera_history.sources.gcs import GcsSource
from hedera_history.sources.s3 import S3Source

from tests.fixtures.emulators import RecordingGcsClient
from tests.integration.pipeline.harness import history_cells, reference_cells

from .harness import Followed, follow_in_thread, make_followed, period_objects, wait_for

pytestmark = [pytest.mark.emulator]

PERIODS = 6
LAGGING = "record0.0.6/"


@pytest.fixture(scope="module")
def stream() -> GeneratedStream:
    return generate_stream(
        GeneratorConfig(nodes=4, periods=PERIODS, transactions=12, sidecars=True, seed=11, rotate_key=False)
    )


@pytest.fixture
def on_gcs(bigtable_instance: Any, gcs_bucket: Any, tmp_path: Path, stream: GeneratedStream) -> Iterator[Followed]:
    with make_followed(bigtable_instance, tmp_path, stream, f"gs://{gcs_bucket.name}") as followed:
        yield followed


def stored_period(followed: Followed) -> str | None:
    position = read_position(followed.gateway)
    return None if position is None else position.period_key


def upload_gcs(bucket: Any, objects: dict[str, bytes]) -> None:
    for name, data in sorted(objects.items()):
        bucket.blob(name).upload_from_string(data)


def test_follows_a_growing_bucket_across_a_restart_with_a_lagging_node(
    on_gcs: Followed, gcs_bucket: Any, bigtable_instance: Any, stream: GeneratedStream, tmp_path: Path
) -> None:
    by_period = period_objects(stream)
    keys = [p.record_name.period_key for p in stream.periods]
    lagging = {name: data for objects in by_period.values() for name, data in objects.items() if LAGGING in name}
    blocks = on_gcs.blocks()

    def step(first: int, last: int) -> None:
        for key in keys[first:last]:
            upload_gcs(gcs_bucket, {n: d for n, d in by_period[key].items() if LAGGING not in n})

    # First follower: the bucket grows while it follows (one node's folder stays empty).
    thread, stop, reports = follow_in_thread(on_gcs.follower())
    step(0, 2)
    wait_for(lambda: on_gcs.complete(blocks[:2]), what="the first two blocks")
    step(2, 3)
    wait_for(lambda: on_gcs.complete(blocks[:3]), what="the third block")
    wait_for(lambda: stored_period(on_gcs) == keys[2], what="the position at the third period")
    stop.set()
    thread.join(timeout=300)
    (first,) = reports
    assert first.followed and first.given_up == []
    assert stored_period(on_gcs) == keys[2]

    # Written while nobody follows; a second follower resumes from the stored position.
    step(3, 5)
    thread, stop, reports = follow_in_thread(on_gcs.follower())
    step(5, PERIODS)
    wait_for(on_gcs.complete, what="every block")
    # The lagging node's files appear minutes (here: periods) late: its signatures are added.
    upload_gcs(gcs_bucket, lagging)
    expected = reference_cells(bigtable_instance, stream, tmp_path)
    wait_for(lambda: history_cells(on_gcs.gateway) == expected, what="the lagging node's signature cells")
    stop.set()
    thread.join(timeout=300)
    (second,) = reports
    assert second.start_period == keys[2]
    assert second.late_files >= PERIODS
    # Every block published once and completed once, across the restart.
    assert on_gcs.publisher.publications == len(blocks)
    assert set(on_gcs.publisher.completions().values()) == {1}
    assert sorted(on_gcs.publisher.completions()) == blocks
    final = read_position(on_gcs.gateway)
    assert final is not None and final.period_key == keys[-1]
    assert final.listed[f"recordstreams/{LAGGING}"] > f"recordstreams/{LAGGING}{keys[-1]}"


@pytest.fixture(scope="module")
def unsigned_last() -> GeneratedStream:
    """The last period is signed by one node of four: never consensus."""
    return generate_stream(
        GeneratorConfig(
            nodes=4, periods=3, transactions=8, sidecars=False, seed=12, rotate_key=False, signers={2: (3,)}
        )
    )


def test_a_period_without_consensus_is_reported_and_left_pending(
    bigtable_instance: Any, gcs_bucket: Any, tmp_path: Path, unsigned_last: GeneratedStream, caplog: Any
) -> None:
    stream = unsigned_last
    upload_gcs(gcs_bucket, dict(stream.objects))
    last = stream.periods[-1].record_name.period_key
    caplog.set_level(logging.INFO, logger="hedera_history.follow.follower")
    url = f"gs://{gcs_bucket.name}"
    with make_followed(bigtable_instance, tmp_path, stream, url, follow_give_up_seconds=5.0) as followed:
        thread, stop, reports = follow_in_thread(followed.follower())
        wait_for(lambda: followed.complete(followed.blocks()[:-1]), what="the signed blocks")
        wait_for(lambda: stored_period(followed) == last, what="the position past the given-up period")
        stop.set()
        thread.join(timeout=300)
        (report,) = reports
        # (On a slow machine a signed period held behind its predecessor for longer than the
        # give-up time is reported too, and published all the same when that one is.)
        assert last in report.given_up
        assert not followed.complete(followed.blocks()[-1:])
        # Reported (an ERROR event an alert can count) and left pending for the sweep.
        assert followed.ctx.state.is_pending(parse_timestamp(last))
    errors = [r for r in caplog.records if r.getMessage() == "period without consensus"]
    assert [r.levelno for r in errors if r.__dict__["fields"]["period"] == last] == [logging.ERROR]
    ticks = [r for r in caplog.records if r.getMessage() == "follower position"]
    assert {"lag_seconds", "period", "handed_off", "pending", "given_up"} <= set(ticks[-1].__dict__["fields"])


def test_s3_requester_pays_on_every_call(
    bigtable_instance: Any, s3_server: Any, s3_client: Any, s3_bucket: str, tmp_path: Path, stream: GeneratedStream
) -> None:
    for name, data in stream.objects.items():
        s3_client.put_object(Bucket=s3_bucket, Key=name, Body=data)
    url = f"s3://{s3_bucket}"
    overrides = {"s3_endpoint_url": s3_server.endpoint_url, "s3_requester_pays": True}
    with make_followed(bigtable_instance, tmp_path, stream, url, **overrides) as followed:
        source = followed.ctx.source
        assert isinstance(source, S3Source)
        sent: list[dict[str, str]] = []

        def record(request: Any, **_: Any) -> None:
            sent.append({k.lower(): v.decode() if isinstance(v, bytes) else v for k, v in request.headers.items()})

        source.client.meta.events.register("before-send.s3", record)
        report = followed.follower().run(followed.complete)
        assert followed.publisher.publications == PERIODS
    assert report.list_calls > 0 and len(sent) > report.list_calls
    assert [h for h in sent if h.get("x-amz-request-payer") != "requester"] == []


def test_gcs_user_project_on_every_call(
    bigtable_instance: Any,
    gcs_bucket: Any,
    tmp_path: Path,
    stream: GeneratedStream,
    recording_gcs_client: RecordingGcsClient,
) -> None:
    upload_gcs(gcs_bucket, dict(stream.objects))
    source = GcsSource(gcs_bucket.name, "", user_project="billing-project", client=recording_gcs_client.client)
    url = f"gs://{gcs_bucket.name}"
    with make_followed(bigtable_instance, tmp_path, stream, url, source=source) as followed:
        report = followed.follower().run(followed.complete)
        assert followed.publisher.publications == PERIODS
    object_calls = recording_gcs_client.object_calls()
    assert len(object_calls) >= report.list_calls > 0
    for called in object_calls:
        assert parse_qs(urlparse(called).query)["userProject"] == ["billing-project"]


def test_one_follower_at_a_time(
    bigtable_instance: Any, gcs_bucket: Any, tmp_path: Path, stream: GeneratedStream
) -> None:
    with make_followed(bigtable_instance, tmp_path, stream, f"gs://{gcs_bucket.name}") as followed:
        first = FollowLease(followed.gateway, ttl_seconds=15.0)
        assert first.acquire()
        # A second follower waits for the lease until its window ends, and follows nothing.
        report = followed.follower().run_window(1.5)
        assert not report.followed and report.ticks == 0
        assert read_position(followed.gateway) is None
        first.release()
        report = followed.follower().run_window(0.5)
        assert report.followed
        # It gave the lease back when its window ended: the next one takes it at once.
        assert FollowLease(followed.gateway, ttl_seconds=15.0).acquire()


def test_a_follower_that_dies_mid_stream_is_resumed_without_a_gap(
    bigtable_instance: Any, gcs_bucket: Any, tmp_path: Path, stream: GeneratedStream
) -> None:
    by_period = period_objects(stream)
    keys = [p.record_name.period_key for p in stream.periods]
    url = f"gs://{gcs_bucket.name}"
    with make_followed(bigtable_instance, tmp_path, stream, url, follow_lease_seconds=2.0) as followed:
        blocks = followed.blocks()
        dying = followed.follower()
        thread, stop, _ = follow_in_thread(dying)
        for key in keys[:3]:
            upload_gcs(gcs_bucket, by_period[key])
        wait_for(lambda: followed.complete(blocks[:3]), what="the first three blocks")
        # It dies: no last position write, no lease release (the lease lapses), files keep coming.
        dying.lease.release = lambda: None  # type: ignore[method-assign]
        dying._store_position = lambda *args, **kwargs: None  # type: ignore[method-assign]
        for key in keys[3:5]:
            upload_gcs(gcs_bucket, by_period[key])
        stop.set()
        thread.join(timeout=300)
        upload_gcs(gcs_bucket, by_period[keys[5]])
        report = followed.follower().run(followed.complete)
        assert report.followed
        assert followed.publisher.publications == len(blocks)
        assert set(followed.publisher.completions().values()) == {1}
        assert history_cells(followed.gateway) == reference_cells(bigtable_instance, stream, tmp_path)
