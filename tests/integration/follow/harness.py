"""A follower wired to the emulators in process: ingest publishes straight into the store step.

The publisher hands each batch to ``store_message`` at once (as a push subscription would, without
Pub/Sub), so a followed period ends as complete blocks in Bigtable within the follower's call.
"""

from __future__ import annotations

import contextlib
import dataclasses
import shutil
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hedera_history.cardinal.tracking import TrackingOutcome
from hedera_history.config import Settings
from hedera_history.follow.follower import Follower, FollowReport
from hedera_history.formats.names import format_timestamp
from hedera_history.gen.config_and_output import GeneratedStream
from hedera_history.gen.writer import write_stream
from hedera_history.pipeline.ingest import IngestContext
from hedera_history.pipeline.runtime import build_ingest_context, build_store_context
from hedera_history.pipeline.store import StoreContext, store_message
from hedera_history.sources.base import ObjectSource
from hedera_history.store.bigtable_client import BigtableDataGateway, gateway_for_instance
from hedera_history.store.reader import HistoryReader
from hedera_history.store.schema import ensure_tables
from hedera_history.transport.message import OutgoingMessage, ReceivedMessage

from tests.fixtures.emulators import PROJECT

FAST = {
    "follow_poll_seconds": 0.1,
    "follow_full_listing_seconds": 1.0,
    "follow_settle_seconds": 0.2,
    "follow_give_up_seconds": 30.0,
    "follow_lease_seconds": 15.0,
    "follow_hot_nodes": 2,
    "balances_enabled": False,
    "sweep_min_age_seconds": 0,
}


class DirectPublisher:
    """Stores every published batch at once; counts publications."""

    def __init__(self, store: StoreContext) -> None:
        self.store = store
        self.publications = 0
        self.outcomes: list[TrackingOutcome] = []
        self._lock = threading.Lock()

    def publish_all(self, messages: list[OutgoingMessage]) -> None:
        with self._lock:
            self.publications += 1
        for message in messages:
            received = ReceivedMessage(message.key, message.value, dict(message.attributes), uuid.uuid4().hex, None)
            outcome = store_message(self.store, received)
            with self._lock:
                self.outcomes.append(outcome)

    def completions(self) -> Counter[int]:
        return Counter(o.completed.number for o in self.outcomes if o.completed is not None)


@dataclass
class Followed:
    settings: Settings
    gateway: BigtableDataGateway
    ctx: IngestContext
    publisher: DirectPublisher
    stream: GeneratedStream
    reports: list[FollowReport] = field(default_factory=list)

    def follower(self, **kwargs: Any) -> Follower:
        return Follower(self.ctx, self.settings, **kwargs)

    def blocks(self) -> list[int]:
        return [p.block_number for p in self.stream.periods]

    def complete(self, numbers: list[int] | None = None) -> bool:
        wanted = numbers if numbers is not None else self.blocks()
        return HistoryReader(self.gateway).complete_blocks(wanted) == set(wanted)


def period_objects(stream: GeneratedStream) -> dict[str, dict[str, bytes]]:
    """Period key -> the stream's objects of that period (every node's)."""
    grouped: dict[str, dict[str, bytes]] = {}
    keys = [p.record_name.period_key for p in stream.periods]
    for name, data in stream.objects.items():
        key = next((k for k in keys if k in name), None)
        if key is not None:
            grouped.setdefault(key, {})[name] = data
    return grouped


def start_before(stream: GeneratedStream) -> str:
    """A follow start time just before the stream's first period."""
    return format_timestamp(stream.periods[0].consensus_start_ns - 1_000_000)


@contextlib.contextmanager
def make_followed(
    bigtable_instance: Any,
    tmp_path: Path,
    stream: GeneratedStream,
    source_url: str,
    *,
    source: ObjectSource | None = None,
    **overrides: Any,
) -> Iterator[Followed]:
    book = tmp_path / "address-book.bin"
    book.write_bytes(stream.address_book)
    settings = Settings.from_env(
        **{
            "project": PROJECT,
            "bigtable_instance": bigtable_instance.instance_id,
            "table_prefix": "f_",
            "address_book": str(book),
            "first_block": stream.periods[0].block_number,
            "follow_source": source_url,
            "follow_start": start_before(stream),
            **FAST,
            **overrides,
        }
    )
    ensure_tables(bigtable_instance, settings)
    gateway = gateway_for_instance(bigtable_instance, settings)
    store = build_store_context(settings, gateway=gateway)
    publisher = DirectPublisher(store)
    ctx = build_ingest_context(settings, source_url, gateway=gateway)
    ctx = dataclasses.replace(ctx, publisher=publisher, source=source or ctx.source)
    try:
        yield Followed(settings, gateway, ctx, publisher, stream)
    finally:
        gateway.close()


def follow_in_thread(follower: Follower) -> tuple[threading.Thread, threading.Event, list[FollowReport]]:
    """Run ``follower`` until the returned event is set; its report lands in the list."""
    stop = threading.Event()
    reports: list[FollowReport] = []
    thread = threading.Thread(target=lambda: reports.append(follower.run(stop.is_set)), daemon=True)
    thread.start()
    return thread, stop, reports


def follow_until(follower: Follower, condition: Callable[[], bool], what: str) -> FollowReport:
    """Run ``follower`` in a thread until ``condition`` holds; its report."""
    thread, stop, reports = follow_in_thread(follower)
    try:
        wait_for(condition, what=what)
    finally:
        stop.set()
        thread.join(60)
    return reports[0]


def ledger_publication(tmp_path: Path, stream: GeneratedStream) -> str:
    """A file holding the stream's ledger id publication (``HEDERA_HISTORY_LEDGER_PUBLICATION``)."""
    path = tmp_path / "ledger-id-publication.bin"
    assert stream.ledger_publication is not None
    path.write_bytes(stream.ledger_publication)
    return str(path)


def block_bucket(tmp_path: Path, stream: GeneratedStream, **settings: Any) -> tuple[Path, dict[str, Any]]:
    """The stream written to a directory bucket, and the settings that read its blocks from there
    with the stream's ledger publication (and ``settings``)."""
    bucket = tmp_path / "bucket"
    write_stream(stream, bucket)
    return bucket, {"block_source": str(bucket), "ledger_publication": ledger_publication(tmp_path, stream), **settings}


def blocks_at_the_node_after(
    tmp_path: Path, stream: GeneratedStream, served: Path, after: int, **settings: Any
) -> tuple[Path, dict[str, Any]]:
    """:func:`block_bucket`, every block file also in ``served`` (a block node's folder) and the
    bucket keeping none after block ``after``: only the node has those."""
    bucket, overrides = block_bucket(tmp_path, stream, **settings)
    shutil.copytree(bucket / "demo" / "block", served, dirs_exist_ok=True)
    for block in stream.blocks:
        if block.block_number > after:
            (bucket / block.path).unlink()
    return bucket, overrides


def wait_for(condition: Callable[[], bool], seconds: float = 240.0, what: str = "condition") -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.2)
