"""How far a stack has come: complete blocks, ingest state rows, quarantine; and waiting for blocks.

Only complete blocks count (the reader's rule: the completion cell is written last). The state
tables are counted row by row, grouped by the first part of the row key (``period/...``,
``pending/...``), without interpreting them further, so the report stays right while the ingest
function's state layout grows; empty or absent rows are just zero.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from hedera_history.errors import StackError
from hedera_history.localstack.scoped_env import scoped_environ
from hedera_history.localstack.stack_state import StackState
from hedera_history.localstack.upload import distinct_periods, find_stream_files
from hedera_history.store import schema as s
from hedera_history.store.bigtable_client import BigtableDataGateway
from hedera_history.store.gateway import KeyRange, RowQuery
from hedera_history.store.reader import MAX_BLOCK_RANGE, HistoryReader

GROUND_TRUTH_FILE = "ground-truth.json"
DEFAULT_WAIT_POLL_SECONDS = 0.5


def open_gateway_for(state: StackState) -> BigtableDataGateway:
    """A gateway to the stack's instance; the emulator address is set only while the client is made."""
    settings = state.settings()
    with scoped_environ({"BIGTABLE_EMULATOR_HOST": state.bigtable_host}):
        return BigtableDataGateway(state.project, state.bigtable_instance, settings.with_(bigtable_emulator_host=""))


class CompletionReader(Protocol):
    """The part of :class:`~hedera_history.store.reader.HistoryReader` progress needs."""

    def complete_blocks(self, numbers: Iterable[int]) -> set[int]: ...

    def get_blocks(self, start: int, end: int | None = None, limit: int = MAX_BLOCK_RANGE) -> list[int]: ...

    def first_available_block(self) -> int | None: ...

    def latest_block(self) -> int | None: ...


# ---- status --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StackProgress:
    complete_blocks: int
    first_block: int | None
    last_block: int | None
    ingest_rows: dict[str, int]
    """Rows of ``ingest_progress`` by the first part of their key, e.g. ``{"period": 12, "pending": 1}``."""
    quarantined: int
    """Rows of ``quarantine``: one per file that can never verify."""

    @property
    def pending_periods(self) -> int:
        return self.ingest_rows.get("pending", 0)

    @property
    def unconfirmed_periods(self) -> int:
        """Periods the sweep's reconciler still watches (published or being verified, block not
        seen complete yet): a number that does not fall back to 0 means blocks that do not complete."""
        return self.ingest_rows.get("unconfirmed", 0)


def read_progress(gateway: BigtableDataGateway) -> StackProgress:
    reader = HistoryReader(gateway)
    first = reader.first_available_block()
    last = reader.latest_block() if first is not None else None
    complete = count_complete(reader, first, last) if first is not None and last is not None else 0
    return StackProgress(
        complete_blocks=complete,
        first_block=first,
        last_block=last,
        ingest_rows=dict(sorted(_count_by_key_kind(gateway, s.INGEST_PROGRESS).items())),
        quarantined=sum(_count_by_key_kind(gateway, s.QUARANTINE).values()),
    )


def count_complete(reader: CompletionReader, first: int, last: int) -> int:
    total = 0
    start = first
    while start <= last:
        end = min(last, start + MAX_BLOCK_RANGE - 1)
        total += len(reader.get_blocks(start, end))
        start = end + 1
    return total


def _count_by_key_kind(gateway: BigtableDataGateway, table: str) -> Counter[str]:
    query = RowQuery(ranges=(KeyRange(),), key_only=True, cells_per_row=1)
    counts: Counter[str] = Counter()
    for row in gateway.read_rows(table, query):
        kind = row.key.split(b"/", 1)[0] if b"/" in row.key else b"row"
        counts[kind.decode(errors="replace")] += 1
    return counts


# ---- waiting -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BlockTarget:
    """What ``stack wait`` waits for: these block numbers, or (numbers None) any ``count`` blocks."""

    count: int
    numbers: tuple[int, ...] | None
    description: str


def first_blocks_target(first_block: int, count: int) -> BlockTarget:
    if count < 1:
        raise StackError("--blocks must be at least 1")
    last = first_block + count - 1
    return BlockTarget(count, tuple(range(first_block, last + 1)), f"blocks {first_block}-{last}")


def directory_target(directory: Path) -> BlockTarget:
    """The blocks of DIR's ground truth, else as many blocks as DIR has distinct periods."""
    truth = directory / GROUND_TRUTH_FILE
    if truth.is_file():
        try:
            numbers = tuple(sorted(int(block["number"]) for block in json.loads(truth.read_text())["blocks"]))
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise StackError(f"cannot read the block numbers of {truth}: {e}") from e
        return BlockTarget(len(numbers), numbers, f"the {len(numbers)} blocks of {truth}")
    periods = distinct_periods(find_stream_files(directory))
    if periods == 0:
        raise StackError(f"{directory} holds no record files to wait for")
    return BlockTarget(periods, None, f"{periods} blocks (the periods of {directory})")


@dataclass(frozen=True, slots=True)
class WaitOutcome:
    complete: int
    target: BlockTarget
    missing: tuple[int, ...]
    """Numbers of the target not complete (empty for a count-only target)."""
    seconds: float
    stopped: str | None = None
    """Why waiting stopped before the blocks were complete or the time was up (the follower fails)."""

    @property
    def done(self) -> bool:
        return self.complete >= self.target.count


def complete_of(reader: CompletionReader, target: BlockTarget) -> tuple[int, tuple[int, ...]]:
    """(complete blocks counted toward ``target``, the target's missing numbers)."""
    if target.numbers is not None:
        done = reader.complete_blocks(target.numbers)
        return len(done), tuple(n for n in target.numbers if n not in done)
    first = reader.first_available_block()
    last = reader.latest_block() if first is not None else None
    count = count_complete(reader, first, last) if first is not None and last is not None else 0
    return count, ()


def wait_for_blocks(
    reader: CompletionReader,
    target: BlockTarget,
    timeout: float,
    *,
    on_progress: Callable[[int], None] | None = None,
    poll_seconds: float = DEFAULT_WAIT_POLL_SECONDS,
    stop_reason: Callable[[], str | None] | None = None,
) -> WaitOutcome:
    """Poll until the target's blocks are complete or ``timeout`` seconds pass, or ``stop_reason``
    (asked after each look) gives a reason no block will come."""
    started = time.monotonic()
    while True:
        complete, missing = complete_of(reader, target)
        if on_progress is not None:
            on_progress(complete)
        elapsed = time.monotonic() - started
        if complete >= target.count or elapsed >= timeout:
            return WaitOutcome(complete, target, missing, elapsed)
        stopped = stop_reason() if stop_reason is not None else None
        if stopped is not None:
            return WaitOutcome(complete, target, missing, elapsed, stopped)
        time.sleep(min(poll_seconds, max(0.0, timeout - elapsed)))


def format_ranges(numbers: Iterable[int]) -> str:
    """``0-3, 7, 9-10`` for 0, 1, 2, 3, 7, 9, 10."""
    parts: list[str] = []
    ordered: Sequence[int] = sorted(set(numbers))
    index = 0
    while index < len(ordered):
        start = end = ordered[index]
        while index + 1 < len(ordered) and ordered[index + 1] == end + 1:
            index += 1
            end = ordered[index]
        parts.append(str(start) if start == end else f"{start}-{end}")
        index += 1
    return ", ".join(parts)
