"""Platform alerts (infra/alerts.tf): 5xx share and p99 latency of every deployed function, the
oldest unacknowledged message of every subscription, all sent to the deployment's channels (an
email channel made from alert_email, and existing channel ids), with thresholds as variables."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.deploy.infra import block, expr, load_module

METRIC = 'metric.type="{}"'


@pytest.fixture(scope="module")
def root():
    return load_module()


def threshold(policy: dict[str, Any]) -> dict[str, Any]:
    return block(block(policy, "conditions"), "condition_threshold")


def test_every_alert_goes_to_the_channels_and_the_email_channel_joins_them(root):
    for _type, _name, body in root.all_resources():
        if _type == "google_monitoring_alert_policy":
            assert expr(body["notification_channels"]) == "local.alert_channels", _name
    channels = expr(root.locals["alert_channels"])
    assert channels == "concat(var.notification_channels, google_monitoring_notification_channel.email[*].id)"
    email = root.resource("google_monitoring_notification_channel", "email")
    assert email["type"] == "email"
    assert expr(email["count"]) == 'var.alert_email != "" ? 1 : 0'
    assert expr(email["labels"]["email_address"]) == "var.alert_email"


def test_each_function_has_a_5xx_share_alert(root):
    policy = root.resource("google_monitoring_alert_policy", "function_errors")
    assert expr(policy["for_each"]) == "google_cloudfunctions2_function.function"
    condition = threshold(policy)
    service = 'resource.label.service_name="${each.value.name}"'
    assert METRIC.format("run.googleapis.com/request_count") in condition["filter"]
    assert 'metric.label.response_code_class="5xx"' in condition["filter"]
    assert service in condition["filter"]
    # the share: 5xx over every request of the same function
    assert METRIC.format("run.googleapis.com/request_count") in condition["denominator_filter"]
    assert service in condition["denominator_filter"]
    assert "response_code_class" not in condition["denominator_filter"]
    assert expr(condition["threshold_value"]) == "var.function_5xx_alert_ratio"
    assert block(condition, "aggregations") == block(condition, "denominator_aggregations")


def test_each_function_has_a_p99_latency_alert_in_milliseconds(root):
    policy = root.resource("google_monitoring_alert_policy", "function_latency")
    assert expr(policy["for_each"]) == "google_cloudfunctions2_function.function"
    condition = threshold(policy)
    assert METRIC.format("run.googleapis.com/request_latencies") in condition["filter"]
    assert expr(condition["threshold_value"]) == "local.function_latency_alert_seconds[each.key] * 1000"
    assert block(condition, "aggregations")["per_series_aligner"] == "ALIGN_PERCENTILE_99"
    latency = expr(root.locals["function_latency_alert_seconds"])
    assert "lookup(var.function_latency_alert_seconds, name, function.timeout_seconds * 0.8)" in latency
    assert "local.deployed_functions" in latency
    assert root.variables["function_latency_alert_seconds"]["default"] == {"query": 5}


def test_each_subscription_has_an_oldest_unacked_message_alert(root):
    policy = root.resource("google_monitoring_alert_policy", "subscription_backlog")
    assert expr(policy["for_each"]) == "google_pubsub_subscription.pipeline"
    condition = threshold(policy)
    assert METRIC.format("pubsub.googleapis.com/subscription/oldest_unacked_message_age") in condition["filter"]
    assert 'resource.label.subscription_id="${each.value.name}"' in condition["filter"]
    assert expr(condition["threshold_value"]) == "local.subscription_oldest_unacked_alert_seconds[each.key]"
    ages = expr(root.locals["subscription_oldest_unacked_alert_seconds"])
    assert "module.contract.subscriptions" in ages
    assert "contains(local.dead_letter_holds, subscription.name)" in ages
    assert "var.dead_letter_hold_oldest_unacked_alert_seconds" in ages
    assert "var.subscription_oldest_unacked_alert_seconds" in ages


def test_every_threshold_is_a_variable_with_a_default(root):
    for name in (
        "function_5xx_alert_ratio",
        "function_latency_alert_seconds",
        "subscription_oldest_unacked_alert_seconds",
        "dead_letter_hold_oldest_unacked_alert_seconds",
        "alert_email",
        "require_alert_channel",
    ):
        assert "default" in root.variables[name], name
