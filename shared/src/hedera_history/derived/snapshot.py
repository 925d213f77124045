"""Starting balances: an account balance snapshot, written as balance rows at its time.

Two formats are read:

- HAPI ``AllAccountBalances`` (``account_balance_file.proto``), the consensus nodes' balance
  files, optionally gzipped (``<time>_Balances.pb.gz``): the snapshot time is its
  ``consensusTimestamp``; token balances are ignored (derived state keeps hbar only).
- JSON: ``{"consensus_ns": <int>, "balances": {"0.0.2": <tinybar>, ...}}``.

Application then starts with the given block; items of that block at or before the snapshot time
are taken to be in the snapshot already. Without a snapshot, balances start from zero.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import DecodeError

from hedera_history.config import Settings
from hedera_history.derived.applier import BalanceApplier
from hedera_history.derived.balances import read_start
from hedera_history.derived.rows import Q_BALANCE, encode_balance, one_cell_row, row_key_for_balance
from hedera_history.errors import ConfigError, FormatError
from hedera_history.formats.compression import gunzip, is_gzip
from hedera_history.store.accounts import entity_text
from hedera_history.store.chaintime import cell_timestamp_micros
from hedera_history.store.gateway import BigtableGateway
from hedera_history.store.keys import check_entity_id
from hedera_history.store.model import Row
from hedera_history.store.writer import BlockWriter

MAX_SNAPSHOT_BYTES = 2 * 1024 * 1024 * 1024


@dataclass(frozen=True)
class BalanceSnapshot:
    consensus_ns: int
    balances: Mapping[str, int]
    """Account (``shard.realm.num``) -> tinybar."""


def parse_snapshot(data: bytes, name: str) -> BalanceSnapshot:
    """A snapshot from JSON or ``AllAccountBalances`` bytes (gzipped or not)."""
    if is_gzip(data):
        try:
            data = gunzip(data, name, limit=MAX_SNAPSHOT_BYTES)
        except FormatError as e:
            raise ConfigError(f"balance snapshot: {e.reason}", file=name) from e
    if data.lstrip()[:1] == b"{":
        return _from_json(data, name)
    return _from_protobuf(data, name)


def snapshot_rows(snapshot: BalanceSnapshot) -> list[Row]:
    stamp = cell_timestamp_micros(snapshot.consensus_ns)
    return [
        one_cell_row(
            row_key_for_balance(account, snapshot.consensus_ns), Q_BALANCE, encode_balance(amount, None), stamp
        )
        for account, amount in sorted(snapshot.balances.items())
    ]


def load_snapshot(gateway: BigtableGateway, settings: Settings, snapshot: BalanceSnapshot, first_block: int) -> None:
    """Write the snapshot and start application with ``first_block``; refused once application began."""
    if read_start(gateway) is not None:
        raise ConfigError("derived balances are already started; a snapshot can only seed an empty balances table")
    BlockWriter(gateway, settings).write_rows(snapshot_rows(snapshot))
    BalanceApplier(gateway, settings).start(first_block, snapshot.consensus_ns)


def _from_json(data: bytes, name: str) -> BalanceSnapshot:
    try:
        document: Any = json.loads(data)
        consensus_ns = document["consensus_ns"]
        balances = document["balances"]
        if not isinstance(consensus_ns, int) or consensus_ns < 0 or not isinstance(balances, dict):
            raise TypeError("consensus_ns must be a non-negative integer and balances an object")
        parsed = {check_entity_id(str(a)): int(v) for a, v in balances.items()}
    except (ValueError, KeyError, TypeError, OverflowError, RecursionError) as e:
        # OverflowError: a balance of 1e999 (JSON infinity); RecursionError: nesting too deep.
        raise ConfigError(
            f'balance snapshot: expected {{"consensus_ns": N, "balances": {{...}}}}: {e}', file=name
        ) from e
    return BalanceSnapshot(consensus_ns, parsed)


def _from_protobuf(data: bytes, name: str) -> BalanceSnapshot:
    # hedera_history.hapi registers the SDK as a bare package first (see hapi.py); it does not
    # export this message, so it is imported here, after that.
    importlib.import_module("hedera_history.hapi")
    account_balance_file_pb2 = importlib.import_module("hiero_sdk_python.hapi.streams.account_balance_file_pb2")

    try:
        message = account_balance_file_pb2.AllAccountBalances.FromString(data)
    except DecodeError as e:
        raise ConfigError(f"balance snapshot: not JSON and not an AllAccountBalances protobuf: {e}", file=name) from e
    if not message.HasField("consensusTimestamp"):
        raise ConfigError("balance snapshot: AllAccountBalances has no consensusTimestamp", file=name)
    stamp = message.consensusTimestamp
    balances: dict[str, int] = {}
    for entry in message.allAccounts:
        account = entity_text(entry.accountID)
        if account is not None:
            balances[account] = int(entry.hbarBalance)
    return BalanceSnapshot(stamp.seconds * 1_000_000_000 + stamp.nanos, balances)


__all__ = ["BalanceSnapshot", "load_snapshot", "parse_snapshot", "snapshot_rows"]
