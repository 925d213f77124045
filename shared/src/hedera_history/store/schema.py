"""The one source of truth for the Bigtable layout: tables, column families, qualifiers, GC rules.

Table names here are logical; the table id in an instance is ``Settings.table_prefix + name``.
``docs/schema.md`` describes every row key and cell with an example; keep the two in step.

Retention is a garbage-collection rule per family. Every cell carries the consensus time of its
block as its timestamp (``store.chaintime``), so a max-age rule keeps the last N days of *chain*
time. Rules are a union (a cell goes when either condition holds): max one version, and, when
configured, a max age.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hedera_history.config import Settings

# ---- history tables (identical from the stream and from a backfill) ------------------------------

BLOCKS = "blocks"
BLOCK_HEADER_FAMILY = "h"
BLOCK_SIGNATURE_FAMILY = "sig"
"""One cell per node; the qualifier is the node account, e.g. ``0.0.3``."""
BLOCK_COMPLETION_FAMILY = "c"

Q_VERSION = b"version"
Q_NAME = b"name"
Q_FILE_HASH = b"file_hash"
Q_METADATA_HASH = b"metadata_hash"
Q_START_RUNNING_HASH = b"start_running_hash"
Q_END_RUNNING_HASH = b"end_running_hash"
Q_PREVIOUS_HASH = b"previous_hash"
Q_CONSENSUS_START = b"consensus_start"
Q_CONSENSUS_END = b"consensus_end"
Q_ITEM_COUNT = b"item_count"
Q_HAPI_VERSION = b"hapi_version"
Q_SIDECARS = b"sidecars"
Q_COMPLETE = b"complete"
Q_GAS_USED = b"gas_used"
"""Gas used by the block's top-level contract results (``store.block_totals``)."""
Q_LOGS_BLOOM = b"logs_bloom"
"""The OR of the block's top-level contract results' logs blooms, 256 bytes."""
Q_BLOCK_PROOF = b"block_proof"
"""Of a block-stream block: who signed it (``values.BlockProofValue``) and its ``BlockProof`` bytes."""
Q_WRAPPED_BLOCK = b"wrapped_block"
"""Of a wrapped record block: the block without the record file contents the items row keeps
(``formats.wrapped_envelope``), from which the original block is restored."""
Q_BLOCK_NUMBER = b"number"
"""Of a block-hash index row (``keys.row_key_for_block_hash``): the block's number."""

ITEMS = "items"
ITEMS_FAMILY = "f"
ITEMS_FILE_KIND = b"file"
"""Chunks of the record file's signed bytes (V6: the decompressed file)."""
ITEMS_LIST_KIND = b"items"
"""Chunks of the item list, when the file could not be rebuilt byte for byte (see ``originals``)."""
ITEMS_BLOCK_KIND = b"block"
"""A block-stream block's own bytes (the serialised ``Block``, every item as on the wire), whole in
cell 0: its records are rebuilt from its items when read (``formats.block_record_file``)."""

TRANSACTIONS = "transactions"
TRANSACTION_FAMILY = "t"
Q_RECORD = b"record"
Q_TRANSACTION = b"transaction"
Q_POSITION = b"position"

TX_BY_HASH = "tx_by_hash"
TX_BY_HASH_FAMILY = "h"
"""One cell per consensus timestamp carrying that hash (duplicates share a hash)."""

TX_BY_ID = "tx_by_id"
TX_BY_ID_FAMILY = "i"
"""One cell per consensus timestamp sharing the transaction id (children, duplicates, scheduled)."""

ACCOUNT_HISTORY = "account_history"
ACCOUNT_HISTORY_FAMILY = "a"
Q_BLOCK = b"block"

SIDECARS = "sidecars"
SIDECAR_RECORD_FAMILY = "s"
"""One cell per sidecar record: qualifier ``<type>/<sidecar file id>/<index in file>``."""
SIDECAR_META_FAMILY = "m"
# Q_BLOCK in SIDECAR_META_FAMILY: the block the records belong to.

# ---- state tables (filled by ingest, store, errata and derived-state pieces) ---------------------

INGEST_PROGRESS = "ingest_progress"
INGEST_PROGRESS_FAMILY = "p"
CHAIN_LINKS = "chain_links"
CHAIN_LINKS_FAMILY = "l"
QUARANTINE = "quarantine"
QUARANTINE_FAMILY = "q"
CARDINAL_TRACKING = "cardinal_tracking"
CARDINAL_TRACKING_FAMILY = "t"
ADDRESS_BOOKS = "address_books"
ADDRESS_BOOKS_FAMILY = "b"
ERRATA_LOG = "errata_log"
ERRATA_LOG_FAMILY = "e"
BALANCES = "balances"
BALANCES_FAMILY = "b"


@dataclass(frozen=True, slots=True)
class GcRule:
    """A family's garbage collection: at most ``max_versions`` versions, and (optionally) cells no
    older than ``max_age_days`` of chain time. Both conditions combine as a union."""

    max_versions: int = 1
    max_age_days: int | None = None

    def as_data(self) -> dict[str, int | None]:
        return {"max_versions": self.max_versions, "max_age_days": self.max_age_days}


@dataclass(frozen=True, slots=True)
class TableSpec:
    name: str
    """Logical name (what rows and message keys carry)."""
    table_id: str
    """Name in the instance: ``Settings.table_prefix + name``."""
    families: tuple[tuple[str, GcRule], ...]
    history: bool
    """True for the tables that must be identical from the stream and a backfill."""

    @property
    def family_rules(self) -> dict[str, GcRule]:
        return dict(self.families)


HISTORY_FAMILIES: dict[str, tuple[str, ...]] = {
    BLOCKS: (BLOCK_HEADER_FAMILY, BLOCK_SIGNATURE_FAMILY, BLOCK_COMPLETION_FAMILY),
    ITEMS: (ITEMS_FAMILY,),
    TRANSACTIONS: (TRANSACTION_FAMILY,),
    TX_BY_HASH: (TX_BY_HASH_FAMILY,),
    TX_BY_ID: (TX_BY_ID_FAMILY,),
    ACCOUNT_HISTORY: (ACCOUNT_HISTORY_FAMILY,),
    SIDECARS: (SIDECAR_RECORD_FAMILY, SIDECAR_META_FAMILY),
}

STATE_FAMILIES: dict[str, tuple[str, ...]] = {
    INGEST_PROGRESS: (INGEST_PROGRESS_FAMILY,),
    CHAIN_LINKS: (CHAIN_LINKS_FAMILY,),
    QUARANTINE: (QUARANTINE_FAMILY,),
    CARDINAL_TRACKING: (CARDINAL_TRACKING_FAMILY,),
    ADDRESS_BOOKS: (ADDRESS_BOOKS_FAMILY,),
    ERRATA_LOG: (ERRATA_LOG_FAMILY,),
    BALANCES: (BALANCES_FAMILY,),
}

HISTORY_TABLES: tuple[str, ...] = tuple(HISTORY_FAMILIES)
STATE_TABLES: tuple[str, ...] = tuple(STATE_FAMILIES)


@dataclass(frozen=True, slots=True)
class TableAccess:
    """The tables (logical names) one workload touches: what it writes (and may read) and what it
    only reads. The deployment grants exactly these, table by table (``infra/iam.tf``)."""

    writes: frozenset[str] = frozenset()
    reads: frozenset[str] = frozenset()
    """Read only: tables also written belong in ``writes`` alone."""

    @classmethod
    def of(cls, *, writes: tuple[str, ...] = (), reads: tuple[str, ...] = ()) -> TableAccess:
        return cls(frozenset(writes), frozenset(reads))

    @property
    def tables(self) -> frozenset[str]:
        return self.writes | self.reads

    def problems(self) -> list[str]:
        """What is wrong with the declaration: unknown table names, or a table listed twice."""
        known = set(HISTORY_FAMILIES) | set(STATE_FAMILIES)
        found = [f"no table {name!r}" for name in sorted(self.tables - known)]
        found += [f"{name!r} is both written and read only" for name in sorted(self.writes & self.reads)]
        return found


def table_id(name: str, settings: Settings) -> str:
    """The table's id in the instance."""
    return settings.table_prefix + name


def retention_days_for(name: str, settings: Settings) -> int | None:
    """Chain-time window of a history table in days, or None (keep everything)."""
    if name not in HISTORY_FAMILIES:
        return None
    days = settings.retention_days
    if name == SIDECARS and settings.sidecar_retention_days > 0:
        days = settings.sidecar_retention_days
    return days if days > 0 else None


def declared_tables(settings: Settings) -> tuple[TableSpec, ...]:
    """Every table with its families and GC rules, as configured."""
    specs: list[TableSpec] = []
    for name, families in HISTORY_FAMILIES.items():
        rule = GcRule(max_versions=1, max_age_days=retention_days_for(name, settings))
        specs.append(TableSpec(name, table_id(name, settings), tuple((f, rule) for f in families), True))
    for name, families in STATE_FAMILIES.items():
        specs.append(TableSpec(name, table_id(name, settings), tuple((f, GcRule()) for f in families), False))
    return tuple(specs)


def gc_policy_data(settings: Settings) -> dict[str, dict[str, dict[str, Any]]]:
    """The declared rules as plain data: ``{table id: {family: {max_versions, max_age_days}}}``."""
    return {
        spec.table_id: {family: rule.as_data() for family, rule in spec.families} for spec in declared_tables(settings)
    }


def ensure_tables(instance: Any, settings: Settings) -> None:
    """Create missing tables and families and set their GC rules; safe to run again at any time.

    ``instance`` is a ``google.cloud.bigtable`` admin ``Instance``.
    """
    from hedera_history.store import bigtable_client  # noqa: PLC0415 (keeps the client out of imports)

    bigtable_client.ensure_declared_tables(instance, declared_tables(settings))
