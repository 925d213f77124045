"""Tokens across the cutover: a generated stream with the token service kinds (record files 0-2, a
wrapped record block 3, native blocks 4-7) loaded through ``load``, then the token routes against
its ground truth: every account's balance of every token after every block, the created tokens,
their NFTs' owners, the token list (every created token, paged both ways, by type and by account),
every account's NFTs and token relationships paged through, and the allowances
left at the end; each answer valid against the reference OpenAPI. The genesis tokens' holdings come
from the genesis balance file, not from history, so their balances here are the truth less the
genesis holdings."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hedera_history.api.render import timestamp
from hedera_history.gen import GeneratedStream, GeneratorConfig, generate_stream, write_stream
from hedera_history.store.reader import HistoryReader

from tests.fixtures.emulators import unique_name
from tests.integration.api.reference_contract import ReferenceContract, checked_get, load_reference_document
from tests.integration.cutover_load import loaded_gateway
from tests.unit.api.reference_fetch import follow_links
from tests.unit.api.wsgi_app import query_app

pytestmark = pytest.mark.emulator
PREFIX = "tokens_"
TOKENS = GeneratorConfig(
    nodes=4, periods=8, transactions=60, seed=3, tokens=True, cutover_after=3, wrapped_periods=1, rotate_key=False
)


@pytest.fixture(scope="module")
def stream() -> GeneratedStream:
    return generate_stream(TOKENS)


@pytest.fixture(scope="module")
def client(bigtable_client: Any, stream: GeneratedStream, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    instance = bigtable_client.instance(unique_name("tokens"))
    folder: Path = tmp_path_factory.mktemp("tokens-cutover")
    write_stream(stream, folder)
    with loaded_gateway(instance, folder, PREFIX) as gateway:
        yield query_app(HistoryReader(gateway)).test_client()


@pytest.fixture(scope="module")
def contract() -> ReferenceContract:
    return ReferenceContract(load_reference_document())


def _follow(client: Any, contract: ReferenceContract, url: str, key: str) -> list[dict[str, Any]]:
    return follow_links(lambda link: checked_get(client, contract, link), url, key)


def test_every_balance_after_every_block(client: Any, contract: ReferenceContract, stream: GeneratedStream) -> None:
    truth = stream.truth
    state = truth["token_state"]
    genesis = state["balances"]["genesis"]
    kinds = set()
    for number, by_token in state["balances"]["by_block"].items():
        block = truth["blocks"][int(number)]
        kinds.add(block["kind"])
        at = timestamp(block["consensus_end_ns"])
        for token, held in by_token.items():
            url = f"/api/v1/tokens/{token}/balances?timestamp={at}&limit=100"
            shown = {b["account"]: b["balance"] for b in checked_get(client, contract, url)["balances"]}
            for account, balance in held.items():
                expected = balance - genesis.get(token, {}).get(account, 0)
                assert shown.get(account, 0) == expected, (number, token, account)
    assert kinds == {"record", "wrapped", "native"}


def test_created_tokens_nfts_and_allowances(client: Any, contract: ReferenceContract, stream: GeneratedStream) -> None:
    state = stream.truth["token_state"]
    created = {token: info for token, info in state["tokens"].items() if info["created_ns"] is not None}
    assert created
    for token in state["tokens"].keys() - created.keys():  # created at genesis, before the history
        checked_get(client, contract, f"/api/v1/tokens/{token}", 404)
    for token, info in created.items():
        answer = checked_get(client, contract, f"/api/v1/tokens/{token}")
        assert (answer["name"], answer["symbol"], answer["type"]) == (info["name"], info["symbol"], info["type"])
        assert answer["treasury_account_id"] == info["treasury"]
        assert answer["created_timestamp"] == timestamp(info["created_ns"])
        assert answer["total_supply"] == str(info["total_supply"]), token
        for serial, owner in state["nft_owners"].get(token, {}).items():
            nft = checked_get(client, contract, f"/api/v1/tokens/{token}/nfts/{serial}")
            assert nft["account_id"] == owner, (token, serial)
    hbar: dict[str, dict[str, int]] = {}
    for allowance in state["allowances"]["hbar"]:
        hbar.setdefault(allowance["owner"], {})[allowance["spender"]] = allowance["amount"]
    for owner, spenders in hbar.items():
        listed = checked_get(client, contract, f"/api/v1/accounts/{owner}/allowances/crypto")["allowances"]
        assert {a["spender"]: a["amount"] for a in listed} == spenders, owner
    for allowance in state["allowances"]["token"]:
        url = f"/api/v1/accounts/{allowance['owner']}/allowances/tokens?token.id={allowance['token']}"
        listed = checked_get(client, contract, url)["allowances"]
        assert [(a["spender"], a["amount"]) for a in listed] == [(allowance["spender"], allowance["amount"])]


def test_every_accounts_nfts_paged_through(client: Any, contract: ReferenceContract, stream: GeneratedStream) -> None:
    """Each account's NFTs, one a page both ways: every NFT of a created token it holds, and of the
    genesis collection those that moved in history (the others' mints are older than it)."""
    state = stream.truth["token_state"]
    created = {t for t, info in state["tokens"].items() if info["created_ns"] is not None}
    held: dict[str, set[tuple[str, int]]] = {}
    for token, owners in state["nft_owners"].items():
        for serial, owner in owners.items():
            held.setdefault(owner, set()).add((token, int(serial)))
    collections = 0
    for owner, nfts in held.items():
        for order in ("asc", "desc"):
            url = f"/api/v1/accounts/{owner}/nfts?limit=1&order={order}"
            pages = [(n["token_id"], n["serial_number"]) for n in _follow(client, contract, url, "nfts")]
            assert len(pages) == len(set(pages)) and set(pages) <= nfts, (owner, order)
            assert {nft for nft in nfts if nft[0] in created} <= set(pages), (owner, order)
            collections = max(collections, len({token for token, _ in pages}))
    assert collections > 1, "an account's pages cross from one collection to another"


def test_every_association_of_a_created_token(
    client: Any, contract: ReferenceContract, stream: GeneratedStream
) -> None:
    state = stream.truth["token_state"]
    final = state["balances"]["final"]
    related: dict[str, dict[str, int]] = {}
    for token, accounts in state["associations"].items():
        if state["tokens"][token]["created_ns"] is not None:
            for account in accounts:
                related.setdefault(account, {})[token] = final.get(token, {}).get(account, 0)
    assert related
    for account, tokens in related.items():
        listed = _follow(client, contract, f"/api/v1/accounts/{account}/tokens?limit=2", "tokens")
        shown = {r["token_id"]: r["balance"] for r in listed}
        assert {token: shown.get(token) for token in tokens} == tokens, account


def test_every_created_token_listed(client: Any, contract: ReferenceContract, stream: GeneratedStream) -> None:
    """``/tokens`` pages through every token created in the history, in id order both ways (the
    genesis tokens' creations are older than it); by type, and by an account's associations."""
    state = stream.truth["token_state"]
    created = {token: info for token, info in state["tokens"].items() if info["created_ns"] is not None}
    by_id = sorted(created, key=lambda token: [int(part) for part in token.split(".")])
    for order, expected in (("asc", by_id), ("desc", by_id[::-1])):
        listed = _follow(client, contract, f"/api/v1/tokens?limit=2&order={order}", "tokens")
        assert [t["token_id"] for t in listed] == expected, order
    assert {t["token_id"]: (t["name"], t["symbol"], t["type"]) for t in listed} == {
        token: (info["name"], info["symbol"], info["type"]) for token, info in created.items()
    }
    unique = [t for t in by_id if created[t]["type"] == "NON_FUNGIBLE_UNIQUE"]
    assert unique and len(unique) < len(by_id), "both types are created"
    listed = _follow(client, contract, "/api/v1/tokens?limit=1&type=NON_FUNGIBLE_UNIQUE", "tokens")
    assert [t["token_id"] for t in listed] == unique
    associated = 0
    for token, accounts in state["associations"].items():
        if token not in created:
            continue
        for account in accounts:
            listed = _follow(client, contract, f"/api/v1/tokens?account.id={account}&limit=2", "tokens")
            assert token in {t["token_id"] for t in listed} <= created.keys(), (account, token)
            associated += 1
    assert associated
