"""/api/v1/accounts over derived balances, in memory: every account with a balance, in key order,
paged through with links.next, each with its balance and the state history gives it; one account by
``account.id``; ``balance=false``; the differences answered as documented; each answer checked
against the reference's OpenAPI."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from hedera_history.api import handle
from hedera_history.derived.applier import BalanceApplier
from hedera_history.derived.snapshot import BalanceSnapshot, load_snapshot
from hedera_history.store.reader import HistoryReader
from hedera_history.store.writer import BlockWriter

from tests.integration.api.reference_contract import ReferenceContract, load_reference_document
from tests.unit.api import entity_world as w
from tests.unit.errata.helpers import SETTINGS
from tests.unit.store.builders import NS
from tests.unit.store.fakes import MemoryGateway

ROUTE = "/api/v1/accounts"
GENESIS = {"0.0.1001": 10**12, "0.0.2": 5 * 10**17, "0.0.98": 0}


@pytest.fixture(scope="module")
def get() -> Any:
    entities = w.entities()
    gateway = MemoryGateway()
    assert all(r.complete for r in BlockWriter(gateway, SETTINGS).write_blocks(list(entities.blocks)))
    load_snapshot(gateway, SETTINGS, BalanceSnapshot(w.CREATED - 10 * NS, GENESIS), first_block=0)
    BalanceApplier(gateway, SETTINGS).run()
    reader = HistoryReader(gateway)
    contract = ReferenceContract(load_reference_document())

    def fetch(query: dict[str, list[str]], status: int = 200) -> Any:
        response = handle(lambda: reader, "GET", ROUTE, query, b"")
        assert response.status == status, (query, response.body)
        if status != 501:  # the reference declares no 501; ours is its error shape
            contract.validate(ROUTE, status, response.body)
        return response.body

    return fetch


def test_every_account_with_a_balance_pages_in_key_order(get: Any) -> None:
    seen: list[dict[str, Any]] = []
    query: dict[str, list[str]] | None = {"limit": ["2"]}
    while query is not None:
        body = get(query)
        seen.extend(body["accounts"])
        link = body["links"]["next"]
        query = None if link is None else parse_qs(urlsplit(link).query)
    names = [a["account"] for a in seen]
    assert names == sorted(names) and set(GENESIS) <= set(names)
    by_name = {a["account"]: a for a in seen}
    assert by_name["0.0.1001"]["balance"]["balance"] is not None
    assert by_name["0.0.2"]["balance"]["balance"] == GENESIS["0.0.2"]


def test_one_account_its_state_and_balance_false(get: Any) -> None:
    one = get({"account.id": ["0.0.1001"], "balance": ["false"]})["accounts"]
    assert [a["account"] for a in one] == ["0.0.1001"] and one[0]["balance"] is None
    assert get({"account.id": ["0.0.999999"]})["accounts"] == []
    after = get({"account.id": ["gt:0.0.1001"], "limit": ["1"]})["accounts"]
    assert [a["account"] for a in after] == ["0.0.2"]


def test_what_is_not_served(get: Any) -> None:
    get({"order": ["desc"]}, 501)
    get({"account.publickey": ["ab" * 32]}, 501)
    get({"balance": ["maybe"]}, 400)
