"""The follower's durable position: one row in the ingest state table.

Row ``follow/position`` of ``ingest_progress``, cell ``p:position``: the position as JSON inside the
project's cell envelope (``store.encoding``). The cell time is always 0, so each write replaces the
last (a position may step back, see ``follow.tracker``); the wall clock is in ``updated_micros``.

What the position promises, and how a restart keeps it:

- ``period_key``: every period up to and including this one was handed to ingest and ended
  published, or was reported as without consensus and left pending for the sweep. Nothing at or
  before it needs the follower again; everything after it is looked at again after a restart.
- ``next_block`` (after the cutover): every block before it was published; a restart reads from
  it. Blocks read twice (a restart before the position was written) are found published and
  publish nothing.
- ``listed``: per node folder, the last name the follower listed there. A restart lists each folder
  after ``min(listed[folder], <folder><period_key>~)`` (:func:`resume_after`): never after a name
  whose period may still be unfinished, so no gap; names listed twice only hand a period or a late
  file to ingest twice, which is idempotent, so no duplicate effect.

One follower writes it at a time (it holds the follower lease, ``follow.follower``); the value
is written whole, so a reader sees one tick's position or the next one's.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from hedera_history.errors import RowDecodeError
from hedera_history.pipeline.state import StateGateway
from hedera_history.store import schema as s
from hedera_history.store.encoding import decode_value, encode_value
from hedera_history.store.gateway import BigtableGateway, RowQuery, write_or_raise
from hedera_history.store.model import Cell, Row

POSITION_KEY = b"follow/position"
Q_POSITION = b"position"
CELL_TIMESTAMP = 0
AFTER_PERIOD = "~"
"""Appended to ``<folder><period key>`` it sorts after every file of that period ('~' is above
'.' and '_', the characters that follow a period key in its names) and before the next period's."""


@dataclass(frozen=True, slots=True)
class FollowPosition:
    source_url: str
    """The bucket root followed (``gs://...``, ``s3://...`` or a directory)."""
    period_key: str
    """Every period up to and including this one was handed off and ended published or reported
    (given up, left to the sweep)."""
    consensus_ns: int
    """The consensus start time of ``period_key``."""
    updated_micros: int
    """Wall clock when written."""
    listed: Mapping[str, str] = field(default_factory=dict)
    """Node folder (relative to the root, ending in ``/``) -> last name listed there."""
    next_block: int | None = None
    """After the cutover: the next block to read (every block before it published); None while
    the follower reads record periods. Once set the follower reads blocks, and goes back to record
    periods only when no block was stored after the last record file (``follow.record_fallback``)."""
    block_ns: int | None = None
    """After the cutover: the consensus end of the last block published (what the lag is measured on)."""

    def lag_seconds(self, now_ns: int | None = None) -> float:
        """How far the position is behind the network: now - the period's consensus time."""
        now = time.time_ns() if now_ns is None else now_ns
        return (now - (self.block_ns if self.block_ns is not None else self.consensus_ns)) / 1e9

    def to_json(self) -> bytes:
        return json.dumps(
            {
                "source_url": self.source_url,
                "period": self.period_key,
                "consensus_ns": self.consensus_ns,
                "updated_micros": self.updated_micros,
                "listed": dict(sorted(self.listed.items())),
                **({"next_block": self.next_block} if self.next_block is not None else {}),
                **({"block_ns": self.block_ns} if self.block_ns is not None else {}),
            },
            sort_keys=True,
        ).encode()

    @classmethod
    def from_json(cls, raw: bytes) -> FollowPosition:
        try:
            data = json.loads(raw)
            listed = data.get("listed") or {}
            if not isinstance(listed, dict):
                raise TypeError("listed is not an object")
            next_block, block_ns = data.get("next_block"), data.get("block_ns")
            return cls(
                str(data["source_url"]),
                str(data["period"]),
                int(data["consensus_ns"]),
                int(data["updated_micros"]),
                {str(k): str(v) for k, v in listed.items()},
                None if next_block is None else int(next_block),
                None if block_ns is None else int(block_ns),
            )
        except (ValueError, KeyError, TypeError) as e:
            raise RowDecodeError(f"follower position: unreadable cell: {e}") from e


def resume_after(position: FollowPosition, folder: str) -> str:
    """Where a restarted follower lists ``folder`` from (exclusive): the last name listed there,
    but never past the files of periods after ``position.period_key``."""
    after_period = folder + position.period_key + AFTER_PERIOD
    listed = position.listed.get(folder)
    return after_period if listed is None else min(listed, after_period)


def read_position(gateway: BigtableGateway) -> FollowPosition | None:
    """The stored position, None before the first follower wrote one."""
    query = RowQuery(keys=(POSITION_KEY,), families=(s.INGEST_PROGRESS_FAMILY,))
    for row in gateway.read_rows(s.INGEST_PROGRESS, query):
        cell = row.cell(s.INGEST_PROGRESS_FAMILY, Q_POSITION)
        if cell is not None:
            return FollowPosition.from_json(decode_value(cell.value))
    return None


def write_position(gateway: BigtableGateway, position: FollowPosition) -> None:
    """Store ``position`` (StoreUnavailableError when the write did not apply: try again)."""
    cell = Cell(s.INGEST_PROGRESS_FAMILY, Q_POSITION, encode_value(position.to_json()), CELL_TIMESTAMP)
    write_or_raise(gateway, s.INGEST_PROGRESS, [Row(s.INGEST_PROGRESS, POSITION_KEY, (cell,))], "follower position")


def clear_position(gateway: StateGateway) -> None:
    """Forget the position (``follow --reset``): the next follower starts from its start mode."""
    gateway.delete_rows(s.INGEST_PROGRESS, [POSITION_KEY])


__all__ = [
    "POSITION_KEY",
    "FollowPosition",
    "clear_position",
    "read_position",
    "resume_after",
    "write_position",
]
