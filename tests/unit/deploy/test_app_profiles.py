"""Bigtable app profiles: each function and the backfill call Bigtable through their own profile;
the compare-and-set writers' routes to one cluster with transactional writes, even with a replica;
the backfill ranks below the queries; every table has a daily automated backup."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hedera_history.deploy import contracts
from hedera_history.deploy.catalogue import FUNCTIONS, tables_of
from hedera_history.store.app_profiles import APP_PROFILES, BACKFILL, QUERIES, WRITERS

from tests.unit.deploy.infra import INFRA, block, dynamic, expr, load_module

PRIORITIES = {"PRIORITY_LOW": 0, "PRIORITY_MEDIUM": 1, "PRIORITY_HIGH": 2}


@pytest.fixture(scope="module")
def root():
    return load_module()


def routing(root: Any) -> dict[str, dict[str, Any]]:
    """Profile id to its route: ``any_cluster`` (a bool, or an expression's text) and ``priority``."""
    return {
        name: {key: value if isinstance(value, bool) else expr(value) for key, value in spec.items()}
        for name, spec in root.locals["bigtable_profile_routing"].items()
    }


def test_every_function_that_writes_uses_the_transactional_profile():
    for spec in FUNCTIONS:
        if tables_of(spec.name).writes:
            assert spec.app_profile is WRITERS, spec.name
        else:
            assert not spec.app_profile.transactional_writes, spec.name
    assert WRITERS.transactional_writes
    assert {spec.app_profile for spec in FUNCTIONS} | {BACKFILL} == set(APP_PROFILES)
    assert len({profile.id for profile in APP_PROFILES}) == len(APP_PROFILES)


def test_the_contract_names_each_identitys_profile():
    functions = json.loads((INFRA / "generated" / "functions.json").read_text())["functions"]
    for spec in FUNCTIONS:
        assert functions[spec.name]["fixed_settings"] == {"bigtable_app_profile": spec.app_profile.id}
        assert "HEDERA_HISTORY_BIGTABLE_APP_PROFILE" in functions[spec.name]["settings"]
    identities = contracts.app_profiles_contract()["identities"]
    assert identities["backfill"] == BACKFILL.id
    assert identities["query"] == QUERIES.id
    # every identity with table grants has a profile
    assert set(identities) == set(contracts.table_access())


def test_a_profile_resource_per_contract_profile(root):
    profile = root.resource("google_bigtable_app_profile", "profile")
    assert expr(profile["for_each"]) == "module.contract.app_profiles"
    assert expr(profile["app_profile_id"]) == "each.key"
    assert expr(profile["instance"]) == "google_bigtable_instance.history.name"
    assert set(routing(root)) == {p.id for p in APP_PROFILES}
    single = dynamic(profile, "single_cluster_routing")
    assert "local.bigtable_primary_cluster" in expr(single["for_each"])
    assert expr(single["content"][0]["allow_transactional_writes"]) == "each.value.transactional_writes"
    assert "local.bigtable_profile_routing[each.key].priority" in expr(block(profile, "standard_isolation")["priority"])
    assert "local.bigtable_profile_routing[each.key].any_cluster" in expr(profile["multi_cluster_routing_use_any"])


def test_writers_and_backfill_stay_on_one_cluster_and_the_backfill_ranks_lowest(root):
    routes = routing(root)
    # transactional writes are only safe on one cluster
    for profile in APP_PROFILES:
        if profile.transactional_writes:
            assert routes[profile.id]["any_cluster"] is False, profile.id
    assert routes[BACKFILL.id]["any_cluster"] is False
    # queries may fail over only when there is somewhere to fail over to
    assert routes[QUERIES.id]["any_cluster"] == "local.bigtable_replicated"
    priority = {name: PRIORITIES[route["priority"]] for name, route in routes.items()}
    assert priority[BACKFILL.id] < priority[QUERIES.id]
    assert priority[BACKFILL.id] < priority[WRITERS.id]


def test_the_replica_is_optional_and_off_by_default(root):
    instance = root.resource("google_bigtable_instance", "history")
    assert len(instance["cluster"]) == 1
    assert expr(block(instance, "cluster")["cluster_id"]) == "local.bigtable_primary_cluster"
    replica = dynamic(instance, "cluster")
    assert expr(replica["for_each"]) == "local.bigtable_replicated ? [var.bigtable_replica_zone] : []"
    assert expr(replica["content"][0]["cluster_id"]) == "local.bigtable_replica_cluster"
    assert root.variables["bigtable_replica_zone"]["default"] == ""
    assert expr(root.locals["bigtable_replicated"]) == 'var.bigtable_replica_zone != ""'


def test_functions_and_the_backfill_get_their_profile(root):
    function = root.resource("google_cloudfunctions2_function", "function")
    assert "google_bigtable_app_profile.profile" in expr(function["depends_on"])
    backfill = expr(root.locals["backfill_environment"])
    assert 'module.contract.setting_variables["bigtable_app_profile"]' in backfill
    assert 'google_bigtable_app_profile.profile[module.contract.identity_app_profiles["backfill"]]' in backfill


def test_every_table_has_a_daily_backup_kept_a_variable_number_of_days(root):
    table = root.resource("google_bigtable_table", "table")
    policy = block(table, "automated_backup_policy")
    assert expr(policy["frequency"]) == 'var.bigtable_backup_retention_days > 0 ? "24h0m0s" : "0"'
    retention = expr(policy["retention_period"])
    assert '"${var.bigtable_backup_retention_days * 24}h0m0s"' in retention
    assert retention.endswith(': "0"')
    variable = root.variables["bigtable_backup_retention_days"]
    assert variable["default"] == 7
    assert "<= 90" in expr(variable["validation"][0]["condition"])
