"""The stream's book keeper and the backfill keep the same books and stakes from one stream.

One generated stream with a key rotation (a new 0.0.102 book from a FileUpdate and appends) and
two NodeStakeUpdates; the backfill verifies it in partitions, the stream's keeper records every
block's changes and applies them behind its watermark. Both write ``book/`` and ``stakes/`` rows
and both keep their state as a ``BookState``: rows and final states must be equal.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hedera_history.backfill.resume_rows import ProgressStore
from hedera_history.books.codec import BookState, decode_keeper_state
from hedera_history.books.parse import parse_address_book
from hedera_history.config import Settings
from hedera_history.gen import GeneratedStream, GeneratorConfig, generate_stream, write_stream
from hedera_history.pipeline.address_books import AddressBookHistory
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.store import schema as s
from hedera_history.store.book_rows import KEEPER, Q_STATE
from hedera_history.store.gateway import RowQuery
from hedera_history.store.writer import BlockWriter
from hedera_history.verify.stream import verify_stream

from tests.unit.store.fakes import ConditionalMemoryGateway, MemoryGateway

from .conftest import InProcess

ROTATING = GeneratorConfig(
    nodes=4,
    periods=12,
    transactions=6,
    seed=4,
    stake_updates={2: (40, 30, 20, 10), 9: (10, 20, 30, 40)},
)
"""Blocks 0-11; node 0.0.3's key rotates in block 6, stakes change in blocks 2 and 9."""


@pytest.fixture(scope="module")
def rotating(tmp_path_factory: pytest.TempPathFactory) -> tuple[GeneratedStream, Path]:
    """The stream and the folder it is written to."""
    stream = generate_stream(ROTATING)
    folder = tmp_path_factory.mktemp("rotating-stream")
    write_stream(stream, folder)
    return stream, folder


def _book_rows(gateway: MemoryGateway) -> dict[bytes, object]:
    rows = gateway.snapshot().get(s.ADDRESS_BOOKS, {})
    return {key: cells for key, cells in rows.items() if key.startswith((b"book/", b"stakes/"))}


def _keeper_run(stream: GeneratedStream, folder: Path) -> tuple[ConditionalMemoryGateway, BookState]:
    gateway = ConditionalMemoryGateway()
    keeper = AddressBookHistory(gateway, parse_address_book(stream.address_book))
    last = -1
    for result in verify_stream(find_local_periods(folder), parse_address_book(stream.address_book)):
        assert result.ok and result.report.block is not None
        keeper.record_block(result.report.block)
        last = result.report.block.block_number
    keeper.advance(last)
    assert keeper.applied_through() == last
    (row,) = gateway.read_rows(s.ADDRESS_BOOKS, RowQuery(keys=(KEEPER,)))
    cell = row.cell(s.ADDRESS_BOOKS_FAMILY, Q_STATE)
    assert cell is not None
    return gateway, decode_keeper_state(cell.value)[1]


def test_keeper_and_backfill_write_the_same_books_and_stakes(rotating: tuple[GeneratedStream, Path]) -> None:
    rotating_stream, rotating_dir = rotating
    keeper_gateway, keeper_state = _keeper_run(rotating_stream, rotating_dir)
    backfill = InProcess(rotating_stream, rotating_dir, MemoryGateway())
    report = backfill.run(partitions=3)
    assert report.counts.written == ROTATING.periods

    keeper_rows, backfill_rows = _book_rows(keeper_gateway), _book_rows(backfill.gateway)
    assert sorted(k.split(b"/")[0] for k in keeper_rows) == [b"book", b"stakes", b"stakes"]
    assert keeper_rows == backfill_rows

    progress = ProgressStore(backfill.gateway, BlockWriter(backfill.gateway, Settings()))
    checkpoints = {ns: checkpoint.state for ns, checkpoint in progress.checkpoints(0, (1 << 63) - 1).items()}
    assert checkpoints, "the rotation and the stake updates leave backfill checkpoints"
    backfill_state = checkpoints[max(checkpoints)]
    assert keeper_state == backfill_state
    assert keeper_state.encode() == backfill_state.encode()
    rotated = keeper_state.address_book()
    assert rotated != parse_address_book(rotating_stream.address_book)
    assert rotated.nodes == parse_address_book(rotating_stream.address_books[-1].book).nodes
    stakes = keeper_state.node_stakes()
    assert stakes is not None and dict(stakes.entries) == {0: 10, 1: 20, 2: 30, 3: 40}
