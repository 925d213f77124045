"""The writer's MutateRows calls on the Bigtable emulator: the compiled core and the pure-Python
fallback send the same request bytes, read the same answers (failed entries included) and store the
same cells."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from hedera_history import speedups
from hedera_history.errors import StoreError
from hedera_history.formats.parsed_files import SidecarType
from hedera_history.store import bigtable_client, mutation_wire
from hedera_history.store import schema as s
from hedera_history.store.bigtable_client import BigtableDataGateway, gateway_for_instance
from hedera_history.store.model import BlockRows, Cell, Row
from hedera_history.store.reader import HistoryReader
from hedera_history.store.rows import block_to_rows
from hedera_history.store.schema import ensure_tables
from hedera_history.store.writer import BlockWriter

from tests.unit.store.builders import BASE_NS, NS, bytecode_sidecar_record, make_block, make_sidecar, transfer_tx

from .conftest import Snapshot, Store

pytestmark = [pytest.mark.emulator]


@dataclass
class RecordedCalls:
    """The gateway's MutateRows calls as sent: each request's bytes, routing header and answers."""

    rpc: Any
    calls: list[tuple[bytes, Any, list[bytes]]] = field(default_factory=list)

    def __call__(self, request: bytes, **options: Any) -> Iterator[bytes]:
        answers = list(self.rpc(request, **options))
        self.calls.append((request, options["metadata"], answers))
        return iter(answers)


def record_calls(gateway: BigtableDataGateway) -> RecordedCalls:
    gateway.mutate_rows(s.INGEST_PROGRESS, [Row(s.INGEST_PROGRESS, b"warm", (Cell("p", b"q", b"v", 1_000),))])
    recorded = RecordedCalls(gateway._mutate_rpc)
    gateway._mutate_rpc = recorded
    return recorded


def without_the_compiled_core(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mutation_wire, "compiled_entries", None)
    monkeypatch.setattr(mutation_wire, "compiled_runs", None)
    monkeypatch.setattr(bigtable_client, "compiled_answer", None)


def built_blocks(store: Store) -> list[BlockRows]:
    blocks = []
    for number in (1, 2, 3):
        start = BASE_NS + number * 10 * NS
        txs = [transfer_tx(start + i, 1000 + number, 2000 + i) for i in range(12)]
        raw = bytecode_sidecar_record(txs[0].consensus_ns, 1002)
        sidecar = make_sidecar(number, [(txs[0].consensus_ns, SidecarType.CONTRACT_BYTECODE, raw)])
        blocks.append(make_block(number, txs, sidecars=[sidecar]))
    return [block_to_rows(block, store.settings) for block in blocks]


def cells(snapshot: Snapshot) -> dict[str, dict[bytes, list[tuple[str, bytes, bytes, int]]]]:
    """Each row's cells in one order (the emulator keeps a row's families in the order first
    written, which the batches' timing decides)."""
    return {table: {key: sorted(row) for key, row in rows.items()} for table, rows in snapshot.items()}


def test_both_encoders_send_the_same_requests_and_read_the_same_failures(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = [row for built in built_blocks(store) for row in (*built.rows, built.completion)]
    rejected = Row(s.TRANSACTIONS, b"rejected", (Cell("no-such-family", b"q", b"v", 1_000),))
    rows.insert(len(rows) // 2, rejected)
    recorded = record_calls(store.gateway)
    outcomes = []
    for compiled in (True, False):
        if not compiled:
            without_the_compiled_core(monkeypatch)
        recorded.calls.clear()
        with pytest.raises(StoreError, match="no-such-family") as raised:
            # Small batches: several calls per table, the rejected entry amid others.
            BlockWriter(store.gateway, store.settings, max_batch_cells=40).write_rows(rows)
        outcomes.append((list(recorded.calls), str(raised.value)))
    (compiled_calls, compiled_error), (python_calls, python_error) = outcomes
    assert len(compiled_calls) > len({metadata for _, metadata, _ in compiled_calls}) > 1
    assert [(request, metadata) for request, metadata, _ in compiled_calls] == [
        (request, metadata) for request, metadata, _ in python_calls
    ]
    assert compiled_error == python_error
    answers = [answer for _, _, answers in compiled_calls for answer in answers]
    read = [bigtable_client.python_read_answer(answer) for answer in answers]
    failed = [failure for _, failures in read for failure in failures]
    assert len(failed) == 1 and "no-such-family" in failed[0][2]
    if speedups.mutate_rows_answer is not None:
        assert [speedups.mutate_rows_answer(answer) for answer in answers] == read
    assert rejected.key not in store.snapshot((s.TRANSACTIONS,))[s.TRANSACTIONS]


def test_blocks_written_without_the_compiled_core_are_the_same_cells(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    built = built_blocks(store)
    assert all(result.complete for result in store.writer.iter_write_rows(built))
    settings = store.settings.with_(table_prefix="python_")
    ensure_tables(store.instance, settings)
    gateway = gateway_for_instance(store.instance, settings)
    try:
        without_the_compiled_core(monkeypatch)
        assert all(result.complete for result in BlockWriter(gateway, settings).iter_write_rows(built))
        python = Store(store.instance, settings, gateway, BlockWriter(gateway, settings), HistoryReader(gateway))
        assert cells(python.snapshot()) == cells(store.snapshot())
    finally:
        gateway.close()


class UnreadableAnswers:
    """A call that reaches the emulator and then answers what protobuf refuses, after ``readable``
    of the emulator's own answers."""

    def __init__(self, rpc: Any, readable: int) -> None:
        self.rpc = rpc
        self.readable = readable
        self.cancelled = 0

    def __call__(self, request: bytes, **options: Any) -> UnreadableAnswers:
        self.answers = list(self.rpc(request, **options))[: self.readable]
        return self

    def __iter__(self) -> Iterator[bytes]:
        yield from self.answers
        yield b"\x0a\x02\x12\x01"  # an entry running past its end

    def cancel(self) -> None:
        self.cancelled += 1


@pytest.mark.parametrize("readable", [0, 1])
def test_an_unreadable_answer_fails_the_entries_left_unanswered(store: Store, readable: int) -> None:
    record_calls(store.gateway)
    call = UnreadableAnswers(store.gateway._mutate_rpc.rpc, readable)
    store.gateway._mutate_rpc = call
    rows = [Row(s.INGEST_PROGRESS, b"k%d" % i, (Cell("p", b"q", b"v", 1_000),)) for i in range(3)]
    failures = store.gateway.mutate_rows(s.INGEST_PROGRESS, rows)
    assert call.cancelled == 1
    if readable:  # the emulator's one answer covers every entry
        assert failures == []
    else:
        assert [(f.index, f.code, f.retryable) for f in failures] == [(0, 13, False), (1, 13, False), (2, 13, False)]
        assert all("unreadable MutateRows answer" in f.message for f in failures)
