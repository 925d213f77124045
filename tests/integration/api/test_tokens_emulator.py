"""The token, NFT and allowance routes on the Bigtable emulator: hand-built token history written
as the pipeline writes it, read back through the query app: the token as of two times, balances
paged through, an account's relationships, an NFT and its transactions, allowances spent; each
answer checked against the reference's OpenAPI."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hedera_history.api.render import timestamp
from hedera_history.config import Settings
from hedera_history.store.reader import HistoryReader

from tests.fixtures.emulators import unique_name
from tests.integration.api.reference_contract import ReferenceContract, checked_get, load_reference_document
from tests.integration.query_function import written_store
from tests.unit.api.token_world import ALICE, ART, BOB, GOLD, TREASURY, TokenWorld, token_world
from tests.unit.api.wsgi_app import query_app

pytestmark = pytest.mark.emulator
GOLD_ID, ART_ID = f"0.0.{GOLD}", f"0.0.{ART}"


@pytest.fixture(scope="module")
def world() -> TokenWorld:
    return token_world()


@pytest.fixture(scope="module")
def client(bigtable_client: Any, world: TokenWorld) -> Iterator[Any]:
    instance = bigtable_client.instance(unique_name("tokens"))
    with written_store(instance, Settings.from_env({}, table_prefix="t_"), world.blocks) as gateway:
        yield query_app(HistoryReader(gateway)).test_client()


@pytest.fixture(scope="module")
def contract() -> ReferenceContract:
    return ReferenceContract(load_reference_document())


get = checked_get


def test_tokens_and_balances(client: Any, contract: ReferenceContract, world: TokenWorld) -> None:
    now = get(client, contract, f"/api/v1/tokens/{GOLD_ID}")
    assert (now["name"], now["total_supply"], now["pause_status"]) == ("Gold 2", "1500", "PAUSED")
    then = get(client, contract, f"/api/v1/tokens/{GOLD_ID}?timestamp=lt:{timestamp(world.times['mint_gold'])}")
    assert (then["name"], then["total_supply"]) == ("Gold", "1000")
    balances: list[tuple[str, int]] = []
    url: str | None = f"/api/v1/tokens/{GOLD_ID}/balances?limit=2&order=asc"
    while url is not None:
        body = get(client, contract, url)
        balances += [(b["account"], b["balance"]) for b in body["balances"]]
        url = body["links"]["next"]
    assert balances == [(f"0.0.{TREASURY}", 1200), (f"0.0.{ALICE}", 280), (f"0.0.{BOB}", 20)]
    get(client, contract, "/api/v1/tokens/0.0.424242", 404)


def test_relationships_nfts_and_allowances(client: Any, contract: ReferenceContract) -> None:
    bob = get(client, contract, f"/api/v1/accounts/0.0.{BOB}/tokens")["tokens"]
    assert [(r["token_id"], r["balance"]) for r in bob] == [(GOLD_ID, 20), (ART_ID, 1)]
    nft = get(client, contract, f"/api/v1/tokens/{ART_ID}/nfts/2")
    assert (nft["account_id"], nft["metadata"], nft["deleted"]) == (f"0.0.{BOB}", "dHdv", False)
    assert get(client, contract, f"/api/v1/accounts/0.0.{BOB}/nfts")["nfts"] == [nft]
    moves = get(client, contract, f"/api/v1/tokens/{ART_ID}/nfts/2/transactions")["transactions"]
    assert [m["type"] for m in moves] == ["CRYPTOTRANSFER", "TOKENMINT"]
    crypto = get(client, contract, f"/api/v1/accounts/0.0.{ALICE}/allowances/crypto")["allowances"]
    assert [(a["spender"], a["amount"], a["amount_granted"]) for a in crypto] == [(f"0.0.{BOB}", 70, 100)]
