"""Time-keyed rows (``transactions``, ``sidecars``) are found under both key forms: layout 3's
``<bucket>/<time>`` and the time alone of layouts 1 and 2, by lookups and by time ranges, in one
request each; where both exist the plain row is the entry."""

from __future__ import annotations

from hedera_history.block import VerifiedBlock
from hedera_history.config import Settings
from hedera_history.formats.parsed_files import SidecarType
from hedera_history.store import schema as s
from hedera_history.store.encoding import encode_value
from hedera_history.store.gateway import KeyRange, RowQuery, StoredRow
from hedera_history.store.keys import (
    TIME_BUCKETS,
    TIME_SPAN_BITS,
    consensus_from_key,
    plain_row_key_for_transaction,
    row_key_for_transaction,
    time_bucket,
)
from hedera_history.store.model import Cell, Row
from hedera_history.store.reader import HistoryReader
from hedera_history.store.rows import block_to_rows
from hedera_history.store.time_rows import merged_by_time, read_at, read_between, read_one, time_ranges
from hedera_history.store.writer import BlockWriter

from tests.helpers.layout_2 import as_layout_2

from .builders import BASE_NS, NS, bytecode_sidecar_record, make_block, make_sidecar, transfer_tx
from .fakes import MemoryGateway

SETTINGS = Settings()
SPAN = 1 << TIME_SPAN_BITS


def _put(gateway: MemoryGateway, key: bytes, value: bytes = b"x") -> None:
    cell = Cell(s.TRANSACTION_FAMILY, s.Q_POSITION, encode_value(value), 0)
    gateway.mutate_rows(s.TRANSACTIONS, [Row(s.TRANSACTIONS, key, (cell,))])


def _times(rows: list[StoredRow]) -> list[int]:
    return [consensus_from_key(r.key) for r in rows]


def test_a_range_is_every_bucket_and_the_plain_range() -> None:
    ranges = time_ranges(100, 200)
    assert len(ranges) == TIME_BUCKETS + 1
    assert {r.start[:2] for r in ranges[:-1]} == {b"%x/" % b for b in range(TIME_BUCKETS)}
    assert ranges[-1].start == plain_row_key_for_transaction(100) and ranges[-1].end == plain_row_key_for_transaction(
        200
    )
    assert time_ranges(200, 200) == () and time_ranges(300, 200) == ()
    open_ended = time_ranges(100, None)
    assert open_ended[-1].end is None and all(r.end is not None for r in open_ended[:-1])


def test_a_range_reads_every_bucket_in_one_request_merged_by_time() -> None:
    gateway = MemoryGateway()
    times = [BASE_NS + i * (SPAN // 3 + 7) for i in range(200)]  # about 67 spans
    assert len({time_bucket(t) for t in times}) == TIME_BUCKETS
    for t in times[:100]:
        _put(gateway, plain_row_key_for_transaction(t))  # written by layout 2
    for t in times[100:]:
        _put(gateway, row_key_for_transaction(t))
    gateway.read_queries.clear()
    assert _times(read_between(gateway, s.TRANSACTIONS, times[50], times[150])) == times[50:150]
    assert len(gateway.read_queries) == 1
    assert _times(read_between(gateway, s.TRANSACTIONS, times[150] + 1, None)) == times[151:]
    assert read_between(gateway, s.TRANSACTIONS, times[-1] + 1, None) == []


def test_a_bucketed_key_inside_the_plain_range_is_not_taken_for_a_time_in_it() -> None:
    # ``1/…`` sorts between ``0f…`` and ``10…``: a plain range crossing that edge holds bucket 1.
    low, high = 0x0FFFFFFFFFFFFF00, 0x1000000000000100
    stranger = next(t for t in range(BASE_NS, BASE_NS + 100 * SPAN, SPAN) if time_bucket(t) == 1)
    inside = low + 5
    gateway = MemoryGateway()
    _put(gateway, row_key_for_transaction(stranger))
    _put(gateway, plain_row_key_for_transaction(inside))
    assert _times(read_between(gateway, s.TRANSACTIONS, low, high)) == [inside]


def test_where_both_rows_of_a_time_exist_the_plain_one_is_the_entry() -> None:
    gateway = MemoryGateway()
    _put(gateway, row_key_for_transaction(BASE_NS), b"rewritten")
    _put(gateway, plain_row_key_for_transaction(BASE_NS), b"corrected")
    row = read_one(gateway, s.TRANSACTIONS, BASE_NS)
    assert row is not None and row.key == plain_row_key_for_transaction(BASE_NS)
    (ranged,) = read_between(gateway, s.TRANSACTIONS, BASE_NS, BASE_NS + 1)
    assert ranged.key == row.key
    stored = list(gateway.read_rows(s.TRANSACTIONS, RowQuery(ranges=(KeyRange(),))))
    assert [r.key for r in merged_by_time(reversed(stored))] == [row.key]  # whatever order they come in


def test_lookups_find_either_form_in_one_request() -> None:
    gateway = MemoryGateway()
    _put(gateway, plain_row_key_for_transaction(BASE_NS))
    _put(gateway, row_key_for_transaction(BASE_NS + 1))
    gateway.read_queries.clear()
    found = read_at(gateway, s.TRANSACTIONS, [BASE_NS, BASE_NS + 1, BASE_NS + 2])
    assert sorted(found) == [BASE_NS, BASE_NS + 1]
    assert len(gateway.read_queries) == 1
    assert read_one(gateway, s.TRANSACTIONS, BASE_NS + 2) is None


def _blocks() -> list[VerifiedBlock]:
    blocks = []
    for number in range(4):
        start = BASE_NS + number * 100 * NS
        txs = [transfer_tx(start + i * 1000, 1001, 5000 + number) for i in range(40)]
        raw = bytecode_sidecar_record(txs[0].consensus_ns, 1002)
        sidecars = [make_sidecar(1, [(txs[0].consensus_ns, SidecarType.CONTRACT_BYTECODE, raw)])]
        blocks.append(make_block(number, txs, sidecars=sidecars))
    return blocks


def test_the_reader_answers_the_same_from_rows_of_layout_2_and_of_layout_3() -> None:
    blocks = _blocks()
    answers = []
    for layout_2 in ((), (0, 2), (0, 1, 2, 3)):
        gateway = MemoryGateway()
        built = [block_to_rows(b, SETTINGS) for b in blocks]
        written = BlockWriter(gateway, SETTINGS).iter_write_rows(
            as_layout_2(b) if b.block_number in layout_2 else b for b in built
        )
        assert all(r.complete for r in written)
        plain = {k for k in gateway.tables[s.TRANSACTIONS] if len(k) == 16}
        assert len(plain) == 40 * len(layout_2)
        reader = HistoryReader(gateway)
        listed = [reader.block_transactions(b.block_number) for b in blocks]
        assert all(not errors for _, errors in listed)
        times = [i.consensus_ns for b in blocks for i in b.record.items]
        one_by_one = [reader.transaction(t) for t in times]
        together, errors = reader.transactions(times)
        sidecars = [reader.sidecar_records(b.record.items[0].consensus_ns) for b in blocks]
        assert not errors and all(sidecars)
        assert [t.consensus_ns for t in together] == times
        headers = [reader.get_block(b.block_number) for b in blocks]
        layouts = [None if h is None else h.completion.layout for h in headers]
        assert layouts == [2 if b.block_number in layout_2 else 3 for b in blocks]
        answers.append((listed, one_by_one, together, sidecars))
    assert answers[1] == answers[0] and answers[2] == answers[0]
