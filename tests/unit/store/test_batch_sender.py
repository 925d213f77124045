"""Batches cut from running totals are the greedy per-table cut, and failed owners stop sending."""

from __future__ import annotations

import threading

from hedera_history.errors import StoreError
from hedera_history.store.batch_sender import MIN_EARLY_BYTES, Batch, BatchSender, TableBatches, run_totals
from hedera_history.store.model import Cell, Row
from hedera_history.store.mutation_wire import TableRun
from hypothesis import given, settings
from hypothesis import strategies as st

MAX_BYTES = 100
MAX_CELLS = 5

row_shapes = st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), st.integers(0, 4), st.integers(1, 150)), max_size=40)


def greedy(entries: list[tuple[str, int, int, int]]) -> list[tuple[str, list[int]]]:
    """The plain loop: per table, a batch grows while both totals stay within their limits."""
    open_batches: dict[str, tuple[list[int], list[int]]] = {}
    out: list[tuple[str, list[int]]] = []
    for number, (table, cells, size, _) in enumerate(entries):
        members, totals = open_batches.setdefault(table, ([], [0, 0]))
        if members and (totals[0] + size > MAX_BYTES or totals[1] + cells > MAX_CELLS):
            out.append((table, members))
            members, totals = open_batches[table] = ([], [0, 0])
        members.append(number)
        totals[0] += size
        totals[1] += cells
    out.extend((table, members) for table, (members, _) in open_batches.items() if members)
    return out


def runs_of(rows: list[Row], entries: list[bytes]) -> list[TableRun]:
    """The runs of ``rows``, with ``entries`` standing for their encoding (any bytes of a size)."""
    runs: list[TableRun] = []
    start = 0
    for end in range(1, len(rows) + 1):
        if end == len(rows) or rows[end].table != rows[start].table:
            run = TableRun.of_entries(rows[start].table, rows[start:end], entries[start:end])
            runs.append(TableRun(run.table, end, run.body, run.ends, run.cells))
            start = end
    return runs


@settings(max_examples=300, deadline=None)
@given(blocks=st.lists(row_shapes, max_size=4))
def test_batches_are_the_greedy_cut(blocks: list[list[tuple[str, int, int]]]) -> None:
    sent: list[Batch] = []
    batches = TableBatches(MAX_BYTES, MAX_CELLS, sent.append)
    flat: list[tuple[str, int, int, int]] = []
    for owner, shapes in enumerate(blocks):
        rows, encoded = [], []
        for table, cells, size in shapes:
            number = len(flat)
            rows.append(Row(table, b"%d" % number, tuple(Cell("f", b"q", b"", 0) for _ in range(cells))))
            encoded.append(bytes([number]) * size)
            flat.append((table, cells, size, owner))
        runs = runs_of(rows, encoded)
        assert run_totals(runs) == (sum(map(len, encoded)), sum(len(r.cells) for r in rows))
        batches.add(owner, rows, runs)
    batches.flush()
    got = [(b.table, [int(r.key) for r in b.rows]) for b in sent]
    assert sorted(got) == sorted(greedy(flat))
    for batch in sent:
        assert batch.owners == [flat[int(r.key)][3] for r in batch.rows]
        entries = [bytes(e) for e in batch.entries()]
        assert entries == [bytes([int(r.key)]) * flat[int(r.key)][2] for r in batch.rows]
        assert b"".join(batch.chunks()) == b"".join(entries)
        assert batch.size == sum(map(len, entries)) and batch.cells == sum(len(r.cells) for r in batch.rows)


def test_a_selection_carries_its_rows_entries() -> None:
    rows = [Row("t", b"%d" % i, (Cell("f", b"q", b"", 0),) * i) for i in range(4)]
    entries = [b"a", b"bb", b"", b"dddd"]
    batches: list[Batch] = []
    table_batches = TableBatches(MAX_BYTES, 100, batches.append)
    table_batches.add(7, rows[:2], runs_of(rows[:2], entries[:2]))
    table_batches.add(8, rows[2:], runs_of(rows[2:], entries[2:]))
    table_batches.flush()
    (batch,) = batches
    chosen = batch.select([1, 3])
    assert chosen.rows == [rows[1], rows[3]] and chosen.owners == [7, 8]
    assert [bytes(e) for e in chosen.entries()] == [b"bb", b"dddd"] and b"".join(chosen.chunks()) == b"bbdddd"
    assert (chosen.size, chosen.cells) == (6, 4)


def test_an_owner_that_failed_sends_no_more_rows() -> None:
    calls: list[list[int]] = []

    def send(batch: Batch) -> dict[int, StoreError]:
        calls.append(list(batch.owners))
        return {0: StoreError("rejected")} if len(calls) == 1 else {}

    def batch(owners: list[int]) -> Batch:
        rows = [Row("t", b"k", ()) for _ in owners]
        return Batch.of_entries("t", rows, [b""] * len(owners), owners)

    for background in (False, True):
        calls.clear()
        sender = BatchSender(send, background=background)
        sender.submit(batch([1, 2]))
        sender.submit(batch([1, 2, 3]))
        sender.submit(batch([1]))
        errors = sender.wait()
        sender.close()
        assert calls == [[1, 2], [2, 3]]
        assert list(errors) == [1]


def _rows(table: str, count: int, size: int) -> tuple[list[Row], list[TableRun]]:
    rows = [Row(table, b"%d" % i, (Cell("f", b"q", b"", 0),)) for i in range(count)]
    return rows, runs_of(rows, [bytes(size)] * count)


def test_while_a_sender_waits_the_fullest_batch_goes_before_it_is_full() -> None:
    sent: list[Batch] = []
    idle = [True]
    batches = TableBatches(4 * MIN_EARLY_BYTES, 1_000, sent.append, lambda: idle[0])
    batches.add(0, *_rows("small", 3, 100))  # under MIN_EARLY_BYTES: worth no RPC of its own yet
    assert sent == []
    batches.add(1, *_rows("big", 2, MIN_EARLY_BYTES // 2))
    assert [(b.table, len(b.rows)) for b in sent] == [("big", 2)]
    idle[0] = False  # senders busy: batches grow to the limits
    batches.add(2, *_rows("big", 3, MIN_EARLY_BYTES))
    assert len(sent) == 1
    batches.flush()
    assert sorted((b.table, len(b.rows)) for b in sent) == [("big", 2), ("big", 3), ("small", 3)]


def test_batches_in_flight_at_once() -> None:
    started = threading.Semaphore(0)
    release = threading.Event()

    def send(batch: Batch) -> dict[int, StoreError]:
        started.release()
        assert release.wait(60)
        return {}

    sender = BatchSender(send, background=True, in_flight=2)
    assert sender.idle()
    for owner in range(3):
        sender.submit(Batch.of_entries("t", [Row("t", b"k", ())], [b""], [owner]))
    assert started.acquire(timeout=60) and started.acquire(timeout=60)  # two sent at once
    assert not sender.idle()
    assert not started.acquire(timeout=0.2)  # the third waits for a free sender
    release.set()
    assert sender.wait() == {}
    assert sender.idle()
    sender.close()
    assert not BatchSender(send, background=False).idle()
