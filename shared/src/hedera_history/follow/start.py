"""Where a follower without a stored position starts.

- ``backfill``: right after the period of the last complete block in the store (what a backfill
  wrote last, or the stream before it): ``backfill`` then ``follow`` leave no gap (every later
  period is looked at) and no overlap (no earlier period is handed off again). The block's stored
  record file name gives its period key exactly. An empty store starts ``now``.
- ``now``: periods starting from this moment on.
- a time: ISO 8601 (``2024-06-01T00:00:00Z``, a date, an offset), the stream-file name form
  (``2024-06-01T00_00_00.000000000Z``) or ns since the epoch: periods starting at or after it.

A start is a position with no period behind it yet: ``(period key, consensus ns)`` such that every
period after it is wanted (for a time ``t``, just before ``t``).

On an empty store the follower begins the history (:func:`fresh_start`): the first period it hands
off is recorded as the stream's start (``AddressBookHistory.mark_stream_start``) and its block, once
verified, is the first block, on the bootstrap book given, whatever block number the network is at.
A follower that finds a start recorded but the store still empty (one that marked it stopped before
anything completed) starts again just before that period, so the period that begins the history is
always handed off.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from hedera_history.errors import ConfigError, FileNameError
from hedera_history.follow.tracker import just_before
from hedera_history.formats.names import parse_stream_file_name, parse_timestamp
from hedera_history.pipeline.address_books import AddressBookHistory
from hedera_history.store.gateway import BigtableGateway
from hedera_history.store.reader import HistoryReader
from hedera_history.times import parse_time

BACKFILL = "backfill"
NOW = "now"
BLOCK_START = "block:"
"""``block:N``: a network already on blocks, from block N (``follow.block_start``); on record periods
(a store whose last block is a record file) it starts as ``now`` does."""


def requested_block(mode: str) -> int | None:
    """N of a ``block:N`` start, None for any other start."""
    if not mode.startswith(BLOCK_START):
        return None
    text = mode[len(BLOCK_START) :]
    if not text.isdigit():
        raise ConfigError(f"follow start {mode!r}: expected block:<number>")
    return int(text)


def parse_start_time(text: str) -> int:
    """ns since the epoch of a start time (ConfigError when it is none of the accepted forms)."""
    try:
        return parse_time(text)
    except ConfigError as e:
        raise ConfigError(f"follow start {text!r} is not backfill, now or a time") from e


def backfill_end(gateway: BigtableGateway) -> tuple[str, int] | None:
    """(period key, consensus ns) of the last complete block in the store; None when it is empty."""
    reader = HistoryReader(gateway)
    number = reader.latest_block()
    if number is None:
        return None
    block = reader.get_block(number)
    if block is None:
        return None
    try:
        name = parse_stream_file_name(block.name)
    except FileNameError:
        return just_before(block.consensus_start + 1)
    return name.period_key, name.consensus_ns


def resolve_start(mode: str, gateway: BigtableGateway, *, now_ns: int | None = None) -> tuple[str, int]:
    """The position a new follower starts from for ``mode`` (backfill, now or a time)."""
    return _start_of(mode, backfill_end(gateway) if mode == BACKFILL else None, now_ns)


@dataclass(frozen=True, slots=True)
class FreshStart:
    """Where a follower without a stored position starts, and whether it begins the history."""

    period_key: str
    consensus_ns: int
    begins_history: bool
    """The store is empty: the first period handed off is recorded as the stream's start."""


def fresh_start(
    mode: str, gateway: BigtableGateway, books: AddressBookHistory, *, now_ns: int | None = None
) -> FreshStart:
    """The start of a follower without a stored position (see the module docstring)."""
    end = backfill_end(gateway)
    if end is not None:
        return FreshStart(*_start_of(mode, end, now_ns), begins_history=False)
    recorded = books.stream_start()
    if recorded is not None:
        return FreshStart(*just_before(parse_timestamp(recorded.period_key)), begins_history=True)
    return FreshStart(*_start_of(mode, None, now_ns), begins_history=True)


def _start_of(mode: str, end: tuple[str, int] | None, now_ns: int | None) -> tuple[str, int]:
    now = time.time_ns() if now_ns is None else now_ns
    if mode == BACKFILL:
        return end if end is not None else just_before(now)
    if mode == NOW or requested_block(mode) is not None:
        return just_before(now)
    return just_before(parse_start_time(mode))


__all__ = [
    "BACKFILL",
    "BLOCK_START",
    "NOW",
    "FreshStart",
    "backfill_end",
    "fresh_start",
    "parse_start_time",
    "requested_block",
    "resolve_start",
]
