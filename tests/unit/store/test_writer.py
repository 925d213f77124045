from __future__ import annotations

from dataclasses import replace

from hedera_history.config import Settings
from hedera_history.errors import RetentionWindowError, StoreError, StoreUnavailableError
from hedera_history.formats.parsed_files import SidecarType
from hedera_history.store import schema as s
from hedera_history.store.chaintime import NS_PER_DAY
from hedera_history.store.gateway import UNAVAILABLE, MutationFailure
from hedera_history.store.keys import row_key_for_transaction
from hedera_history.store.model import Row
from hedera_history.store.mutation_wire import MutationEncoder
from hedera_history.store.rows import block_to_rows
from hedera_history.store.writer import BlockWriter, RetryPolicy

from .builders import BASE_NS, NS, bytecode_sidecar_record, make_block, make_sidecar, transfer_tx
from .fakes import MemoryGateway

SETTINGS = Settings()
NOW = BASE_NS + NS_PER_DAY


def blocks(count: int, per_block: int = 5, first: int = 1):
    out = []
    for b in range(first, first + count):
        start = BASE_NS + b * 10 * NS
        out.append(make_block(b, [transfer_tx(start + i, 1000 + b, 2000 + i) for i in range(per_block)]))
    return out


def writer(gateway: MemoryGateway, settings: Settings = SETTINGS, **kwargs) -> tuple[BlockWriter, list[float]]:
    sleeps: list[float] = []
    retry = replace(kwargs.pop("retry", RetryPolicy()), sleep=sleeps.append)
    w = BlockWriter(gateway, settings, now_ns=lambda: NOW, retry=retry, **kwargs)
    return w, sleeps


def completed(gateway: MemoryGateway) -> set[bytes]:
    return {
        k for k, cells in gateway.tables.get(s.BLOCKS, {}).items() if (s.BLOCK_COMPLETION_FAMILY, s.Q_COMPLETE) in cells
    }


def test_all_rows_then_the_completion_cells() -> None:
    gateway = MemoryGateway()
    w, _ = writer(gateway)
    results = w.write_blocks(blocks(3))
    assert [r.complete for r in results] == [True, True, True]
    assert [r.block_number for r in results] == [1, 2, 3]
    assert completed(gateway) == {b"%016x" % n for n in (1, 2, 3)}
    # The last call writes exactly the completion cells, after everything else.
    table, keys = gateway.mutate_calls[-1]
    assert table == s.BLOCKS and keys == [b"%016x" % n for n in (1, 2, 3)]
    expected_cells = sum(block_to_rows(b, SETTINGS).cell_count for b in blocks(3))
    assert sum(r.cells for r in results) == expected_cells


def test_batches_are_bounded_in_cells_and_bytes() -> None:
    gateway = MemoryGateway()
    w, _ = writer(gateway, max_batch_cells=7, max_batch_bytes=2_000)
    (result,) = w.write_blocks(blocks(1, per_block=6))
    assert result.complete
    assert max(len(rows) for _, rows in gateway.batches) > 1
    for _, rows in gateway.batches:
        cells = sum(len(r.cells) for r in rows)
        size = sum(map(len, MutationEncoder().entries(rows)))  # the bytes on the wire
        # A batch holds several rows only while under both limits (one large row may stand alone).
        assert len(rows) == 1 or (cells <= 7 and size <= 2_000)


def test_only_failed_entries_are_retried_with_backoff() -> None:
    gateway = MemoryGateway()
    flaky = {row_key_for_transaction(BASE_NS + 10 * NS + 2)}
    attempts: dict[bytes, int] = {}

    def fail(table: str, row: Row, call: int) -> MutationFailure | None:
        if table == s.TRANSACTIONS and row.key in flaky:
            attempts[row.key] = attempts.get(row.key, 0) + 1
            if attempts[row.key] <= 2:
                return MutationFailure(0, UNAVAILABLE, "try again")
        return None

    gateway.fail_entry = fail
    w, sleeps = writer(gateway)
    (result,) = w.write_blocks(blocks(1))
    assert result.complete
    retries = [keys for table, keys in gateway.mutate_calls if table == s.TRANSACTIONS][1:]
    assert retries == [sorted(flaky), sorted(flaky)]
    assert sleeps == [0.05, 0.1]


def test_retries_are_bounded_and_the_block_stays_incomplete() -> None:
    gateway = MemoryGateway()
    gateway.fail_entry = lambda table, row, call: (
        MutationFailure(0, UNAVAILABLE, "down") if table == s.TX_BY_HASH else None
    )
    w, sleeps = writer(gateway, retry=RetryPolicy(max_attempts=4, first_backoff_seconds=1, max_backoff_seconds=3))
    (result,) = w.write_blocks(blocks(1))
    assert not result.complete
    assert isinstance(result.error, StoreUnavailableError)
    assert sleeps == [1, 2, 3]
    assert completed(gateway) == set()


def test_a_permanent_failure_is_not_retried_and_only_its_block_fails() -> None:
    gateway = MemoryGateway()
    bad = row_key_for_transaction(BASE_NS + 20 * NS)

    def fail(table: str, row: Row, call: int) -> MutationFailure | None:
        return MutationFailure(0, 3, "invalid argument") if row.key == bad else None

    gateway.fail_entry = fail
    w, sleeps = writer(gateway)
    results = w.write_blocks(blocks(3))
    assert [r.complete for r in results] == [True, False, True]
    assert type(results[1].error) is StoreError
    assert sleeps == []
    assert completed(gateway) == {b"%016x" % 1, b"%016x" % 3}


def test_a_missing_table_fails_the_blocks_without_retrying() -> None:
    gateway = MemoryGateway(tables=[t for t in s.HISTORY_TABLES if t != s.ITEMS])
    w, sleeps = writer(gateway)
    results = w.write_blocks(blocks(2))
    assert not any(r.complete for r in results)
    assert sleeps == []


def test_blocks_older_than_the_retention_window_are_refused() -> None:
    gateway = MemoryGateway()
    settings = Settings(retention_days=1)
    w = BlockWriter(gateway, settings, now_ns=lambda: BASE_NS + 10 * NS_PER_DAY)
    (result,) = w.write_blocks(blocks(1))
    assert isinstance(result.error, RetentionWindowError)
    assert gateway.mutate_calls == []


def test_sidecars_older_than_their_window_are_left_out() -> None:
    gateway = MemoryGateway()
    tx = transfer_tx(BASE_NS, 1001, 1002)
    sidecar = make_sidecar(1, [(BASE_NS, SidecarType.CONTRACT_BYTECODE, bytecode_sidecar_record(BASE_NS, 1002))])
    block = make_block(1, [tx], sidecars=[sidecar])
    settings = Settings(retention_days=30, sidecar_retention_days=2)
    w = BlockWriter(gateway, settings, now_ns=lambda: BASE_NS + 5 * NS_PER_DAY)
    (result,) = w.write_blocks([block])
    assert result.complete and result.sidecars_skipped
    assert s.SIDECARS not in gateway.tables


def test_groups_bound_memory_and_report_in_order() -> None:
    gateway = MemoryGateway()
    w, _ = writer(gateway, max_group_bytes=1)  # one block per group
    results = list(w.iter_write(blocks(3)))
    assert [r.block_number for r in results] == [1, 2, 3]
    completion_calls = [keys for table, keys in gateway.mutate_calls if table == s.BLOCKS and len(keys) == 1]
    assert len(completion_calls) >= 3


def test_writing_twice_changes_nothing() -> None:
    gateway = MemoryGateway()
    w, _ = writer(gateway)
    w.write_blocks(blocks(2))
    before = gateway.snapshot()
    w.write_blocks(blocks(2))
    assert gateway.snapshot() == before


def test_write_rows_raises_when_rows_do_not_land() -> None:
    gateway = MemoryGateway()
    gateway.fail_entry = lambda table, row, call: MutationFailure(0, 3, "no")
    w, _ = writer(gateway)
    rows = block_to_rows(blocks(1)[0], SETTINGS).rows
    try:
        w.write_rows(rows)
    except StoreError as e:
        assert "rejected" in str(e)
    else:
        raise AssertionError("expected StoreError")
