"""An unreadable resume row is left out (its period is done again), the readable ones still count."""

from __future__ import annotations

from hedera_history.backfill.resume_rows import (
    Q_BLOCK,
    Q_PRIOR,
    Q_STATE,
    PeriodDone,
    ProgressStore,
    row_key_for_book_checkpoint,
    row_key_for_period_done,
)
from hedera_history.config import Settings
from hedera_history.store import schema as s
from hedera_history.store.encoding import encode_value
from hedera_history.store.model import Cell, Row
from hedera_history.store.values import encode_u64
from hedera_history.store.writer import BlockWriter

from tests.unit.store.fakes import MemoryGateway

NS = 1_000_000_000


def _store() -> ProgressStore:
    gateway = MemoryGateway()
    return ProgressStore(gateway, BlockWriter(gateway, Settings()))


def _write(store: ProgressStore, key: bytes, cells: tuple[tuple[bytes, bytes], ...]) -> None:
    row = Row(s.INGEST_PROGRESS, key, tuple(Cell(s.INGEST_PROGRESS_FAMILY, q, encode_value(v), 1) for q, v in cells))
    store.writer.write_rows([row])


def test_a_period_row_missing_a_cell_is_left_out_and_the_others_are_read() -> None:
    store = _store()
    good = PeriodDone(10 * NS, 7, bytes(48), bytes(48))
    store.record_done([good])
    _write(store, row_key_for_period_done(20 * NS), ((Q_BLOCK, encode_u64(8)),))  # no p:book, p:after
    assert store.done_periods(0, 30 * NS) == {10 * NS: good}


def test_a_book_checkpoint_that_does_not_decode_is_left_out() -> None:
    store = _store()
    _write(store, row_key_for_book_checkpoint(20 * NS), ((Q_PRIOR, bytes(48)), (Q_STATE, b"\x00\x00")))
    assert store.checkpoints(0, 30 * NS) == {}
