"""Log-based metrics count the events the pipeline logs, and every required alert exists."""

from __future__ import annotations

import re

import pytest

from tests.unit.deploy.infra import REPO, block, expr, load_module

EVENTS = {
    "period verified",
    "block complete",
    "period quarantined",
    "chain link broken",
    "period pending",
    "consensus lost",
    "consensus fork",
    "first block mismatch",
    "block pin mismatch",
    "period republished",
    "period not completing",
    "dead letter replayed",
    "sweep replayed dead letters",
    "block conflict",
}


@pytest.fixture(scope="module")
def root():
    return load_module()


def logged_events() -> set[str]:
    """The messages the pipeline passes to ``logs.event`` (possibly on the next line)."""
    found: set[str] = set()
    for path in (REPO / "shared" / "src" / "hedera_history" / "pipeline").glob("*.py"):
        found |= set(re.findall(r'event\(\s*\w+,\s*"([^"]+)"', path.read_text()))
    return found


def test_every_counted_event_is_one_the_pipeline_logs(root):
    counted = set(root.locals["counted_events"].values())
    assert counted == EVENTS
    assert counted <= logged_events()


def test_metrics_match_the_message_field_of_the_function_logs(root):
    assert root.locals["event_field"] == "jsonPayload.message"
    metric = root.resource("google_logging_metric", "event")
    assert expr(metric["for_each"]) == (
        "merge(local.counted_events, local.following ? local.follower_counted_events : {})"
    )
    assert expr(metric["filter"]) == '${local.function_logs} AND ${local.event_field}="${each.value}"'
    assert 'resource.type=\\"cloud_run_revision\\"' in str(root.locals["function_logs"])


def test_ingest_lag_is_a_distribution_of_lag_seconds(root):
    lag = root.resource("google_logging_metric", "ingest_lag")
    assert lag["value_extractor"] == "EXTRACT(jsonPayload.lag_seconds)"
    assert block(lag, "metric_descriptor")["value_type"] == "DISTRIBUTION"
    assert '"period verified"' in lag["filter"]


def test_every_required_alert_exists(root):
    policies = root.resources("google_monitoring_alert_policy")
    assert set(policies) == {
        "ingest_lag",
        "dead_letters",
        "event",
        "follower",
        "function_errors",
        "function_latency",
        "subscription_backlog",
    }
    assert expr(policies["event"]["for_each"]) == (
        "merge(local.event_alerts, local.following ? local.follower_event_alerts : {})"
    )
    assert set(root.locals["event_alerts"]) == {
        "periods_quarantined",
        "chain_links_broken",
        "consensus_lost",
        "consensus_forks",
        "first_block_mismatches",
        "block_pin_mismatches",
        "periods_not_completing",
        "block_conflicts",
    }
    dead_letters = block(policies["dead_letters"], "conditions")
    assert "num_undelivered_messages" in block(dead_letters, "condition_threshold")["filter"]
    assert "local.dead_letter_holds" in block(dead_letters, "condition_threshold")["filter"]
    # every event that alerts is counted
    assert set(root.locals["event_alerts"]) <= set(root.locals["counted_events"])
    assert set(root.locals["follower_event_alerts"]) <= set(root.locals["follower_counted_events"])
    kinds = {name for condition in policies["ingest_lag"]["conditions"] for name in condition if name != "display_name"}
    assert kinds == {"condition_threshold", "condition_absent"}
    for policy in policies.values():
        assert expr(policy["notification_channels"]) == "local.alert_channels"


def test_the_backfill_template_runs_as_the_backfill_identity(root):
    batch = expr(root.locals["backfill_batch"])
    assert 'serviceAccount = google_service_account.identity["backfill"].email' in batch
    assert 'function.trigger == "storage-finalized"' in expr(root.locals["backfill_environment"])
