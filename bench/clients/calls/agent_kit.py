"""hedera-agent-kit 3.4.2 (PyPI): every call of its mirror-node service, then its query tools (what an
agent calls: they read the service's answer further), pointed at our API.

The kit reads the mirror node through ``HederaMirrornodeServiceDefaultImpl`` (its tools take it from
``Context(mirrornode_service=...)``); the default one knows mainnet and testnet only, so build it for
testnet and set its ``base_url`` to ``http://HOST:PORT/api/v1``, then hand it to the context.
"""

from __future__ import annotations

import asyncio
import functools
import importlib
from collections.abc import Awaitable, Callable
from typing import Any

from bench.clients.calls.record import Check, call, skip, targets

MIRRORNODE = "hedera_agent_kit.shared.hedera_utils.mirrornode"
PLUGINS = "hedera_agent_kit.plugins"
TOOLS = [
    # (module, class, route, what the history must hold, its parameters by target name)
    (
        "core_account_query_plugin.get_account_query",
        "GetAccountQueryTool",
        "/api/v1/accounts/{idOrAliasOrEvmAddress}",
        "account_created_in_history",
        {"account_id": "account"},
    ),
    (
        "core_account_query_plugin.get_hbar_balance",
        "GetHbarBalanceTool",
        "/api/v1/accounts/{idOrAliasOrEvmAddress}",
        "account_created_in_history",
        {"account_id": "account"},
    ),
    (
        "core_account_query_plugin.get_token_balances",
        "GetTokenBalancesTool",
        "/api/v1/accounts/{idOrAliasOrEvmAddress}/tokens",
        "account",
        {"account_id": "account"},
    ),
    (
        "core_token_query_plugin.get_pending_airdrop_query",
        "GetPendingAirdropQueryTool",
        "/api/v1/accounts/{idOrAliasOrEvmAddress}/airdrops/pending",
        "account",
        {"account_id": "account"},
    ),
    (
        "core_transaction_query_plugin.get_transaction_record_query",
        "GetTransactionRecordQueryTool",
        "/api/v1/transactions/{transactionId}",
        "transaction_id",
        {"transaction_id": "transaction_id"},
    ),
    (
        "core_misc_query_plugin.get_exchange_rate_tool",
        "GetExchangeRateTool",
        "/api/v1/network/exchangerate",
        "exchange_rate_file",
        {},
    ),
    (
        "core_consensus_query_plugin.get_topic_info_query",
        "GetTopicInfoQueryTool",
        "/api/v1/topics/{topicId}",
        "topic",
        {"topic_id": "topic"},
    ),
    (
        "core_consensus_query_plugin.get_topic_messages_query",
        "GetTopicMessagesQueryTool",
        "/api/v1/topics/{topicId}/messages",
        "topic",
        {"topic_id": "topic"},
    ),
    (
        "core_evm_query_plugin.get_contract_info_query",
        "GetContractInfoQueryTool",
        "/api/v1/contracts/{contractIdOrAddress}",
        "contract",
        {"contract_id": "contract"},
    ),
    (
        "core_token_query_plugin.get_token_info_query",
        "GetTokenInfoQueryTool",
        "/api/v1/tokens/{tokenId}",
        "token",
        {"token_id": "token"},
    ),
]


def main() -> None:
    found = targets()
    mirrornode: Any = importlib.import_module(MIRRORNODE)
    ledger: Any = importlib.import_module("hedera_agent_kit.shared.utils.ledger_id")
    service = mirrornode.HederaMirrornodeServiceDefaultImpl(ledger.LedgerId.TESTNET)
    service.base_url = found["base_url"] + "/api/v1"
    account = found["account"]

    def run(make: Callable[[], Any]) -> Callable[[], Any]:
        return lambda: asyncio.run(make())

    def has(key: str) -> Check:
        return lambda value: None if isinstance(value, dict) and key in value else f"no {key!r} in {value!r}"[:300]

    accounts = [
        ("get_account(id)", lambda: service.get_account(account), lambda value: value["account_id"], account),
        (
            "get_account_hbar_balance(id)",
            lambda: service.get_account_hbar_balance(account),
            lambda value: value,
            found["balance"],
        ),
        (
            "get_account(evm_address)",
            lambda: service.get_account(found["account_evm_address"]),
            lambda value: value["account_id"],
            account,
        ),
    ]
    for name, make, pick, expected in accounts:
        route = "/api/v1/accounts/{idOrAliasOrEvmAddress}"
        if found["account_created_in_history"]:
            call(name, route, run(make), picked(pick, expected))
        else:
            skip(name, route, "no account created in this history: the kit needs its key")
    per_account = [
        ("get_account_token_balances", "tokens", "tokens"),
        ("get_account_nfts", "nfts", "nfts"),
        ("get_pending_airdrops", "airdrops/pending", "airdrops"),
        ("get_outstanding_airdrops", "airdrops/outstanding", "airdrops"),
    ]
    for method_name, tail, key in per_account:
        route = "/api/v1/accounts/{idOrAliasOrEvmAddress}/" + tail
        call(f"{method_name}(id)", route, run(functools.partial(getattr(service, method_name), account)), has(key))
    truth_checks(found, service, run)
    call(
        "get_token_allowances(owner, spender)",
        "/api/v1/accounts/{idOrAliasOrEvmAddress}/allowances/tokens",
        run(lambda: service.get_token_allowances(account, found["other_account"])),
        has("allowances"),
    )
    call(
        "get_transaction_record(transaction_id)",
        "/api/v1/transactions/{transactionId}",
        run(lambda: service.get_transaction_record(found["transaction_id"])),
        has("transactions"),
    )
    call(
        "get_transaction_record(transaction_id, nonce=0)",
        "/api/v1/transactions/{transactionId}",
        run(lambda: service.get_transaction_record(found["transaction_id"], 0)),
        has("transactions"),
    )
    rates = [
        ("get_exchange_rate()", run(service.get_exchange_rate)),
        ("get_exchange_rate(timestamp)", run(lambda: service.get_exchange_rate(found["last_timestamp"]))),
    ]
    for name, make in rates:
        if found["exchange_rate_file"]:
            call(name, "/api/v1/network/exchangerate", make, has("current_rate"))
        else:
            skip(name, "/api/v1/network/exchangerate", "no update of the exchange-rate file 0.0.112 in this history")
    by_id: list[tuple[str, str, str, Callable[[str], Awaitable[Any]], str]] = [
        ("topic", "get_topic_info(id)", "/api/v1/topics/{topicId}", service.get_topic_info, "topic_id"),
        (
            "topic",
            "get_topic_messages({topic_id})",
            "/api/v1/topics/{topicId}/messages",
            lambda topic: service.get_topic_messages({"topic_id": topic}),
            "messages",
        ),
        (
            "topic",
            "get_topic_messages({topic_id, lowerTimestamp, upperTimestamp, limit})",
            "/api/v1/topics/{topicId}/messages",
            lambda topic: service.get_topic_messages(
                {"topic_id": topic, "lowerTimestamp": "0.0", "upperTimestamp": found["last_timestamp"], "limit": 3}
            ),
            "messages",
        ),
        ("token", "get_token_info(id)", "/api/v1/tokens/{tokenId}", service.get_token_info, "token_id"),
        (
            "contract",
            "get_contract_info(id)",
            "/api/v1/contracts/{contractIdOrAddress}",
            service.get_contract_info,
            "contract_id",
        ),
        (
            "contract_evm_address",
            "get_contract_info(evm_address)",
            "/api/v1/contracts/{contractIdOrAddress}",
            service.get_contract_info,
            "contract_id",
        ),
        (
            "schedule",
            "get_scheduled_transaction_details(id)",
            "/api/v1/schedules/{scheduleId}",
            service.get_scheduled_transaction_details,
            "schedule_id",
        ),
    ]
    for kind, name, route, method, key in by_id:
        if found.get(kind):
            call(name, route, run(functools.partial(method, found[kind])), has(key))
        else:
            skip(name, route, f"no {kind} in this history")

    tools(found, service)


def truth_checks(found: dict[str, Any], service: Any, run: Callable[[Callable[[], Any]], Callable[[], Any]]) -> None:
    """On a generated history: what the kit reads back against the generator's ground truth."""
    if "expected_token_balances" not in found:
        return

    def balances(value: Any) -> str | None:
        got = {t["token_id"]: t["balance"] for t in value["tokens"] if t["balance"]}
        expected = found["expected_token_balances"]
        return None if got == expected else f"balances {got}, expected {expected}"

    def nfts(value: Any) -> str | None:
        got = sorted([n["token_id"], n["serial_number"]] for n in value["nfts"])
        others = [nft for nft in got if nft not in found["owned_nfts"]]
        if not got:
            return "no NFT, though the owner holds some that moved in the history"
        return f"NFTs {others} are not the owner's" if others else None

    def pending(value: Any) -> str | None:
        got = sorted(
            [a["sender_id"], a["token_id"], a["serial_number"] or 0, a["amount"] or 0] for a in value["airdrops"]
        )
        expected = found["expected_pending_airdrops"]
        return None if got == expected else f"airdrops {got}, expected {expected}"

    checks: list[tuple[str, str, str, str, Check]] = [
        (
            "get_account_token_balances(id): equals the ground truth",
            "tokens",
            "get_account_token_balances",
            "account",
            balances,
        ),
        (
            "get_account_nfts(owner): some, each the owner's in the ground truth",
            "nfts",
            "get_account_nfts",
            "nft_owner",
            nfts,
        ),
        (
            "get_pending_airdrops(receiver): equals the ground truth",
            "airdrops/pending",
            "get_pending_airdrops",
            "airdrop_receiver",
            pending,
        ),
    ]
    for name, tail, method_name, whose, check in checks:
        if whose in found:
            method = functools.partial(getattr(service, method_name), found[whose])
            call(name, "/api/v1/accounts/{idOrAliasOrEvmAddress}/" + tail, run(method), check)


def picked(pick: Callable[[Any], Any], expected: Any) -> Check:
    return lambda value: None if pick(value) == expected else f"{pick(value)!r}, expected {expected!r}"


def no_error(response: Any) -> str | None:
    return None if response.error is None else str(response.error)[:300]


def tools(found: dict[str, Any], service: Any) -> None:
    """Each query tool as an agent runs it: ``execute(client, context, params)``; it answers an error
    message instead of raising."""
    hiero: Any = importlib.import_module("hiero_sdk_python")
    node: Any = importlib.import_module("hiero_sdk_python.node")
    configuration: Any = importlib.import_module("hedera_agent_kit.shared.configuration")
    first = hiero.AccountId.from_string(found["node_accounts"][0])
    client = hiero.Client(hiero.Network(network="testnet", nodes=[node._Node(first, "127.0.0.1:50211", None)]))
    context = configuration.Context(account_id=found["account"], mirrornode_service=service)

    def execute(tool: Any, arguments: dict[str, Any]) -> Any:
        return asyncio.run(tool.execute(client, context, arguments))

    for module, name, route, needs, params in TOOLS:
        label = f"{name}.execute({', '.join(params)})"
        if not found.get(needs):
            skip(label, route, f"no {needs} in this history")
            continue
        tool = getattr(importlib.import_module(f"{PLUGINS}.{module}"), name)(context)
        arguments = {key: found[target] for key, target in params.items()}
        call(label, route, functools.partial(execute, tool, arguments), no_error)


if __name__ == "__main__":
    main()
