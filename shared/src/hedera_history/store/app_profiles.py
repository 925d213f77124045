"""The Bigtable app profiles a deployment creates (``infra/bigtable.tf``) and which identity uses which.

Leases, watermarks, Cardinal tracking and address books are written with CheckAndMutateRow, which
Bigtable accepts only through a profile with single-cluster routing that allows transactional
writes; so every identity that writes state uses such a profile, pinned to one cluster even when
the instance is replicated. Queries have their own profile and the backfill another, so that a
backfill's bulk writes run at a lower priority than the queries and the pipeline's writes.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class AppProfile:
    id: str
    """The app profile id (``HEDERA_HISTORY_BIGTABLE_APP_PROFILE``)."""
    transactional_writes: bool
    """Its users call CheckAndMutateRow: single-cluster routing with transactional writes."""
    description: str


WRITERS = AppProfile(
    "writers", True, "The pipeline's functions: verified history, leases and watermarks (CheckAndMutateRow)."
)
QUERIES = AppProfile("queries", False, "The query API: reads only.")
BACKFILL = AppProfile("backfill", False, "Backfill batches: bulk history writes, below the queries' priority.")

APP_PROFILES: tuple[AppProfile, ...] = (WRITERS, QUERIES, BACKFILL)
