"""The token, NFT and allowance routes on hand-built token history, in memory: a token as of any
time (supply from mint and burn receipts, update, pause, custom fees), balances summed from the
records' token transfer lists as of a time, an account's relationships (association, automatic
association, treasury, KYC), NFTs minted, moved and burnt, allowances granted and spent, the token
list (by id, type, name, account; what a page reads); paging, filters and 404s; a transfer or a
creation an errata removed gone; each answer checked against the reference's OpenAPI."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import pytest
from hedera_history import hapi
from hedera_history.api import handle, token_list
from hedera_history.api.render import timestamp
from hedera_history.config import Settings
from hedera_history.errata.apply import apply_errata
from hedera_history.store import schema as s
from hedera_history.store.gateway import RowQuery, StoredRow
from hedera_history.store.reader import HistoryReader
from hedera_history.store.token_index import (
    decode_holder_key,
    decode_relation_key,
    holder_key,
    nft_key,
    nft_owner_key,
    relation_key,
    token_transfer_keys,
)
from hedera_history.store.writer import BlockWriter

from tests.unit.api.reference_fetch import Fetch, follow_links, reference_fetcher
from tests.unit.api.token_world import ALICE, ART, BOB, GOLD, TREASURY, TokenWorld, token_world
from tests.unit.errata.fakes import VersionedGateway
from tests.unit.errata.helpers import SETTINGS as ERRATA_SETTINGS
from tests.unit.errata.helpers import errata_file
from tests.unit.store.builders import NS
from tests.unit.store.fakes import MemoryGateway

GOLD_ID, ART_ID = f"0.0.{GOLD}", f"0.0.{ART}"
TREASURY_ID, ALICE_ID, BOB_ID = f"0.0.{TREASURY}", f"0.0.{ALICE}", f"0.0.{BOB}"


@pytest.fixture(scope="module")
def world() -> TokenWorld:
    return token_world()


@pytest.fixture(scope="module")
def reader(world: TokenWorld) -> HistoryReader:
    gateway = MemoryGateway()
    assert all(r.complete for r in BlockWriter(gateway, Settings()).write_blocks(list(world.blocks)))
    return HistoryReader(gateway)


@pytest.fixture(scope="module")
def get(reader: HistoryReader) -> Fetch:
    return reference_fetcher(reader)


def not_served(reader: HistoryReader, route: str, **query: str) -> None:
    """A form of the route history cannot answer: our 501 (not an answer of the reference's)."""
    assert handle(lambda: reader, "GET", route, {k.replace("_", "."): [v] for k, v in query.items()}, b"").status == 501


def test_keys_say_what_they_hold() -> None:
    held = decode_holder_key(holder_key(GOLD_ID, ALICE_ID, 12345, -20))
    assert (held.account, held.token, held.consensus_ns, held.change) == (ALICE_ID, GOLD_ID, 12345, -20)
    event = decode_relation_key(relation_key(ALICE_ID, GOLD_ID, 7, "associate"))
    assert (event.account, event.token, event.consensus_ns, event.change) == (ALICE_ID, GOLD_ID, 7, None)


def test_token_now_and_as_of_a_time(get: Fetch, world: TokenWorld) -> None:
    now = get(f"/api/v1/tokens/{GOLD_ID}")
    assert (now["name"], now["symbol"], now["memo"], now["decimals"]) == ("Gold 2", "GLD", "new memo", "2")
    assert (now["total_supply"], now["initial_supply"], now["pause_status"]) == ("1500", "1000", "PAUSED")
    assert now["treasury_account_id"] == TREASURY_ID and now["type"] == "FUNGIBLE_COMMON"
    assert now["created_timestamp"] == timestamp(world.times["create_gold"])
    assert now["modified_timestamp"] == timestamp(world.times["pause_gold"])
    assert now["admin_key"] == {"_type": "ED25519", "key": bytes(range(32)).hex()}
    assert now["wipe_key"] is None
    assert now["custom_fees"]["fixed_fees"] == [
        {
            "all_collectors_are_exempt": False,
            "amount": 5,
            "collector_account_id": TREASURY_ID,
            "denominating_token_id": None,
        }
    ]
    before = get(f"/api/v1/tokens/{GOLD_ID}?timestamp={timestamp(world.times['approve'])}")
    assert (before["name"], before["total_supply"], before["pause_status"]) == ("Gold", "1500", "UNPAUSED")
    first = get(f"/api/v1/tokens/{GOLD_ID}?timestamp=lt:{timestamp(world.times['mint_gold'])}")
    assert first["total_supply"] == "1000"
    art = get(f"/api/v1/tokens/{ART_ID}")
    assert (art["type"], art["total_supply"], art["max_supply"], art["supply_type"]) == (
        "NON_FUNGIBLE_UNIQUE",
        "2",
        "10",
        "FINITE",
    )
    assert "royalty_fees" in art["custom_fees"]
    get("/api/v1/tokens/0.0.999999", 404)
    get(f"/api/v1/tokens/{GOLD_ID}?timestamp=gt:1", 400)
    get("/api/v1/tokens/not-a-token", 400)


def test_balances_as_of_any_time(get: Fetch, reader: HistoryReader, world: TokenWorld) -> None:
    now = get(f"/api/v1/tokens/{GOLD_ID}/balances")
    assert now["balances"] == [
        {"account": BOB_ID, "balance": 20, "decimals": 2},
        {"account": ALICE_ID, "balance": 280, "decimals": 2},
        {"account": TREASURY_ID, "balance": 1200, "decimals": 2},
    ]
    assert now["timestamp"] == timestamp(world.times["spend"])
    then = get(f"/api/v1/tokens/{GOLD_ID}/balances?timestamp={timestamp(world.times['create_art'])}&order=asc")
    assert [(b["account"], b["balance"]) for b in then["balances"]] == [(TREASURY_ID, 700), (ALICE_ID, 300)]
    rich = get(f"/api/v1/tokens/{GOLD_ID}/balances?account.balance=gt:100")
    assert [b["account"] for b in rich["balances"]] == [ALICE_ID, TREASURY_ID]
    paged, url = [], f"/api/v1/tokens/{GOLD_ID}/balances?limit=1"
    while url:
        body = get(url)
        paged += body["balances"]
        url = body["links"]["next"]
    assert paged == now["balances"]
    art = get(f"/api/v1/tokens/{ART_ID}/balances")
    assert [(b["account"], b["balance"]) for b in art["balances"]] == [(BOB_ID, 1), (TREASURY_ID, 1)]
    not_served(reader, f"/api/v1/tokens/{GOLD_ID}/balances", account_publickey="abc")


def test_account_relationships(get: Fetch, world: TokenWorld) -> None:
    alice = get(f"/api/v1/accounts/{ALICE_ID}/tokens")["tokens"]
    assert alice == [
        {
            "automatic_association": False,
            "balance": 280,
            "created_timestamp": timestamp(world.times["associate"]),
            "decimals": 2,
            "freeze_status": "UNFROZEN",
            "kyc_status": "GRANTED",
            "token_id": GOLD_ID,
        }
    ]
    bob = get(f"/api/v1/accounts/{BOB_ID}/tokens")["tokens"]
    assert [(r["token_id"], r["balance"], r["automatic_association"]) for r in bob] == [
        (GOLD_ID, 20, True),
        (ART_ID, 1, True),
    ]
    assert bob[0]["kyc_status"] == "REVOKED" and bob[1]["kyc_status"] == "NOT_APPLICABLE"
    treasury = get(f"/api/v1/accounts/{TREASURY_ID}/tokens?limit=1&order=desc")
    assert [r["token_id"] for r in treasury["tokens"]] == [ART_ID]
    rest = get(treasury["links"]["next"])
    assert [(r["token_id"], r["balance"]) for r in rest["tokens"]] == [(GOLD_ID, 1200)]
    assert get(f"/api/v1/accounts/{BOB_ID}/tokens?token.id={ART_ID}")["tokens"] == bob[1:]


def test_nfts(get: Fetch, world: TokenWorld) -> None:
    listed = get(f"/api/v1/tokens/{ART_ID}/nfts")["nfts"]
    assert [(n["serial_number"], n["account_id"], n["deleted"]) for n in listed] == [
        (3, None, True),
        (2, BOB_ID, False),
        (1, TREASURY_ID, False),
    ]
    two = get(f"/api/v1/tokens/{ART_ID}/nfts/2")
    assert two == listed[1]
    assert two["metadata"] == "dHdv"  # b"two"
    assert two["created_timestamp"] == timestamp(world.times["mint_art"])
    assert two["modified_timestamp"] == timestamp(world.times["art_to_bob"])
    assert get(f"/api/v1/tokens/{ART_ID}/nfts?account.id={BOB_ID}")["nfts"] == [two]
    first = get(f"/api/v1/tokens/{ART_ID}/nfts?limit=1&order=asc")
    assert [n["serial_number"] for n in get(first["links"]["next"])["nfts"]] == [2]
    assert get(f"/api/v1/accounts/{BOB_ID}/nfts")["nfts"] == [two]
    held = get(f"/api/v1/accounts/{TREASURY_ID}/nfts")["nfts"]
    assert [(n["serial_number"], n["spender"]) for n in held] == [(1, ALICE_ID)]  # approved after its mint
    assert two["spender"] is None
    get(f"/api/v1/tokens/{ART_ID}/nfts/9", 404)
    get(f"/api/v1/tokens/{ART_ID}/nfts/0", 400)


def test_allowances(get: Fetch, reader: HistoryReader, world: TokenWorld) -> None:
    crypto = get(f"/api/v1/accounts/{ALICE_ID}/allowances/crypto")["allowances"]
    assert crypto == [
        {
            "amount": 70,
            "amount_granted": 100,
            "owner": ALICE_ID,
            "spender": BOB_ID,
            "timestamp": {"from": timestamp(world.times["approve"]), "to": None},
        }
    ]
    tokens = get(f"/api/v1/accounts/{ALICE_ID}/allowances/tokens")["allowances"]
    assert [(a["token_id"], a["amount"], a["amount_granted"]) for a in tokens] == [(GOLD_ID, 30, 50)]
    nfts = get(f"/api/v1/accounts/{TREASURY_ID}/allowances/nfts")["allowances"]
    assert [(a["token_id"], a["spender"], a["approved_for_all"]) for a in nfts] == [(ART_ID, BOB_ID, True)]
    assert get(f"/api/v1/accounts/{BOB_ID}/allowances/crypto")["allowances"] == []
    not_served(reader, f"/api/v1/accounts/{TREASURY_ID}/allowances/nfts", owner="false")


def test_an_errata_removing_a_transfer_takes_it_out_of_the_balances(world: TokenWorld) -> None:
    gateway = VersionedGateway()
    assert all(r.complete for r in BlockWriter(gateway, ERRATA_SETTINGS).write_blocks(list(world.blocks)))
    apply_errata(errata_file(world.times["refused"] + NS, world.times["spend"], None), gateway, ERRATA_SETTINGS)
    get = reference_fetcher(HistoryReader(gateway))
    balances = get(f"/api/v1/tokens/{GOLD_ID}/balances?order=asc")["balances"]
    assert [(b["account"], b["balance"]) for b in balances] == [(TREASURY_ID, 1200), (ALICE_ID, 300)]
    assert [r["token_id"] for r in get(f"/api/v1/accounts/{BOB_ID}/tokens")["tokens"]] == [ART_ID]
    assert get(f"/api/v1/accounts/{ALICE_ID}/allowances/crypto")["allowances"][0]["amount"] == 100


def test_an_nfts_transactions(get: Fetch, world: TokenWorld) -> None:
    moves = get(f"/api/v1/tokens/{ART_ID}/nfts/2/transactions")["transactions"]
    assert [(m["type"], m["sender_account_id"], m["receiver_account_id"]) for m in moves] == [
        ("CRYPTOTRANSFER", TREASURY_ID, BOB_ID),
        ("TOKENMINT", None, TREASURY_ID),
    ]
    first = get(f"/api/v1/tokens/{ART_ID}/nfts/3/transactions?order=asc&limit=1")
    assert first["transactions"][0]["consensus_timestamp"] == timestamp(world.times["mint_art"])
    burnt = get(first["links"]["next"])["transactions"]
    assert [(m["type"], m["receiver_account_id"]) for m in burnt] == [("TOKENBURN", None)]
    since = get(f"/api/v1/tokens/{ART_ID}/nfts/2/transactions?timestamp=gt:{timestamp(world.times['mint_art'])}")
    assert since["transactions"] == moves[:1]


def test_an_accounts_token_balances(get: Fetch, world: TokenWorld) -> None:
    alice = get(f"/api/v1/accounts/{ALICE_ID}?transactions=false")["balance"]["tokens"]
    assert alice == [{"token_id": GOLD_ID, "balance": 280}]
    then = get(f"/api/v1/accounts/{ALICE_ID}?transactions=false&timestamp=lte:{timestamp(world.times['approve'])}")
    assert then["balance"]["tokens"] == [{"token_id": GOLD_ID, "balance": 300}]
    treasury = get(f"/api/v1/accounts/{TREASURY_ID}?transactions=false")["balance"]["tokens"]
    assert treasury == [{"token_id": GOLD_ID, "balance": 1200}, {"token_id": ART_ID, "balance": 1}]


def test_transfer_rows_are_the_key_functions(world: TokenWorld) -> None:
    """The rows a token transfer's record gives are built in place; they are the key functions' keys."""
    record = hapi.TransactionRecord.FromString(world.blocks[1].record.items[2].record_bytes)  # art_to_bob
    built = set(token_transfer_keys(record.tokenTransferLists, 77))
    expected = {
        nft_key(ART_ID, 2, 77, BOB_ID),
        nft_owner_key(TREASURY_ID, ART_ID, 2, 77, "-"),
        nft_owner_key(BOB_ID, ART_ID, 2, 77, "+"),
        holder_key(ART_ID, TREASURY_ID, 77, -1),
        holder_key(ART_ID, BOB_ID, 77, 1),
        relation_key(TREASURY_ID, ART_ID, 77, "held"),
        relation_key(BOB_ID, ART_ID, 77, "held"),
    }
    assert built == expected


class _BlockOneUnsigned(HistoryReader):
    """The token world as if block 1 was stored unsigned (a placeholder proof)."""

    def unsigned_blocks(self, numbers: Iterable[int]) -> set[int]:
        return {n for n in numbers if n == 1}


def test_an_nfts_transactions_say_their_block_is_unsigned(reader: HistoryReader) -> None:
    get = reference_fetcher(_BlockOneUnsigned(reader.gateway))
    moves = get(f"/api/v1/tokens/{ART_ID}/nfts/3/transactions")["transactions"]
    assert [(m["type"], m.get("unsigned")) for m in moves] == [("TOKENBURN", None), ("TOKENMINT", True)]


def test_tokens_listed_from_their_creations(get: Fetch, reader: HistoryReader) -> None:
    listed = get("/api/v1/tokens")
    assert listed["links"]["next"] is None
    gold, art = listed["tokens"]
    assert gold == {
        "admin_key": {"_type": "ED25519", "key": bytes(range(32)).hex()},
        "decimals": 2,
        "metadata": "",
        "name": "Gold 2",  # as it is now, after its update
        "symbol": "GLD",
        "token_id": GOLD_ID,
        "type": "FUNGIBLE_COMMON",
    }
    assert (art["token_id"], art["admin_key"], art["decimals"], art["type"]) == (ART_ID, None, 0, "NON_FUNGIBLE_UNIQUE")
    assert follow_links(get, "/api/v1/tokens?limit=1", "tokens") == [gold, art]
    assert follow_links(get, "/api/v1/tokens?limit=1&order=desc", "tokens") == [art, gold]
    assert get("/api/v1/tokens?limit=1")["links"]["next"] == "/api/v1/tokens?limit=1&order=asc&token.id=gt%3A0.0.5001"


def test_tokens_listed_by_id_type_name_and_account(get: Fetch, reader: HistoryReader) -> None:
    def ids(url: str) -> list[str]:
        return [t["token_id"] for t in get(url)["tokens"]]

    assert ids(f"/api/v1/tokens?token.id={ART}") == [ART_ID]
    assert ids(f"/api/v1/tokens?token.id={GOLD_ID}&token.id=eq:{ART_ID}") == [GOLD_ID, ART_ID]
    assert ids(f"/api/v1/tokens?token.id=gt:{GOLD_ID}") == ids(f"/api/v1/tokens?token.id=ne:{GOLD_ID}") == [ART_ID]
    assert ids(f"/api/v1/tokens?token.id=lt:{GOLD_ID}") == []
    assert ids(f"/api/v1/tokens?token.id={GOLD_ID}&token.id=gt:{GOLD_ID}&order=desc") == []
    assert ids("/api/v1/tokens?type=NON_FUNGIBLE_UNIQUE") == [ART_ID]
    assert ids("/api/v1/tokens?type=fungible_common&order=desc") == [GOLD_ID]
    assert ids("/api/v1/tokens?type=ALL") == [GOLD_ID, ART_ID]
    assert ids("/api/v1/tokens?name=gOLD") == ids("/api/v1/tokens?name=d 2") == [GOLD_ID]
    assert ids("/api/v1/tokens?name=Gold 1") == []
    assert ids(f"/api/v1/tokens?account.id={ALICE_ID}") == [GOLD_ID]  # her refused dissociation changed nothing
    assert ids(f"/api/v1/tokens?account.id={BOB_ID}&order=desc") == [ART_ID, GOLD_ID]  # both automatic
    assert ids(f"/api/v1/tokens?account.id={BOB_ID}&type=FUNGIBLE_COMMON") == [GOLD_ID]
    assert ids("/api/v1/tokens?account.id=0.0.9999") == []
    for refused in (f"name=Gold&token.id={GOLD_ID}", f"name=Gold&account.id={ALICE_ID}", "name=Go", "type=BOTH"):
        get(f"/api/v1/tokens?{refused}", status=400)
    get("/api/v1/tokens?timestamp=1", status=400)  # the reference lists tokens as of now only
    not_served(reader, "/api/v1/tokens", publickey="3c3d546321ff6f63d701d2ec5c277095874e19f4a235bee1e6bb19258bf362be")


def test_a_page_of_tokens_reads_at_most_max_scanned_ids(
    get: Fetch, reader: HistoryReader, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(token_list, "MAX_SCANNED", 1)
    cut_short = get("/api/v1/tokens")
    assert [t["token_id"] for t in cut_short["tokens"]] == [GOLD_ID]
    assert cut_short["links"]["next"] == "/api/v1/tokens?limit=25&order=asc&token.id=gt%3A0.0.5001"
    not_served(reader, "/api/v1/tokens", name="Art")  # Art is the second id: past the bound


def test_an_errata_removing_a_creation_takes_the_token_off_the_list(world: TokenWorld) -> None:
    gateway = VersionedGateway()
    assert all(r.complete for r in BlockWriter(gateway, ERRATA_SETTINGS).write_blocks(list(world.blocks)))
    apply_errata(errata_file(world.times["refused"] + NS, world.times["create_art"], None), gateway, ERRATA_SETTINGS)
    get = reference_fetcher(HistoryReader(gateway))
    for order in ("asc", "desc"):
        assert [t["token_id"] for t in get(f"/api/v1/tokens?order={order}")["tokens"]] == [GOLD_ID]


class _CountingGateway(MemoryGateway):
    """Counts ReadRows requests by table."""

    def __init__(self) -> None:
        super().__init__()
        self.requests: dict[str, int] = {}

    def read_rows(self, table: str, query: RowQuery) -> Iterator[StoredRow]:
        self.requests[table] = self.requests.get(table, 0) + 1
        return super().read_rows(table, query)


def test_a_page_of_tokens_is_one_scan_and_one_read_of_their_changes(world: TokenWorld) -> None:
    gateway = _CountingGateway()
    assert all(r.complete for r in BlockWriter(gateway, Settings()).write_blocks(list(world.blocks)))
    for url in ("/api/v1/tokens", "/api/v1/tokens?limit=1", "/api/v1/tokens?type=NON_FUNGIBLE_UNIQUE"):
        gateway.requests.clear()
        assert handle(lambda: HistoryReader(gateway), "GET", url.partition("?")[0], _query(url), b"").status == 200
        assert gateway.requests[s.ACCOUNT_HISTORY] == 2, (url, gateway.requests)  # tokenlist/, then entity/
        # the tokens' transactions from the items rows their pointers name; the completion of their blocks
        assert gateway.requests[s.ITEMS] == 1 and gateway.requests[s.BLOCKS] <= 2, (url, gateway.requests)


def _query(url: str) -> dict[str, list[str]]:
    query: dict[str, list[str]] = {}
    for pair in filter(None, url.partition("?")[2].split("&")):
        name, _, value = pair.partition("=")
        query.setdefault(name, []).append(value)
    return query
