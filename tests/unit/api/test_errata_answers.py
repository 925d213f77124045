"""Errata in the read path and the answers: tombstones in decode and reader, pagination past
removed rows, the ``errata`` marker in every transaction answer, originals, and balance routes."""

from __future__ import annotations

import base64
import json
import logging
from typing import Any

import pytest
from hedera_history.api import ApiResponse, handle
from hedera_history.api.render import timestamp
from hedera_history.derived.applier import BalanceApplier
from hedera_history.derived.balances import account_balance
from hedera_history.derived.snapshot import BalanceSnapshot, load_snapshot
from hedera_history.errata.apply import apply_errata
from hedera_history.errata.cells import is_tombstone as errata_is_tombstone
from hedera_history.errata.cells import tombstone_value
from hedera_history.store import schema as s
from hedera_history.store.decode import (
    decode_account_history_row,
    decode_sidecar_row,
    decode_transaction_row,
    decode_tx_hash_row,
    decode_tx_id_row,
    is_tombstone,
)
from hedera_history.store.encoding import encode_value
from hedera_history.store.gateway import StoredCell, StoredRow
from hedera_history.store.keys import (
    qualifier_for_consensus,
    row_key_for_account_history,
    row_key_for_transaction,
    row_key_for_tx_hash,
    row_key_for_tx_id,
)
from hedera_history.store.reader import HistoryReader
from hedera_history.store.values import HashEntry, IdEntry, encode_hash_entry, encode_id_entry, encode_u64

from tests.unit.api.paging import every_page
from tests.unit.errata.fakes import VersionedGateway
from tests.unit.errata.helpers import MS, SETTINGS, A, B, C, D, E, F, errata_file, stored_history
from tests.unit.store.builders import BASE_NS, NS, Tx, transfer_tx

TOMBSTONE = tombstone_value("0" * 32)
RIGHT_D = transfer_tx(D.consensus_ns, 1003, 1006, 20, valid_start_ns=D.consensus_ns - 5 * NS)
AFTER_E = transfer_tx(BASE_NS + 4 * NS + 500 * MS, 1002, 1004, 8)
"""Falls after block 1's last item (E) and before block 2: an errata inserts it into block 1."""


def call(
    reader: HistoryReader, method: str, path: str, query: dict[str, list[str]] | None = None, body: bytes = b""
) -> ApiResponse:
    response = handle(lambda: reader, method, path, query or {}, body)
    json.dumps(response.body)
    return response


def rpc(reader: HistoryReader, method: str, params: Any) -> dict[str, Any]:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    response = call(reader, "POST", "/", body=body)
    assert response.status == 200 and isinstance(response.body, dict)
    return response.body


def tx_id(tx: Tx) -> str:
    tid = tx.record.transactionID
    start = tid.transactionValidStart
    return f"0.0.{tid.accountID.accountNum}-{start.seconds}-{start.nanos:09d}"


def corrected() -> VersionedGateway:
    """History with B removed, D replaced and AFTER_E inserted into block 1."""
    gateway = stored_history()
    apply_errata(errata_file(BASE_NS + 30 * NS, B.consensus_ns, None), gateway, SETTINGS)
    apply_errata(errata_file(BASE_NS + 31 * NS, D.consensus_ns, RIGHT_D.item), gateway, SETTINGS)
    apply_errata(errata_file(BASE_NS + 32 * NS, AFTER_E.consensus_ns, AFTER_E.item), gateway, SETTINGS)
    return gateway


# ---- decode --------------------------------------------------------------------------------------


def test_the_store_and_errata_agree_on_tombstones() -> None:
    assert is_tombstone(TOMBSTONE) and errata_is_tombstone(TOMBSTONE)
    for value in (encode_value(b"x"), encode_value(b"\xee" * 300), b""):
        assert is_tombstone(value) == errata_is_tombstone(value)


def _row(key: bytes, *cells: tuple[str, bytes, bytes]) -> StoredRow:
    return StoredRow(key, tuple(StoredCell(f, q, v, 0) for f, q, v in cells))


def test_decoders_treat_tombstones_as_absent() -> None:
    ns = BASE_NS
    removed = _row(
        row_key_for_transaction(ns),
        (s.TRANSACTION_FAMILY, s.Q_RECORD, TOMBSTONE),
        (s.TRANSACTION_FAMILY, s.Q_TRANSACTION, TOMBSTONE),
        (s.TRANSACTION_FAMILY, s.Q_POSITION, TOMBSTONE),
    )
    assert decode_transaction_row(removed) is None
    hashes = _row(
        row_key_for_tx_hash(b"h" * 48),
        (s.TX_BY_HASH_FAMILY, qualifier_for_consensus(ns), TOMBSTONE),
        (s.TX_BY_HASH_FAMILY, qualifier_for_consensus(ns + 1), encode_value(encode_hash_entry(HashEntry(7, 22)))),
    )
    assert [(r.consensus_ns, r.block_number) for r in decode_tx_hash_row(hashes)] == [(ns + 1, 7)]
    ids = _row(
        row_key_for_tx_id("0.0.1001", ns),
        (s.TX_BY_ID_FAMILY, qualifier_for_consensus(ns), TOMBSTONE),
        (s.TX_BY_ID_FAMILY, qualifier_for_consensus(ns + 2), encode_value(encode_id_entry(IdEntry(7, 0, False, 22)))),
    )
    assert [r.consensus_ns for r in decode_tx_id_row(ids)] == [ns + 2]
    history = _row(row_key_for_account_history("0.0.1001", ns), (s.ACCOUNT_HISTORY_FAMILY, s.Q_BLOCK, TOMBSTONE))
    assert decode_account_history_row(history) is None
    sidecar = _row(
        row_key_for_transaction(ns),
        (s.SIDECAR_META_FAMILY, s.Q_BLOCK, TOMBSTONE),
        (s.SIDECAR_RECORD_FAMILY, b"1/1/0", TOMBSTONE),
    )
    assert decode_sidecar_row(sidecar) is None
    kept = _row(
        row_key_for_transaction(ns),
        (s.SIDECAR_META_FAMILY, s.Q_BLOCK, encode_value(encode_u64(7))),
        (s.SIDECAR_RECORD_FAMILY, b"1/1/0", TOMBSTONE),
        (s.SIDECAR_RECORD_FAMILY, b"1/1/1", encode_value(b"raw")),
    )
    decoded = decode_sidecar_row(kept)
    assert decoded is not None and [r.index for r in decoded.records] == [1]


def test_a_corrected_row_carries_its_marker() -> None:
    gateway = corrected()
    reader = HistoryReader(gateway)
    replaced = reader.transaction(D.consensus_ns)
    assert replaced is not None and replaced.record_bytes == RIGHT_D.record_bytes
    assert replaced.errata_marker is not None
    untouched = reader.transaction(C.consensus_ns)
    assert untouched is not None and untouched.errata_marker is None


# ---- reader ----------------------------------------------------------------------------------------


def test_a_removed_entry_is_not_found_anywhere() -> None:
    reader = HistoryReader(corrected())
    record = B.record
    valid_start = record.transactionID.transactionValidStart
    assert reader.transaction(B.consensus_ns) is None
    assert reader.transactions([A.consensus_ns, B.consensus_ns]) == ([reader.transaction(A.consensus_ns)], [])
    assert reader.transaction_by_hash(record.transactionHash) is None
    assert reader.transactions_by_id("0.0.1002", valid_start.seconds * NS + valid_start.nanos) == []
    assert reader.transaction_statuses([record.transactionHash]).statuses == {record.transactionHash: None}
    for account in ("0.0.1002", "0.0.1003"):
        page = reader.account_history(account, limit=1000)
        assert B.consensus_ns not in [e.consensus_ns for e in page.entries] and page.errors == ()
    listed, errors = reader.block_transactions(0)
    assert [t.consensus_ns for t in listed] == [A.consensus_ns] and errors == []


def test_block_transactions_add_entries_inserted_after_the_last_item() -> None:
    reader = HistoryReader(corrected())
    listed, _ = reader.block_transactions(1)
    assert [t.consensus_ns for t in listed] == [C.consensus_ns, D.consensus_ns, E.consensus_ns]
    listed, _ = reader.block_transactions(1, also=[AFTER_E.consensus_ns, F.consensus_ns])
    assert [t.consensus_ns for t in listed] == [C.consensus_ns, D.consensus_ns, E.consensus_ns, AFTER_E.consensus_ns]
    assert listed[-1].index == 3


def test_account_history_pages_read_past_removed_rows() -> None:
    # 0.0.1001 is in A, C, E and F; with A and C removed, nothing is left below E.
    gateway = stored_history()
    for i, tx in enumerate((A, C)):
        apply_errata(errata_file(BASE_NS + (40 + i) * NS, tx.consensus_ns, None), gateway, SETTINGS)
    reader = HistoryReader(gateway)
    everything = [e.consensus_ns for e in reader.account_history("0.0.1001", limit=1000).entries]
    assert everything == [F.consensus_ns, E.consensus_ns]
    page = reader.account_history("0.0.1001", before=E.consensus_ns, limit=1)
    assert page.entries == () and page.next_before is None and page.errors == ()
    # 0.0.3 (the node) is in every entry: with B and D removed, pages of one visit the others once.
    gateway = stored_history()
    for i, tx in enumerate((B, D)):
        apply_errata(errata_file(BASE_NS + (40 + i) * NS, tx.consensus_ns, None), gateway, SETTINGS)
    reader = HistoryReader(gateway)
    seen: list[int] = []
    before: int | None = None
    while True:
        page = reader.account_history("0.0.3", before=before, limit=1)
        seen.extend(e.consensus_ns for e in page.entries)
        if page.next_before is None:
            break
        before = page.next_before
    assert seen == [t.consensus_ns for t in (F, E, C, A)]


# ---- answers ---------------------------------------------------------------------------------------


def test_every_transaction_answer_carries_the_errata_marker() -> None:
    reader = HistoryReader(corrected())
    by_hash = rpc(reader, "getTransaction", [RIGHT_D.record.transactionHash.hex()])["result"]
    assert by_hash["consensus_timestamp"] == timestamp(D.consensus_ns) and by_hash["errata"] == "UPDATE"
    assert {"account": "0.0.1006", "amount": 20, "is_approval": False} in by_hash["transfers"]
    assert rpc(reader, "getTransaction", [tx_id(C)])["result"]["errata"] is None
    inserted = rpc(reader, "getTransaction", [tx_id(AFTER_E)])["result"]
    assert inserted["errata"] == "INSERT" and (inserted["block_number"], inserted["index"]) == (1, 3)

    block = rpc(reader, "getBlock", [1])["result"]
    assert [(t["consensus_timestamp"], t["errata"]) for t in block["transactions"]] == [
        (timestamp(C.consensus_ns), None),
        (timestamp(D.consensus_ns), "UPDATE"),
        (timestamp(E.consensus_ns), None),
        (timestamp(AFTER_E.consensus_ns), "INSERT"),
    ]
    assert [t["consensus_timestamp"] for t in rpc(reader, "getBlock", [0])["result"]["transactions"]] == [
        timestamp(A.consensus_ns)
    ]

    rest = call(reader, "GET", f"/api/v1/transactions/{tx_id(RIGHT_D)}")
    assert rest.status == 200 and [t["errata"] for t in rest.body["transactions"]] == ["UPDATE"]
    assert call(reader, "GET", f"/api/v1/transactions/{tx_id(B)}").status == 404
    assert call(reader, "GET", f"/api/v1/transactions/{B.record.transactionHash.hex()}").status == 404
    assert rpc(reader, "getTransaction", [B.record.transactionHash.hex()])["result"] is None

    history = call(reader, "GET", "/api/v1/accounts/0.0.1006/transactions")
    assert [(t["consensus_timestamp"], t["errata"]) for t in history.body["transactions"]] == [
        (timestamp(D.consensus_ns), "UPDATE")
    ]
    assert call(reader, "GET", "/api/v1/accounts/0.0.1004/transactions").body["transactions"][0]["errata"] == "INSERT"
    via_rpc = rpc(reader, "getTransactionsForAccount", ["0.0.1004"])["result"]["transactions"]
    assert [t["errata"] for t in via_rpc] == ["INSERT", None]  # AFTER_E, then E (D's original no longer)

    hashes = [h.record.transactionHash.hex() for h in (RIGHT_D, C, B)]
    statuses = rpc(reader, "getTransactionStatuses", [hashes])["result"]
    assert [None if x is None else x["errata"] for x in statuses] == ["UPDATE", None, None]
    assert statuses[2] is None


def test_the_original_of_a_corrected_entry_is_retrievable() -> None:
    gateway = corrected()
    reader = HistoryReader(gateway)
    replaced = rpc(reader, "getTransactionOriginal", [timestamp(D.consensus_ns)])["result"]
    assert replaced["errata"] == "UPDATE" and (replaced["block_number"], replaced["index"]) == (1, 1)
    assert base64.b64decode(replaced["original"]["transaction_hash"]) == D.record.transactionHash
    assert replaced["original"]["errata"] is None
    (applied,) = replaced["errata_applied"]
    assert applied["in_force"] and applied["file_base64"] is not None
    removed = call(reader, "GET", f"/api/v1/errata/{timestamp(B.consensus_ns)}")
    assert removed.status == 200 and removed.body["errata"] == "DELETE"
    assert base64.b64decode(removed.body["original"]["transaction_hash"]) == B.record.transactionHash
    inserted = rpc(reader, "getTransactionOriginal", [AFTER_E.consensus_ns])["result"]
    assert inserted["errata"] == "INSERT" and inserted["original"] is None
    assert rpc(reader, "getTransactionOriginal", [timestamp(C.consensus_ns)])["result"] is None
    assert call(reader, "GET", f"/api/v1/errata/{timestamp(C.consensus_ns)}").status == 404
    assert call(reader, "GET", "/api/v1/errata/x").status == 400
    assert call(reader, "GET", f"/api/v1/errata/{timestamp(B.consensus_ns)}", {"x": ["1"]}).status == 400
    assert rpc(reader, "getTransactionOriginal", ["1.x"])["error"]["code"] == -32602


def test_superseded_errata_are_listed_oldest_first() -> None:
    gateway = stored_history()
    wrong = transfer_tx(D.consensus_ns, 1003, 1005, 20, valid_start_ns=D.consensus_ns - 5 * NS)
    apply_errata(errata_file(BASE_NS + 21 * NS, D.consensus_ns, RIGHT_D.item), gateway, SETTINGS)
    apply_errata(errata_file(BASE_NS + 20 * NS, D.consensus_ns, wrong.item), gateway, SETTINGS)
    answer = rpc(HistoryReader(gateway), "getTransactionOriginal", [timestamp(D.consensus_ns)])["result"]
    assert [(e["consensus_timestamp"], e["in_force"]) for e in answer["errata_applied"]] == [
        (timestamp(BASE_NS + 20 * NS), False),
        (timestamp(BASE_NS + 21 * NS), True),
    ]


def test_a_marker_that_does_not_decode_fails_one_answer_not_a_listing(caplog: pytest.LogCaptureFixture) -> None:
    gateway = corrected()
    cells = gateway.tables[s.TRANSACTIONS][row_key_for_transaction(D.consensus_ns)]
    stamp, _ = cells[(s.TRANSACTION_FAMILY, b"errata")]
    cells[(s.TRANSACTION_FAMILY, b"errata")] = (stamp, encode_value(b"\x09"))
    reader = HistoryReader(gateway)
    assert rpc(reader, "getTransaction", [tx_id(RIGHT_D)])["error"]["code"] == -32603
    assert call(reader, "GET", f"/api/v1/transactions/{tx_id(RIGHT_D)}").status == 500
    with caplog.at_level(logging.WARNING):
        block = rpc(reader, "getBlock", [1])["result"]
    assert timestamp(D.consensus_ns) not in [t["consensus_timestamp"] for t in block["transactions"]]
    assert len(block["transactions"]) == 3
    hashes = [RIGHT_D.record.transactionHash.hex(), C.record.transactionHash.hex()]
    with caplog.at_level(logging.WARNING):
        statuses = rpc(reader, "getTransactionStatuses", [hashes])["result"]
    assert statuses[0] is None and statuses[1]["errata"] is None
    assert any("does not decode" in r.getMessage() for r in caplog.records)


def test_account_pages_over_a_corrected_account_have_no_gap_or_duplicate() -> None:
    reader = HistoryReader(corrected())
    expected = [e.consensus_ns for e in reader.account_history("0.0.3", limit=1000).entries]
    assert B.consensus_ns not in expected and AFTER_E.consensus_ns in expected
    pages = every_page(reader, "/api/v1/accounts/0.0.3/transactions", {"limit": ["1"]}, "transactions")
    seen = [t["consensus_timestamp"] for t in pages]
    assert seen == [timestamp(ns) for ns in expected]


# ---- balances --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def balances_reader() -> HistoryReader:
    gateway = stored_history()
    genesis = {f"0.0.{n}": 1_000 for n in (1001, 1002, 1003, 1004)}
    load_snapshot(gateway, SETTINGS, BalanceSnapshot(BASE_NS, genesis), first_block=0)
    assert BalanceApplier(gateway, SETTINGS).run().applied == [0, 1, 2]
    return HistoryReader(gateway)


def test_balance_routes_answer_the_derived_balances(balances_reader: HistoryReader) -> None:
    reader = balances_reader
    now = account_balance(reader.gateway, "0.0.1001")
    assert now is not None
    body = call(reader, "GET", "/api/v1/balances", {"account.id": ["0.0.1001"]}).body
    assert body["balances"] == [{"account": "0.0.1001", "balance": now.balance, "tokens": []}]
    assert body["links"] == {"next": None}
    before_c = account_balance(reader.gateway, "0.0.1001", C.consensus_ns - 1)
    assert before_c is not None and before_c.balance != now.balance
    at = {"account.id": ["1001"], "timestamp": [timestamp(C.consensus_ns - 1)]}
    assert call(reader, "GET", "/api/v1/balances", at).body["balances"][0]["balance"] == before_c.balance
    lt = {"account.id": ["eq:0.0.1001"], "timestamp": [f"lt:{timestamp(C.consensus_ns)}"]}
    assert call(reader, "GET", "/api/v1/balances", lt).body["balances"][0]["balance"] == before_c.balance
    assert call(reader, "GET", "/api/v1/balances", {"account.id": ["0.0.777"]}).body["balances"] == []

    result = rpc(reader, "getBalance", ["0.0.1001"])["result"]
    assert result["value"] == now.balance and result["context"]["block"] == now.block_number
    at_c = rpc(reader, "getBalance", ["0.0.1001", {"timestamp": timestamp(C.consensus_ns - 1)}])["result"]
    assert at_c["value"] == before_c.balance
    assert (
        rpc(reader, "getBalance", {"account": "0.0.1001", "options": {"timestamp": C.consensus_ns - 1}})["result"]
        == at_c
    )
    assert rpc(reader, "getBalance", ["0.0.777"])["result"]["value"] is None


def test_balances_listed_in_account_order_with_pages(balances_reader: HistoryReader) -> None:
    reader = balances_reader
    every = call(reader, "GET", "/api/v1/balances", {}).body
    accounts = [b["account"] for b in every["balances"]]
    assert accounts == sorted(accounts) and {"0.0.1001", "0.0.1002", "0.0.1003", "0.0.1004"} <= set(accounts)
    assert every["links"]["next"] is None and every["timestamp"] is not None
    for b in every["balances"]:
        one = call(reader, "GET", "/api/v1/balances", {"account.id": [b["account"]]}).body["balances"]
        assert one == [b]
    assert every_page(reader, "/api/v1/balances", {"limit": ["2"]}, "balances") == every["balances"]
    after = call(reader, "GET", "/api/v1/balances", {"account.id": ["gt:0.0.1002"]}).body["balances"]
    assert after == [b for b in every["balances"] if b["account"] > "0.0.1002"]
    from_it = call(reader, "GET", "/api/v1/balances", {"account.id": ["gte:0.0.1002"]}).body["balances"]
    assert from_it[0]["account"] == "0.0.1002"
    rich = call(reader, "GET", "/api/v1/balances", {"account.balance": ["gte:100"]}).body["balances"]
    assert rich == [b for b in every["balances"] if b["balance"] >= 100]
    response = call(reader, "GET", "/api/v1/balances", {"account.publickey": ["ab"]})
    assert response.status == 501
    assert call(reader, "GET", "/api/v1/balances", {"order": ["desc"]}).status == 501
    one = {"account.id": ["0.0.1001"], "limit": ["2"], "order": ["desc"], "account.balance": ["lt:0"]}
    assert call(reader, "GET", "/api/v1/balances", one).body["balances"] == []


def test_an_account_with_a_time_bound_has_its_balance_then(balances_reader: HistoryReader) -> None:
    reader = balances_reader
    before_c = account_balance(reader.gateway, "0.0.1001", C.consensus_ns - 1)
    now = account_balance(reader.gateway, "0.0.1001")
    assert before_c is not None and now is not None
    then = call(reader, "GET", "/api/v1/accounts/0.0.1001", {"timestamp": [f"lt:{timestamp(C.consensus_ns)}"]}).body
    assert then["balance"]["balance"] == before_c.balance
    assert then["balance"]["timestamp"] == timestamp(C.consensus_ns - 1)
    assert all(t["consensus_timestamp"] < timestamp(C.consensus_ns) for t in then["transactions"])
    assert call(reader, "GET", "/api/v1/accounts/0.0.1001", {}).body["balance"]["balance"] == now.balance


@pytest.mark.parametrize(
    "query",
    [
        {"account.id": ["x"]},
        {"account.id": ["lt:0.0.1"]},
        {"account.balance": ["gt:x"]},
        {"account.id": ["0.0.1", "0.0.2"]},
        {"account.id": ["0.0.1"], "timestamp": ["gte:1.0"]},
        {"account.id": ["0.0.1"], "timestamp": ["1.x"]},
        {"account.id": ["0.0.1"], "timestamp": ["lt:0"]},
        {"account.id": ["0.0.1"], "limit": ["0"]},
    ],
)
def test_bad_balance_queries_are_400(balances_reader: HistoryReader, query: dict[str, list[str]]) -> None:
    response = call(balances_reader, "GET", "/api/v1/balances", query)
    assert response.status == 400 and response.body["_status"]["messages"][0]["message"]


@pytest.mark.parametrize(
    "params",
    [[], ["x"], [5], ["0.0.1", {"timestamp": "1.x"}], ["0.0.1", {"at": 1}], ["0.0.1", 5], ["0.0.1", {}, 3]],
)
def test_bad_get_balance_params_are_coded_errors(balances_reader: HistoryReader, params: Any) -> None:
    assert rpc(balances_reader, "getBalance", params)["error"]["code"] == -32602
