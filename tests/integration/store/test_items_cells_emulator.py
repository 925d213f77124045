"""A transaction of a block of thousands reads its own items cell (and cell 0), not the block."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import pytest
from hedera_history.block import VerifiedBlock
from hedera_history.books.parse import parse_address_book
from hedera_history.gen.config_and_output import GeneratorConfig
from hedera_history.gen.stream import generate_stream
from hedera_history.gen.writer import write_stream
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.store import schema as s
from hedera_history.store.gateway import BigtableGateway, MutationFailure, RowQuery, StoredRow
from hedera_history.store.model import Row
from hedera_history.store.originals import signed_file_bytes
from hedera_history.store.reader import HistoryReader
from hedera_history.verify.stream import verify_stream

from .conftest import Store

pytestmark = [pytest.mark.emulator]

TRANSACTIONS = 3000


@dataclass
class CountingGateway:
    """Reads through the emulator's gateway, counting what each items read returned."""

    inner: BigtableGateway
    items_reads: list[tuple[RowQuery, int, int]] = field(default_factory=list)
    """(query, cells returned, value bytes returned) per items read."""

    def read_rows(self, table: str, query: RowQuery) -> Iterator[StoredRow]:
        rows = list(self.inner.read_rows(table, query))
        if table == s.ITEMS:
            cells = [c for row in rows for c in row.cells]
            self.items_reads.append((query, len(cells), sum(len(c.value) for c in cells)))
        return iter(rows)

    def mutate_rows(self, table: str, rows: Sequence[Row]) -> list[MutationFailure]:
        return self.inner.mutate_rows(table, rows)

    def close(self) -> None:
        self.inner.close()


@pytest.fixture(scope="module")
def big_block(tmp_path_factory: pytest.TempPathFactory) -> VerifiedBlock:
    stream = generate_stream(GeneratorConfig(periods=1, transactions=TRANSACTIONS, seed=13))
    out = tmp_path_factory.mktemp("big-block")
    write_stream(stream, out)
    results = list(verify_stream(find_local_periods(out), parse_address_book(stream.address_book)))
    assert all(r.ok for r in results), [str(r.error) for r in results if not r.ok]
    (block,) = [r.report.block for r in results if r.report.block is not None]
    return block


def test_a_transaction_read_fetches_its_own_cell_not_the_block(store: Store, big_block: VerifiedBlock) -> None:
    assert all(r.complete for r in store.writer.write_blocks([big_block]))
    record = big_block.record
    assert len(record.items) >= TRANSACTIONS

    whole = CountingGateway(store.gateway)
    stored = HistoryReader(whole).block_file(big_block.block_number)
    assert stored is not None and stored.data == signed_file_bytes(record)  # cells join to the signed bytes
    (_, row_cells, row_bytes) = whole.items_reads[-1]
    assert row_cells > 10

    for index in range(0, len(record.items), 487):
        item = record.items[index]
        counting = CountingGateway(store.gateway)
        reader = HistoryReader(counting)
        found = reader.transaction(item.consensus_ns)
        assert found is not None and found.index == index
        assert (found.transaction_bytes, found.record_bytes) == (item.transaction_bytes, item.record_bytes)
        ((query, cells, value_bytes),) = counting.items_reads
        assert query.qualifier_regex is not None
        assert cells <= 2  # the item's cell and cell 0 (the header and the others' dictionary)
        assert value_bytes * 5 < row_bytes, (value_bytes, row_bytes)

        # Through an index entry: the entry names the cell and the place in it.
        transaction_id = found.record().transactionID
        start = transaction_id.transactionValidStart
        payer = f"0.0.{transaction_id.accountID.accountNum}"
        counting.items_reads.clear()
        fresh = HistoryReader(counting)
        results = fresh.transactions_by_id(payer, start.seconds * 1_000_000_000 + start.nanos)
        by_id, errors = fresh.transactions([r.consensus_ns for r in results])
        assert not errors
        assert any((t.index, t.record_bytes) == (index, item.record_bytes) for t in by_id)
        assert all(cells <= 2 + len(results) for _, cells, _ in counting.items_reads)
