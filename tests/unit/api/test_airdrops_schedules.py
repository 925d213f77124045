"""The pending-airdrop and schedule routes on hand-built HAPI records, in memory: airdrops made
pending, added to, claimed and cancelled, listed by sender and by receiver in the reference's
order with its filters and paging; schedules created, signed, executed and deleted, one by id and
listed with filters and paging; an errata removing a claim brings its airdrop back; each answer
checked against the reference's OpenAPI."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from hedera_history import hapi
from hedera_history.api.render import timestamp
from hedera_history.config import Settings
from hedera_history.errata.apply import apply_errata
from hedera_history.errors import RowDecodeError
from hedera_history.store.decode import AccountHistoryEntry, decode_pointer_cell, history_entry
from hedera_history.store.entity_index import AIRDROP_PREFIX, SCHEDULE_PREFIX
from hedera_history.store.gateway import StoredRow
from hedera_history.store.index_scan import scan_index
from hedera_history.store.keys import prefix_end
from hedera_history.store.reader import HistoryReader
from hedera_history.store.writer import BlockWriter

from tests.unit.api.airdrop_schedule_world import ED_KEY, at, b64, world_blocks
from tests.unit.api.reference_fetch import follow_links, reference_fetcher
from tests.unit.errata.fakes import VersionedGateway
from tests.unit.errata.helpers import SETTINGS as ERRATA_SETTINGS
from tests.unit.errata.helpers import errata_file
from tests.unit.store.builders import NS
from tests.unit.store.fakes import MemoryGateway

Get = Any


@pytest.fixture(scope="module")
def get() -> Get:
    gateway = MemoryGateway()
    assert all(r.complete for r in BlockWriter(gateway, Settings()).write_blocks(world_blocks()))
    return reference_fetcher(HistoryReader(gateway))


def airdrop(
    sender: int, receiver: int, token: int, amount: int, since: int, serial: int | None = None
) -> dict[str, Any]:
    return {
        "amount": amount,
        "receiver_id": f"0.0.{receiver}",
        "sender_id": f"0.0.{sender}",
        "serial_number": serial,
        "timestamp": {"from": timestamp(at(since)), "to": None},
        "token_id": f"0.0.{token}",
    }


RECEIVED = [
    airdrop(1001, 2001, 5000, 15, 1),  # the second airdrop's record: 15 pending after it
    airdrop(1001, 2001, 6000, 0, 0, serial=1),  # serial 2 was cancelled
    airdrop(1002, 2001, 5000, 7, 2),
]


def test_outstanding_airdrops_of_a_sender(get: Get) -> None:
    body = get("/api/v1/accounts/0.0.1001/airdrops/outstanding")
    assert body == {"airdrops": RECEIVED[:2], "links": {"next": None}}  # the claimed one is gone
    assert get("/api/v1/accounts/0.0.1001/airdrops/outstanding?receiver.id=0.0.2002")["airdrops"] == []
    assert (
        get("/api/v1/accounts/1001/airdrops/outstanding?token.id=0.0.6000&serialnumber=1")["airdrops"] == RECEIVED[1:2]
    )


def test_pending_airdrops_of_a_receiver_in_order_paged_and_filtered(get: Get) -> None:
    assert follow_links(get, "/api/v1/accounts/0.0.2001/airdrops/pending?limit=1", "airdrops") == RECEIVED
    newest_first = follow_links(get, "/api/v1/accounts/0.0.2001/airdrops/pending?limit=2&order=desc", "airdrops")
    assert newest_first == RECEIVED[::-1]
    assert get("/api/v1/accounts/0.0.2001/airdrops/pending?sender.id=0.0.1002")["airdrops"] == RECEIVED[2:]
    assert get("/api/v1/accounts/0.0.2001/airdrops/pending?sender.id=gt:1001")["airdrops"] == RECEIVED[2:]
    assert (
        get("/api/v1/accounts/0.0.2001/airdrops/pending?sender.id=0.0.1001&token.id=lt:0.0.6000")["airdrops"]
        == (RECEIVED[:1])
    )
    assert get("/api/v1/accounts/0.0.2002/airdrops/pending") == {"airdrops": [], "links": {"next": None}}
    assert get("/api/v1/accounts/0.0.1001/airdrops/pending")["airdrops"] == []


@pytest.mark.parametrize("order", ["asc", "desc"])
def test_paging_with_an_equal_filter_leaves_that_field_as_asked(get: Get, order: str) -> None:
    """``token.id=0.0.5000`` one at a time: the next page bounds the other fields only (as the
    reference's links leave a field asked with ``eq`` alone), so the second sender's airdrop of the
    token is not lost behind a ``token.id=gt:0.0.5000`` that no airdrop of it can pass."""
    url = f"/api/v1/accounts/0.0.2001/airdrops/pending?token.id=0.0.5000&limit=1&order={order}"
    expected = [RECEIVED[0], RECEIVED[2]]
    assert follow_links(get, url, "airdrops") == (expected if order == "asc" else expected[::-1])
    nft = "/api/v1/accounts/0.0.1001/airdrops/outstanding?serialnumber=1&limit=1"
    assert follow_links(get, nft, "airdrops") == RECEIVED[1:2]


def test_airdrop_errors(get: Get) -> None:
    get("/api/v1/accounts/0.0.2001/airdrops/pending?receiver.id=0.0.1001", 400)
    get("/api/v1/accounts/0.0.2001/airdrops/pending?sender.id=xyz", 400)
    get("/api/v1/accounts/0.0.2001/airdrops/pending?order=up", 400)
    get("/api/v1/accounts/0.0.2001/airdrops/pending?limit=101", 400)
    get("/api/v1/accounts/not-an-account/airdrops/pending", 400)
    get("/api/v1/accounts/0x" + "ab" * 20 + "/airdrops/outstanding", 404)


def created_schedule() -> dict[str, Any]:
    inner = hapi.TransactionBody().scheduleCreate.scheduledTransactionBody
    inner.memo, inner.transactionFee = "inner 7000", 100
    return {
        "admin_key": None,
        "consensus_timestamp": timestamp(at(12)),
        "creator_account_id": "0.0.1001",
        "deleted": False,
        "executed_timestamp": timestamp(at(14)),
        "expiration_time": None,
        "memo": "",
        "payer_account_id": "0.0.1001",
        "schedule_id": "0.0.7000",
        "signatures": [
            _signature(12, b"\x01\x02"),
            _signature(12, b"\x03\x04"),
            _signature(13, b"\x05\x06"),
        ],
        "transaction_body": base64.b64encode(inner.SerializeToString()).decode(),
        "wait_for_expiry": False,
    }


def _signature(step: int, prefix: bytes) -> dict[str, Any]:
    return {
        "consensus_timestamp": timestamp(at(step)),
        "public_key_prefix": b64(prefix),
        "signature": b64(prefix * 2),
        "type": "ED25519",
    }


def test_one_schedule_from_its_transactions(get: Get) -> None:
    assert get("/api/v1/schedules/0.0.7000") == created_schedule()
    deleted = get("/api/v1/schedules/7001")
    assert deleted["deleted"] is True and deleted["executed_timestamp"] is None
    assert (deleted["creator_account_id"], deleted["payer_account_id"]) == ("0.0.1002", "0.0.1003")
    assert deleted["admin_key"] == {"_type": "ED25519", "key": ED_KEY.hex()}
    assert (deleted["memo"], deleted["wait_for_expiry"]) == ("later", True)
    assert deleted["expiration_time"] == timestamp(at(100))
    assert deleted["signatures"] == [_signature(15, b"\x07")]
    get("/api/v1/schedules/0.0.9999", 404)
    get("/api/v1/schedules/0.0.2001", 404)  # an account: no schedule
    get("/api/v1/schedules/not-a-schedule", 400)


def test_schedules_listed_paged_and_filtered(get: Get) -> None:
    listed = follow_links(get, "/api/v1/schedules?limit=1", "schedules")
    assert [s["schedule_id"] for s in listed] == ["0.0.7000", "0.0.7001"]
    assert listed[0] == created_schedule()
    newest_first = follow_links(get, "/api/v1/schedules?limit=1&order=desc", "schedules")
    assert newest_first == listed[::-1]
    assert [s["schedule_id"] for s in get("/api/v1/schedules?account.id=0.0.1002")["schedules"]] == ["0.0.7001"]
    assert [s["schedule_id"] for s in get("/api/v1/schedules?schedule.id=gt:0.0.7000")["schedules"]] == ["0.0.7001"]
    assert [s["schedule_id"] for s in get("/api/v1/schedules?schedule.id=ne:0.0.7000")["schedules"]] == ["0.0.7001"]
    assert get("/api/v1/schedules?schedule.id=lt:0.0.7000")["schedules"] == []
    get("/api/v1/schedules?schedule.id=foo", 400)
    get("/api/v1/schedules?order=sideways", 400)


def test_an_errata_removing_a_claim_leaves_its_airdrop_pending() -> None:
    blocks = world_blocks()
    gateway = VersionedGateway()
    assert all(r.complete for r in BlockWriter(gateway, ERRATA_SETTINGS).write_blocks(blocks))
    claim_ns = at(10)
    last_ns = blocks[-1].record.items[-1].consensus_ns
    apply_errata(errata_file(last_ns + NS, claim_ns, None), gateway, ERRATA_SETTINGS)
    get = reference_fetcher(HistoryReader(gateway))
    restored = get("/api/v1/accounts/0.0.2002/airdrops/pending")["airdrops"]
    assert restored == [airdrop(1001, 2002, 5000, 20, 0)]


def test_a_scan_in_small_chunks_reads_what_one_read_does() -> None:
    gateway = MemoryGateway()
    assert all(r.complete for r in BlockWriter(gateway, Settings()).write_blocks(world_blocks()))
    reader = HistoryReader(gateway)
    everything = (AIRDROP_PREFIX, prefix_end(SCHEDULE_PREFIX))

    def decode(row: StoredRow) -> tuple[bytes, AccountHistoryEntry] | None:
        entry = history_entry(0, decode_pointer_cell(row))
        return None if entry is None else (row.key, entry)

    errors: list[RowDecodeError] = []
    whole = [key for key, _ in scan_index(reader, everything, decode, errors)]
    assert len(whole) > 3 and whole == sorted(whole)
    assert [key for key, _ in scan_index(reader, everything, decode, errors, chunk_rows=2)] == whole
    assert not errors
