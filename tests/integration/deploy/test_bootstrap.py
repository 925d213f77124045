"""`deploy bootstrap`: the APIs enabled through a real HTTP exchange shaped as Service Usage answers,
the state bucket created (versioned) on the GCS emulator, and what it reads from infra/."""

from __future__ import annotations

import json
from typing import Any

import pytest
import requests
from google.auth.credentials import AnonymousCredentials
from google.cloud import storage
from hedera_history.deploy import repo_paths
from hedera_history.deploy.bootstrap import (
    ALWAYS_ENABLED,
    BootstrapPlan,
    BootstrapReport,
    enable_apis,
    ensure_state_bucket,
    infra_apis,
    plan_bootstrap,
)
from hedera_history.errors import BootstrapError

from tests.fixtures.emulators import unique_name
from tests.http_recorder import Recorded, RecordingServer
from tests.unit.deploy.infra import REPO


def test_the_plan_names_every_api_infra_enables_and_the_environments_state_bucket():
    plan = plan_bootstrap(REPO, repo_paths.environment(REPO, "dev"))
    assert plan.project == "hedera-history-dev"
    assert plan.state_bucket == "hedera-history-dev-tfstate"
    assert plan.location == "us-central1"
    assert plan.apis[: len(ALWAYS_ENABLED)] == ALWAYS_ENABLED
    assert set(infra_apis(REPO)) <= set(plan.apis)
    assert {"bigtable.googleapis.com", "cloudfunctions.googleapis.com"} <= set(plan.apis)
    assert plan_bootstrap(REPO, repo_paths.environment(REPO, "dev"), "other").project == "other"


def service_usage(pending_polls: int) -> tuple[RecordingServer, list[list[str]]]:
    batches: list[list[str]] = []
    polls = {"left": 0}

    def answer(request: Recorded) -> tuple[int, bytes, dict[str, str]]:
        if request.method == "POST":
            batches.append(json.loads(request.body)["serviceIds"])
            polls["left"] = pending_polls
            return 200, json.dumps({"name": f"operations/op-{len(batches)}", "done": False}).encode(), {}
        polls["left"] -= 1
        return 200, json.dumps({"name": request.path, "done": polls["left"] <= 0}).encode(), {}

    return RecordingServer(answer), batches


def test_apis_are_enabled_in_batches_of_twenty_and_each_operation_is_awaited():
    server, batches = service_usage(pending_polls=2)
    apis = [f"api{n}.googleapis.com" for n in range(23)]
    with server, requests.Session() as session:
        enabled = enable_apis(session, "p1", apis, endpoint=server.url, sleep=lambda _s: None)
    assert enabled == apis
    assert batches == [apis[:20], apis[20:]]
    posts = [r.path for r in server.requests if r.method == "POST"]
    assert posts == ["/projects/p1/services:batchEnable"] * 2
    assert [r.path for r in server.requests if r.method == "GET"] == ["/operations/op-1"] * 2 + ["/operations/op-2"] * 2


def test_a_refused_enable_names_the_missing_role():
    refusing = RecordingServer(lambda _r: (403, b'{"error": "denied"}', {}))
    with refusing as server, requests.Session() as session, pytest.raises(BootstrapError, match=r"HTTP 403 \(does"):
        enable_apis(session, "p1", ["a.googleapis.com"], endpoint=server.url, sleep=lambda _s: None)


def test_the_state_bucket_is_created_then_left_as_it_is(gcs_client: Any):
    plan = BootstrapPlan("local-project", "US", unique_name("tfstate"), ALWAYS_ENABLED)
    first = BootstrapReport()
    ensure_state_bucket(gcs_client, plan, first)
    assert first.bucket_created
    bucket = gcs_client.get_bucket(plan.state_bucket)
    # The emulator keeps no versioning flag: what is asked for is checked on the wire below.
    bucket.versioning_enabled = True
    bucket.patch()
    again = BootstrapReport()
    ensure_state_bucket(gcs_client, plan, again)
    assert not again.bucket_created
    bucket.delete()


def test_the_state_bucket_is_asked_for_versioned_private_and_uniform():
    def answer(request: Recorded) -> tuple[int, bytes, dict[str, str]]:
        if request.method == "GET":
            return 404, b'{"error": {"code": 404, "message": "Not Found"}}', {"Content-Type": "application/json"}
        return (
            200,
            json.dumps({"name": "state", "kind": "storage#bucket"}).encode(),
            {"Content-Type": "application/json"},
        )

    with RecordingServer(answer) as server:
        client = storage.Client(
            project="p1",
            credentials=AnonymousCredentials(),  # type: ignore[no-untyped-call]
            client_options={"api_endpoint": server.url},
        )
        report = BootstrapReport()
        ensure_state_bucket(client, BootstrapPlan("p1", "us-central1", "state", ALWAYS_ENABLED), report)
    assert report.bucket_created
    (insert,) = [request for request in server.requests if request.method == "POST"]
    body = json.loads(insert.body)
    assert "project=p1" in insert.path
    assert body["name"] == "state" and body["location"] == "us-central1"
    assert body["versioning"] == {"enabled": True}
    assert body["iamConfiguration"]["uniformBucketLevelAccess"]["enabled"] is True
    assert body["iamConfiguration"]["publicAccessPrevention"] == "enforced"
