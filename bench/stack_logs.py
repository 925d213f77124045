"""What the local stack's functions logged, read back from their JSON log files."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from hedera_history.localstack.stack import LocalStack


def logged_times(stack: LocalStack, function: str, message: str) -> dict[int, datetime]:
    """Block number -> when ``function`` first logged ``message`` about it (its JSON log lines)."""
    found: dict[int, datetime] = {}
    for line in Path(stack.function(function).record().log_path).read_text(errors="replace").splitlines():
        if not line.startswith("{"):
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if entry.get("message") == message and isinstance(entry.get("block"), int):
            found.setdefault(entry["block"], datetime.fromisoformat(entry["time"]))
    return found
