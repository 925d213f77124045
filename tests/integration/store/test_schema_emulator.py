from __future__ import annotations

from typing import Any

from hedera_history.config import Settings
from hedera_history.store.bigtable_client import gateway_for_instance, read_gc_policies
from hedera_history.store.gateway import CellSwap, RowQuery
from hedera_history.store.schema import (
    CARDINAL_TRACKING,
    CARDINAL_TRACKING_FAMILY,
    declared_tables,
    ensure_tables,
    gc_policy_data,
)


def test_tables_and_gc_rules_are_created_as_declared_and_idempotently(bigtable_instance: Any) -> None:
    settings = Settings(table_prefix="p_")
    ensure_tables(bigtable_instance, settings)
    ensure_tables(bigtable_instance, settings)
    ids = [spec.table_id for spec in declared_tables(settings)]
    assert sorted(t.table_id for t in bigtable_instance.list_tables()) == sorted(ids)
    assert read_gc_policies(bigtable_instance, ids) == gc_policy_data(settings)


def test_changing_retention_updates_the_rules_in_place(bigtable_instance: Any) -> None:
    ensure_tables(bigtable_instance, Settings())
    windowed = Settings(retention_days=180, sidecar_retention_days=30)
    ensure_tables(bigtable_instance, windowed)
    ids = [spec.table_id for spec in declared_tables(windowed)]
    policies = read_gc_policies(bigtable_instance, ids)
    assert policies == gc_policy_data(windowed)
    assert policies["sidecars"]["s"] == {"max_versions": 1, "max_age_days": 30}
    assert policies["blocks"]["h"] == {"max_versions": 1, "max_age_days": 180}


def test_check_and_set_is_atomic_per_cell(bigtable_instance: Any) -> None:
    settings = Settings()
    ensure_tables(bigtable_instance, settings)
    gateway = gateway_for_instance(bigtable_instance, settings)
    try:
        row = b"watermark"

        def swap(expected: bytes | None, value: bytes) -> bool:
            return gateway.check_and_set(
                CARDINAL_TRACKING, row, CellSwap(CARDINAL_TRACKING_FAMILY, b"tip", expected=expected, value=value)
            )

        assert swap(None, b"a")
        assert not swap(None, b"b")
        assert not swap(b"x", b"c")
        assert swap(b"a", b"d")
        (stored,) = gateway.read_rows(CARDINAL_TRACKING, RowQuery(keys=(row,)))
        assert [(c.qualifier, c.value) for c in stored.cells] == [(b"tip", b"d")]
    finally:
        gateway.close()
