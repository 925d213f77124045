"""infra/modules/contract evaluated by the real Terraform binary (it has no provider, so it runs
offline) agrees with the code: tables, families and GC rules for several retention settings,
functions with their triggers and exactly their environment, topics and subscriptions, and each
identity's Bigtable grants, table by table."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hedera_history.config import Settings
from hedera_history.deploy.catalogue import FUNCTIONS, STORAGE_FINALIZED_EVENT, Trigger
from hedera_history.deploy.contracts import table_access
from hedera_history.deploy.terraform import Terraform
from hedera_history.errors import TerraformError
from hedera_history.store.app_profiles import APP_PROFILES, BACKFILL
from hedera_history.store.schema import declared_tables, gc_policy_data
from hedera_history.transport.topics import TOPICS, pipeline_subscriptions

from tests.unit.deploy.infra import CONTRACT_MODULE, INFRA

# name -> (retention_days, sidecar_retention_days, table_prefix, pubsub_topic_prefix, setting overrides)
CASES: dict[str, tuple[int, int, str, str, dict[str, str]]] = {
    "defaults": (0, 0, "", "", {}),
    "window": (
        30,
        0,
        "p_",
        "t-",
        # a deployment-wide app profile yields to each function's own
        {"project": "proj", "log_level": "DEBUG", "sidecars_enabled": "false", "bigtable_app_profile": "everyone"},
    ),
    "own_sidecar_window": (30, 7, "", "", {}),
    "sidecar_window_only": (0, 7, "", "", {}),
}


def harness(folder: Path, cases: dict[str, tuple[int, int, str, str, dict[str, str]]]) -> Terraform:
    blocks = []
    for name, (retention, sidecar, tables, topics, overrides) in cases.items():
        blocks.append(
            f'module "{name}" {{\n'
            f'  source = "{CONTRACT_MODULE}"\n'
            f'  generated_dir = "{INFRA / "generated"}"\n'
            f"  retention_days = {retention}\n"
            f"  sidecar_retention_days = {sidecar}\n"
            f'  table_prefix = "{tables}"\n'
            f'  pubsub_topic_prefix = "{topics}"\n'
            f"  setting_values = {json.dumps(overrides)}\n"
            f"}}\n"
            f'output "{name}" {{\n  value = module.{name}\n}}\n'
        )
    (folder / "main.tf").write_text("\n".join(blocks))
    return Terraform(folder)


def evaluate(folder: Path, cases: dict[str, tuple[int, int, str, str, dict[str, str]]]) -> dict[str, Any]:
    terraform = harness(folder, cases)
    terraform.init(backend=False)
    plan = folder / "contract.tfplan"
    terraform.plan(var_files=[], out=plan)
    terraform.apply(plan)
    return terraform.outputs()


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return evaluate(tmp_path_factory.mktemp("contract"), CASES)


def settings_of(case: str) -> Settings:
    retention, sidecar, tables, topics, _ = CASES[case]
    return Settings(
        retention_days=retention, sidecar_retention_days=sidecar, table_prefix=tables, pubsub_topic_prefix=topics
    )


def rule_of(gc_rules: str) -> dict[str, int | None]:
    """A gc_rules JSON back to the schema module's ``{max_versions, max_age_days}``."""
    data = json.loads(gc_rules)
    rules = {key: value for rule in data["rules"] for key, value in rule.items()}
    assert set(rules) <= {"max_version", "max_age"}
    if len(data["rules"]) > 1:
        assert data["mode"] == "union"
    age = rules.get("max_age")
    if age is not None:
        assert age.endswith("h") and int(age[:-1]) % 24 == 0
    return {"max_versions": rules["max_version"], "max_age_days": int(age[:-1]) // 24 if age else None}


@pytest.mark.parametrize("case", list(CASES))
def test_tables_families_and_gc_rules_match_the_schema(evaluated, case):
    settings = settings_of(case)
    module = evaluated[case]
    assert module["bigtable_tables"] == {
        spec.table_id: sorted(family for family, _ in spec.families) for spec in declared_tables(settings)
    }
    rules: dict[str, dict[str, Any]] = {}
    for policy in module["gc_policies"].values():
        rules.setdefault(policy["table"], {})[policy["family"]] = rule_of(policy["gc_rules"])
    assert rules == gc_policy_data(settings)


@pytest.mark.parametrize("case", list(CASES))
def test_functions_match_their_specs(evaluated, case):
    functions = evaluated[case]["functions"]
    assert set(functions) == {spec.name for spec in FUNCTIONS}
    for spec in FUNCTIONS:
        function = functions[spec.name]
        assert function["entry_point"] == spec.entry_point
        assert function["trigger"] == str(spec.trigger)
        assert function["source"] == spec.source
        storage = spec.trigger is Trigger.STORAGE_FINALIZED
        assert function["event_type"] == (STORAGE_FINALIZED_EVENT if storage else None)
        assert function["available_memory"] == f"{spec.memory_mb}Mi"
        assert function["timeout_seconds"] == spec.timeout_seconds
        assert function["max_instance_request_concurrency"] == spec.concurrency
        assert function["ingress_settings"] == ("ALLOW_ALL" if spec.trigger is Trigger.HTTP else "ALLOW_INTERNAL_ONLY")
        assert tuple(sorted(function["environment_variables"])) == spec.environment_variables


def test_function_environment_reads_back_as_the_deployment_settings(evaluated):
    # The module passes the given values on; the root module adds the ones the deployment decides.
    expected = Settings().with_(project="proj", log_level="DEBUG", sidecars_enabled=False)
    for spec in FUNCTIONS:
        environment = evaluated["window"]["functions"][spec.name]["environment_variables"]
        read_back = Settings.from_env(environment)
        for field in spec.settings:
            if field != "bigtable_app_profile":
                assert getattr(read_back, field) == getattr(expected, field), (spec.name, field)


@pytest.mark.parametrize("case", ["defaults", "window"])
def test_each_function_calls_bigtable_through_its_own_app_profile(evaluated, case):
    module = evaluated[case]
    for spec in FUNCTIONS:
        environment = module["functions"][spec.name]["environment_variables"]
        assert Settings.from_env(environment).bigtable_app_profile == spec.app_profile.id
    assert module["app_profiles"] == {
        profile.id: {"transactional_writes": profile.transactional_writes, "description": profile.description}
        for profile in APP_PROFILES
    }
    assert module["identity_app_profiles"] == {spec.name: spec.app_profile.id for spec in FUNCTIONS} | {
        "backfill": BACKFILL.id
    }


@pytest.mark.parametrize("case", ["defaults", "window"])
def test_topics_and_subscriptions_match_the_transport(evaluated, case):
    prefix = CASES[case][3]
    module = evaluated[case]
    assert module["topics"] == {name: prefix + name for name in TOPICS}
    specs = {spec.name: spec for spec in pipeline_subscriptions("https://store.example")}
    assert set(module["subscriptions"]) == set(specs)
    for name, spec in specs.items():
        subscription = module["subscriptions"][name]
        assert subscription["name"] == prefix + spec.name
        assert subscription["topic"] == spec.topic
        assert subscription["push"] is (spec.push_endpoint is not None)
        assert subscription["ack_deadline_seconds"] == spec.ack_deadline_seconds
        assert subscription["dead_letter_topic"] == spec.dead_letter_topic
        assert subscription["max_delivery_attempts"] == spec.max_delivery_attempts
        assert subscription["minimum_backoff"] == seconds(spec.min_backoff_seconds)
        assert subscription["maximum_backoff"] == seconds(spec.max_backoff_seconds)
        assert subscription["message_retention_duration"] == seconds(spec.retention_seconds)


@pytest.mark.parametrize("case", ["defaults", "window"])
def test_each_identity_is_granted_exactly_its_declared_tables(evaluated, case):
    prefix = CASES[case][2]
    expected = {
        (identity, prefix + table, role)
        for identity, access in table_access().items()
        for tables, role in ((access.writes, "roles/bigtable.user"), (access.reads, "roles/bigtable.reader"))
        for table in tables
    }
    grants = evaluated[case]["table_grants"]
    assert {(g["identity"], g["table"], g["role"]) for g in grants.values()} == expected
    assert len(grants) == len(expected)
    # every granted table is one the module creates, and one identity holds one role per table
    tables = set(evaluated[case]["bigtable_tables"])
    assert {g["table"] for g in grants.values()} <= tables
    held = [(g["identity"], g["table"]) for g in grants.values()]
    assert len(held) == len(set(held))


def seconds(value: float | None) -> str | None:
    return None if value is None else f"{value:g}s"


def test_a_misspelt_setting_stops_the_plan(tmp_path):
    with pytest.raises(TerraformError, match="Invalid index"):
        evaluate(tmp_path, {"typo": (0, 0, "", "", {"log_levle": "DEBUG"})})
