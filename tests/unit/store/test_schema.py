from __future__ import annotations

from hedera_history.config import Settings
from hedera_history.store import schema as s


def test_every_table_is_declared_once_with_its_families() -> None:
    specs = s.declared_tables(Settings())
    names = [spec.name for spec in specs]
    assert len(names) == len(set(names))
    assert set(names) == set(s.HISTORY_TABLES) | set(s.STATE_TABLES)
    assert {spec.name for spec in specs if spec.history} == {
        "blocks",
        "items",
        "transactions",
        "tx_by_hash",
        "tx_by_id",
        "account_history",
        "sidecars",
    }
    blocks = next(spec for spec in specs if spec.name == s.BLOCKS)
    assert set(blocks.family_rules) == {"h", "sig", "c"}


def test_table_prefix_applies_to_ids_only() -> None:
    specs = s.declared_tables(Settings(table_prefix="dev_"))
    assert all(spec.table_id == "dev_" + spec.name for spec in specs)


def test_default_keeps_everything() -> None:
    data = s.gc_policy_data(Settings())
    assert data["blocks"]["h"] == {"max_versions": 1, "max_age_days": None}
    assert all(rule == {"max_versions": 1, "max_age_days": None} for t in data.values() for rule in t.values())


def test_retention_windows_apply_to_history_tables_only() -> None:
    data = s.gc_policy_data(Settings(retention_days=180, sidecar_retention_days=30))
    assert data["transactions"]["t"] == {"max_versions": 1, "max_age_days": 180}
    assert data["sidecars"]["s"] == {"max_versions": 1, "max_age_days": 30}
    assert data["ingest_progress"]["p"] == {"max_versions": 1, "max_age_days": None}
    follows = s.gc_policy_data(Settings(retention_days=180))
    assert follows["sidecars"]["m"]["max_age_days"] == 180
