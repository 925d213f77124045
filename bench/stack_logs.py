"""What the local stack's functions logged, read back from their JSON log files."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from hedera_history.localstack.stack import LocalStack


def logged_entries(stack: LocalStack, function: str, message: str) -> Iterator[dict[str, Any]]:
    """The JSON log lines in which ``function`` logged ``message`` about a block (an int ``block``), in order."""
    for line in Path(stack.function(function).record().log_path).read_text(errors="replace").splitlines():
        if not line.startswith("{"):
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if entry.get("message") == message and isinstance(entry.get("block"), int):
            yield entry


def logged_times(stack: LocalStack, function: str, message: str) -> dict[int, datetime]:
    """Block number -> when ``function`` first logged ``message`` about it (its JSON log lines)."""
    found: dict[int, datetime] = {}
    for entry in logged_entries(stack, function, message):
        found.setdefault(entry["block"], datetime.fromisoformat(entry["time"]))
    return found


LOG_WAIT_SECONDS = 10.0
"""A function logs just after the block became visible: its last lines are given this long to land."""


def wait_for_logged(
    stack: LocalStack, published_message: str, numbers: Iterable[int]
) -> tuple[dict[int, datetime], dict[int, datetime]]:
    """When ingest logged ``published_message`` and the store "block complete" about each of
    ``numbers``, waiting up to :data:`LOG_WAIT_SECONDS` for the last lines (what is logged by then)."""
    wanted = list(numbers)
    deadline = time.monotonic() + LOG_WAIT_SECONDS
    while True:
        published = logged_times(stack, "ingest", published_message)
        complete = logged_times(stack, "store", "block complete")
        if all(n in published and n in complete for n in wanted) or time.monotonic() > deadline:
            return published, complete
        time.sleep(0.2)
