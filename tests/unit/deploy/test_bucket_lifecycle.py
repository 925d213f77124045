"""Bucket lifecycle rules: the backfill's staging files are deleted after a while, replaced function
sources stay a while for a rollback and then go, and no bucket keeps paying for unfinished uploads;
the history's own buckets (stream, quarantine) never delete an object."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.deploy.infra import block, expr, load_module


@pytest.fixture(scope="module")
def root():
    return load_module()


def rules(bucket: dict[str, Any]) -> list[tuple[dict[str, Any], str]]:
    """Each lifecycle rule's condition (expressions as text) and action type."""
    return [
        ({key: expr(value) for key, value in block(rule, "condition").items()}, block(rule, "action")["type"])
        for rule in bucket.get("lifecycle_rule", [])
    ]


def test_every_bucket_aborts_unfinished_uploads(root):
    for name, bucket in root.resources("google_storage_bucket").items():
        assert ({"age": "var.incomplete_upload_days"}, "AbortIncompleteMultipartUpload") in rules(bucket), name


def test_the_history_buckets_never_delete(root):
    for name in ("stream", "quarantine", "config"):
        bucket = root.resource("google_storage_bucket", name)
        assert all(action != "Delete" for _, action in rules(bucket)), name


def test_backfill_staging_is_temporary(root):
    staging = root.resource("google_storage_bucket", "backfill_staging")
    assert ({"age": "var.backfill_staging_days"}, "Delete") in rules(staging)


def test_replaced_artifacts_are_kept_for_a_rollback_then_deleted(root):
    artifacts = root.resource("google_storage_bucket", "artifacts")
    assert block(artifacts, "versioning")["enabled"] is True
    found = rules(artifacts)
    noncurrent = {"days_since_noncurrent_time": "var.artifact_noncurrent_days", "with_state": "ARCHIVED"}
    newer = {"num_newer_versions": "var.artifact_noncurrent_versions", "with_state": "ARCHIVED"}
    assert (noncurrent, "Delete") in found
    assert (newer, "Delete") in found
    # only noncurrent versions are ever deleted: the live sources are what the functions build from
    assert all(condition.get("with_state") == "ARCHIVED" for condition, action in found if action == "Delete")


def test_lifecycle_ages_are_variables_with_defaults(root):
    for name in (
        "backfill_staging_days",
        "artifact_noncurrent_days",
        "artifact_noncurrent_versions",
        "incomplete_upload_days",
    ):
        assert root.variables[name]["default"] > 0, name
