"""Bucket lifecycle rules: the backfill's staging files are deleted after a while, replaced function
sources stay a while for a rollback and then go, and no bucket keeps paying for unfinished uploads;
the history's own buckets (stream, quarantine, config) never delete an object.

The buckets are one resource over ``local.created_buckets``; each names its rules, locals of their own."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.deploy.infra import Module, block, dynamic, expr, load_module

CONDITIONS = ("age", "days_since_noncurrent_time", "num_newer_versions", "with_state")


@pytest.fixture(scope="module")
def root() -> Module:
    return load_module()


def rules(root: Module, role: str) -> list[tuple[dict[str, str], str]]:
    """Each lifecycle rule of the bucket of ``role``: the conditions it sets (as text) and its action."""
    found = []
    for reference in root.locals["created_buckets"][role]["rules"]:
        rule: dict[str, Any] = root.locals[expr(reference).removeprefix("local.")]
        assert set(rule) == {"action", *CONDITIONS}, "every condition named, null where unused"
        found.append(({key: expr(rule[key]) for key in CONDITIONS if rule[key] is not None}, rule["action"]))
    return found


def test_the_bucket_resource_applies_each_declared_rule_and_versioning(root: Module) -> None:
    bucket = root.resource("google_storage_bucket", "bucket")
    assert "local.created_buckets" in expr(bucket["for_each"])
    assert (bucket["uniform_bucket_level_access"], bucket["public_access_prevention"]) == (True, "enforced")
    lifecycle = dynamic(bucket, "lifecycle_rule")
    assert expr(lifecycle["for_each"]) == "each.value.rules"
    content = block(lifecycle, "content")
    condition = block(content, "condition")
    assert {key: expr(value) for key, value in condition.items()} == {
        key: f"lifecycle_rule.value.{key}" for key in CONDITIONS
    }
    assert expr(block(content, "action")["type"]) == "lifecycle_rule.value.action"
    versioning = dynamic(bucket, "versioning")
    assert expr(versioning["for_each"]) == "each.value.versioned ? [true] : []"


def test_every_bucket_aborts_unfinished_uploads(root: Module) -> None:
    for role in root.locals["created_buckets"]:
        assert ({"age": "var.incomplete_upload_days"}, "AbortIncompleteMultipartUpload") in rules(root, role), role


def test_the_history_buckets_never_delete(root: Module) -> None:
    for role in ("stream", "quarantine", "config"):
        assert all(action != "Delete" for _, action in rules(root, role)), role
        assert root.locals["created_buckets"][role]["versioned"] is False, role


def test_the_stream_bucket_is_created_only_when_none_is_read_or_followed(root: Module) -> None:
    bucket = root.resource("google_storage_bucket", "bucket")
    assert 'role != "stream" || local.creates_stream_bucket' in expr(bucket["for_each"])
    assert expr(root.locals["creates_stream_bucket"]) == 'var.existing_stream_bucket == "" && !local.following'


def test_backfill_staging_is_temporary(root: Module) -> None:
    assert ({"age": "var.backfill_staging_days"}, "Delete") in rules(root, "backfill_staging")


def test_replaced_artifacts_are_kept_for_a_rollback_then_deleted(root: Module) -> None:
    assert root.locals["created_buckets"]["artifacts"]["versioned"] is True
    found = rules(root, "artifacts")
    noncurrent = {"days_since_noncurrent_time": "var.artifact_noncurrent_days", "with_state": "ARCHIVED"}
    newer = {"num_newer_versions": "var.artifact_noncurrent_versions", "with_state": "ARCHIVED"}
    assert (noncurrent, "Delete") in found
    assert (newer, "Delete") in found
    # only noncurrent versions are ever deleted: the live sources are what the functions build from
    assert all(condition.get("with_state") == "ARCHIVED" for condition, action in found if action == "Delete")


def test_lifecycle_ages_are_variables_with_defaults(root: Module) -> None:
    for name in (
        "backfill_staging_days",
        "artifact_noncurrent_days",
        "artifact_noncurrent_versions",
        "incomplete_upload_days",
    ):
        assert root.variables[name]["default"] > 0, name
