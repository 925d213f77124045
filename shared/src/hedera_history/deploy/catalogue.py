"""The cloud functions the pipeline deploys: where each one's code is, how it is triggered, and which
settings it reads.

This is the one place these facts are written. The local stack starts the functions from it,
the function-source builder packages them from it, and the Terraform in ``infra/`` is checked
against it (every function with its trigger and exactly these environment variables).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from hedera_history.config import env_name
from hedera_history.errors import ConfigError
from hedera_history.store import schema as s
from hedera_history.store.app_profiles import QUERIES, WRITERS, AppProfile
from hedera_history.store.schema import TableAccess


class Trigger(enum.StrEnum):
    STORAGE_FINALIZED = "storage-finalized"
    """Eventarc: ``google.cloud.storage.object.v1.finalized`` on the stream bucket."""
    PUBSUB_PUSH = "pubsub-push"
    """HTTP endpoint that the pipeline's push subscriptions deliver to (their dead-letter topics and
    retry policy are ours to set, which an Eventarc Pub/Sub trigger's managed subscription is not)."""
    SCHEDULED_HTTP = "scheduled-http"
    """HTTP, called by Cloud Scheduler."""
    HTTP = "http"
    """HTTP, called by users."""


STORAGE_FINALIZED_EVENT = "google.cloud.storage.object.v1.finalized"

_COMMON = (
    "project",
    "bigtable_instance",
    "bigtable_app_profile",
    "table_prefix",
    "bigtable_timeout_seconds",
    "log_level",
)
_READS_STREAM = (
    "network",
    "stream_bucket",
    "stream_prefix",
    "address_book",
    "consensus_ratio",
    "start_block",
    "block_pin",
    "duplicate_blocks",
    "first_block",
    "max_decompressed_bytes",
    "sidecars_enabled",
    "requester_pays_project",
    "source_timeout_seconds",
    "quarantine_url",
    "pubsub_topic_prefix",
    "publish_timeout_seconds",
    "retention_days",
    "sidecar_retention_days",
    "sweep_min_age_seconds",
    "sweep_max_periods",
    "errata_council_keys",
    "errata_council_threshold",
)


@dataclass(frozen=True, slots=True)
class FunctionSpec:
    name: str
    """The deployed function's name (a deployment may prefix it)."""
    source: str
    """Folder of ``main.py``, relative to the repository root."""
    entry_point: str
    trigger: Trigger
    settings: tuple[str, ...]
    """``Settings`` fields the function reads; their variables are what Terraform must set."""
    memory_mb: int
    timeout_seconds: int
    concurrency: int
    """Requests one instance serves at once."""
    app_profile: AppProfile
    """The Bigtable app profile its data calls go through (its ``bigtable_app_profile`` in a deployment)."""

    @property
    def environment_variables(self) -> tuple[str, ...]:
        return tuple(sorted(env_name(name) for name in self.settings))


INGEST = FunctionSpec(
    name="ingest",
    source="functions/ingest",
    entry_point="ingest",
    trigger=Trigger.STORAGE_FINALIZED,
    settings=_COMMON + _READS_STREAM,
    memory_mb=1024,
    timeout_seconds=300,
    concurrency=4,
    app_profile=WRITERS,
)
SWEEP = FunctionSpec(
    name="sweep",
    source="functions/ingest",
    entry_point="sweep",
    trigger=Trigger.SCHEDULED_HTTP,
    settings=(
        *_COMMON,
        *_READS_STREAM,
        "balances_enabled",
        "balances_blocks_per_sweep",
        "reconcile_after_seconds",
        "reconcile_max_republish",
        "sweep_max_dead_letters",
    ),
    memory_mb=1024,
    timeout_seconds=540,
    concurrency=1,
    app_profile=WRITERS,
)
STORE = FunctionSpec(
    name="store",
    source="functions/store",
    entry_point="store",
    trigger=Trigger.PUBSUB_PUSH,
    settings=(
        *_COMMON,
        "retention_days",
        "sidecar_retention_days",
        "first_block",
        "address_book",
        "balances_enabled",
        "balances_blocks_per_store_run",
        "network",
    ),
    memory_mb=1024,
    timeout_seconds=110,
    concurrency=8,
    app_profile=WRITERS,
)
FOLLOW = FunctionSpec(
    name="follow",
    source="functions/follow",
    entry_point="follow",
    trigger=Trigger.SCHEDULED_HTTP,
    settings=(
        *_COMMON,
        *_READS_STREAM,
        "s3_endpoint_url",
        "s3_region",
        "s3_requester_pays",
        "s3_anonymous",
        "follow_source",
        "follow_start",
        "follow_poll_seconds",
        "follow_hot_nodes",
        "follow_full_listing_seconds",
        "follow_settle_seconds",
        "follow_give_up_seconds",
        "follow_window_seconds",
        "follow_lease_seconds",
        "follow_workers",
        "follow_cache_bytes",
    ),
    memory_mb=1024,
    # The window (55 s) plus the hand-offs still running when it ends (each bounded by ingest's calls).
    timeout_seconds=300,
    concurrency=1,
    app_profile=WRITERS,
)
QUERY = FunctionSpec(
    name="query",
    source="functions/query",
    entry_point="query",
    trigger=Trigger.HTTP,
    # proofs start from the bootstrap book (the function reads it once per instance)
    settings=(*_COMMON, "address_book", "first_block", "consensus_ratio", "network"),
    memory_mb=512,
    timeout_seconds=60,
    concurrency=40,
    app_profile=QUERIES,
)

FUNCTIONS: tuple[FunctionSpec, ...] = (INGEST, SWEEP, STORE, FOLLOW, QUERY)


def function(name: str) -> FunctionSpec:
    for spec in FUNCTIONS:
        if spec.name == name:
            return spec
    raise ConfigError(f"no function named {name!r}; the catalogue has {', '.join(f.name for f in FUNCTIONS)}")


# ---- Bigtable tables each function touches (infra/generated/tables.json; infra/iam.tf grants them) ----

_VERIFIES_STREAM = (
    s.BLOCKS,  # a late node's signature cells
    s.INGEST_PROGRESS,
    s.CHAIN_LINKS,
    s.QUARANTINE,
    s.ADDRESS_BOOKS,  # the book keeper advances as periods verify
    # an errata file from the bucket (errata.ingest) or the network's known errata (errata.network_pass)
    s.TRANSACTIONS,
    s.TX_BY_HASH,
    s.TX_BY_ID,
    s.ACCOUNT_HISTORY,
    s.SIDECARS,
    s.ERRATA_LOG,
)

TABLES: dict[str, TableAccess] = {
    INGEST.name: TableAccess.of(writes=_VERIFIES_STREAM),
    SWEEP.name: TableAccess.of(
        # the reconciler reads batch completion; the watermark's repair connects blocks in it
        writes=(*_VERIFIES_STREAM, s.BALANCES, s.CARDINAL_TRACKING),
        # balances are applied from the stored item lists
        reads=(s.ITEMS,),
    ),
    # the ingest path's tables (it hands periods to ingest); its position and lease live in the
    # state table; the backfill start reads the last complete block
    FOLLOW.name: TableAccess.of(writes=_VERIFIES_STREAM),
    STORE.name: TableAccess.of(
        writes=(*s.HISTORY_TABLES, s.CARDINAL_TRACKING, s.ADDRESS_BOOKS, s.BALANCES, s.ERRATA_LOG),
    ),
    # the state table for the follower's position only (GET /api/v1/status); the address books for
    # the trust chain of a proof
    QUERY.name: TableAccess.of(reads=(*s.HISTORY_TABLES, s.ERRATA_LOG, s.BALANCES, s.INGEST_PROGRESS, s.ADDRESS_BOOKS)),
}
"""What each function writes and what it only reads: its service account gets ``bigtable.user`` on
the first and ``bigtable.reader`` on the second, table by table, and nothing on the others."""


def tables_of(name: str) -> TableAccess:
    return TABLES[name]
