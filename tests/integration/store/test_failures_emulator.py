"""A write that fails after some rows landed leaves the block invisible; writing again completes it."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from hedera_history.errors import StoreUnavailableError
from hedera_history.formats.parsed_files import SidecarType
from hedera_history.store import schema as s
from hedera_history.store.gateway import BigtableGateway, MutationFailure, RowQuery, StoredRow
from hedera_history.store.model import Row
from hedera_history.store.reader import HistoryReader
from hedera_history.store.writer import BlockWriter, RetryPolicy

from tests.unit.store.builders import (
    BASE_NS,
    NS,
    bytecode_sidecar_record,
    make_block,
    make_sidecar,
    transfer_tx,
)

from .conftest import Store


class DyingGateway:
    """Passes the first ``healthy_calls`` MutateRows through, then the service is gone."""

    def __init__(self, inner: BigtableGateway, healthy_calls: int) -> None:
        self.inner = inner
        self.healthy_calls = healthy_calls
        self.calls = 0

    def mutate_rows(self, table: str, rows: Sequence[Row]) -> list[MutationFailure]:
        self.calls += 1
        if self.calls > self.healthy_calls:
            raise StoreUnavailableError("connection refused (injected)")
        return self.inner.mutate_rows(table, rows)

    def read_rows(self, table: str, query: RowQuery) -> Iterator[StoredRow]:
        return self.inner.read_rows(table, query)

    def close(self) -> None:
        self.inner.close()


def test_a_half_written_block_is_invisible_until_written_again(store: Store) -> None:
    txs = [transfer_tx(BASE_NS + i * NS, 1001, 2000 + i) for i in range(40)]
    raw = bytecode_sidecar_record(txs[0].consensus_ns, 1002)
    block = make_block(1, txs, sidecars=[make_sidecar(1, [(txs[0].consensus_ns, SidecarType.CONTRACT_BYTECODE, raw)])])

    dying = DyingGateway(store.gateway, healthy_calls=4)
    sleeps: list[float] = []
    writer = BlockWriter(
        dying, store.settings, max_batch_cells=20, retry=RetryPolicy(max_attempts=3, sleep=sleeps.append)
    )
    (result,) = writer.write_blocks([block])
    assert not result.complete and isinstance(result.error, StoreUnavailableError)
    assert len(sleeps) == 2  # retried, bounded

    landed = store.snapshot()
    assert sum(len(rows) for rows in landed.values()) > 0, "some rows must have landed before the failure"
    assert (s.BLOCK_COMPLETION_FAMILY, s.Q_COMPLETE) not in {
        (f, q) for cells in landed[s.BLOCKS].values() for f, q, _, _ in cells
    }

    reader = HistoryReader(store.gateway)
    record = txs[0].record
    assert reader.get_block(1) is None
    assert reader.first_available_block() is None
    assert reader.get_blocks(0) == []
    assert reader.block_time(1) is None
    assert reader.transaction(txs[0].consensus_ns) is None
    assert reader.transaction_by_hash(record.transactionHash) is None
    assert reader.transaction_statuses([record.transactionHash]).statuses[record.transactionHash] is None
    assert reader.transactions_by_id("0.0.1001", txs[0].consensus_ns - 5 * NS) == []
    assert reader.account_history("0.0.1001").entries == ()
    assert reader.sidecar_records(txs[0].consensus_ns) == []

    (again,) = store.writer.write_blocks([block])
    assert again.complete
    assert reader.get_block(1) is not None
    assert len(reader.account_history("0.0.1001", limit=1000).entries) == 40
    assert reader.transaction_by_hash(record.transactionHash) is not None
    assert len(reader.sidecar_records(txs[0].consensus_ns)) == 1
