"""The code's deployment contracts as JSON files that Terraform reads (``infra/generated/``).

Terraform never repeats a table, family, function or topic name by hand: ``infra/modules/contract``
loads these files with ``jsondecode(file(...))``. They are written by
``hedera-history deploy generate`` and a test fails when one is stale.
"""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path
from typing import Any

from hedera_history.backfill.partition_messages import TABLES as BACKFILL_TABLES
from hedera_history.config import Settings, env_name
from hedera_history.deploy.catalogue import FUNCTIONS, STORAGE_FINALIZED_EVENT, tables_of
from hedera_history.store.app_profiles import APP_PROFILES, BACKFILL
from hedera_history.store.schema import TableAccess, declared_tables, retention_days_for
from hedera_history.transport.topics import TOPICS, pipeline_subscriptions

GENERATED_DIR = Path("infra") / "generated"

# Distinct windows, so that the window a table gets tells which setting it follows.
_PROBE = Settings(retention_days=1, sidecar_retention_days=2)
_WINDOW_SETTING = {None: None, 1: "retention_days", 2: "sidecar_retention_days"}


def schema_contract() -> dict[str, Any]:
    """Every table (logical name) with its families and GC rule.

    ``max_age_from`` names the setting whose chain-time window the table's families keep (a Terraform
    variable of the same name), or null for tables kept whole. A zero ``sidecar_retention_days``
    falls back to ``retention_days``; the contract module applies that rule.
    """
    tables: dict[str, Any] = {}
    for spec in declared_tables(Settings()):
        tables[spec.name] = {
            "history": spec.history,
            "max_age_from": _WINDOW_SETTING[retention_days_for(spec.name, _PROBE)],
            "families": {family: {"max_versions": rule.max_versions} for family, rule in spec.families},
        }
    return {"tables": tables}


def functions_contract() -> dict[str, Any]:
    """Every function: source folder, entry point, trigger, resources and the settings it reads
    (environment variable name to ``Settings`` field); ``fixed_settings`` are the function's own
    values, whatever the deployment's settings say (its Bigtable app profile)."""
    functions: dict[str, Any] = {}
    for spec in FUNCTIONS:
        functions[spec.name] = {
            "source": spec.source,
            "entry_point": spec.entry_point,
            "trigger": str(spec.trigger),
            "memory_mb": spec.memory_mb,
            "timeout_seconds": spec.timeout_seconds,
            "concurrency": spec.concurrency,
            "archive": source_archive_name(spec.source),
            "settings": {env_name(field): field for field in sorted(spec.settings)},
            "fixed_settings": {"bigtable_app_profile": spec.app_profile.id},
        }
    return {"functions": functions, "storage_finalized_event": STORAGE_FINALIZED_EVENT}


def app_profiles_contract() -> dict[str, Any]:
    """Every Bigtable app profile (whether its users need transactional writes) and the profile of
    each identity that calls Bigtable: each function, and the backfill."""
    identities = {spec.name: spec.app_profile.id for spec in FUNCTIONS} | {"backfill": BACKFILL.id}
    return {
        "profiles": {
            profile.id: {"transactional_writes": profile.transactional_writes, "description": profile.description}
            for profile in APP_PROFILES
        },
        "identities": dict(sorted(identities.items())),
    }


def pubsub_contract() -> dict[str, Any]:
    """Topics and subscriptions (logical names; a deployment prefixes them) with their policies."""
    subscriptions: dict[str, Any] = {}
    for spec in pipeline_subscriptions(store_endpoint="store"):
        subscriptions[spec.name] = {
            "topic": spec.topic,
            "push": spec.push_endpoint is not None,
            "ack_deadline_seconds": spec.ack_deadline_seconds,
            "dead_letter_topic": spec.dead_letter_topic,
            "max_delivery_attempts": spec.max_delivery_attempts,
            "min_backoff_seconds": spec.min_backoff_seconds,
            "max_backoff_seconds": spec.max_backoff_seconds,
            "retention_seconds": spec.retention_seconds,
        }
    return {"topics": list(TOPICS), "subscriptions": subscriptions}


def table_access() -> dict[str, TableAccess]:
    """Every identity that reads or writes Bigtable (each function, and the backfill) and its tables."""
    return {**{spec.name: tables_of(spec.name) for spec in FUNCTIONS}, "backfill": BACKFILL_TABLES}


def tables_contract() -> dict[str, Any]:
    """Per identity, the tables (logical names) it writes and those it only reads; the deployment
    grants ``bigtable.user`` on the first and ``bigtable.reader`` on the second, table by table."""
    return {
        "identities": {
            name: {"writes": sorted(access.writes), "reads": sorted(access.reads)}
            for name, access in sorted(table_access().items())
        }
    }


def settings_contract() -> dict[str, Any]:
    """Every setting with its environment variable and its default as the string a variable holds.

    A deployment's values start from these defaults; an environment's ``settings`` map overrides them.
    """
    return {
        "settings": {f.name: {"env": env_name(f.name), "default": setting_text(f.default)} for f in fields(Settings)}
    }


def setting_text(value: object) -> str:
    """A setting's value as its environment variable spells it (``Settings.from_env`` reads it back)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def source_archive_name(source: str) -> str:
    """The built archive of a function source folder: ``functions/ingest`` -> ``ingest.zip``."""
    return Path(source).name + ".zip"


CONTRACTS = {
    "settings.json": settings_contract,
    "schema.json": schema_contract,
    "functions.json": functions_contract,
    "pubsub.json": pubsub_contract,
    "tables.json": tables_contract,
    "app_profiles.json": app_profiles_contract,
}


def render(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, sort_keys=True) + "\n"


def write_contracts(root: Path) -> list[Path]:
    """Write every contract file under ``root/infra/generated``; returns the files that changed."""
    folder = root / GENERATED_DIR
    folder.mkdir(parents=True, exist_ok=True)
    changed = []
    for name, build in CONTRACTS.items():
        path = folder / name
        text = render(build())
        if not path.is_file() or path.read_text() != text:
            path.write_text(text)
            changed.append(path)
    return changed


def stale_contracts(root: Path) -> list[Path]:
    """The contract files under ``root`` that are missing or differ from what the code says."""
    folder = root / GENERATED_DIR
    return [
        folder / name
        for name, build in CONTRACTS.items()
        if not (folder / name).is_file() or (folder / name).read_text() != render(build())
    ]
