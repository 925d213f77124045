"""The root module hands the contract module's values to the right resource arguments.

What those values are is proved against the code in tests/integration/deploy/test_contract_module.py
(the contract module evaluated by the real binary); here the HCL is parsed to prove each value
reaches its resource unchanged.
"""

from __future__ import annotations

import pytest
from hedera_history.deploy.catalogue import FUNCTIONS, Trigger
from hedera_history.deploy.repo_paths import FUNCTIONS_BUILD_DIR

from tests.unit.deploy.infra import CONTRACT_MODULE, block, dynamic, expr, load_module


@pytest.fixture(scope="module")
def root():
    return load_module()


@pytest.fixture(scope="module")
def contract():
    return load_module(CONTRACT_MODULE)


def test_every_table_and_family_is_created_from_the_contract(root):
    table = root.resource("google_bigtable_table", "table")
    assert expr(table["for_each"]) == "module.contract.bigtable_tables"
    assert expr(table["name"]) == "each.key"
    families = dynamic(table, "column_family")
    assert expr(families["for_each"]) == "each.value"
    assert expr(block(families, "content")["family"]) == "column_family.value"


def test_every_family_gets_the_contract_gc_rules(root):
    policy = root.resource("google_bigtable_gc_policy", "family")
    assert expr(policy["for_each"]) == "module.contract.gc_policies"
    assert expr(policy["gc_rules"]) == "each.value.gc_rules"
    assert expr(policy["column_family"]) == "each.value.family"
    assert expr(policy["table"]) == "google_bigtable_table.table[each.value.table].name"
    assert policy["deletion_policy"] == "ABANDON"
    assert not {"max_age", "max_version", "mode"} & set(policy), "gc_rules alone says the rule"


def test_every_function_is_deployed_with_its_contract_arguments(root):
    function = root.resource("google_cloudfunctions2_function", "function")
    # the contract's functions but the idle ones (tests/unit/deploy/test_follow_infra.py)
    assert expr(function["for_each"]) == "local.deployed_functions"
    assert expr(block(function, "build_config")["entry_point"]) == "each.value.entry_point"
    service = block(function, "service_config")
    for argument in (
        "available_memory",
        "available_cpu",
        "timeout_seconds",
        "max_instance_request_concurrency",
        "ingress_settings",
        "environment_variables",
    ):
        assert expr(service[argument]) == f"each.value.{argument}", argument
    assert expr(service["service_account_email"]) == "google_service_account.identity[each.key].email"
    source = block(block(block(function, "build_config"), "source"), "storage_source")
    assert expr(source["object"]) == "google_storage_bucket_object.function_source[each.value.archive].name"


def test_storage_finalized_functions_get_an_eventarc_trigger_on_the_stream_bucket(root, contract):
    trigger = dynamic(root.resource("google_cloudfunctions2_function", "function"), "event_trigger")
    assert expr(trigger["for_each"]) == "each.value.event_type == null ? [] : [each.value.event_type]"
    content = block(trigger, "content")
    assert expr(content["event_type"]) == "event_trigger.value"
    assert content["retry_policy"] == "RETRY_POLICY_RETRY"
    event_filter = block(content, "event_filters")
    assert (event_filter["attribute"], expr(event_filter["value"])) == ("bucket", "local.stream_bucket")
    event_type = expr(contract.locals["functions"])
    assert f'spec.trigger == "{Trigger.STORAGE_FINALIZED}" ? local.functions_contract.storage_finalized_event' in (
        event_type
    )


def test_scheduled_functions_get_a_scheduler_job_with_oidc(root):
    job = root.resource("google_cloud_scheduler_job", "function")
    assert f'function.trigger == "{Trigger.SCHEDULED_HTTP}"' in expr(job["for_each"])
    target = block(job, "http_target")
    assert expr(target["uri"]) == "google_cloudfunctions2_function.function[each.key].url"
    token = block(target, "oidc_token")
    assert expr(token["service_account_email"]) == 'google_service_account.identity["scheduler"].email'


def test_push_subscriptions_deliver_to_the_pubsub_push_function_with_oidc(root):
    assert f'function.trigger == "{Trigger.PUBSUB_PUSH}"' in expr(root.locals["push_function"])
    subscription = root.resource("google_pubsub_subscription", "pipeline")
    push = dynamic(subscription, "push_config")
    assert expr(push["for_each"]) == (
        "each.value.push ? [google_cloudfunctions2_function.function[local.push_function].url] : []"
    )
    content = block(push, "content")
    assert expr(content["push_endpoint"]) == "push_config.value"
    assert expr(block(content, "oidc_token")["service_account_email"]) == (
        'google_service_account.identity["push"].email'
    )


def test_topics_and_subscriptions_come_from_the_contract(root):
    topic = root.resource("google_pubsub_topic", "pipeline")
    assert (expr(topic["for_each"]), expr(topic["name"])) == ("module.contract.topics", "each.value")
    subscription = root.resource("google_pubsub_subscription", "pipeline")
    assert expr(subscription["for_each"]) == "module.contract.subscriptions"
    assert expr(subscription["name"]) == "each.value.name"
    assert expr(subscription["topic"]) == "google_pubsub_topic.pipeline[each.value.topic].id"
    for argument in ("ack_deadline_seconds", "message_retention_duration"):
        assert expr(subscription[argument]) == f"each.value.{argument}"
    dead_letter = block(dynamic(subscription, "dead_letter_policy"), "content")
    assert expr(dead_letter["dead_letter_topic"]) == "google_pubsub_topic.pipeline[dead_letter_policy.value].id"
    assert expr(dead_letter["max_delivery_attempts"]) == "each.value.max_delivery_attempts"
    retry = block(dynamic(subscription, "retry_policy"), "content")
    assert expr(retry["minimum_backoff"]) == "retry_policy.value.minimum_backoff"
    assert expr(retry["maximum_backoff"]) == "retry_policy.value.maximum_backoff"


def test_every_function_and_caller_has_its_own_service_account(root):
    identities = set(root.locals["identities"])
    assert {spec.name for spec in FUNCTIONS} <= identities
    assert {"backfill", "builder", "events", "push", "scheduler"} <= identities
    account = root.resource("google_service_account", "identity")
    assert expr(account["for_each"]) == "local.identities"


def test_the_contract_module_reads_the_generated_files(contract):
    for name in ("settings", "schema", "functions", "pubsub"):
        assert expr(contract.locals[f"{name}_contract"]) == f'jsondecode(file("${{var.generated_dir}}/{name}.json"))'
    assert expr(load_module().modules["contract"]["generated_dir"]) == "${path.module}/generated"


def test_terraform_uploads_the_archives_deploy_build_writes(root):
    assert root.variables["function_archive_dir"]["default"] == f"../{FUNCTIONS_BUILD_DIR.as_posix()}"
    source = root.resource("google_storage_bucket_object", "function_source")
    assert expr(source["for_each"]) == "local.function_archives"
    assert source["source"] == "${path.module}/${var.function_archive_dir}/${each.value}"
