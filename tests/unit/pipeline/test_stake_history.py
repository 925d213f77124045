"""The pipeline's stake history: recorded per block, applied behind the watermark, looked up by time."""

from __future__ import annotations

import json

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from hedera_history.block import VerifiedBlock
from hedera_history.books.address_book import AddressBook, address_book_from_keys
from hedera_history.books.codec import decode_keeper_state
from hedera_history.books.stakes import NodeStakes, node_stake_update_body
from hedera_history.formats.hashing import sha384
from hedera_history.pipeline.address_books import AddressBookHistory
from hedera_history.store import schema as s
from hedera_history.store.book_rows import write_stakes
from hedera_history.verify.stream import verify_stream

from tests.unit.store.fakes import ConditionalMemoryGateway
from tests.unit.verify.streamkit import record_bytes, transaction_bytes, v6_period, v6_record

NS = 1_700_000_000_000_000_000
STEP = 2_000_000_000


@pytest.fixture(scope="module")
def node_keys() -> dict[int, rsa.RSAPrivateKey]:
    return {num: rsa.generate_private_key(public_exponent=65537, key_size=2048) for num in (3, 4, 5, 6)}


@pytest.fixture(scope="module")
def book(node_keys: dict[int, rsa.RSAPrivateKey]) -> AddressBook:
    return address_book_from_keys((f"0.0.{num}", key.public_key()) for num, key in node_keys.items())


def _blocks(node_keys, book, updates: dict[int, dict[int, int]], count: int, first: int = 0) -> list[VerifiedBlock]:
    periods, start = [], sha384(b"genesis")
    for i in range(count):
        ns = NS + i * STEP
        items = [(transaction_bytes(node_stake_update_body(updates[i])), record_bytes(ns))] if i in updates else None
        record = v6_record(ns, start=start, block_number=first + i, items=items)
        periods.append(v6_period(node_keys, record))
        start = record.end
    results = list(verify_stream(periods, book))
    assert all(r.ok for r in results)
    return [r.report.block for r in results if r.report.block is not None]


def test_stakes_are_in_force_after_their_block_once_the_keeper_applied_them(node_keys, book):
    blocks = _blocks(node_keys, book, {1: {0: 60, 1: 20, 2: 10, 3: 10}, 3: {0: 5, 1: 5}}, 5)
    gateway = ConditionalMemoryGateway()
    history = AddressBookHistory(gateway, book)
    for block in blocks:
        history.record_block(block)
    after = [block.record.consensus_end + 1 for block in blocks]
    assert history.stakes_at(after[4]) is None  # recorded, not applied yet
    history.advance(2)
    assert history.stakes_at(after[0]) is None
    assert history.stakes_at(after[1]) == NodeStakes.of({0: 60, 1: 20, 2: 10, 3: 10})
    assert [n.stake for n in history.consensus_book_at(after[2]).nodes] == [60, 20, 10, 10]
    history.advance(4)  # goes on from the keeper's state (stakes included)
    assert [n.stake for n in history.consensus_book_at(after[3]).nodes] == [5, 5, 0, 0]
    assert [n.stake for n in history.consensus_book_at(after[2]).nodes] == [60, 20, 10, 10]
    assert history.consensus_book_at(after[0]) == book  # before any update: the book's own weights
    stake_rows = [key for key in gateway.tables[s.ADDRESS_BOOKS] if key.startswith(b"stakes/")]
    assert len(stake_rows) == 2


def test_a_stream_started_after_a_backfill_reads_the_stakes_it_wrote(node_keys, book):
    gateway = ConditionalMemoryGateway()
    write_stakes(gateway, NS, NodeStakes.of({0: 70, 1: 10, 2: 10, 3: 10}))  # what a backfill writes
    fresh = AddressBookHistory(gateway, book, first_block=100)
    assert fresh.stakes_at(NS - 1) is None
    assert [n.stake for n in fresh.consensus_book_at(NS + STEP).nodes] == [70, 10, 10, 10]
    # and so does the projection while its keeper lags (it has no state of its own yet)
    for block in _blocks(node_keys, book, {}, 2, first=100):
        fresh.record_block(block)
    projected = fresh.projected_consensus_book(102, NS + 2 * STEP)
    assert projected is not None and [n.stake for n in projected.nodes] == [70, 10, 10, 10]


def test_while_the_keeper_lags_the_recorded_changes_give_the_state_in_force(node_keys, book):
    blocks = _blocks(node_keys, book, {1: {0: 60, 1: 20, 2: 10, 3: 10}}, 5)
    history = AddressBookHistory(ConditionalMemoryGateway(), book)
    for block in blocks[:3]:  # block 3 is not published yet
        history.record_block(block)
    history.advance(0)
    assert history.projected_consensus_book(1, NS + 1 * STEP) is None  # nothing between: the lookup is exact
    projected = history.projected_consensus_book(3, NS + 3 * STEP)
    assert projected is not None and [n.stake for n in projected.nodes] == [60, 20, 10, 10]
    assert history.projected_consensus_book(5, NS + 5 * STEP) is None  # block 3's changes are not known yet
    assert history.applied_through() == 0  # nothing was written


def test_rows_written_before_stakes_were_tracked_still_decode(node_keys, book):
    gateway = ConditionalMemoryGateway()
    history = AddressBookHistory(gateway, book)
    for block in _blocks(node_keys, book, {}, 2):
        history.record_block(block)
    # a change row and keeper state as the previous version wrote them (no "stakes" key)
    rows = gateway.tables[s.ADDRESS_BOOKS]

    def as_before(keys: list[bytes]) -> None:
        for key in keys:
            for cell, (ts, value) in list(rows[key].items()):
                data = json.loads(value)
                data.pop("stakes")
                rows[key][cell] = (ts, json.dumps(data).encode())

    def keeper_as_before() -> None:
        # the keeper's state as JSON fields (before BookState was its encoding), no "stakes" key
        for cell, (ts, value) in list(rows[b"keeper"].items()):
            applied, state = decode_keeper_state(value)
            contents = {str(number): data.hex() for number, data in state.contents}
            old = {"applied": applied, "book": state.book.hex(), "contents": contents}
            rows[b"keeper"][cell] = (ts, json.dumps(old, sort_keys=True).encode())

    as_before(list(rows))
    history.advance(0)
    keeper_as_before()
    assert history.advance(1) == [] and history.applied_through() == 1
    assert history.consensus_book_at(NS + 2 * STEP) == book
