"""What every ingest handler is given (:class:`IngestContext`) and answers (:class:`IngestResult`),
and the few reads and writes they share."""

from __future__ import annotations

import enum
import logging
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Protocol

from hedera_history.books.address_book import AddressBook
from hedera_history.cardinal.producer import BatchProducer
from hedera_history.config import Settings
from hedera_history.errors import FileNameError, ObjectNotFoundError
from hedera_history.formats.stream_paths import ObjectPath, node_account
from hedera_history.pipeline.address_books import AddressBookHistory
from hedera_history.pipeline.recent_reads import RecentReads
from hedera_history.pipeline.state import IngestState
from hedera_history.sources.base import ObjectSink, ObjectSource
from hedera_history.store import schema as s
from hedera_history.store.gateway import write_or_raise
from hedera_history.store.model import Row
from hedera_history.transport.message import OutgoingMessage

if TYPE_CHECKING:  # the Bigtable client costs a cold start a third of a second: imported on first use
    from hedera_history.store.bigtable_client import BigtableDataGateway

logger = logging.getLogger("hedera_history.pipeline.ingest")
"""Every ingest handler logs under this one name (operators and tests filter on it)."""


class Outcome(enum.StrEnum):
    IGNORED = "ignored"
    PENDING = "pending"
    PUBLISHED = "published"
    ALREADY_PUBLISHED = "already published"
    SIGNATURE_ADDED = "signature added"
    QUARANTINED = "quarantined"
    ERRATA_APPLIED = "errata applied"


@dataclass(frozen=True, slots=True)
class IngestResult:
    outcome: Outcome
    period_key: str = ""
    block_number: int | None = None
    reason: str = ""
    quarantined: tuple[str, ...] = ()


class Publisher(Protocol):
    def publish_all(self, messages: list[OutgoingMessage]) -> None: ...


@dataclass
class IngestContext:
    settings: Settings
    ratio: Fraction
    source: ObjectSource
    """The stream bucket's root."""
    state: IngestState
    books: AddressBookHistory
    gateway: BigtableDataGateway
    publisher: Publisher
    producer: BatchProducer
    quarantine: ObjectSink | None = None
    recent_books: RecentReads[AddressBook] = field(default_factory=RecentReads)
    """Consensus books in force by period (``hex16`` of its time), as this instance's threads read
    them lately: what a late file of a published period is checked on (``pipeline.ingest_record``)."""


def write_block_cells(ctx: IngestContext, rows: list[Row]) -> None:
    """Signature cells, written straight into the block rows (they do not travel in the batch)."""
    if rows:
        write_or_raise(ctx.gateway, s.BLOCKS, rows, "signature cells")


def read_object(source: ObjectSource, path: str) -> bytes | None:
    try:
        return source.read(path)
    except ObjectNotFoundError:
        return None


def node_account_of(path: ObjectPath, book: AddressBook) -> str:
    try:
        return node_account(path.node, book)
    except FileNameError:
        return str(path.node)


def lag_seconds(consensus_ns: int) -> float:
    return round(max(0, time.time_ns() - consensus_ns) / 1e9, 3)
