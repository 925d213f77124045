"""The Bigtable tracking store on the emulator: the cell semantics, then the stateless consumer's
scenarios (shuffled and duplicated messages, two function instances) with state in Bigtable."""

from __future__ import annotations

import random
import socket
import threading
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from hedera_history.cardinal.chain_blocks import Block
from hedera_history.cardinal.conflicts import ConflictPolicy
from hedera_history.cardinal.messages import WireMessage
from hedera_history.cardinal.producer import BatchProducer
from hedera_history.cardinal.tracking import Disposition, StatelessTracker, TrackingOutcome
from hedera_history.config import Settings
from hedera_history.errors import StoreError, StoreUnavailableError
from hedera_history.store.bigtable_client import BigtableDataGateway, gateway_for_instance
from hedera_history.store.schema import CARDINAL_TRACKING, CARDINAL_TRACKING_FAMILY, ensure_tables, table_id
from hedera_history.store.tracking_store import BigtableTrackingStore

from tests.fixtures.emulators import PROJECT
from tests.unit.cardinal.chains import ROUTING, RecordingSink, all_messages, completions, linear_chain

SETTINGS = Settings.from_env({}, table_prefix="ct_")


@pytest.fixture
def gateways(bigtable_instance: Any) -> Iterator[list[BigtableDataGateway]]:
    """Two gateways (two clients, as two function instances would have) on declared tables."""
    ensure_tables(bigtable_instance, SETTINGS)
    opened = [gateway_for_instance(bigtable_instance, SETTINGS) for _ in range(2)]
    yield opened
    for gateway in opened:
        gateway.close()


def shuffled_with_duplicates(chain: list[Block], rng: random.Random, chunk_bytes: int) -> list[WireMessage]:
    producer = BatchProducer(ROUTING, chunk_bytes=chunk_bytes)
    messages = [m for block in chain for m in all_messages(producer, block) for _ in range(rng.randint(1, 3))]
    rng.shuffle(messages)
    return messages


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def new_namespace() -> bytes:
    """Each scenario in its own rows, so scenarios can share one table."""
    return uuid.uuid4().hex[:8].encode() + b"/"


def test_check_and_set_and_read_row_follow_the_latest_cell(
    gateways: list[BigtableDataGateway], bigtable_instance: Any
) -> None:
    store = BigtableTrackingStore(gateways[0])
    row = b"block/" + bytes(range(8)).hex().encode()
    assert store.read_row(row) == {}

    assert store.check_and_set(row, b"batch", None, b"v1")
    assert not store.check_and_set(row, b"batch", None, b"v2"), "set only if absent"
    assert not store.check_and_set(row, b"batch", b"other", b"v2"), "expected value differs"
    assert store.check_and_set(row, b"batch", b"v1", b"v2")
    assert store.check_and_set(row, b"batch", b"v2", b"v3")
    assert not store.check_and_set(row, b"batch", b"v1", b"v4"), "an older version is not the cell's value"
    assert store.check_and_set(row, b"key/\xc3\xa9/x", None, b"")
    assert store.check_and_set(row, b"key/\xc3\xa9/x", b"", b"u")

    # Older versions may linger until garbage collection; only the latest is read.
    assert store.read_row(row) == {b"batch": b"v3", b"key/\xc3\xa9/x": b"u"}
    assert BigtableTrackingStore(gateways[1]).read_row(row) == {b"batch": b"v3", b"key/\xc3\xa9/x": b"u"}
    assert store.read_row(row + b"0") == {}
    # The older versions are really there (garbage collection has not run): the filter matters.
    raw = bigtable_instance.table(table_id(CARDINAL_TRACKING, SETTINGS)).read_row(row)
    # (Two writes in one millisecond share a server timestamp, so a version may have been replaced.)
    versions = [cell.value for cell in raw.cells[CARDINAL_TRACKING_FAMILY][b"batch"]]
    assert versions[0] == b"v3" and len(versions) >= 2 and set(versions) <= {b"v1", b"v2", b"v3"}


def test_an_unreachable_bigtable_is_store_unavailable(bigtable_emulator: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BIGTABLE_EMULATOR_HOST", f"127.0.0.1:{free_port()}")
    settings = Settings.from_env({}, table_prefix="ct_", bigtable_timeout_seconds=1.0)
    gateway = BigtableDataGateway(PROJECT, "nowhere", settings)
    try:
        store = BigtableTrackingStore(gateway)
        with pytest.raises(StoreUnavailableError):
            store.read_row(b"watermark")
        with pytest.raises(StoreUnavailableError):
            store.check_and_set(b"watermark", b"tip", None, b"x")
    finally:
        gateway.close()


def test_a_missing_table_is_a_store_error(gateways: list[BigtableDataGateway]) -> None:
    store = BigtableTrackingStore(gateways[0], table="no_such_table")
    with pytest.raises(StoreError):
        store.read_row(b"watermark")
    with pytest.raises(StoreError):
        store.check_and_set(b"watermark", b"tip", None, b"x")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_shuffled_duplicated_messages_complete_each_block_once(gateways: list[BigtableDataGateway], seed: int) -> None:
    rng = random.Random(seed)
    chain = linear_chain(f"s{seed}-", 10)
    messages = shuffled_with_duplicates(chain, rng, chunk_bytes=rng.choice([64, 100, 4096]))
    sink = RecordingSink()
    tracker = StatelessTracker(
        BigtableTrackingStore(gateways[0]),
        sink,
        first_number=1,
        conflicts=ConflictPolicy(fatal=True),
        namespace=new_namespace(),
    )

    outcomes = [tracker.receive(message) for message in messages]

    assert completions(outcomes) == {block.hash: 1 for block in chain}
    assert tracker.watermark() == chain[-1].header
    assert [sink.block(block) for block in chain] == chain
    assert all(sink.finished[block.hash] >= 1 for block in chain)
    again = [tracker.receive(message) for message in messages[:20]]
    assert {o.disposition for o in again} == {Disposition.ALREADY_COMPLETE}


def test_two_instances_fed_interleaved_halves(gateways: list[BigtableDataGateway]) -> None:
    rng = random.Random(7)
    chain = linear_chain("two-", 16)
    messages = shuffled_with_duplicates(chain, rng, chunk_bytes=64)
    namespace = new_namespace()
    sinks = [RecordingSink(), RecordingSink()]
    trackers = [
        StatelessTracker(
            BigtableTrackingStore(gateway),
            sink,
            first_number=1,
            conflicts=ConflictPolicy(fatal=True),
            namespace=namespace,
        )
        for gateway, sink in zip(gateways, sinks, strict=True)
    ]
    halves: list[list[WireMessage]] = [messages[0::2], messages[1::2]]
    outcomes: list[list[TrackingOutcome]] = [[], []]
    start = threading.Barrier(2)

    def run(i: int) -> None:
        start.wait()
        outcomes[i].extend(trackers[i].receive(message) for message in halves[i])

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads)

    assert completions(outcomes[0] + outcomes[1]) == {block.hash: 1 for block in chain}
    merged = RecordingSink()
    for sink in sinks:
        for block_hash, values in sink.values.items():
            merged.write(block_hash, values, sink.deletes[block_hash])
    assert [merged.block(block) for block in chain] == chain
    for tracker in trackers:
        assert tracker.watermark() == chain[-1].header
