"""A gateway opened with HEDERA_HISTORY_BIGTABLE_APP_PROFILE sends every data call through that
profile (the emulator accepts any id, so the calls must still work) and, without one, through the
instance's default profile."""

from __future__ import annotations

from typing import Any

import pytest
from hedera_history.config import Settings
from hedera_history.store import schema as s
from hedera_history.store.bigtable_client import BigtableDataGateway, gateway_for_instance
from hedera_history.store.gateway import CellSwap, RowQuery
from hedera_history.store.model import Cell, Row
from hedera_history.store.schema import ensure_tables

pytestmark = [pytest.mark.emulator]


def gateway(instance: Any, profile: str) -> BigtableDataGateway:
    settings = Settings.from_env({}, table_prefix="p_", bigtable_app_profile=profile)
    ensure_tables(instance, settings)
    return gateway_for_instance(instance, settings)


def test_every_data_call_names_the_profile(bigtable_instance: Any) -> None:
    store = gateway(bigtable_instance, "writers")
    try:
        assert store.mutate_rows_request(s.INGEST_PROGRESS).app_profile_id == "writers"
        assert store._table(s.INGEST_PROGRESS).app_profile_id == "writers"
        row = Row(s.INGEST_PROGRESS, b"k", (Cell(s.INGEST_PROGRESS_FAMILY, b"q", b"v", 1_000),))
        assert store.mutate_rows(s.INGEST_PROGRESS, [row]) == []
        assert store.check_and_set(
            s.INGEST_PROGRESS, b"lease", CellSwap(s.INGEST_PROGRESS_FAMILY, b"q", expected=None, value=b"1")
        )
        (read,) = store.read_rows(s.INGEST_PROGRESS, RowQuery(keys=(b"k",)))
        assert read.cells[0].value == b"v"
    finally:
        store.close()


def test_no_profile_is_the_instance_default(bigtable_instance: Any) -> None:
    store = gateway(bigtable_instance, "")
    try:
        assert store.mutate_rows_request(s.INGEST_PROGRESS).app_profile_id == ""
        assert store._table(s.INGEST_PROGRESS).app_profile_id is None
    finally:
        store.close()
