"""The clients and contexts a function instance builds once, from Settings, on first use.

Nothing is read from the environment or connected at import time (a cold start that only
answers a health check costs nothing); each builder is cached per process and per bucket. The
Cloud clients (Bigtable, Pub/Sub) are imported by the builders, not here: importing them takes
most of a function's cold start, which a function then pays on its first call instead of on
every instance start (bench/cold_start_bench.py). So is what only one context needs: the store
function never loads the ingest path (verification, period state, publishing), nor the ingest
function the store path (tracking, balances, network errata).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from hedera_history.collector import settle_after_start
from hedera_history.config import Settings
from hedera_history.pipeline.address_books import AddressBookHistory, first_block_of_stream
from hedera_history.sources.address_book_file import read_address_book

if TYPE_CHECKING:
    from hedera_history.pipeline.ingest import IngestContext
    from hedera_history.pipeline.store import StoreContext
    from hedera_history.store.bigtable_client import BigtableDataGateway

T = TypeVar("T")


def stream_url(bucket: str) -> str:
    """A bucket name (as in a storage event) or a URL / directory (as configured) -> a source URL."""
    if "://" in bucket or bucket.startswith(("/", ".")):
        return bucket
    return f"gs://{bucket}"


def build_ingest_context(settings: Settings, bucket: str, gateway: BigtableDataGateway | None = None) -> IngestContext:
    # Imported here, not at the top: see the module docstring.
    from hedera_history.cardinal.producer import BatchProducer  # noqa: PLC0415
    from hedera_history.pipeline.ingest import IngestContext  # noqa: PLC0415
    from hedera_history.pipeline.publish import pipeline_routing  # noqa: PLC0415
    from hedera_history.pipeline.state import IngestState  # noqa: PLC0415
    from hedera_history.sources.base import open_sink, open_source  # noqa: PLC0415
    from hedera_history.store.bigtable_client import open_gateway  # noqa: PLC0415
    from hedera_history.transport.pubsub import PubSubPublisher  # noqa: PLC0415
    from hedera_history.verify.consensus import parse_consensus_ratio  # noqa: PLC0415

    gateway = gateway or open_gateway(settings)
    bootstrap = read_address_book(settings.address_book, settings)
    return IngestContext(
        settings=settings,
        ratio=parse_consensus_ratio(settings.consensus_ratio),
        source=open_source(stream_url(bucket), settings),
        state=IngestState(gateway),
        books=AddressBookHistory(gateway, bootstrap, first_block=settings.first_block),
        gateway=gateway,
        publisher=PubSubPublisher.from_settings(settings),
        producer=BatchProducer(pipeline_routing()),
        quarantine=open_sink(settings.quarantine_url, settings) if settings.quarantine_url else None,
    )


def build_store_context(settings: Settings, gateway: BigtableDataGateway | None = None) -> StoreContext:
    # Imported here, not at the top: see the module docstring.
    from hedera_history.cardinal.tracking import StatelessTracker  # noqa: PLC0415
    from hedera_history.derived.lease import ExclusiveBalanceApplier  # noqa: PLC0415
    from hedera_history.errata.network_pass import network_errata_pass  # noqa: PLC0415
    from hedera_history.fault_points import crash_after_done  # noqa: PLC0415
    from hedera_history.pipeline.store import BigtableBlockSink, StoreContext  # noqa: PLC0415
    from hedera_history.store.bigtable_client import open_gateway  # noqa: PLC0415
    from hedera_history.store.tracking_store import BigtableTrackingStore  # noqa: PLC0415
    from hedera_history.store.writer import BlockWriter  # noqa: PLC0415

    gateway = gateway or open_gateway(settings)
    tracker = StatelessTracker(
        BigtableTrackingStore(gateway),
        BigtableBlockSink(BlockWriter(gateway, settings)),
        first_number=settings.first_block,
        before_connect=crash_after_done(),  # armed by fault-injection tests only (docs/pipeline.md)
    )
    books = None
    if settings.address_book:
        books = AddressBookHistory(
            gateway, read_address_book(settings.address_book, settings), first_block=settings.first_block
        )
    balances = None
    if settings.balances_enabled:
        stored = gateway  # narrowed for the closure
        balances = ExclusiveBalanceApplier(
            stored, settings, first_block=lambda: first_block_of_stream(stored, settings.first_block)
        )
    network_errata = network_errata_pass(gateway, settings)
    return StoreContext(tracker, books, balances, settings.balances_blocks_per_store_run, network_errata)


class Cached:
    """One value per key, built on first use, shared by the threads of an instance."""

    def __init__(self) -> None:
        self._values: dict[str, object] = {}
        self._lock = threading.Lock()

    def get(self, key: str, build: Callable[[], T]) -> T:
        with self._lock:
            if key not in self._values:
                self._values[key] = build()
                # Start-up is over: what it made stays, and the calls' rows are collected less often.
                settle_after_start()
            return self._values[key]  # type: ignore[return-value]
