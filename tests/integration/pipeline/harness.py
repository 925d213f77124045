"""The pipeline's two steps wired to the emulators in process, for the pipeline tests."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from google.cloud import pubsub_v1
from hedera_history.books.parse import parse_address_book
from hedera_history.cardinal.tracking import TrackingOutcome
from hedera_history.config import Settings
from hedera_history.gen.config_and_output import GeneratedStream
from hedera_history.gen.writer import write_stream
from hedera_history.pipeline.ingest import IngestContext, IngestResult, ingest_object
from hedera_history.pipeline.runtime import build_ingest_context, build_store_context
from hedera_history.pipeline.store import StoreContext, store_message
from hedera_history.pipeline.sweep import sweep
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.store import schema as s
from hedera_history.store.bigtable_client import BigtableDataGateway, gateway_for_instance
from hedera_history.store.gateway import KeyRange, RowQuery
from hedera_history.store.schema import ensure_tables
from hedera_history.store.writer import BlockWriter
from hedera_history.transport.admin import ensure_topics
from hedera_history.transport.message import ReceivedMessage
from hedera_history.transport.pubsub import received_from_pull
from hedera_history.transport.topics import STORE_HISTORY, STORE_SIDECARS, TOPICS, pipeline_subscriptions
from hedera_history.verify.stream import verify_stream

from tests.fixtures.emulators import PROJECT, unique_name


@dataclass
class Pipeline:
    settings: Settings
    gateway: BigtableDataGateway
    ingest: IngestContext
    store: StoreContext
    bucket: Any
    outcomes: list[TrackingOutcome] = field(default_factory=list)
    """Every store call's outcome, in order."""

    def completions(self) -> Counter[int]:
        """How many store calls completed each block number."""
        return Counter(o.completed.number for o in self.outcomes if o.completed is not None)

    def upload(self, objects: dict[str, bytes], rng: random.Random, duplicates: int = 0) -> list[str]:
        names = list(objects)
        names += rng.sample(names, min(duplicates, len(names)))
        rng.shuffle(names)
        for name in names:
            self.bucket.blob(name).upload_from_string(objects[name])
        return names

    def run_stream(
        self, objects: dict[str, bytes], rng: random.Random, *, duplicates: int = 0, sweeps: int = 1
    ) -> list[IngestResult]:
        """What the deployment does with a stream's uploads: every object uploaded (shuffled, with
        ``duplicates``) and ingested, the published messages stored, then ``sweeps`` times a sweep
        and what it published stored. Ingest's results, in upload order."""
        results = [ingest_object(self.ingest, name) for name in self.upload(objects, rng, duplicates)]
        self.drain(rng)
        for _ in range(sweeps):
            sweep(self.ingest)
            self.drain(rng)
        return results

    def take_waiting(self, handle: Callable[[ReceivedMessage], None]) -> int:
        """Pull what waits on both store subscriptions, hand each message to ``handle`` and
        acknowledge it whatever ``handle`` did with it (a store killed after the push was
        acknowledged, a message parked or lost: it never comes back). How many were taken."""
        subscriber = pubsub_v1.SubscriberClient()
        taken = 0
        try:
            prefix = self.settings.pubsub_topic_prefix
            for name in (STORE_HISTORY, STORE_SIDECARS):
                path = subscriber.subscription_path(PROJECT, prefix + name)
                while response := subscriber.pull(subscription=path, max_messages=500, timeout=1.5).received_messages:
                    for received in response:
                        handle(received_from_pull(_Pulled(received.message)))
                        subscriber.acknowledge(subscription=path, ack_ids=[received.ack_id])
                        taken += 1
        finally:
            subscriber.close()
        return taken

    def drain(self, rng: random.Random, redeliver: float = 0.2) -> int:
        """Pull every message from both store subscriptions and store it (some twice)."""
        subscriber = pubsub_v1.SubscriberClient()
        handled = 0
        try:
            prefix = self.settings.pubsub_topic_prefix
            paths = [subscriber.subscription_path(PROJECT, prefix + name) for name in (STORE_HISTORY, STORE_SIDECARS)]
            idle = 0
            while idle < 2:
                pulled: list[Any] = []
                for path in paths:
                    response = subscriber.pull(subscription=path, max_messages=500, timeout=1.5)
                    pulled += [(path, m) for m in response.received_messages]
                if not pulled:
                    idle += 1
                    continue
                idle = 0
                rng.shuffle(pulled)
                for path, received in pulled:
                    message = received_from_pull(_Pulled(received.message))
                    self.outcomes.append(store_message(self.store, message))
                    if rng.random() < redeliver:
                        self.outcomes.append(store_message(self.store, message))
                    subscriber.acknowledge(subscription=path, ack_ids=[received.ack_id])
                    handled += 1
        finally:
            subscriber.close()
        return handled


class _Pulled:
    """A synchronous pull's message in the shape ``received_from_pull`` takes."""

    def __init__(self, message: Any) -> None:
        self.data = message.data
        self.attributes = message.attributes
        self.message_id = message.message_id
        self.publish_time = message.publish_time
        self.delivery_attempt = None


def make_pipeline(
    bigtable_instance: Any, gcs_bucket: Any, tmp_path: Path, address_book: bytes, **overrides: Any
) -> Iterator[Pipeline]:
    """Tables, topics and both function contexts for one test, on the test's own instance and prefixes."""
    book = tmp_path / "address-book.bin"
    book.write_bytes(address_book)
    settings = Settings.from_env(
        **{
            "project": PROJECT,
            "bigtable_instance": bigtable_instance.instance_id,
            "table_prefix": "p_",
            "pubsub_topic_prefix": unique_name("pl") + "-",
            "address_book": str(book),
            "stream_bucket": gcs_bucket.name,
            "quarantine_url": str(tmp_path / "quarantine"),
            "sweep_min_age_seconds": 0,
            **overrides,
        }
    )
    ensure_tables(bigtable_instance, settings)
    ensure_topics(PROJECT, TOPICS, pipeline_subscriptions(None), prefix=settings.pubsub_topic_prefix)
    gateway = gateway_for_instance(bigtable_instance, settings)
    ingest = build_ingest_context(settings, gcs_bucket.name, gateway=gateway)
    store = build_store_context(settings, gateway=gateway)
    yield Pipeline(settings, gateway, ingest, store, gcs_bucket)
    ingest.publisher.close()  # type: ignore[attr-defined]
    gateway.close()


def history_cells(gateway: BigtableDataGateway) -> dict[tuple[str, bytes], set[tuple[str, bytes, int, bytes]]]:
    cells: dict[tuple[str, bytes], set[tuple[str, bytes, int, bytes]]] = {}
    for table in s.HISTORY_TABLES:
        for row in gateway.read_rows(table, RowQuery(ranges=(KeyRange(b""),))):
            cells[(table, row.key)] = {(c.family, c.qualifier, c.timestamp_micros, c.value) for c in row.cells}
    return cells


def reference_cells(bigtable_instance: Any, stream: GeneratedStream, tmp_path: Path) -> dict[Any, Any]:
    """What the single-process path (verify + BlockWriter) writes for the whole stream, in tables
    under another prefix."""
    settings = Settings.from_env(project=PROJECT, bigtable_instance=bigtable_instance.instance_id, table_prefix="r_")
    ensure_tables(bigtable_instance, settings)
    out = tmp_path / "reference"
    write_stream(stream, out)
    results = list(verify_stream(find_local_periods(out), parse_address_book(stream.address_book)))
    gateway = gateway_for_instance(bigtable_instance, settings)
    try:
        blocks = [r.report.block for r in results if r.report.block is not None]
        assert all(r.complete for r in BlockWriter(gateway, settings).write_blocks(blocks))
        return history_cells(gateway)
    finally:
        gateway.close()
