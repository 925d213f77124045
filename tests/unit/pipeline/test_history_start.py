"""What a history starts from (``pipeline.history_start``), and ``/api/v1/network/nodes`` serving
the book file's endpoints, certificate hashes and descriptions as the reference reads them."""

from __future__ import annotations

from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from google.protobuf import json_format
from hedera_history import hapi
from hedera_history.api import handle
from hedera_history.books.address_book import address_book_from_keys
from hedera_history.books.parse import address_book_to_bytes, parse_address_book
from hedera_history.books.updates import AddressBookTracker
from hedera_history.config import Settings
from hedera_history.derived.balances import account_balance
from hedera_history.derived.snapshot import BalanceSnapshot
from hedera_history.formats.hashing import sha384
from hedera_history.pipeline.address_books import AddressBookHistory
from hedera_history.pipeline.history_start import BookStart, SnapshotLoad, record_history_start
from hedera_history.store.book_rows import BOOK, Q_FILE, row_in_force, write_book, write_changes
from hedera_history.store.reader import HistoryReader
from hedera_history.verify.stream import verify_stream

from tests.integration.api.reference_contract import ReferenceContract, load_reference_document
from tests.unit.store.fakes import ConditionalMemoryGateway, MemoryGateway
from tests.unit.verify.streamkit import file_transaction, record_bytes, v6_period, v6_record

FIRST_NS = 1_700_000_000_000_000_000
CERT_HASH = b"a3f6" * 24
"""The hex text of a SHA-384, as books carry it."""


@pytest.fixture(scope="module")
def book_file() -> bytes:
    """A book as 0.0.102 holds it today: node 0 listed twice (a deprecated address, then service
    endpoints), node 1 by domain name; descriptions and certificate hashes."""
    keys = [rsa.generate_private_key(public_exponent=65537, key_size=2048).public_key() for _ in range(2)]
    canonical = hapi.NodeAddressBook.FromString(
        address_book_to_bytes(address_book_from_keys((f"0.0.{3 + i}", key) for i, key in enumerate(keys)))
    )
    message = hapi.NodeAddressBook()
    first, second = canonical.nodeAddress
    entry = message.nodeAddress.add()
    entry.CopyFrom(first)
    entry.description, entry.nodeCertHash, entry.ipAddress, entry.portno = "Node zero", CERT_HASH, b"35.1.2.3", 50211
    again = message.nodeAddress.add()
    again.CopyFrom(first)
    again.serviceEndpoint.add(ipAddressV4=bytes([10, 0, 0, 9]), port=50212)
    again.serviceEndpoint.add(ipAddressV4=bytes([10, 0, 0, 9]), port=50211)
    entry = message.nodeAddress.add()
    entry.CopyFrom(second)
    entry.nodeCertHash = b"0x" + CERT_HASH
    entry.serviceEndpoint.add(domain_name="node1.example", port=50211)
    return bytes(message.SerializeToString())


def nodes(gateway: MemoryGateway) -> list[dict[str, Any]]:
    reader = HistoryReader(gateway)
    response = handle(lambda: reader, "GET", "/api/v1/network/nodes", {}, b"")
    assert response.status == 200, response.body
    ReferenceContract(load_reference_document()).validate("/api/v1/network/nodes", 200, response.body)
    found: list[dict[str, Any]] = response.body["nodes"]
    return found


def test_the_bootstrap_book_is_recorded_with_its_file_and_served_as_the_reference_reads_it(book_file: bytes) -> None:
    gateway = MemoryGateway()
    start = record_history_start(
        gateway, Settings(), book_file=book_file, first_ns=FIRST_NS, first_block=0, snapshot=None
    )
    assert (start.book, start.balances) == (BookStart.RECORDED, SnapshotLoad.NONE_IN_DIRECTORY)
    zero, one = nodes(gateway)
    assert zero["service_endpoints"] == [
        {"domain_name": "", "ip_address_v4": "10.0.0.9", "port": 50211},
        {"domain_name": "", "ip_address_v4": "10.0.0.9", "port": 50212},
        {"domain_name": "", "ip_address_v4": "35.1.2.3", "port": 50211},
    ]
    assert (zero["node_cert_hash"], one["node_cert_hash"]) == ("0x" + CERT_HASH.decode(), "0x" + CERT_HASH.decode())
    assert (zero["description"], zero["memo"], one["description"]) == ("Node zero", "0.0.3", "")
    assert one["service_endpoints"] == [{"domain_name": "node1.example", "ip_address_v4": "", "port": 50211}]
    book = parse_address_book(book_file)
    assert [n["public_key"] for n in (zero, one)] == ["0x" + n.public_key_der.hex() for n in book.nodes]
    assert {n["timestamp"]["from"] for n in (zero, one)} == {"1700000000.000000000"}
    again = record_history_start(
        gateway, Settings(), book_file=book_file, first_ns=FIRST_NS + 5, first_block=0, snapshot=None
    )
    assert again.book is BookStart.KEPT


def test_a_book_recorded_without_its_file_gets_it_and_a_json_book_counts_as_its_protobuf(book_file: bytes) -> None:
    gateway = MemoryGateway()
    write_book(gateway, FIRST_NS - 10, parse_address_book(book_file))  # as a follower begins the history
    assert nodes(gateway)[0]["service_endpoints"] == []  # the canonical book has no endpoints
    assert nodes(gateway)[0]["node_cert_hash"] == "0x"
    as_json = json_format.MessageToJson(hapi.NodeAddressBook.FromString(book_file)).encode()
    start = record_history_start(
        gateway, Settings(), book_file=as_json, first_ns=FIRST_NS, first_block=0, snapshot=None
    )
    assert start.book is BookStart.RECORDED
    found = row_in_force(gateway, BOOK, FIRST_NS)
    assert found is not None and found[0] == FIRST_NS - 10
    assert hapi.NodeAddressBook.FromString(found[1][Q_FILE]) == hapi.NodeAddressBook.FromString(book_file)
    assert len(nodes(gateway)[0]["service_endpoints"]) == 3


def test_balances_are_seeded_once(book_file: bytes) -> None:
    gateway = MemoryGateway()
    snapshot = BalanceSnapshot(FIRST_NS - 1, {"0.0.1001": 500, "0.0.1002": 7})
    first = record_history_start(
        gateway, Settings(), book_file=book_file, first_ns=FIRST_NS, first_block=3, snapshot=snapshot
    )
    assert first.balances is SnapshotLoad.LOADED
    balance = account_balance(gateway, "0.0.1001", FIRST_NS - 1)
    assert balance is not None and balance.balance == 500
    second = record_history_start(
        gateway, Settings(), book_file=book_file, first_ns=FIRST_NS, first_block=3, snapshot=snapshot
    )
    assert second.balances is SnapshotLoad.ALREADY_STARTED
    assert second.book is BookStart.KEPT


def test_a_book_the_stream_puts_in_force_keeps_the_file_it_was_read_from(book_file: bytes) -> None:
    """A new 0.0.102 (with endpoints) as an update and an append in two blocks: the keeper and a
    verify_stream run (``write_changes``, as a backfill and load record it) keep the whole file."""
    keys = {num: rsa.generate_private_key(public_exponent=65537, key_size=2048) for num in (3, 4, 5, 6)}
    bootstrap = address_book_from_keys((f"0.0.{n}", k.public_key()) for n, k in keys.items())
    new_file = bytes(book_file)  # two nodes, with endpoints: a whole other book
    half = len(new_file) // 2 + 7
    changes = {1: ("update", new_file[:half]), 2: ("append", new_file[half:])}
    periods, start = [], sha384(b"genesis")
    for i in range(3):
        ns = FIRST_NS + i * 2_000_000_000
        items = [(file_transaction(*changes[i][:1], 102, changes[i][1]), record_bytes(ns))] if i in changes else None
        record = v6_record(ns, start=start, block_number=i, items=items)
        periods.append(v6_period(keys, record))
        start = record.end
    results = list(verify_stream(periods, bootstrap))
    assert [r.new_book is not None for r in results] == [False, False, True]
    from_results = MemoryGateway()
    replay = AddressBookTracker(bootstrap)
    for result in verify_stream(periods, bootstrap, tracker=replay):
        write_changes(from_results, result, replay)
    keeper = ConditionalMemoryGateway()
    history = AddressBookHistory(keeper, bootstrap)
    for result in results:
        assert result.report.block is not None
        history.record_block(result.report.block)
    history.advance(2)
    for gateway in (from_results, keeper):
        found = row_in_force(gateway, BOOK, FIRST_NS + 10**12)
        assert found is not None and found[1][Q_FILE] == new_file
        assert len(nodes(gateway)[0]["service_endpoints"]) == 3
