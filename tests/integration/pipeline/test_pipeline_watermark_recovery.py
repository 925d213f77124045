"""The store killed between a block's completion and its connection, or after the watermark moved
and before the address-book keeper followed, and the message never delivered again: the sweep
connects the blocks and brings the keeper to the watermark, on the emulators, in process. Without
it the watermark stays empty (or behind) and the rotated book is never written."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hedera_history.books.parse import parse_address_book
from hedera_history.cardinal.chain_blocks import BlockHeader
from hedera_history.cardinal.tracking import StatelessTracker
from hedera_history.gen.config_and_output import GeneratedStream, GeneratorConfig
from hedera_history.gen.stream import generate_stream
from hedera_history.pipeline.address_books import AddressBookHistory
from hedera_history.pipeline.ingest import ingest_object
from hedera_history.pipeline.store import BigtableBlockSink, StoreContext, store_message
from hedera_history.pipeline.sweep import sweep
from hedera_history.pipeline.tracking_rows import TrackingRows
from hedera_history.store.tracking_store import BigtableTrackingStore
from hedera_history.store.writer import BlockWriter
from hedera_history.transport.message import ReceivedMessage

from .harness import Pipeline, history_cells, reference_cells

pytestmark = [pytest.mark.emulator]


class SimulatedCrashError(Exception):
    """The store call died at the crash point; its message is never delivered again."""


@pytest.fixture(scope="module")
def stream() -> GeneratedStream:
    # Node 0.0.3's key rotated by a 0.0.102 update in block 3: a new book from block 4 on.
    return generate_stream(GeneratorConfig(nodes=4, periods=6, transactions=24, seed=0))


class KeeperDiesBeforeAdvancing:
    """The store's keeper: every advance a store call makes dies (the watermark moved, the keeper
    did not follow); the sweep's goes through."""

    def __init__(self, books: AddressBookHistory) -> None:
        self.books = books
        self.crashing = True

    def advance(self, through_block: int) -> list[int]:
        if self.crashing:
            raise SimulatedCrashError
        return self.books.advance(through_block)


def store_with_crash_point(pipeline: Pipeline, point: str, first_block: int) -> StoreContext:
    def crash_after_done(block: BlockHeader) -> None:
        if block.number == first_block:
            raise SimulatedCrashError

    gateway, store = pipeline.gateway, pipeline.store
    if point == "after-done":
        tracker = StatelessTracker(
            BigtableTrackingStore(gateway),
            BigtableBlockSink(BlockWriter(gateway, pipeline.settings)),
            first_number=first_block,
            before_connect=crash_after_done,
        )
        return replace(store, tracker=tracker)
    assert store.books is not None
    return replace(store, books=KeeperDiesBeforeAdvancing(store.books))  # type: ignore[arg-type]


def store_losing_crashed_messages(pipeline: Pipeline, store: StoreContext) -> int:
    """Store everything waiting; a message whose call crashed never comes back. How many crashed."""
    crashed = 0

    def store_once(message: ReceivedMessage) -> None:
        nonlocal crashed
        try:
            store_message(store, message)
        except SimulatedCrashError:
            crashed += 1

    pipeline.take_waiting(store_once)
    return crashed


@pytest.mark.parametrize("point", ["after-done", "before-keeper"])
def test_the_sweep_connects_what_a_crashed_store_call_left_and_brings_the_keeper_up(
    pipeline: Pipeline, stream: GeneratedStream, bigtable_instance: Any, tmp_path: Path, point: str
) -> None:
    numbers = [int(block["number"]) for block in stream.truth["blocks"]]
    store = store_with_crash_point(pipeline, point, numbers[0])
    for name in pipeline.upload(dict(stream.objects), random.Random(5)):
        ingest_object(pipeline.ingest, name)
    assert store_losing_crashed_messages(pipeline, store) >= 1
    assert pipeline.ingest.state.pending(100) == []
    rows = TrackingRows(pipeline.gateway, numbers[0])
    books = AddressBookHistory(pipeline.gateway, parse_address_book(stream.address_book), first_block=numbers[0])
    watermark = rows.watermark()
    assert (None if watermark is None else watermark.number) == (None if point == "after-done" else numbers[-1])
    assert books.applied_through() < numbers[0]
    assert books.book_at(stream.periods[-1].consensus_start_ns) == books.book_at(0)  # the rotated book not written

    report = sweep(pipeline.ingest)

    assert report.watermark is not None and report.watermark.watermark == numbers[-1]
    assert report.watermark.reconnected is (point == "after-done")
    assert report.watermark.books_in_force == 1
    assert books.applied_through() == numbers[-1]
    assert books.book_at(stream.periods[-1].consensus_start_ns) != books.book_at(0)
    assert sweep(pipeline.ingest).watermark == replace(report.watermark, reconnected=False, books_in_force=0)
    assert history_cells(pipeline.gateway) == reference_cells(bigtable_instance, stream, tmp_path)
