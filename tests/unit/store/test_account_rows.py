"""A system account's history (fee collector, reward and node accounts: ``keys.has_bucketed_history``)
is keyed behind a time bucket from layout 3 and read from 16 bucket ranges and the plain range of
rows written before, merged newest first: pages, cursors and windows are the same as from rows
of one range; every other account is still one range, one request a page."""

from __future__ import annotations

from hedera_history.config import Settings
from hedera_history.store import schema as s
from hedera_history.store.account_rows import merged_newest_first, newest_rows
from hedera_history.store.gateway import StoredCell, StoredRow
from hedera_history.store.keys import (
    TIME_BUCKETS,
    TIME_SPAN_BITS,
    plain_account_history_key,
    row_key_for_account_history,
    time_bucket,
)
from hedera_history.store.reader import HistoryReader
from hedera_history.store.rows import block_to_rows
from hedera_history.store.writer import BlockWriter

from tests.helpers.history_pages import history_pages
from tests.helpers.layout_2 import as_layout_2

from .builders import BASE_NS, make_block, transfer_tx
from .fakes import MemoryGateway

SETTINGS = Settings()
STEP = (1 << TIME_SPAN_BITS) // 3 + 11
"""Three transactions a span: 120 of them touch every bucket."""
PER_BLOCK = 20


def _times() -> list[int]:
    return [BASE_NS + i * STEP for i in range(6 * PER_BLOCK)]


def _stored(layout_2: tuple[int, ...]) -> MemoryGateway:
    """Six blocks of transfers (each touching 0.0.3 and 0.0.98), those numbered in ``layout_2``
    written as layout 2 wrote them."""
    times = _times()
    gateway = MemoryGateway()
    built = []
    for number in range(6):
        txs = [transfer_tx(t, 1001 + number % 2, 5000) for t in times[number * PER_BLOCK : (number + 1) * PER_BLOCK]]
        rows = block_to_rows(make_block(number, txs), SETTINGS)
        built.append(as_layout_2(rows) if number in layout_2 else rows)
    assert all(r.complete for r in BlockWriter(gateway, SETTINGS).iter_write_rows(built))
    return gateway


def test_the_fee_accounts_rows_spread_over_every_bucket_and_others_stay_plain() -> None:
    gateway = _stored(())
    keys = [k for k in gateway.tables[s.ACCOUNT_HISTORY] if k.startswith(b"0.0.98/")]
    assert len(keys) == len(_times()) and {k[7:8] for k in keys} == {bytes([ord("g") + b]) for b in range(16)}
    assert {time_bucket(t) for t in _times()} == set(range(TIME_BUCKETS))
    assert all(len(k) == len(b"0.0.1001/") + 16 for k in gateway.tables[s.ACCOUNT_HISTORY] if k.startswith(b"0.0.1001"))


def test_pages_are_the_same_from_bucketed_plain_and_mixed_rows() -> None:
    newest_first = sorted(_times(), reverse=True)
    for layout_2 in ((), (0, 2, 4), tuple(range(6))):
        reader = HistoryReader(_stored(layout_2))
        for account in ("0.0.98", "0.0.3"):
            for limit in (1, 7, 25, 1000):
                pages = history_pages(reader, account, limit)
                assert [t for page in pages for t in page] == newest_first, (layout_2, account, limit)
                assert all(len(page) == limit for page in pages[:-1])
        window = reader.account_history("0.0.98", before=newest_first[10], until=newest_first[90], limit=1000)
        assert [e.consensus_ns for e in window.entries] == newest_first[11:90]
        assert window.next_before is None
        paged_window = history_pages(reader, "0.0.98", 9, until=newest_first[90])
        assert [t for page in paged_window for t in page] == newest_first[:90]
        # a cursor that was never stored works as well
        between = reader.account_history("0.0.98", before=newest_first[5] + 1, limit=3)
        assert [e.consensus_ns for e in between.entries] == newest_first[5:8]


def test_a_page_of_a_system_account_reads_each_range_once_and_another_account_one_range() -> None:
    gateway = _stored((0, 1))
    reader = HistoryReader(gateway)
    gateway.read_queries.clear()
    reader.account_history("0.0.98", limit=10)
    ranges = [q for table, q in gateway.read_queries if table == s.ACCOUNT_HISTORY]
    assert len(ranges) == 1 + TIME_BUCKETS and all(len(q.ranges) == 1 and q.limit == 10 for q in ranges)
    gateway.read_queries.clear()
    reader.account_history("0.0.1001", limit=10)
    assert len([q for table, q in gateway.read_queries if table == s.ACCOUNT_HISTORY]) == 1


def test_where_both_rows_of_a_time_exist_the_plain_one_is_the_entry() -> None:
    bucketed = row_key_for_account_history("0.0.800", BASE_NS)
    plain = plain_account_history_key(bucketed)
    older = row_key_for_account_history("0.0.800", BASE_NS - 1)
    rows = [_row(bucketed, b"rewritten"), _row(older, b"older"), _row(plain, b"corrected"), _row(b"0.0.800/zz", b"?")]
    merged = merged_newest_first(rows)
    assert [r.key for r in merged] == [plain, older, b"0.0.800/zz"]
    gateway = MemoryGateway()
    for row in rows[:3]:
        gateway.tables.setdefault(s.ACCOUNT_HISTORY, {})[row.key] = {("a", b"block"): (0, row.cells[0].value)}
    assert [r.key for r in newest_rows(gateway, "0.0.800", None, None, 1)] == [plain]
    assert [r.key for r in newest_rows(gateway, "0.0.800", BASE_NS, None, 5)] == [older]


def _row(key: bytes, value: bytes) -> StoredRow:
    return StoredRow(key, (StoredCell("a", b"block", value, 0),))
