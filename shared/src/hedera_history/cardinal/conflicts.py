"""What a consumer does when two producers sent different content under one block hash."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from hedera_history.errors import ConflictingProducersError
from hedera_history.logs import event

_log = logging.getLogger(__name__)


def conflict(block_hash: bytes, reason: str) -> ConflictingProducersError:
    return ConflictingProducersError(f"block {block_hash.hex()}: {reason}")


@dataclass(frozen=True)
class ConflictPolicy:
    """Every conflict is logged and passed to ``on_conflict``; with ``fatal`` it is also raised."""

    fatal: bool = False
    on_conflict: Callable[[ConflictingProducersError], None] | None = None

    def report(self, error: ConflictingProducersError) -> None:
        event(_log, "conflicting producers", logging.WARNING, reason=str(error))
        if self.on_conflict is not None:
            self.on_conflict(error)
        if self.fatal:
            raise error
