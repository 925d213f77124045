"""HIP-639 through the query API on the Bigtable emulator: the generated stream with a missing
record (case 1) and an inconsistent record (case 2), its errata applied and balances derived,
then every answer (JSON-RPC and REST, through ``api.handle`` and the query function's HTTP app)
compared with the scenario's corrected ground truth; originals retrieved through the API."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from hedera_history.api import ApiResponse, handle
from hedera_history.books.parse import parse_address_book
from hedera_history.derived.applier import BalanceApplier
from hedera_history.derived.lease import ExclusiveBalanceApplier
from hedera_history.derived.snapshot import BalanceSnapshot, load_snapshot
from hedera_history.errata.ingest import ErrataStatus, process_errata_object
from hedera_history.sources.local import LocalSource
from hedera_history.store.reader import HistoryReader

from tests.integration.query_function import query_client
from tests.integration.store.conftest import Store

from .conftest import WrittenScenario


def ts(ns: int) -> str:
    return f"{ns // 10**9}.{ns % 10**9:09d}"


class Api:
    """The query API over one store, as a caller sees it."""

    def __init__(self, reader: HistoryReader) -> None:
        self.reader = reader

    def get(self, path: str, query: dict[str, list[str]] | None = None) -> ApiResponse:
        response = handle(lambda: self.reader, "GET", path, query or {}, b"")
        json.dumps(response.body)
        return response

    def follow(self, link: str) -> ApiResponse:
        parts = urlsplit(link)
        return self.get(parts.path, parse_qs(parts.query))

    def rpc(self, method: str, *params: Any) -> Any:
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}).encode()
        response = handle(lambda: self.reader, "POST", "/", {}, body)
        assert response.status == 200 and "error" not in response.body, response.body
        return response.body["result"]


def _book(written: WrittenScenario, consensus_ns: int) -> Any:
    config = written.scenario.stream.config
    block = config.start_block + min(config.periods - 1, (consensus_ns - config.start_time_ns) // config.period_ns)
    return parse_address_book(written.scenario.stream.book_for_block(block).book)


@pytest.fixture
def corrected_store(errata_store: Store, written_scenario: WrittenScenario) -> Store:
    """The stream written, balances applied over it, then every errata (their compensations arrive
    late, so balances rewind) and balances again through the lease-holding applier."""
    store, scenario = errata_store, written_scenario.scenario
    assert all(r.complete for r in store.writer.write_blocks(written_scenario.blocks))
    snapshot = scenario.snapshot
    first = scenario.stream.config.start_block
    load_snapshot(store.gateway, store.settings, BalanceSnapshot(snapshot["consensus_ns"], snapshot["balances"]), first)
    assert BalanceApplier(store.gateway, store.settings).run().applied
    source = LocalSource(str(written_scenario.root))
    for errata in scenario.errata:
        outcome = process_errata_object(
            source, errata.path, store.settings, store.gateway, _book(written_scenario, errata.consensus_ns)
        )
        assert outcome.status is ErrataStatus.APPLIED
    report = ExclusiveBalanceApplier(store.gateway, store.settings).run()
    assert report is not None and report.rewound_to is not None
    return store


def _check_transaction(answer: dict[str, Any], tx: dict[str, Any], errata: str | None) -> None:
    assert answer["consensus_timestamp"] == ts(tx["consensus_ns"])
    assert base64.b64decode(answer["transaction_hash"]).hex() == tx["hash"]
    assert answer["transaction_id"] == tx["transaction_id_string"]
    assert answer["result"] == tx["status"] and answer["charged_tx_fee"] == tx["fee"]
    assert (answer["block_number"], answer["index"]) == (tx["block_number"], tx["index"])
    assert [(t["account"], t["amount"]) for t in answer["transfers"]] == [
        (m["account"], m["amount"]) for m in tx["hbar_transfers"]
    ]
    assert answer["errata"] == errata, tx["consensus_ns"]


def test_every_transaction_answer_equals_the_corrected_ground_truth(
    corrected_store: Store, written_scenario: WrittenScenario
) -> None:
    scenario = written_scenario.scenario
    api = Api(HistoryReader(corrected_store.gateway))
    transactions = scenario.corrected["transactions"]
    by_time = {tx["consensus_ns"]: tx for tx in transactions}
    missing, phantom = scenario.missing, scenario.inconsistent
    marks = {missing["consensus_ns"]: "INSERT"}

    for tx in transactions:
        errata = marks.get(tx["consensus_ns"])
        by_hash = api.rpc("getTransaction", tx["hash"])
        first = by_time[min(t["consensus_ns"] for t in transactions if t["hash"] == tx["hash"])]
        _check_transaction(by_hash, first, marks.get(first["consensus_ns"]))
        rest = api.get(f"/api/v1/transactions/{tx['transaction_id_string']}")
        assert rest.status == 200, rest.body
        mine = [t for t in rest.body["transactions"] if t["consensus_timestamp"] == ts(tx["consensus_ns"])]
        assert len(mine) == 1
        _check_transaction(mine[0], tx, errata)
        same_id = sorted(
            t["consensus_ns"] for t in transactions if t["transaction_id_string"] == tx["transaction_id_string"]
        )
        assert [t["consensus_timestamp"] for t in rest.body["transactions"]] == [ts(ns) for ns in same_id]

    # The phantom is gone from every answer.
    assert api.rpc("getTransaction", phantom["hash"]) is None
    assert api.get(f"/api/v1/transactions/{phantom['hash']}").status == 404
    assert api.get(f"/api/v1/transactions/{phantom['transaction_id_string']}").status == 404
    statuses = api.rpc("getTransactionStatuses", [missing["hash"], phantom["hash"], transactions[0]["hash"]])
    assert statuses[0]["consensus_timestamp"] == ts(missing["consensus_ns"]) and statuses[0]["errata"] == "INSERT"
    assert statuses[1] is None
    assert statuses[2]["result"] == transactions[0]["status"] and statuses[2]["errata"] is None

    # Blocks list the corrected entries, the inserted one wherever it falls.
    for block in scenario.stream.truth["blocks"]:
        answer = api.rpc("getBlock", block["number"])
        expected = [t for t in transactions if t["block_number"] == block["number"]]
        assert [t["consensus_timestamp"] for t in answer["transactions"]] == [ts(t["consensus_ns"]) for t in expected]
        for rendered, tx in zip(answer["transactions"], expected, strict=True):
            _check_transaction(rendered, tx, marks.get(tx["consensus_ns"]))


def _visible_history(api: Api, account: str) -> list[str]:
    """Every entry of the account's history, one JSON-RPC page."""
    page = api.rpc("getTransactionsForAccount", account, {"limit": 1000})
    assert page["next_before"] is None
    return [t["consensus_timestamp"] for t in page["transactions"]]


def test_account_histories_page_without_gap_or_duplicate(
    corrected_store: Store, written_scenario: WrittenScenario
) -> None:
    scenario = written_scenario.scenario
    api = Api(HistoryReader(corrected_store.gateway))
    phantom = ts(scenario.inconsistent["consensus_ns"])
    corrected_accounts = set(scenario.inconsistent["accounts_touched"]) | set(scenario.missing["accounts_touched"])
    for account, times in scenario.corrected["accounts"].items():
        everything = _visible_history(api, account)
        assert len(everything) == len(set(everything)) and everything == sorted(everything, key=_ns_of, reverse=True)
        assert phantom not in everything
        assert {ts(ns) for ns in times} <= set(everything), account
        paged: list[str] = []
        page = api.get(
            f"/api/v1/accounts/{account}/transactions", {"limit": ["1" if account in corrected_accounts else "4"]}
        )
        while True:
            assert page.status == 200, page.body
            paged.extend(t["consensus_timestamp"] for t in page.body["transactions"])
            if page.body["links"]["next"] is None:
                break
            page = api.follow(page.body["links"]["next"])
        assert paged == everything, account
    # Round trip through next_before on an account the errata changed.
    account = scenario.missing["payer"]
    seen: list[str] = []
    options: dict[str, Any] = {"limit": 2}
    while True:
        page = api.rpc("getTransactionsForAccount", account, options)
        seen.extend(t["consensus_timestamp"] for t in page["transactions"])
        if page["next_before"] is None:
            break
        options = {"limit": 2, "before": page["next_before"]}
    assert seen == _visible_history(api, account)
    assert ts(scenario.missing["consensus_ns"]) in seen


def _ns_of(text: str) -> int:
    seconds, nanos = text.split(".")
    return int(seconds) * 10**9 + int(nanos)


def test_balance_routes_equal_the_corrected_ground_truth(
    corrected_store: Store, written_scenario: WrittenScenario
) -> None:
    scenario = written_scenario.scenario
    api = Api(HistoryReader(corrected_store.gateway))
    ends = {b["number"]: b["consensus_end_ns"] for b in scenario.stream.truth["blocks"]}
    for number, expected in scenario.corrected["balances"]["by_block"].items():
        at = ts(ends[int(number)])
        for account, balance in expected.items():
            body = api.get("/api/v1/balances", {"account.id": [account], "timestamp": [at]}).body
            assert body["balances"] == [{"account": account, "balance": balance, "tokens": []}], (number, account)
            assert _ns_of(body["timestamp"]) <= ends[int(number)]
            result = api.rpc("getBalance", account, {"timestamp": at})
            assert result["value"] == balance, (number, account)
    for account, balance in scenario.corrected["balances"]["final"].items():
        body = api.get("/api/v1/balances", {"account.id": [account]}).body
        assert (body["balances"][0]["balance"] if body["balances"] else 0) == balance, account
        assert (api.rpc("getBalance", account)["value"] or 0) == balance, account
    # Every account at once, as the reference lists them (corrected too).
    listing = api.get("/api/v1/balances", {"limit": ["100"]}).body["balances"]
    listed = {entry["account"]: entry["balance"] for entry in listing}
    for account, balance in scenario.corrected["balances"]["final"].items():
        assert listed.get(account, 0) == balance, account
    assert api.get("/api/v1/balances", {"account.id": ["0.0.2"], "timestamp": ["gt:1"]}).status == 400


def test_originals_are_retrievable_through_the_api(corrected_store: Store, written_scenario: WrittenScenario) -> None:
    scenario = written_scenario.scenario
    api = Api(HistoryReader(corrected_store.gateway))
    files = {e.errata_id: e.data for e in scenario.errata}

    phantom = scenario.inconsistent
    removed = api.rpc("getTransactionOriginal", ts(phantom["consensus_ns"]))
    assert removed["errata"] == "DELETE" and removed["block_number"] == phantom["block_number"]
    assert base64.b64decode(removed["original"]["transaction_hash"]).hex() == phantom["hash"]
    assert (
        removed["original"]["transfers"]
        == api.get(f"/api/v1/errata/{ts(phantom['consensus_ns'])}").body["original"]["transfers"]
    )
    (deleting,) = removed["errata_applied"]
    assert deleting["in_force"] and base64.b64decode(deleting["file_base64"]) == files[deleting["errata_id"]]

    missing = scenario.missing
    inserted = api.get(f"/api/v1/errata/{ts(missing['consensus_ns'])}")
    assert inserted.status == 200 and inserted.body["errata"] == "INSERT" and inserted.body["original"] is None
    issued = sorted(
        (e.consensus_ns, e.errata_id) for e in scenario.errata if e.time_of_error == missing["consensus_ns"]
    )
    assert [(e["consensus_timestamp"], e["errata_id"], e["in_force"]) for e in inserted.body["errata_applied"]] == [
        (ts(ns), errata_id, i == len(issued) - 1) for i, (ns, errata_id) in enumerate(issued)
    ]
    for entry in inserted.body["errata_applied"]:
        assert base64.b64decode(entry["file_base64"]) == files[entry["errata_id"]]

    untouched = scenario.corrected["transactions"][0]["consensus_ns"]
    assert api.rpc("getTransactionOriginal", ts(untouched)) is None
    assert api.get(f"/api/v1/errata/{ts(untouched)}").status == 404


@pytest.fixture
def query_function(corrected_store: Store) -> Iterator[Any]:
    with query_client(corrected_store.instance.instance_id, corrected_store.settings.table_prefix) as client:
        yield client


def test_the_query_function_serves_errata_and_balances(query_function: Any, written_scenario: WrittenScenario) -> None:
    scenario = written_scenario.scenario
    missing = scenario.missing
    found = query_function.get(f"/api/v1/transactions/{missing['transaction_id_string']}")
    assert found.status_code == 200 and found.get_json()["transactions"][0]["errata"] == "INSERT"
    original = query_function.get(f"/api/v1/errata/{ts(scenario.inconsistent['consensus_ns'])}")
    assert original.status_code == 200 and original.get_json()["errata"] == "DELETE"
    account, balance = next(iter(scenario.corrected["balances"]["final"].items()))
    balances = query_function.get(f"/api/v1/balances?account.id={account}")
    assert balances.status_code == 200 and balances.get_json()["balances"][0]["balance"] == balance
    rpc = query_function.post("/", json={"jsonrpc": "2.0", "id": 1, "method": "getBalance", "params": [account]})
    assert rpc.get_json()["result"]["value"] == balance
    bad = query_function.post("/", json={"jsonrpc": "2.0", "id": 1, "method": "getBalance", "params": ["0.0.x"]})
    assert bad.get_json()["error"]["code"] == -32602
