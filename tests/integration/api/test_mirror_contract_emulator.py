"""Contract test: on the real V5 and V6 record files written to the Bigtable emulator (and a
generated stream for what they do not hold: topics, network files, stake updates, derived
balances; and hand-built token history for tokens, NFTs and allowances), every route we serve
under the reference mirror node's paths answers what its OpenAPI declares (the response schema of
each status, checked by openapi-schema-validator), with the reference's CORS header and cache
headers for immutable answers."""

from __future__ import annotations

import base64
import contextlib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import pytest
from hedera_history.api.reference_routes import NOT_SERVED, SERVED
from hedera_history.books.parse import parse_address_book
from hedera_history.config import Settings
from hedera_history.derived.applier import BalanceApplier
from hedera_history.derived.snapshot import BalanceSnapshot, load_snapshot
from hedera_history.gen import GeneratorConfig, generate_stream
from hedera_history.pipeline.history_start import record_bootstrap_book
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.store.bigtable_client import gateway_for_instance
from hedera_history.store.reader import HistoryReader
from hedera_history.store.schema import ensure_tables
from hedera_history.store.writer import BlockWriter
from hedera_history.verify.stream import verify_stream

from tests.fixtures.emulators import unique_name
from tests.integration.api.reference_contract import ReferenceContract, load_reference_document
from tests.unit.api.node_reward_world import world_blocks as node_reward_blocks
from tests.unit.api.reference_fetch import follow_links
from tests.unit.api.token_world import ALICE, ART, GOLD, TREASURY, token_world
from tests.unit.api.topic_world import verified_blocks
from tests.unit.api.wsgi_app import query_app

# One worker runs the module: its tests share the loaded store, and the last checks what they covered.
pytestmark = [pytest.mark.emulator, pytest.mark.xdist_group("mirror-contract")]

SETS = {
    "v5": ("v5", "test-resources-testnet.bin"),
    "v6": ("v6", "test-v6-sidecar-4n.bin"),
}
CONTRACT_CALL = "1657701971.304284003"
"""The real V6 contract call by 0.0.2, with a child create (nonce 1) one nanosecond later."""
BOOK_EFFECTIVE_NS = 1_600_000_000 * 10**9
GENERATED = "generated"
TOKEN_SET = "tokens"
NODE_REWARD_SET = "nodes-rewards"
STAKES = (10**17, 2 * 10**17, 3 * 10**17, 4 * 10**17)
GENERATED_CONFIG = GeneratorConfig(
    nodes=4,
    periods=6,
    transactions=40,
    seed=11,
    topics=4,
    network_files=True,
    rotate_key=False,
    stake_updates={2: STAKES},
    contract_logs=True,
)
"""What the real sets do not hold: topics and their messages, exchange-rate and fee-schedule updates,
a NodeStakeUpdate, contract logs; its genesis balances loaded and applied, for the supply and the accounts list."""


@dataclass
class Checker:
    contract: ReferenceContract
    clients: dict[str, Any]
    checked: dict[str, set[int]] = field(default_factory=dict)

    def get(self, data_set: str, url: str, status: int = 200, **headers: str) -> Any:
        response = self.clients[data_set].get(url, headers=headers)
        assert response.status_code == status, (url, response.status_code, response.data[:500])
        assert response.headers["Access-Control-Allow-Origin"] == "*"
        body = response.get_json()
        template = self.contract.validate(urlsplit(url).path, status, body)
        self.checked.setdefault(template, set()).add(status)
        return body

    def not_served(self, data_set: str, url: str) -> None:
        """A form of a reference route history cannot answer: 501 in the reference's error shape."""
        response = self.clients[data_set].get(url)
        assert response.status_code == 501, (url, response.status_code, response.data[:500])
        body = response.get_json()
        self.contract.validate_component("Error", body)
        assert body["_status"]["messages"][0]["message"]

    def follow(self, data_set: str, url: str, key: str) -> list[dict[str, Any]]:
        return follow_links(lambda link: self.get(data_set, link), url, key)


@pytest.fixture(scope="module")
def checker(bigtable_client: Any, hedera_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Checker]:
    instance = bigtable_client.instance(unique_name("contract"))
    clients: dict[str, Any] = {}
    gateways = []
    for name, (folder, book_file) in SETS.items():
        settings = Settings.from_env({}, table_prefix=f"{name}_")
        ensure_tables(instance, settings)
        gateway = gateway_for_instance(instance, settings)
        gateways.append(gateway)
        book_bytes = (hedera_data / "addressbook" / book_file).read_bytes()
        book = parse_address_book(book_bytes)
        blocks = [r.report.block for r in verify_stream(find_local_periods(hedera_data / folder), book)]
        written = BlockWriter(gateway, settings).write_blocks([b for b in blocks if b is not None])
        assert written and all(r.complete for r in written)
        record_bootstrap_book(gateway, book_bytes, BOOK_EFFECTIVE_NS)  # as load and stack upload record it
        clients[name] = query_app(HistoryReader(gateway)).test_client()
    clients[GENERATED], generated_gateway = _generated_set(instance, tmp_path_factory.mktemp("contract-generated"))
    gateways.append(generated_gateway)
    clients[TOKEN_SET], token_gateway = _hand_built_set(instance, "tok_", list(token_world().blocks))
    gateways.append(token_gateway)
    clients[NODE_REWARD_SET], node_reward_gateway = _hand_built_set(instance, "nr_", node_reward_blocks())
    gateways.append(node_reward_gateway)
    yield Checker(ReferenceContract(load_reference_document()), clients)
    for gateway in gateways:
        gateway.close()
    for table in instance.list_tables():
        with contextlib.suppress(Exception):
            table.delete()


def _hand_built_set(instance: Any, prefix: str, blocks: list[Any]) -> tuple[Any, Any]:
    """A query client and its gateway over hand-built history (``token_world``, ``node_reward_world``)."""
    settings = Settings.from_env({}, table_prefix=prefix)
    ensure_tables(instance, settings)
    gateway = gateway_for_instance(instance, settings)
    assert all(r.complete for r in BlockWriter(gateway, settings).write_blocks(blocks))
    return query_app(HistoryReader(gateway)).test_client(), gateway


def _generated_set(instance: Any, folder: Path) -> tuple[Any, Any]:
    """A query client and its gateway over ``GENERATED_CONFIG``'s stream with derived balances."""
    settings = Settings.from_env({}, table_prefix="gen_")
    ensure_tables(instance, settings)
    gateway = gateway_for_instance(instance, settings)
    stream = generate_stream(GENERATED_CONFIG)
    blocks = verified_blocks(stream, folder)
    assert all(r.complete for r in BlockWriter(gateway, settings).write_blocks(list(blocks)))
    genesis = BalanceSnapshot(blocks[0].record.consensus_start - 1, stream.truth["balances"]["genesis"])
    load_snapshot(gateway, settings, genesis, first_block=0)
    assert len(BalanceApplier(gateway, settings).run().applied) == len(blocks)
    return query_app(HistoryReader(gateway)).test_client(), gateway


def test_topics_network_files_stake_supply_and_accounts(checker: Checker) -> None:
    created = checker.get(GENERATED, "/api/v1/transactions?transactiontype=CONSENSUSCREATETOPIC&limit=100")
    topics = [t["entity_id"] for t in created["transactions"]]
    assert topics
    for topic in topics:
        assert checker.get(GENERATED, f"/api/v1/topics/{topic}")["topic_id"] == topic
    messages = [
        m for t in topics for m in checker.follow(GENERATED, f"/api/v1/topics/{t}/messages?limit=3", "messages")
    ]
    assert messages and any(m["chunk_info"] for m in messages)
    first = messages[0]
    one = checker.get(GENERATED, f"/api/v1/topics/{first['topic_id']}/messages/{first['sequence_number']}")
    assert one == checker.get(GENERATED, f"/api/v1/topics/messages/{first['consensus_timestamp']}") == first
    checker.get(GENERATED, "/api/v1/topics/0.0.999999/messages", 404)
    checker.get(GENERATED, "/api/v1/network/exchangerate")
    assert checker.get(GENERATED, "/api/v1/network/fees")["fees"]
    assert checker.get(GENERATED, "/api/v1/network/stake")["stake_total"] == sum(STAKES)
    supply = checker.get(GENERATED, "/api/v1/network/supply")
    assert int(supply["released_supply"]) < int(supply["total_supply"])
    accounts = checker.follow(GENERATED, "/api/v1/accounts?limit=5", "accounts")
    assert {a["account"] for a in accounts} >= {"0.0.2", "0.0.1001"}
    ranged = checker.get(GENERATED, "/api/v1/transactions?account.id=gte:0.0.1001&account.id=lte:0.0.1003")
    assert ranged["transactions"]


@pytest.mark.parametrize("data_set", sorted(SETS))
def test_blocks(checker: Checker, data_set: str) -> None:
    newest_first = checker.follow(data_set, "/api/v1/blocks?limit=1", "blocks")
    numbers = [b["number"] for b in newest_first]
    assert numbers == sorted(numbers, reverse=True) and numbers
    oldest_first = checker.follow(data_set, "/api/v1/blocks?order=asc&limit=1", "blocks")
    assert [b["number"] for b in oldest_first] == numbers[::-1]
    newest = newest_first[0]
    later = checker.get(data_set, f"/api/v1/blocks?timestamp=gte:{newest['timestamp']['to']}")
    assert [b["number"] for b in later["blocks"]] == [newest["number"]]
    earlier = checker.get(data_set, f"/api/v1/blocks?timestamp=lt:{newest['timestamp']['to']}&order=asc")
    assert [b["number"] for b in earlier["blocks"]] == numbers[::-1][:-1]
    for block in newest_first:
        url = f"/api/v1/blocks/{block['number']}"
        response = checker.clients[data_set].get(url)
        assert response.headers["Cache-Control"] == "public, max-age=31536000, immutable"
        assert checker.get(data_set, url) == block
        again = checker.clients[data_set].get(url, headers={"If-None-Match": response.headers["ETag"]})
        assert again.status_code == 304 and again.data == b""
        # By its hash, whole or its first 32 bytes, with or without 0x, as the reference takes it.
        shown = block["hash"].removeprefix("0x")
        for form in (block["hash"], shown, shown[:64], "0x" + shown[:64]):
            assert checker.get(data_set, f"/api/v1/blocks/{form}") == block
    checker.get(data_set, "/api/v1/blocks/99999999", 404)
    checker.get(data_set, "/api/v1/blocks/0x" + "ab" * 48, 404)
    checker.get(data_set, "/api/v1/blocks?limit=0", 400)
    checker.get(data_set, "/api/v1/blocks?order=sideways", 400)
    preflight = checker.clients[data_set].options(
        "/api/v1/blocks", headers={"Origin": "https://explorer.example", "Access-Control-Request-Headers": "x-user"}
    )
    assert preflight.status_code == 204
    assert preflight.headers["Access-Control-Allow-Origin"] == "*"
    assert "GET" in preflight.headers["Access-Control-Allow-Methods"]
    assert preflight.headers["Access-Control-Allow-Headers"] == "x-user"


@pytest.mark.parametrize("data_set", sorted(SETS))
def test_transactions(checker: Checker, data_set: str) -> None:
    listed = checker.follow(data_set, "/api/v1/transactions?limit=25", "transactions")
    assert listed
    stamps = [t["consensus_timestamp"] for t in listed]
    assert stamps == sorted(stamps, key=lambda s: tuple(int(p) for p in s.split(".")), reverse=True)
    ascending = checker.follow(data_set, "/api/v1/transactions?limit=50&order=asc", "transactions")
    assert [t["consensus_timestamp"] for t in ascending] == stamps[::-1]
    for name in {t["name"] for t in listed}:
        typed = checker.follow(data_set, f"/api/v1/transactions?limit=100&transactiontype={name}", "transactions")
        assert typed == [t for t in listed if t["name"] == name]
    for result in ("success", "fail"):
        checker.follow(data_set, f"/api/v1/transactions?limit=100&result={result}", "transactions")
    step = max(1, len(listed) // 20)
    for transaction in listed[::step]:
        by_id = checker.get(data_set, f"/api/v1/transactions/{transaction['transaction_id']}")
        assert transaction["consensus_timestamp"] in {t["consensus_timestamp"] for t in by_id["transactions"]}
        tx_hash = base64.b64decode(transaction["transaction_hash"]).hex()
        assert checker.get(data_set, f"/api/v1/transactions/{tx_hash}")["transactions"][0] == transaction
        nonce = checker.get(
            data_set, f"/api/v1/transactions/{transaction['transaction_id']}?nonce=0&nonce={transaction['nonce']}"
        )
        assert transaction["consensus_timestamp"] in {t["consensus_timestamp"] for t in nonce["transactions"]}
    checker.get(data_set, "/api/v1/transactions/0.0.2-1-1", 404)
    checker.get(data_set, "/api/v1/transactions/not-an-id", 400)
    checker.get(data_set, "/api/v1/transactions?transactiontype=NOPE", 400)


@pytest.mark.parametrize("data_set", sorted(SETS))
def test_accounts_and_balances(checker: Checker, data_set: str) -> None:
    listed = checker.follow(data_set, "/api/v1/transactions?limit=100", "transactions")
    payers = sorted({t["transaction_id"].split("-")[0] for t in listed})
    for payer in payers[:5]:
        own = checker.follow(data_set, f"/api/v1/transactions?limit=10&account.id={payer}", "transactions")
        assert own and all(payer in _accounts_of(t) for t in own)
        account = checker.get(data_set, f"/api/v1/accounts/{payer}?limit=5")
        assert account["account"] == payer
        assert [t["consensus_timestamp"] for t in account["transactions"]] == [
            t["consensus_timestamp"] for t in own[:5]
        ]
        if account["links"]["next"] is not None:
            checker.get(data_set, account["links"]["next"])
        checker.get(data_set, f"/api/v1/accounts/{quote(account['evm_address'])}?transactions=false")
        checker.get(data_set, f"/api/v1/balances?account.id={payer}")
    listing = checker.get(data_set, "/api/v1/balances?limit=2&account.balance=gte:0")
    assert listing["links"]["next"] is None or listing["balances"]  # no derived state loaded here: empty
    checker.not_served(data_set, "/api/v1/balances?order=desc")
    checker.not_served(data_set, "/api/v1/accounts/0.0.2?order=asc")
    ranged = checker.follow(
        data_set, "/api/v1/transactions?limit=100&account.id=gte:0.0.3&account.id=lte:0.0.3", "transactions"
    )
    assert ranged == [t for t in listed if "0.0.3" in _accounts_of(t)]
    checker.get(data_set, "/api/v1/accounts/0.0.987654321", 404)
    checker.get(data_set, "/api/v1/accounts/not-an-account", 400)
    checker.get(data_set, "/api/v1/balances?account.id=x", 400)


def _accounts_of(transaction: dict[str, Any]) -> set[str]:
    payer = transaction["transaction_id"].split("-")[0]
    return {payer, *(t["account"] for t in transaction["transfers"]), transaction["entity_id"]}


def test_contract_results(checker: Checker) -> None:
    (call,) = checker.get("v6", f"/api/v1/transactions?timestamp={CONTRACT_CALL}")["transactions"]
    assert call["name"] == "CONTRACTCALL"
    call_id = call["transaction_id"]
    result = checker.get("v6", f"/api/v1/contracts/results/{call_id}")
    assert result["timestamp"] == CONTRACT_CALL
    assert result["contract_id"] and result["state_changes"]
    assert result["block_number"] == 6 and result["block_hash"].startswith("0x")
    by_hash = checker.get("v6", f"/api/v1/contracts/results/{result['hash']}")
    assert by_hash == result
    child = checker.get("v6", f"/api/v1/contracts/results/{call_id}?nonce=1")
    assert child["timestamp"] == "1657701971.304284004"
    actions = checker.get("v6", f"/api/v1/contracts/results/{call_id}/actions")
    assert actions == {"actions": [], "links": {"next": None}}  # these files carry no action sidecars
    at = checker.get("v6", f"/api/v1/contracts/{result['contract_id']}/results/{CONTRACT_CALL}")
    assert at == result
    checker.get("v6", f"/api/v1/contracts/0.0.999999/results/{CONTRACT_CALL}", 404)
    results = checker.follow("v6", f"/api/v1/contracts/{result['contract_id']}/results", "results")
    assert [r["timestamp"] for r in results] == [result["timestamp"]]
    internal = checker.follow("v6", f"/api/v1/contracts/{child['contract_id']}/results?internal=true", "results")
    assert child["timestamp"] in {r["timestamp"] for r in internal}
    created = checker.get("v6", f"/api/v1/contracts/{child['contract_id']}")  # the child create made it
    assert created["created_timestamp"] == child["timestamp"] and created["contract_id"] == child["contract_id"]
    assert checker.get("v6", f"/api/v1/contracts/{created['evm_address']}") == created
    called = checker.get("v6", f"/api/v1/contracts/{result['contract_id']}")  # created before these files
    assert called["created_timestamp"] is None and called["timestamp"]["from"] == CONTRACT_CALL
    checker.get("v6", "/api/v1/contracts/0x" + "ef" * 20, 404)
    call_request = {"data": "0x47f1aae7", "to": "0x" + "00" * 20}
    call_answer = checker.clients["v6"].post("/api/v1/contracts/call", json=call_request)
    assert call_answer.status_code == 501
    checker.contract.validate("/api/v1/contracts/call", 501, call_answer.get_json(), method="post")
    checker.get("v6", "/api/v1/contracts/results/0.0.2-1-1", 404)
    checker.get("v6", "/api/v1/contracts/results/" + "ab" * 32, 404)
    checker.get("v6", "/api/v1/contracts/results/0.0.2-1-1/actions", 404)
    checker.get("v6", "/api/v1/contracts/0.0.1002/results?order=sideways", 400)
    checker.not_served("v6", "/api/v1/contracts/0.0.1002/results?block.number=6")
    every = checker.follow("v6", "/api/v1/contracts/results?internal=true", "results")
    assert [r["timestamp"] for r in every] == [child["timestamp"], CONTRACT_CALL]
    checker.get("v6", "/api/v1/contracts/results?block.number=sideways", 400)


def test_contract_logs(checker: Checker) -> None:
    """Logs of the generated set's calls (``GeneratorConfig.contract_logs``), every contract's and one's."""
    logs = checker.follow(GENERATED, "/api/v1/contracts/results/logs?limit=3", "logs")
    assert logs, "the generated set's calls emit logs"
    contract = logs[0]["contract_id"]
    own = checker.follow(GENERATED, f"/api/v1/contracts/{contract}/results/logs", "logs")
    assert own == [log for log in logs if log["contract_id"] == contract]
    low, high = logs[-1]["timestamp"], logs[0]["timestamp"]
    topic = logs[0]["topics"][0]
    query = f"topic0={topic}&timestamp=gte:{low}&timestamp=lte:{high}&order=asc"
    chosen = checker.follow(GENERATED, f"/api/v1/contracts/results/logs?{query}", "logs")
    assert chosen == [log for log in reversed(logs) if log["topics"][0] == topic]
    checker.get(GENERATED, f"/api/v1/contracts/results/logs?topic0={topic}", 400)
    checker.get(GENERATED, f"/api/v1/contracts/{contract}/results/logs?index=gt:1", 400)


@pytest.mark.parametrize("data_set", sorted(SETS))
def test_network_nodes(checker: Checker, data_set: str, hedera_data: Path) -> None:
    book_file = SETS[data_set][1]
    book = parse_address_book((hedera_data / "addressbook" / book_file).read_bytes())
    nodes = checker.follow(data_set, "/api/v1/network/nodes?limit=2", "nodes")
    assert [n["node_id"] for n in nodes] == sorted(n.node_id for n in book.nodes)
    assert [n["node_account_id"] for n in nodes] == [n.account for n in sorted(book.nodes, key=lambda n: n.node_id)]
    assert {n["timestamp"]["from"] for n in nodes} == {"1600000000.000000000"}
    newest_first = checker.follow(data_set, "/api/v1/network/nodes?order=desc&limit=1", "nodes")
    assert newest_first == nodes[::-1]
    one = checker.get(data_set, f"/api/v1/network/nodes?node.id={nodes[0]['node_id']}")
    assert one["nodes"] == nodes[:1]
    assert checker.get(data_set, "/api/v1/network/nodes?file.id=0.0.101")["nodes"] == []
    # From the book file as it is: the V6 test book gives each node an address both ways.
    expected = [
        [{"domain_name": "", "ip_address_v4": "127.0.0.1", "port": port} for port in (0, 50204 + n["node_id"])]
        if data_set == "v6"
        else []
        for n in nodes
    ]
    assert [n["service_endpoints"] for n in nodes] == expected
    assert {n["node_cert_hash"] for n in nodes} == {"0x"}  # these books carry no certificate hash
    assert checker.get(data_set, "/api/v1/network/nodes?limit=100")["nodes"] == nodes  # capped at 25
    checker.get(data_set, "/api/v1/network/nodes?limit=101", 400)


def test_schedules_and_airdrops(checker: Checker) -> None:
    created = checker.get(GENERATED, "/api/v1/transactions?transactiontype=SCHEDULECREATE&limit=100")
    ids = sorted({t["entity_id"] for t in created["transactions"]}, key=lambda e: int(e.rsplit(".", 1)[1]))
    assert ids
    listed = checker.follow(GENERATED, "/api/v1/schedules?limit=2", "schedules")
    assert [s["schedule_id"] for s in listed] == ids
    for schedule in listed:  # the generator's schedules execute at once, signed by their creator
        assert checker.get(GENERATED, f"/api/v1/schedules/{schedule['schedule_id']}") == schedule
        assert schedule["executed_timestamp"] is not None and schedule["signatures"]
        assert schedule["payer_account_id"] == schedule["creator_account_id"]
    newest_first = checker.follow(GENERATED, "/api/v1/schedules?limit=2&order=desc", "schedules")
    assert newest_first == listed[::-1]
    checker.get(GENERATED, "/api/v1/schedules/0.0.999999", 404)
    checker.get(GENERATED, "/api/v1/schedules?schedule.id=x", 400)
    for route in ("outstanding", "pending"):
        answer = checker.get(GENERATED, f"/api/v1/accounts/0.0.1001/airdrops/{route}")
        assert answer["links"] == {"next": None}
    checker.get(GENERATED, "/api/v1/accounts/0.0.1001/airdrops/pending?sender.id=x", 400)


def test_tokens_nfts_and_allowances(checker: Checker) -> None:
    gold, art, alice, treasury = f"0.0.{GOLD}", f"0.0.{ART}", f"0.0.{ALICE}", f"0.0.{TREASURY}"
    assert checker.get(TOKEN_SET, f"/api/v1/tokens/{gold}")["total_supply"] == "1500"
    assert checker.get(TOKEN_SET, f"/api/v1/tokens/{art}?timestamp=lte:9000000000")["token_id"] == art
    checker.get(TOKEN_SET, f"/api/v1/tokens/{art}?timestamp=1", 404)  # not created yet
    holders = checker.follow(TOKEN_SET, f"/api/v1/tokens/{gold}/balances?limit=1", "balances")
    assert sum(b["balance"] for b in holders) == 1500
    assert checker.follow(TOKEN_SET, f"/api/v1/accounts/{treasury}/tokens?limit=1", "tokens")
    nfts = checker.follow(TOKEN_SET, f"/api/v1/tokens/{art}/nfts?limit=1", "nfts")
    assert [n["serial_number"] for n in nfts] == [3, 2, 1]
    assert checker.get(TOKEN_SET, f"/api/v1/tokens/{art}/nfts/1") == nfts[-1]
    assert checker.follow(TOKEN_SET, f"/api/v1/tokens/{art}/nfts/3/transactions?limit=1", "transactions")
    assert checker.get(TOKEN_SET, f"/api/v1/accounts/{treasury}/nfts")["nfts"] == nfts[-1:]
    for kind in ("crypto", "tokens"):
        assert checker.get(TOKEN_SET, f"/api/v1/accounts/{alice}/allowances/{kind}")["allowances"]
    assert checker.get(TOKEN_SET, f"/api/v1/accounts/{treasury}/allowances/nfts")["allowances"]
    listed = checker.follow(TOKEN_SET, "/api/v1/tokens?limit=1&order=desc", "tokens")
    assert [t["token_id"] for t in listed] == [art, gold]
    checker.get(TOKEN_SET, f"/api/v1/tokens?account.id={alice}&name=Gold", 400)
    checker.not_served(TOKEN_SET, "/api/v1/tokens?publickey=" + "ab" * 32)
    checker.get(TOKEN_SET, "/api/v1/tokens/0.0.999999", 404)
    checker.get(TOKEN_SET, f"/api/v1/tokens/{gold}/balances?account.balance=x", 400)


def test_registered_nodes_and_rewards(checker: Checker) -> None:
    nodes = checker.follow(NODE_REWARD_SET, "/api/v1/network/registered-nodes?limit=1", "registered_nodes")
    assert [n["registered_node_id"] for n in nodes] == [1, 2]
    assert checker.get(NODE_REWARD_SET, "/api/v1/network/registered-nodes?type=BLOCK_NODE")["registered_nodes"]
    checker.get(NODE_REWARD_SET, "/api/v1/network/registered-nodes?registerednode.id=x", 400)
    rewards = checker.follow(NODE_REWARD_SET, "/api/v1/accounts/0.0.1001/rewards?limit=2", "rewards")
    assert [r["amount"] for r in rewards] == [14, 13, 12, 10]
    checker.get(NODE_REWARD_SET, "/api/v1/accounts/0.0.1001/rewards?timestamp=x", 400)


def test_routes_not_served_answer_501_in_the_reference_error_shape(checker: Checker) -> None:
    for template in NOT_SERVED:
        path = re.sub(r"\{[^}]+\}", "0.0.1001", template)
        checker.not_served("v6", path)


def test_every_served_route_was_checked(checker: Checker) -> None:
    """Runs last in this module (after the others, on their worker): each route we serve saw a 200
    that validated."""
    missing = {t for t in SERVED if 200 not in checker.checked.get(t, set())}
    assert not missing, missing
