"""GET /api/v1/status: how far this deployment has come against the network it follows.

The follower's durable position (``follow.position``) tells which source is followed, the last
period handed off and ended there, and so the lag: now minus that period's consensus time, read
when asked (a stopped follower's lag grows). Without a position the deployment is not following
(it is fed by its own bucket's uploads, or the follower has not run yet). ``hedera-history stack
status`` shows the same fields.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from hedera_history.api.render import timestamp
from hedera_history.follow.position import FollowPosition, read_position
from hedera_history.store.reader import HistoryReader

NOT_FOLLOWING = "not following"
FOLLOWING = "following"


def follower_status(position: FollowPosition | None, now_ns: int | None = None) -> dict[str, Any]:
    """The follower's part of a status answer (JSON-serialisable)."""
    if position is None:
        return {"status": NOT_FOLLOWING}
    now = time.time_ns() if now_ns is None else now_ns
    return {
        "status": FOLLOWING,
        "source": position.source_url,
        "period": position.period_key,
        "consensus_timestamp": timestamp(position.consensus_ns),
        "lag_seconds": round(position.lag_seconds(now), 3),
        "mode": "records" if position.next_block is None else "blocks",
        "next_block": position.next_block,
        "last_update": timestamp(position.updated_micros * 1000),
        "last_update_seconds_ago": round(max(0, now - position.updated_micros * 1000) / 1e9, 3),
    }


def rest_status(get_reader: Callable[[], HistoryReader]) -> dict[str, Any]:
    return {"follower": follower_status(read_position(get_reader().gateway))}
