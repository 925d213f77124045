"""The follower's Terraform (infra/follow.tf and its hooks in the other files): off unless a source
is followed; then the follow function is called every minute by Cloud Scheduler with OIDC, at most
two instances, with a timeout longer than its window, its own identity with ingest's rights but
nothing on the followed bucket, requester-pays billing on this project, an AWS key from Secret
Manager for S3, and alerts on its lag, on its silence and on a period without consensus; after the
cutover, block sources (a block bucket, block nodes) from settings Terraform sets, the block bucket's
requester-pays reads billed here, and an alert when no block arrives."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hedera_history.config import Settings
from hedera_history.deploy.catalogue import FUNCTIONS, Trigger, function

from tests.unit.deploy.infra import REPO, block, dynamic, expr, load_module

FOLLOW = "follow"


@pytest.fixture(scope="module")
def root() -> Any:
    return load_module()


def test_following_is_off_unless_a_source_is_given(root: Any) -> None:
    source = root.variables["follow_source"]
    assert source["default"] == ""
    assert expr(root.locals["following"]) == 'var.follow_source != ""'
    pattern = re.search(r'regex\("([^"]+)"', str(block(source, "validation")["condition"]))
    assert pattern is not None
    accepted = pattern.group(1).replace("\\\\", "\\")
    for url in ("gs://hedera-mainnet-streams", "s3://hedera-mainnet-streams/recordstreams", "gs://a-b.c/x/"):
        assert re.fullmatch(accepted, url), url
    for url in ("hedera-mainnet-streams", "file:///tmp/x", "gs://", "https://storage.googleapis.com/x"):
        assert not re.fullmatch(accepted, url), url


def test_the_follower_or_the_eventarc_ingest_is_deployed_never_both(root: Any) -> None:
    assert expr(root.locals["follow_function"]) == FOLLOW
    assert expr(root.locals["idle_identities"]) == ('local.following ? ["ingest", "events"] : [local.follow_function]')
    # ingest is the one function bucket events reach; events is the identity that delivers them
    storage = [spec.name for spec in FUNCTIONS if spec.trigger is Trigger.STORAGE_FINALIZED]
    assert storage == ["ingest"]
    assert expr(root.locals["deployed_functions"]) == (
        "{for name, function in module.contract.functions : name => function if !contains(local.idle_identities, name)}"
    )
    assert expr(root.resource("google_cloudfunctions2_function", "function")["for_each"]) == (
        "local.deployed_functions"
    )
    assert "local.deployed_functions" in expr(root.locals["function_archives"])
    assert "local.deployed_functions" in expr(root.resource("google_cloud_scheduler_job", "function")["for_each"])


def test_idle_identities_get_no_grant_and_nothing_is_granted_on_a_followed_bucket(root: Any) -> None:
    condition = expr(root.locals["grants_by_key"])
    assert "!contains(local.idle_identities, grant.identity)" in condition
    assert '!(grant.on == "function" && contains(local.idle_identities, grant.target))' in condition
    assert '(grant.on != "stream_bucket" || (var.stream_bucket_iam && !local.following))' in condition
    tables = expr(root.resource("google_bigtable_table_iam_member", "grant")["for_each"])
    assert "!contains(local.idle_identities, grant.identity)" in tables
    billing = expr(root.resource("google_project_iam_member", "requester_pays")["for_each"])
    assert "!contains(local.idle_identities, identity)" in billing


def test_the_follower_holds_what_ingest_holds_but_the_stream_bucket(root: Any) -> None:
    def rights(identity: str) -> set[tuple[str, str, str]]:
        return {(g["on"], g["target"], g["role"]) for g in root.locals["grants"] if g["identity"] == identity}

    assert rights(FOLLOW) == {right for right in rights("ingest") if right[0] != "stream_bucket"}
    assert FOLLOW in root.locals["identities"]
    assert FOLLOW in root.locals["requester_pays_readers"]
    # and Bigtable exactly as ingest (the contract module grants what deploy.catalogue.TABLES says)
    from hedera_history.deploy.catalogue import TABLES  # noqa: PLC0415

    assert TABLES[FOLLOW].writes >= TABLES["ingest"].writes


def test_the_scheduler_calls_the_follower_every_minute_with_oidc(root: Any) -> None:
    scheduled = {spec.name for spec in FUNCTIONS if spec.trigger is Trigger.SCHEDULED_HTTP}
    assert FOLLOW in scheduled
    schedules = {expr(name): expr(value) for name, value in root.locals["schedules"].items()}
    assert schedules == {"sweep": "var.sweep_schedule", "(local.follow_function)": "var.follow_schedule"}
    assert root.variables["follow_schedule"]["default"] == "* * * * *"
    job = root.resource("google_cloud_scheduler_job", "function")
    assert expr(job["schedule"]) == "local.schedules[each.key]"
    token = block(block(job, "http_target"), "oidc_token")
    assert expr(token["service_account_email"]) == 'google_service_account.identity["scheduler"].email'
    invokes = {g["target"] for g in root.locals["grants"] if g["identity"] == "scheduler"}
    assert invokes == scheduled


def test_a_call_outlasts_its_window_and_at_most_two_instances_run(root: Any) -> None:
    spec = function(FOLLOW)
    window = Settings().follow_window_seconds
    # the window, then the in-flight hand-offs and the final position write
    assert spec.timeout_seconds >= window + 30
    # windows a little longer than the scheduler's minute overlap, two at most: someone always follows
    assert 60 < window < 120
    assert spec.concurrency == 1
    job = root.resource("google_cloud_scheduler_job", "function")
    assert job["attempt_deadline"] == "${min(each.value.timeout_seconds + 30, 1800)}s"
    assert expr(root.modules["contract"]["setting_values"]).startswith("merge(var.settings, {")
    assert expr(root.locals["function_max_instances"]) == "merge(var.max_instances, {(local.follow_function) = 2})"
    service = block(root.resource("google_cloudfunctions2_function", "function"), "service_config")
    assert expr(service["max_instance_count"]) == "lookup(local.function_max_instances, each.key, 100)"


def test_a_followed_bucket_is_the_stream_bucket_of_every_function(root: Any) -> None:
    stream = expr(root.locals["stream_bucket"])
    assert stream.startswith("local.following ? var.follow_source :")
    assert expr(root.locals["creates_stream_bucket"]) == 'var.existing_stream_bucket == "" && !local.following'
    decided = expr(root.modules["contract"]["setting_values"])
    assert re.search(r"stream_bucket\s*=\s*local.stream_bucket", decided)
    assert re.search(r"follow_source\s*=\s*var.follow_source", decided)
    assert re.search(r"requester_pays_project\s*=\s*local.requester_pays_project", decided)


def test_requester_pays_reads_are_billed_to_this_project_for_a_gcs_source(root: Any) -> None:
    assert expr(root.locals["requester_pays_project"]) == (
        'var.requester_pays_project != "" ? var.requester_pays_project : '
        '(substr(var.follow_source, 0, 5) == "gs://" || local.reads_gcs_blocks ? var.project : "")'
    )
    # an s3:// follow_source still reads the preset's block bucket on GCS after the cutover
    assert expr(root.locals["reads_gcs_blocks"]) == (
        'local.following && (var.follow_block_source == "" || substr(var.follow_block_source, 0, 5) == "gs://")'
    )
    billing = root.resource("google_project_iam_member", "requester_pays")
    assert (billing["project"], billing["role"]) == (
        "${local.requester_pays_project}",
        "roles/serviceusage.serviceUsageConsumer",
    )


def test_an_s3_source_is_read_with_an_aws_key_from_secret_manager(root: Any) -> None:
    secrets = expr(root.locals["follow_aws_secrets"])
    # the variables boto3 reads its key from
    assert "AWS_ACCESS_KEY_ID = var.follow_aws_access_key_secret" in secrets
    assert "AWS_SECRET_ACCESS_KEY = var.follow_aws_secret_access_key_secret" in secrets
    assert secrets.startswith('local.following && var.follow_aws_access_key_secret != "" ?')
    service = block(root.resource("google_cloudfunctions2_function", "function"), "service_config")
    env = dynamic(service, "secret_environment_variables")
    assert expr(env["for_each"]) == "each.key == local.follow_function ? local.follow_aws_secrets : {}"
    assert block(env, "content")["version"] == "latest"
    access = root.resource("google_secret_manager_secret_iam_member", "follow_aws")
    assert expr(access["for_each"]) == "local.follow_aws_secrets"
    assert access["role"] == "roles/secretmanager.secretAccessor"
    assert expr(access["member"]) == "local.members[local.follow_function]"
    assert expr(access["secret_id"]) == "each.value"


def test_lag_is_a_distribution_of_the_follower_position_lag(root: Any) -> None:
    lag = root.resource("google_logging_metric", "follow_lag")
    assert expr(lag["count"]) == "local.following ? 1 : 0"
    assert '${local.event_field}="follower position"' in lag["filter"]
    assert lag["value_extractor"] == "EXTRACT(jsonPayload.lag_seconds)"
    assert block(lag, "metric_descriptor")["value_type"] == "DISTRIBUTION"
    buckets = block(block(lag, "bucket_options"), "linear_buckets")
    threshold = root.variables["follow_lag_alert_seconds"]["default"]
    assert threshold == 60
    assert (threshold - buckets["offset"]) % buckets["width"] == 0, "a bucket boundary on the threshold"
    # counted by the events' metric (monitoring.tf) when following
    assert root.locals["follower_counted_events"] == {
        "periods_without_consensus": "period without consensus",
        "blocks_not_arriving": "follower no block",
    }


def test_the_follower_alerts_on_lag_silence_and_periods_without_consensus(root: Any) -> None:
    policy = root.resource("google_monitoring_alert_policy", "follower")
    assert expr(policy["notification_channels"]) == "local.alert_channels"
    lag, stopped = policy["conditions"]
    threshold = block(lag, "condition_threshold")
    assert expr(threshold["threshold_value"]) == "var.follow_lag_alert_seconds"
    aggregation = block(threshold, "aggregations")
    assert (aggregation["alignment_period"], aggregation["per_series_aligner"]) == ("120s", "ALIGN_PERCENTILE_99")
    assert "google_logging_metric.follow_lag[0].name" in threshold["filter"]
    absent = block(stopped, "condition_absent")
    assert absent["duration"] == "${var.follow_stopped_alert_seconds}s"
    assert root.variables["follow_stopped_alert_seconds"]["default"] == 180
    assert "google_logging_metric.follow_lag[0].name" in absent["filter"]
    # a period without consensus alerts as a counted event does, on any occurrence
    assert set(root.locals["follower_event_alerts"]) == {"periods_without_consensus", "blocks_not_arriving"}


def test_the_follower_logs_the_events_and_fields_the_metrics_read() -> None:
    code = "\n".join(path.read_text() for path in (REPO / "shared/src/hedera_history/follow").glob("*.py"))
    logged = set(re.findall(r'event\(\s*\w+,\s*"([^"]+)"', code))
    assert {"follower position", "period without consensus", "follower no block"} <= logged
    assert '"lag_seconds":' in code or "lag_seconds=" in code


def test_block_sources_and_the_cutover_reach_the_settings(root: Any) -> None:
    decided = expr(root.modules["contract"]["setting_values"])
    wired = {
        "block_source": "var.follow_block_source",
        "block_nodes": 'join(",", var.block_nodes)',
        "follow_cutover_seconds": "tostring(var.follow_cutover_seconds)",
        "follow_block_alert_seconds": "tostring(var.follow_block_alert_seconds)",
        "follow_block_fallback_seconds": "tostring(var.follow_block_fallback_seconds)",
    }
    settings = Settings()
    for name, value in wired.items():
        assert re.search(rf"{name}\s*=\s*{re.escape(value)}", decided), name
        assert hasattr(settings, name), name
    # Terraform's defaults are the settings' own: an empty source and no nodes mean the preset's.
    assert root.variables["follow_block_source"]["default"] == settings.block_source == ""
    assert root.variables["block_nodes"]["default"] == [] and settings.block_nodes == ""
    assert root.variables["follow_cutover_seconds"]["default"] == settings.follow_cutover_seconds
    assert root.variables["follow_block_alert_seconds"]["default"] == settings.follow_block_alert_seconds
    assert root.variables["follow_block_fallback_seconds"]["default"] == settings.follow_block_fallback_seconds


def test_block_node_endpoints_are_checked_as_the_client_reads_them(root: Any) -> None:
    from hedera_history.sources.block_node_api import parse_endpoints  # noqa: PLC0415

    pattern = re.search(r'regex\("([^"]+)"', str(block(root.variables["block_nodes"], "validation")["condition"]))
    assert pattern is not None
    accepted = pattern.group(1).replace("\\\\", "\\")
    accepted_nodes = ("localhost", "bn-1.example.com:40840", "tls://bn.example.com:443@1", "10.0.0.7@2", "[::1]:40840")
    for node in accepted_nodes:
        assert re.fullmatch(accepted, node), node
        assert parse_endpoints(node)
    for node in ("http://bn:40840", "bn:port", "bn@first", ""):
        assert not re.fullmatch(accepted, node), node
