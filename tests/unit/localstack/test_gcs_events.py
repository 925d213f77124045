"""The bucket-to-CloudEvent bridge without emulators: the event's shape, the poller's memory, delivery
with retries against a recording HTTP server, the JSON API listing, and the scheduled sweep."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import functions_framework
import pytest
from hedera_history.errors import ConfigError, SourceError, SourceUnavailableError
from hedera_history.localstack.gcs_events import (
    FINALIZED_EVENT_TYPE,
    BucketObject,
    DiscoverySchedule,
    DiscoveryShape,
    GcsEventBridge,
    JsonApiBucketLister,
    NewObjectTracker,
    RecentFolders,
    backoff_seconds,
    event_id,
    finalized_event,
    parse_bucket_object,
    should_retry,
)
from hedera_history.localstack.scheduler import SCHEDULER_USER_AGENT, ScheduledJob

from tests.http_recorder import Recorded, RecordingServer, status

BUCKET = "streams"
NAME = "recordstreams/record0.0.3/2024-01-01T00_00_02.000000000Z.rcd.gz"


def resource(name: str = NAME, generation: int = 1700000000000001, **extra: Any) -> dict[str, Any]:
    """An object resource as the GCS JSON API (and the emulator) lists it."""
    return {
        "kind": "storage#object",
        "name": name,
        "bucket": BUCKET,
        "generation": str(generation),
        "metageneration": "1",
        "contentType": "application/octet-stream",
        "timeCreated": "2024-01-01T00:00:03.000000Z",
        "updated": "2024-01-01T00:00:03.000000Z",
        "size": "1234",
        **extra,
    }


def obj(name: str = NAME, generation: int = 1700000000000001) -> BucketObject:
    return parse_bucket_object(resource(name, generation), BUCKET)


# ---- the CloudEvent ------------------------------------------------------------------------------


def test_finalized_event_headers_are_what_eventarc_sends() -> None:
    headers, _ = finalized_event(obj())
    assert headers["ce-type"] == FINALIZED_EVENT_TYPE == "google.cloud.storage.object.v1.finalized"
    assert headers["ce-specversion"] == "1.0"
    assert headers["ce-source"] == f"//storage.googleapis.com/projects/_/buckets/{BUCKET}"
    assert headers["ce-subject"] == f"objects/{NAME}"
    assert headers["ce-time"] == "2024-01-01T00:00:03.000000Z"
    assert headers["Content-Type"].startswith("application/json")
    assert headers["ce-id"] == event_id(BUCKET, NAME, 1700000000000001)


def test_finalized_event_data_carries_the_object_fields_as_the_json_api_writes_them() -> None:
    _, body = finalized_event(obj())
    data = json.loads(body)
    assert data["bucket"] == BUCKET
    assert data["name"] == NAME
    # 64-bit numbers are strings in the JSON API and in the event.
    assert data["generation"] == "1700000000000001"
    assert data["metageneration"] == "1"
    assert data["size"] == "1234"
    for field in ("contentType", "timeCreated", "updated"):
        assert data[field]


def test_finalized_event_fills_fields_a_listing_may_leave_out() -> None:
    sparse = parse_bucket_object({"name": "a/b.rcd_sig", "generation": 7, "updated": "2024-01-01T00:00:00Z"}, BUCKET)
    headers, body = finalized_event(sparse)
    data = json.loads(body)
    assert data["bucket"] == BUCKET
    assert data["generation"] == "7"
    assert data["metageneration"] == "1"
    assert data["size"] == "0"
    assert data["contentType"] == "application/octet-stream"
    assert data["timeCreated"] == data["updated"] == headers["ce-time"] == "2024-01-01T00:00:00Z"


def test_event_ids_are_deterministic_and_differ_per_generation() -> None:
    assert event_id(BUCKET, NAME, 1) == event_id(BUCKET, NAME, 1)
    assert event_id(BUCKET, NAME, 1) != event_id(BUCKET, NAME, 2)
    assert event_id(BUCKET, NAME, 1) != event_id(BUCKET, NAME + "x", 1)


def test_functions_framework_hands_the_event_to_a_cloud_event_function(tmp_path: Path) -> None:
    seen = tmp_path / "seen.json"
    source = tmp_path / "main.py"
    source.write_text(
        "import json\n"
        "import functions_framework\n"
        "@functions_framework.cloud_event\n"
        "def ingest(cloud_event):\n"
        f"    with open({str(seen)!r}, 'w') as out:\n"
        "        json.dump([cloud_event[k] for k in ('type', 'subject', 'source', 'id')] + [cloud_event.data], out)\n"
    )
    app = functions_framework.create_app("ingest", str(source))
    headers, body = finalized_event(obj())
    answer = app.test_client().post("/", data=body, headers=headers)
    assert answer.status_code == 200
    event_type, subject, event_source, identifier, data = json.loads(seen.read_text())
    assert (event_type, subject, event_source, identifier) == (
        FINALIZED_EVENT_TYPE,
        f"objects/{NAME}",
        headers["ce-source"],
        headers["ce-id"],
    )
    assert data == json.loads(body)


def test_parse_bucket_object_refuses_items_without_name_or_generation() -> None:
    with pytest.raises(SourceError, match="no name"):
        parse_bucket_object({"generation": "1"}, BUCKET)
    with pytest.raises(SourceError, match="no valid generation"):
        parse_bucket_object({"name": "x", "generation": "abc"}, BUCKET)
    with pytest.raises(SourceError, match="no valid generation"):
        parse_bucket_object({"name": "x"}, BUCKET)


# ---- the poller's memory -------------------------------------------------------------------------


def test_tracker_reports_new_objects_once_per_generation() -> None:
    tracker = NewObjectTracker()
    a1, b1 = obj("a", 1), obj("b", 1)
    assert tracker.new_objects([a1, b1]) == [a1, b1]
    assert tracker.new_objects([a1, b1]) == []  # listed again: nothing new
    a2 = obj("a", 2)  # a re-upload is a new generation
    assert tracker.new_objects([a2, b1]) == [a2]
    assert tracker.new_objects([a2, b1]) == []
    assert len(tracker) == 2


# ---- discovery: when to sweep, where to probe ----------------------------------------------------


def test_sweeps_back_off_while_they_find_nothing_and_come_back_when_they_do() -> None:
    schedule = DiscoverySchedule(fast=0.1, idle=1.0, duty_factor=0.0)
    assert schedule.sweep_due(0.0)
    waits = []
    now = 0.0
    for _ in range(6):
        schedule.after_sweep(now, found=0, took=0.0)
        waits.append(round(schedule.next_sweep_at - now, 3))
        assert not schedule.sweep_due(now) and schedule.sweep_due(schedule.next_sweep_at)
        now = schedule.next_sweep_at
    assert waits == [0.2, 0.4, 0.8, 1.0, 1.0, 1.0]
    schedule.after_sweep(now, found=3, took=0.0)
    assert schedule.next_sweep_at - now == pytest.approx(0.1)


def test_a_costly_sweep_pushes_the_next_one_away_by_the_duty_factor() -> None:
    schedule = DiscoverySchedule(fast=0.05, idle=1.0, duty_factor=4.0)
    schedule.after_sweep(10.0, found=5, took=0.1)  # found something, but cost 0.1 s of CPU
    assert schedule.next_sweep_at == pytest.approx(10.4)
    schedule.after_sweep(20.0, found=5, took=0.001)
    assert schedule.next_sweep_at == pytest.approx(20.05)


def test_a_probe_that_finds_something_makes_the_sweep_due_at_once() -> None:
    schedule = DiscoverySchedule(fast=0.1, idle=1.0)
    for _ in range(5):
        schedule.after_sweep(0.0, found=0, took=0.0)
    schedule.after_probe(0)
    assert not schedule.sweep_due(0.5)
    schedule.after_probe(2)
    assert schedule.sweep_due(0.0)
    schedule.after_sweep(0.0, found=0, took=0.0)
    assert schedule.next_sweep_at == pytest.approx(0.2)  # fast again, then backing off anew
    schedule.restart()
    assert schedule.sweep_due(0.0)


def test_schedule_refuses_an_idle_interval_below_the_fast_one() -> None:
    with pytest.raises(ConfigError):
        DiscoverySchedule(fast=1.0, idle=0.5)


def test_recent_folders_are_the_newest_distinct_ones_and_never_the_root() -> None:
    folders = RecentFolders(capacity=2)
    folders.note([obj("a/x", 1), obj("b/y", 1), obj("top-level", 1)])
    assert folders.prefixes() == ["b/", "a/"]
    folders.note([obj("c/d/z", 1)])
    assert folders.prefixes() == ["c/d/", "b/"]
    folders.note([obj("b/w", 1)])
    assert folders.prefixes() == ["b/", "c/d/"]
    none = RecentFolders(capacity=0)
    none.note([obj("a/x", 1)])
    assert none.prefixes() == []


def test_retry_decisions_and_backoff() -> None:
    assert should_retry(None)
    assert should_retry(429)
    assert should_retry(500)
    assert should_retry(503)
    assert not should_retry(400)
    assert not should_retry(404)
    assert [backoff_seconds(n, 0.5) for n in (1, 2, 3)] == [0.5, 1.0, 2.0]


# ---- delivery ------------------------------------------------------------------------------------


class FakeLister:
    """A bucket listing the test changes between polls; it remembers the prefix of each call."""

    def __init__(self) -> None:
        self.objects: list[BucketObject] = []
        self.prefixes: list[str] = []

    def list_objects(self, prefix: str = "") -> list[BucketObject]:
        self.prefixes.append(prefix)
        return [o for o in self.objects if o.name.startswith(prefix)]


def _bridge(lister: FakeLister, url: str, **options: Any) -> GcsEventBridge:
    options = {"poll_interval": 0.05, "first_backoff": 0.01, **options}
    return GcsEventBridge(lister, url, **options)


def _events(server: RecordingServer) -> list[tuple[str, str]]:
    return [(r.headers["ce-subject"], json.loads(r.body)["generation"]) for r in server.requests]


def test_each_generation_is_posted_exactly_once() -> None:
    lister = FakeLister()
    with RecordingServer() as server:
        bridge = _bridge(lister, server.url + "/ingest")
        with bridge:
            lister.objects = [obj("a", 1), obj("b", 1)]
            assert server.wait_for(lambda r: len(r) >= 2, timeout=10)
            lister.objects = [obj("a", 2), obj("b", 1)]
            assert server.wait_for(lambda r: len(r) >= 3, timeout=10)
            time.sleep(0.3)  # several more polls of the same listing
        assert sorted(_events(server)) == [("objects/a", "1"), ("objects/a", "2"), ("objects/b", "1")]
        assert all(r.method == "POST" and r.path == "/ingest" for r in server.requests)
        stats = bridge.stats()
        assert (stats.sent, stats.retried, stats.dropped, stats.objects) == (3, 0, 0, 2)


def test_probes_list_the_recently_active_folders_and_sweeps_still_find_the_rest() -> None:
    lister = FakeLister()
    lister.objects = [obj("node3/p1", 1)]
    with RecordingServer() as server:
        # Sweeps at most every 0.5 s: probes (every 0.02 s) do most of the listing.
        bridge = _bridge(lister, server.url, poll_interval=0.02, discovery=DiscoveryShape(idle_poll_interval=0.5))
        with bridge:
            assert server.wait_for(lambda r: len(r) >= 1, timeout=10)
            deadline = time.monotonic() + 10
            while "node3/" not in lister.prefixes and time.monotonic() < deadline:
                time.sleep(0.01)
            assert "node3/" in lister.prefixes  # probed: the folder where the last object came
            lister.objects.append(obj("node3/p2", 1))
            assert server.wait_for(lambda r: len(r) >= 2, timeout=10)
            lister.objects.append(obj("node4/p0", 1))  # an old name in a folder no probe lists
            lister.objects.append(obj("root-object", 1))  # nor at the root
            assert server.wait_for(lambda r: len(r) >= 4, timeout=10)
            time.sleep(0.3)  # more probes and sweeps of the same objects
        assert sorted(_events(server)) == [
            ("objects/node3/p1", "1"),
            ("objects/node3/p2", "1"),
            ("objects/node4/p0", "1"),
            ("objects/root-object", "1"),
        ]
        stats = bridge.stats()
        assert stats.sent == 4
        assert stats.probes >= 1 and stats.sweeps >= 2


def test_a_restarted_bridge_sweeps_at_once_and_announces_only_what_is_new() -> None:
    lister = FakeLister()
    lister.objects = [obj("f/a", 1)]
    with RecordingServer() as server:
        bridge = _bridge(lister, server.url, discovery=DiscoveryShape(idle_poll_interval=60.0, probe_folders=0))
        with bridge:
            assert server.wait_for(lambda r: len(r) >= 1, timeout=10)
        lister.objects += [obj("g/b", 1), obj("f/a", 2)]  # uploaded while it was stopped
        with bridge:
            assert server.wait_for(lambda r: len(r) >= 3, timeout=10)
        assert sorted(_events(server)) == [("objects/f/a", "1"), ("objects/f/a", "2"), ("objects/g/b", "1")]


def test_a_failing_function_is_retried_with_the_same_event_then_succeeds() -> None:
    answers = iter([503, 500, 200])
    lister = FakeLister()
    lister.objects = [obj("a", 1)]
    with RecordingServer(lambda _r: (next(answers), b"", {})) as server:
        bridge = _bridge(lister, server.url)
        with bridge:
            assert server.wait_for(lambda r: len(r) >= 3, timeout=10)
            time.sleep(0.2)
        assert len(server.requests) == 3
        assert len({r.headers["ce-id"] for r in server.requests}) == 1
        assert len({r.body for r in server.requests}) == 1
        stats = bridge.stats()
        assert (stats.sent, stats.retried, stats.dropped) == (1, 2, 0)


def test_a_rejected_event_is_not_retried_and_attempts_are_bounded() -> None:
    lister = FakeLister()
    lister.objects = [obj("bad", 1)]
    with RecordingServer(status(400)) as server:
        bridge = _bridge(lister, server.url)
        with bridge:
            assert server.wait_for(lambda r: len(r) >= 1, timeout=10)
            time.sleep(0.2)
        assert len(server.requests) == 1
        assert bridge.stats().dropped == 1
    lister.objects = [obj("down", 1)]
    with RecordingServer(status(503)) as server:
        bridge = _bridge(lister, server.url, max_attempts=3)
        with bridge:
            assert server.wait_for(lambda r: len(r) >= 3, timeout=10)
            time.sleep(0.2)
        assert len(server.requests) == 3
        assert (bridge.stats().retried, bridge.stats().dropped) == (2, 1)


def test_an_unreachable_endpoint_counts_as_a_failed_attempt() -> None:
    lister = FakeLister()
    lister.objects = [obj("a", 1)]
    with RecordingServer() as server:
        url = server.url
    bridge = _bridge(lister, url, max_attempts=2)  # the server is gone: connection refused
    with bridge:
        deadline = time.monotonic() + 10
        while bridge.stats().dropped == 0 and time.monotonic() < deadline:
            time.sleep(0.02)
    assert (bridge.stats().sent, bridge.stats().retried, bridge.stats().dropped) == (0, 1, 1)


def test_a_failing_listing_does_not_stop_the_bridge() -> None:
    class FlakyLister(FakeLister):
        calls = 0

        def list_objects(self, prefix: str = "") -> list[BucketObject]:
            self.calls += 1
            if self.calls <= 3:
                raise SourceUnavailableError("bucket listing failed")
            return super().list_objects(prefix)

    lister = FlakyLister()
    lister.objects = [obj("a", 1)]
    with RecordingServer() as server, _bridge(lister, server.url):
        assert server.wait_for(lambda r: len(r) == 1, timeout=10)


# ---- the JSON API listing ------------------------------------------------------------------------


def test_json_api_lister_follows_pages() -> None:
    pages = {
        "": {"items": [resource("a", 1), resource("b", 1)], "nextPageToken": "p2"},
        "p2": {"items": [resource("c", 3)]},
    }

    def answer(request: Recorded) -> tuple[int, bytes, dict[str, str]]:
        token = request.path.partition("pageToken=")[2]
        return 200, json.dumps(pages[token]).encode(), {"Content-Type": "application/json"}

    with RecordingServer(answer) as server:
        lister = JsonApiBucketLister(server.url, BUCKET)
        found = lister.list_objects()
        assert [(o.name, o.generation) for o in found] == [("a", 1), ("b", 1), ("c", 3)]
        assert server.requests[0].path == f"/storage/v1/b/{BUCKET}/o"
        lister.list_objects("streams/node 3/")
        lister.close()
        assert server.requests[2].path == f"/storage/v1/b/{BUCKET}/o?prefix=streams%2Fnode+3%2F"


def test_json_api_lister_errors_are_typed() -> None:
    with RecordingServer(status(503)) as server, pytest.raises(SourceUnavailableError, match="HTTP 503"):
        JsonApiBucketLister(server.url, BUCKET).list_objects()
    with RecordingServer(status(404)) as server:
        with pytest.raises(SourceError, match="HTTP 404") as caught:
            JsonApiBucketLister(server.url, BUCKET).list_objects()
        assert not isinstance(caught.value, SourceUnavailableError)


# ---- the scheduled sweep -------------------------------------------------------------------------


def test_sweep_scheduler_posts_an_empty_json_body_on_its_interval() -> None:
    with RecordingServer() as server:
        scheduler = ScheduledJob(server.url + "/sweep", 0.05).start()
        assert server.wait_for(lambda r: len(r) >= 2, timeout=10)
        scheduler.stop()
        request = server.requests[0]
        assert (request.method, request.path, request.body) == ("POST", "/sweep", b"{}")
        assert request.headers["content-type"] == "application/json"
        assert request.headers["user-agent"] == SCHEDULER_USER_AGENT
        assert scheduler.calls >= 2 and scheduler.failures == 0


def test_sweep_scheduler_counts_failures_and_zero_interval_never_calls() -> None:
    with RecordingServer(status(500)) as server:
        scheduler = ScheduledJob(server.url, 0.0)
        assert scheduler.call_once() is False
        scheduler.start()
        time.sleep(0.1)
        scheduler.stop()
        assert len(server.requests) == 1  # only the explicit call
        assert (scheduler.calls, scheduler.failures) == (1, 1)


def test_back_to_back_job_calls_again_as_soon_as_a_call_returns() -> None:
    with RecordingServer() as server:
        job = ScheduledJob.back_to_back_calls(server.url + "/follow", name="follow", request_timeout=10).start()
        assert server.wait_for(lambda r: len(r) >= 3, timeout=30)
        job.stop()
        assert all(r.path == "/follow" and r.body == b"{}" for r in server.requests)
        assert job.calls >= 3 and job.failures == 0


def test_back_to_back_job_waits_before_calling_again_after_a_failure() -> None:
    with RecordingServer(status(503)) as server:
        job = ScheduledJob.back_to_back_calls(server.url, name="follow", retry_after=600, request_timeout=10).start()
        assert server.wait_for(lambda r: len(r) >= 1, timeout=30)
        deadline = time.monotonic() + 30
        while job.calls < 1 and time.monotonic() < deadline:  # the answer is counted after the server saw it
            time.sleep(0.01)
        job.stop()  # ends the wait of 600 s at once
        assert len(server.requests) == 1
        assert (job.calls, job.failures) == (1, 1)


def test_a_job_keeps_why_its_calls_fail_until_one_succeeds() -> None:
    answers = iter(
        [
            (500, json.dumps({"error": "cannot read the address book: no such file", "type": "ConfigError"}).encode()),
            (503, b"<html>Service Unavailable</html>"),
            (200, b"{}"),
        ]
    )

    def answer(_request: Recorded) -> tuple[int, bytes, dict[str, str]]:
        code, body = next(answers)
        return code, body, {"Content-Type": "application/json" if body.startswith(b"{") else "text/html"}

    with RecordingServer(answer) as server:
        job = ScheduledJob(server.url, 0.0, name="follow")
        assert job.call_once() is False
        assert (job.failing, job.last_error, job.last_error_transient) == (
            1,
            "ConfigError: cannot read the address book: no such file",
            False,
        )
        assert job.call_once() is False
        assert (job.failing, job.last_error, job.last_error_transient) == (
            2,
            "HTTP 503: <html>Service Unavailable</html>",
            True,
        )
        assert job.call_once() is True
        assert (job.calls, job.failures, job.failing) == (3, 2, 0)
