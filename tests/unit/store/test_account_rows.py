"""A system account's history (fee collector, reward and node accounts: ``keys.has_bucketed_history``)
is keyed behind a time bucket from layout 3 and read from 16 bucket ranges and the plain range of
rows written before, merged newest first: pages, cursors and windows are the same as from rows
of one range. Once a reader knows the account's pace a page is one request (a window of time in
every range), at most one round of a request per range more; every other account is still one
range, one request a page."""

from __future__ import annotations

import random

from hedera_history.config import Settings
from hedera_history.store import schema as s
from hedera_history.store.account_rows import RANGES, AccountPaces, merged_newest_first, newest_rows
from hedera_history.store.gateway import RowQuery, StoredCell, StoredRow
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


def test_a_system_account_page_is_one_request_once_its_pace_is_known_and_another_account_one_range() -> None:
    gateway = _stored((0, 1))
    reader = HistoryReader(gateway)
    gateway.read_queries.clear()
    first = reader.account_history("0.0.98", limit=10)
    fanned_out = _history_reads(gateway)
    assert len(fanned_out) == RANGES and all(len(q.ranges) == 1 and q.limit == 10 for q in fanned_out)
    before = first.next_before
    while before is not None:
        gateway.read_queries.clear()
        page = reader.account_history("0.0.98", before=before, limit=10)
        reads = _history_reads(gateway)
        if page.entries:
            assert [(len(q.ranges), q.limit) for q in reads] == [(RANGES, RANGES * 10)], before
        else:  # past the oldest row the window holds nothing: the ranges say it is the end
            assert len(reads) == 1 + RANGES and len(reads[0].ranges) == RANGES
        before = page.next_before
    gateway.read_queries.clear()
    assert reader.account_history("0.0.98", limit=10).entries == first.entries
    assert len(_history_reads(gateway)) == 1
    gateway.read_queries.clear()
    reader.account_history("0.0.1001", limit=10)
    assert len(_history_reads(gateway)) == 1


def test_a_window_gives_the_rows_every_range_gives_whatever_pace_it_was_sized_by() -> None:
    """Rows in bursts and gaps, some times in both key forms, some plain only; paces from far too
    fast to far too slow, cursors and bounds anywhere: the same rows as every range read to the page
    size, in at most one window request and one round of range requests."""
    rng = random.Random(16)
    account = "0.0.800"
    times = sorted(_bursts(rng))
    gateway = MemoryGateway()
    table = gateway.tables.setdefault(s.ACCOUNT_HISTORY, {})
    for ns in times:
        bucketed = row_key_for_account_history(account, ns)
        plain = plain_account_history_key(bucketed)
        form = rng.random()  # bucketed only, plain only (layout 2) or both (written again)
        for key in [bucketed] if form < 0.6 else [plain] if form < 0.8 else [bucketed, plain]:
            table[key] = {("a", b"block"): (0, key)}
    answered_by = {0: 0, 1: 0, RANGES: 0, 1 + RANGES: 0}  # 0: nothing between the bounds
    for case in range(400):
        paces = AccountPaces()
        spacing = 10 ** rng.randint(0, 12)
        newest = rng.choice(times) + rng.randint(-(10**9), 10**9)
        if case % 4:  # else nothing is known of the account yet
            paces.learn(account, None, [newest, newest - spacing])
        before = rng.choice([None, rng.choice(times), rng.choice(times) + 1, rng.randint(0, times[-1] * 2)])
        near = (before if before is not None else times[-1]) - 10 ** rng.randint(6, 12)  # bounds a window may reach
        until = rng.choice([None, None, rng.choice(times), rng.randint(0, times[-1]), near])
        want = rng.choice([1, 2, 7, 25, 100])
        expected = newest_rows(gateway, account, before, until, want)
        gateway.read_queries.clear()
        assert newest_rows(gateway, account, before, until, want, paces) == expected, case
        reads = _history_reads(gateway)
        window = [q for q in reads if len(q.ranges) > 1]
        assert len(window) <= 1 and len(reads) - len(window) in (0, RANGES), case
        answered_by[len(reads)] += 1
    assert min(list(answered_by.values())[1:]) > 20, answered_by  # each way of answering was crossed


def _bursts(rng: random.Random) -> set[int]:
    """About 3,000 times in bursts of different paces, with gaps of seconds to days between."""
    times: set[int] = set()
    now = BASE_NS
    for _ in range(30):
        now += rng.choice([10**9, 10**12, 10**14])
        step = rng.choice([10**4, 10**6, 10**8, 10**10])
        for _ in range(rng.randint(1, 200)):
            now += rng.randint(1, 2 * step)
            times.add(now)
    return times


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


def _history_reads(gateway: MemoryGateway) -> list[RowQuery]:
    return [q for table, q in gateway.read_queries if table == s.ACCOUNT_HISTORY]
