"""Starting balances for the local stack: a stream directory's ``genesis-balances.json``.

``hedera-history generate`` (and ``demo``) write the generated genesis hbar balances beside the
stream. Loaded before the stream's first block completes, derived balances start from them instead
of from zero (where every account that paid anything would show a negative balance). The store
function and the sweep do not begin balances until the first block is complete, so loading right
before the first upload is in time.
"""

from __future__ import annotations

import enum
from pathlib import Path

from hedera_history.derived.balances import read_start
from hedera_history.derived.snapshot import load_snapshot, parse_snapshot
from hedera_history.gen.writer import GENESIS_BALANCES_FILE
from hedera_history.localstack.stack_progress import open_gateway_for
from hedera_history.localstack.stack_state import StackState


class SnapshotLoad(enum.Enum):
    LOADED = "loaded"
    """The directory's snapshot seeds the stack's balances from its first block."""
    ALREADY_STARTED = "already-started"
    """The stack's balances had begun (an earlier snapshot, or blocks applied from zero): unchanged."""
    NONE_IN_DIRECTORY = "none-in-directory"
    """The directory has no snapshot; balances start from zero."""


def load_directory_snapshot(state: StackState, directory: Path) -> SnapshotLoad:
    """Load ``directory``'s balance snapshot into the stack, starting at the stack's first block."""
    path = directory / GENESIS_BALANCES_FILE
    if not path.is_file():
        return SnapshotLoad.NONE_IN_DIRECTORY
    gateway = open_gateway_for(state)
    try:
        if read_start(gateway) is not None:
            return SnapshotLoad.ALREADY_STARTED
        load_snapshot(gateway, state.settings(), parse_snapshot(path.read_bytes(), str(path)), state.first_block)
    finally:
        gateway.close()
    return SnapshotLoad.LOADED
