"""Time-bucketed keys on the Bigtable emulator: blocks whose transactions fall in every bucket,
listed page by page through ``/api/v1/transactions`` in both orders and several limits, and the
history of the fee collector and node account (bucketed keys) page by page, give the same answers
from a store of layout 3 as from one holding layout-2 blocks (rows keyed by the time alone) next
to layout-3 ones; a block's scan and a proof's sidecar read are one ReadRows each, and so is a
page of the fee collector's history once the reader knows its pace."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from hedera_history.api.transactions_list import list_transactions
from hedera_history.block import VerifiedBlock
from hedera_history.config import Settings
from hedera_history.errors import RowDecodeError
from hedera_history.formats.parsed_files import SidecarType
from hedera_history.proofs.from_store import StoreProver
from hedera_history.store import schema as s
from hedera_history.store.account_rows import RANGES
from hedera_history.store.bigtable_client import BigtableDataGateway, gateway_for_instance
from hedera_history.store.gateway import KeyRange, RowQuery, StoredRow
from hedera_history.store.keys import TIME_BUCKETS, time_bucket
from hedera_history.store.reader import HistoryReader
from hedera_history.store.rows import block_to_rows
from hedera_history.store.schema import ensure_tables
from hedera_history.store.writer import BlockWriter

from tests.helpers.history_pages import history_pages
from tests.helpers.layout_2 import as_layout_2
from tests.unit.store.builders import BASE_NS, NS, bytecode_sidecar_record, make_block, make_sidecar, transfer_tx

from .conftest import Store

BLOCKS = 8
PER_BLOCK = 40
LAYOUT_2_BLOCKS = frozenset(range(BLOCKS // 2))


def blocks() -> list[VerifiedBlock]:
    out = []
    for number in range(BLOCKS):
        start = BASE_NS + number * 2 * NS
        txs = [transfer_tx(start + i * 45_000_017, 1001 + i % 5, 2001 + number) for i in range(PER_BLOCK)]
        raw = bytecode_sidecar_record(txs[1].consensus_ns, 1002)
        sidecars = [make_sidecar(1, [(txs[1].consensus_ns, SidecarType.CONTRACT_BYTECODE, raw)])]
        out.append(make_block(number, txs, sidecars=sidecars))
    return out


class CountingGateway:
    """The emulator's gateway, counting ReadRows requests per table."""

    def __init__(self, inner: BigtableDataGateway) -> None:
        self.inner = inner
        self.reads: list[str] = []

    def read_rows(self, table: str, query: RowQuery) -> Iterator[StoredRow]:
        self.reads.append(table)
        return self.inner.read_rows(table, query)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@pytest.fixture
def mixed(bigtable_instance: Any) -> Iterator[CountingGateway]:
    """A second store (its own tables): the first half of the blocks as layout 2 wrote them."""
    settings = Settings.from_env({}, table_prefix="mixed_")
    ensure_tables(bigtable_instance, settings)
    gateway = gateway_for_instance(bigtable_instance, settings)
    built = [block_to_rows(b, settings) for b in blocks()]
    rows = (as_layout_2(b) if b.block_number in LAYOUT_2_BLOCKS else b for b in built)
    assert all(r.complete for r in BlockWriter(gateway, settings).iter_write_rows(rows))
    yield CountingGateway(gateway)
    gateway.close()


def pages(reader: HistoryReader, query: dict[str, list[str]]) -> list[list[dict[str, Any]]]:
    """Every page of the listing, following ``links.next`` to the end."""
    skipped: list[RowDecodeError] = []
    found = []
    while True:
        answer = list_transactions(lambda: reader, query, skipped.extend)
        found.append(answer["transactions"])
        link = answer["links"]["next"]
        if link is None:
            break
        query = parse_qs(urlsplit(link).query)
    assert skipped == []
    return found


def test_pages_are_the_same_from_bucketed_keys_and_from_rows_of_layout_2(store: Store, mixed: CountingGateway) -> None:
    stored = blocks()
    assert all(r.complete for r in store.writer.write_blocks(stored))
    times = [i.consensus_ns for b in stored for i in b.record.items]
    assert {time_bucket(t) for t in times} == set(range(TIME_BUCKETS))
    plain = [k for k in (r.key for r in mixed.inner.read_rows(s.TRANSACTIONS, _everything())) if len(k) == 16]
    assert len(plain) == PER_BLOCK * len(LAYOUT_2_BLOCKS)

    low, high = times[PER_BLOCK // 2], times[-PER_BLOCK // 3]  # across the layout-2 / layout-3 edge
    bounded = [f"gte:{_stamp(low)}", f"lt:{_stamp(high)}"]
    for order, limit, timestamps, expected in (
        ("desc", 25, [], times[::-1]),
        ("asc", 7, [], times),
        ("asc", 100, [], times),
        ("desc", 13, bounded, [t for t in times[::-1] if low <= t < high]),
        ("asc", 13, bounded, [t for t in times if low <= t < high]),
    ):
        query = {"order": [order], "limit": [str(limit)], "timestamp": timestamps}
        answers = [pages(HistoryReader(gateway), dict(query)) for gateway in (store.gateway, mixed)]
        assert answers[0] == answers[1], (order, limit)
        listed = [_ns(t["consensus_timestamp"]) for page in answers[0] for t in page]
        assert listed == expected, (order, limit)
        assert all(len(page) <= limit for page in answers[0])


def test_system_account_history_pages_the_same_from_bucketed_and_plain_rows(
    store: Store, mixed: CountingGateway
) -> None:
    stored = blocks()
    assert all(r.complete for r in store.writer.write_blocks(stored))
    times = sorted((i.consensus_ns for b in stored for i in b.record.items), reverse=True)
    plain = [k for k in (r.key for r in mixed.inner.read_rows(s.ACCOUNT_HISTORY, _everything())) if k[7:8] < b"g"]
    assert len([k for k in plain if k.startswith(b"0.0.98/")]) == PER_BLOCK * len(LAYOUT_2_BLOCKS)
    for account in ("0.0.98", "0.0.3"):
        for limit, until in ((7, None), (25, None), (1000, None), (9, times[-PER_BLOCK])):
            readers = (HistoryReader(store.gateway), HistoryReader(mixed))
            answers = [history_pages(reader, account, limit, until) for reader in readers]
            assert answers[0] == answers[1], (account, limit)
            expected = [t for t in times if until is None or t > until]
            assert [t for page in answers[0] for t in page] == expected, (account, limit)
            assert all(len(page) == limit for page in answers[0][:-1])


def test_a_system_account_page_is_one_read_once_the_reader_knows_its_pace(mixed: CountingGateway) -> None:
    """The reader learns the fee collector's pace from its first page (a request per range), then
    reads each page in a window of time: one ReadRows of every range; past the end of the history
    the window holds too little and the ranges are read once more to the page size. A page bounded
    below (``until``) ends in its window: one ReadRows each, the last page too."""
    times = sorted((i.consensus_ns for b in blocks() for i in b.record.items), reverse=True)
    reader = HistoryReader(mixed)
    for until in (None, times[-PER_BLOCK]):
        expected = [t for t in times if until is None or t > until]
        listed: list[int] = []
        reads: list[int] = []
        before = None
        while True:
            mixed.reads.clear()
            page = reader.account_history("0.0.98", before=before, until=until, limit=7)
            reads.append(mixed.reads.count(s.ACCOUNT_HISTORY))
            assert not page.errors
            listed.extend(e.consensus_ns for e in page.entries)
            if page.next_before is None:
                break
            before = page.next_before
        assert listed == expected, until
        if until is None:
            assert reads[0] == RANGES and set(reads[1:-1]) == {1} and reads[-1] == 1 + RANGES, reads
        else:
            assert set(reads) == {1}, reads


def test_a_block_and_its_sidecar_files_are_one_read_each(mixed: CountingGateway) -> None:
    reader = HistoryReader(mixed)
    for number in (0, BLOCKS - 1):  # a layout-2 block and a layout-3 one
        assert reader.get_block(number) is not None
        mixed.reads.clear()
        listed, errors = reader.block_transactions(number)
        assert not errors and len(listed) == PER_BLOCK
        assert mixed.reads.count(s.TRANSACTIONS) == 1
        mixed.reads.clear()
        signed = StoreProver(reader, b"").signed_block(number, with_sidecars=True)
        assert [len(f.records) for f in signed.sidecars] == [1]
        assert mixed.reads.count(s.SIDECARS) == 1


def _everything() -> RowQuery:
    return RowQuery(ranges=(KeyRange(),))


def _stamp(ns: int) -> str:
    return f"{ns // NS}.{ns % NS:09d}"


def _ns(stamp: str) -> int:
    seconds, nanos = stamp.split(".")
    return int(seconds) * NS + int(nanos)
