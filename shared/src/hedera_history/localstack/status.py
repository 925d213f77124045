"""What ``hedera-history stack status`` reports: endpoints, processes, bridge counts, progress and the
follower's position, as one JSON-ready mapping.

A follower whose calls keep failing (the bridge's counters, ``BridgeStats.follower_failure``) is
``{"status": "failing", "error": ...}``, beside whatever position an earlier call stored: its lag
alone would only grow, and say nothing of why."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

from hedera_history.api.status import follower_status
from hedera_history.errors import StoreError
from hedera_history.follow.position import read_position
from hedera_history.localstack.bridges import read_bridge_stats
from hedera_history.localstack.stack_progress import open_gateway_for, read_progress
from hedera_history.localstack.stack_state import StackState

FAILING = "failing"


def stack_report(state: StackState, alive: dict[str, bool], state_dir: Path) -> dict[str, Any]:
    """The stack recorded in ``state_dir``, ``alive`` telling which of its processes run; Bigtable
    not answering is reported under ``error``, not raised."""
    report: dict[str, Any] = {
        "state_dir": state.state_dir,
        "running": alive,
        "endpoints": {record.name: record.url for record in state.functions},
        "env": state.client_env(),
        "bridge": None,
        "progress": None,
        "follower": None,
        "follow_source": state.follow_source or None,
        "error": None,
    }
    stats = read_bridge_stats(state_dir)
    if stats is not None:
        report["bridge"] = asdict(stats)
    failure = stats.follower_failure() if stats is not None and state.following else None
    try:
        gateway = open_gateway_for(state)
        try:
            progress = read_progress(gateway)
            report["follower"] = follower_status(read_position(gateway))
        finally:
            gateway.close()
        report["progress"] = {
            **asdict(progress),
            "pending_periods": progress.pending_periods,
            "unconfirmed_periods": progress.unconfirmed_periods,
        }
    except StoreError as e:
        report["error"] = f"Bigtable not readable: {e}"
    if failure is not None:
        report["follower"] = {**(report["follower"] or {}), "status": FAILING, "error": failure}
    return report


def follower_failure(state: StackState, state_dir: Path) -> str | None:
    """Why the stack's follower is failing (its calls keep failing); None when it follows, or when
    the stack follows nothing."""
    stats = read_bridge_stats(state_dir) if state.following else None
    return stats.follower_failure() if stats is not None else None
