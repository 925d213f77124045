"""What ``hedera-history stack status`` reports: endpoints, processes, bridge counts, progress and the
follower's position, as one JSON-ready mapping."""

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
    return report
