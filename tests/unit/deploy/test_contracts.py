"""infra/generated is current and says what the code says."""

from __future__ import annotations

import json
from dataclasses import fields
from typing import Any

from hedera_history.config import Settings, env_name
from hedera_history.deploy import contracts
from hedera_history.deploy.catalogue import FUNCTIONS
from hedera_history.store.schema import declared_tables
from hedera_history.transport.topics import TOPICS, pipeline_subscriptions

from tests.unit.deploy.infra import INFRA, REPO


def generated(name: str) -> dict[str, Any]:
    return json.loads((INFRA / "generated" / name).read_text())  # type: ignore[no-any-return]


def test_generated_contracts_are_current():
    stale = [str(path.relative_to(REPO)) for path in contracts.stale_contracts(REPO)]
    assert not stale, f"run `hedera-history deploy generate`: {stale}"


def test_schema_contract_lists_every_table_and_family():
    tables = generated("schema.json")["tables"]
    specs = declared_tables(Settings())
    assert set(tables) == {spec.name for spec in specs}
    for spec in specs:
        assert list(tables[spec.name]["families"]) == sorted(family for family, _ in spec.families)
        assert tables[spec.name]["history"] is spec.history
        for family, rule in spec.families:
            assert tables[spec.name]["families"][family]["max_versions"] == rule.max_versions


def test_state_tables_keep_everything_and_history_tables_follow_a_window():
    tables = generated("schema.json")["tables"]
    for name, table in tables.items():
        if table["history"]:
            expected = "sidecar_retention_days" if name == "sidecars" else "retention_days"
            assert table["max_age_from"] == expected, name
        else:
            assert table["max_age_from"] is None, name


def test_functions_contract_matches_the_function_specs():
    functions = generated("functions.json")["functions"]
    assert set(functions) == {spec.name for spec in FUNCTIONS}
    for spec in FUNCTIONS:
        entry = functions[spec.name]
        assert entry["entry_point"] == spec.entry_point
        assert entry["trigger"] == str(spec.trigger)
        assert entry["source"] == spec.source
        assert (entry["memory_mb"], entry["timeout_seconds"], entry["concurrency"]) == (
            spec.memory_mb,
            spec.timeout_seconds,
            spec.concurrency,
        )
        assert tuple(sorted(entry["settings"])) == spec.environment_variables
        assert all(env_name(field) == variable for variable, field in entry["settings"].items())


def test_functions_sharing_a_folder_share_an_archive():
    functions = generated("functions.json")["functions"]
    by_source: dict[str, set[str]] = {}
    for entry in functions.values():
        by_source.setdefault(entry["source"], set()).add(entry["archive"])
    assert all(len(archives) == 1 for archives in by_source.values())
    assert len({next(iter(a)) for a in by_source.values()}) == len(by_source)


def test_pubsub_contract_matches_the_transport():
    data = generated("pubsub.json")
    assert data["topics"] == list(TOPICS)
    specs = {spec.name: spec for spec in pipeline_subscriptions("https://store.example")}
    assert set(data["subscriptions"]) == set(specs)
    for name, spec in specs.items():
        entry = data["subscriptions"][name]
        assert entry["topic"] == spec.topic
        assert entry["push"] is (spec.push_endpoint is not None)
        assert entry["ack_deadline_seconds"] == spec.ack_deadline_seconds
        assert entry["dead_letter_topic"] == spec.dead_letter_topic
        assert entry["max_delivery_attempts"] == spec.max_delivery_attempts
        assert entry["min_backoff_seconds"] == spec.min_backoff_seconds
        assert entry["max_backoff_seconds"] == spec.max_backoff_seconds
        assert entry["retention_seconds"] == spec.retention_seconds


def test_settings_contract_defaults_read_back_as_the_defaults():
    data = generated("settings.json")["settings"]
    assert set(data) == {f.name for f in fields(Settings)}
    environ = {entry["env"]: entry["default"] for entry in data.values()}
    assert Settings.from_env(environ) == Settings()
