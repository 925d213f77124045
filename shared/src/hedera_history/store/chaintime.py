"""Chain time: the timestamps cells carry, and the retention window measured in it.

Every cell of a block has the block's consensus time as its timestamp (the first transaction's;
for a block without transactions the file name's, or a native block's header timestamp). Writing
the same block again therefore rewrites identical cells, a block's rows age out together, and a
max-age GC rule keeps the last N days of history. A block that is already older than the window
when written would be collected at once; the writer refuses it with RetentionWindowError (sidecar
rows older than their own, shorter window are left out instead).
"""

from __future__ import annotations

from hedera_history.config import Settings
from hedera_history.errors import RetentionWindowError
from hedera_history.formats.names import parse_stream_file_name
from hedera_history.formats.parsed_files import RecordFile

NS_PER_DAY = 86_400 * 1_000_000_000


def block_time_ns(record: RecordFile) -> int:
    """The consensus time a block's cells are stamped with."""
    if record.items or record.block_timestamp_ns is not None:
        return record.consensus_start
    return parse_stream_file_name(record.name).consensus_ns


def cell_timestamp_micros(consensus_ns: int) -> int:
    """Bigtable timestamps are microseconds at millisecond granularity."""
    return (consensus_ns // 1_000_000) * 1000


def _window_start_ns(days: int, now_ns: int) -> int | None:
    return now_ns - days * NS_PER_DAY if days > 0 else None


def check_history_retention(block_number: int, block_time: int, settings: Settings, now_ns: int) -> None:
    """Raise RetentionWindowError when the block is older than the history window."""
    start = _window_start_ns(settings.retention_days, now_ns)
    if start is not None and block_time < start:
        raise RetentionWindowError(
            f"block {block_number} (consensus time {block_time} ns) is older than the "
            f"{settings.retention_days}-day retention window: its cells would be collected at once"
        )


def sidecars_retained(block_time: int, settings: Settings, now_ns: int) -> bool:
    """False when the sidecars table's window (its own, or the history one) is already past."""
    days = settings.sidecar_retention_days or settings.retention_days
    start = _window_start_ns(days, now_ns)
    return start is None or block_time >= start
