"""Starting balances for the local stack: a stream directory's ``genesis-balances.json``.

``hedera-history generate`` (and ``demo``) write the generated genesis hbar balances beside the
stream. Loaded before the stream's first block completes, derived balances start from them instead
of from zero (where every account that paid anything would show a negative balance). The store
function and the sweep do not begin balances until the first block is complete, so loading right
before the first upload is in time. ``load`` reads the same file (``pipeline.history_start``).
"""

from __future__ import annotations

from pathlib import Path

from hedera_history.derived.snapshot import BalanceSnapshot, parse_snapshot
from hedera_history.gen.writer import GENESIS_BALANCES_FILE
from hedera_history.localstack.stack_progress import open_gateway_for
from hedera_history.localstack.stack_state import StackState
from hedera_history.pipeline.history_start import SnapshotLoad, seed_balances


def directory_snapshot(directory: Path) -> BalanceSnapshot | None:
    """``directory``'s genesis balance snapshot, None when it has none."""
    path = directory / GENESIS_BALANCES_FILE
    return parse_snapshot(path.read_bytes(), str(path)) if path.is_file() else None


def load_directory_snapshot(state: StackState, directory: Path) -> SnapshotLoad:
    """Load ``directory``'s balance snapshot into the stack, starting at the stack's first block."""
    snapshot = directory_snapshot(directory)
    if snapshot is None:
        return SnapshotLoad.NONE_IN_DIRECTORY
    gateway = open_gateway_for(state)
    try:
        return seed_balances(gateway, state.settings(), snapshot, state.first_block)
    finally:
        gateway.close()
