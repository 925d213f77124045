"""Seeding a store's balances from a snapshot file (``hedera-history balances load``)."""

from __future__ import annotations

from pathlib import Path

from hedera_history.config import Settings
from hedera_history.derived.snapshot import BalanceSnapshot, load_snapshot, parse_snapshot
from hedera_history.store.bigtable_client import open_gateway


def load_snapshot_file(settings: Settings, path: Path) -> BalanceSnapshot:
    """Write the snapshot in ``path`` to ``settings``' store as its starting balances, applied from
    ``settings.first_block`` on; refused (``ConfigError``) once balances have begun."""
    snapshot = parse_snapshot(path.read_bytes(), str(path))
    gateway = open_gateway(settings)
    try:
        load_snapshot(gateway, settings, snapshot, settings.first_block)
    finally:
        gateway.close()
    return snapshot
