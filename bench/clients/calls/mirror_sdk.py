"""hedera-mirror-sdk 0.0.6 (PyPI): every domain it offers, pointed at our API.

The SDK knows mainnet, testnet and previewnet only: build the client for one of them, then set
``base_url`` to ours (``http://HOST:PORT/api``) before the first domain is touched (each domain
takes the base URL when it is first used). Its calls are ``client.<domain>.get(profile_id=...,
params=...)``: ``profile_id`` is what follows the domain's path, ``params`` the query (``lt``,
``gte``, ... as keys become ``account.id`` conditions). It answers ``{"status": ..., "json": ...}``.
"""

from __future__ import annotations

import functools
import importlib
from typing import Any

from bench.clients.calls.record import call, skip, status_200, targets

BROKEN_DOMAINS = ("topic", "state_proof_alpha")
"""Domains whose module defines another domain's class (the SDK's own defect): ``client.topic``
raises ImportError, so these go through ``client.request``, which the domains call."""


def main() -> None:
    found = targets()
    sdk: Any = importlib.import_module("hedera_mirror_sdk.rest")
    client = sdk.Client(version="v1", env="testnet")
    client.base_url = found["base_url"] + "/api"

    def get(domain: str, profile_id: str | None = None, params: dict[str, Any] | None = None) -> Any:
        if domain in BROKEN_DOMAINS:
            answer = client.request("get", client.base_url, domain, "v1", profile_id=profile_id, params=params)
        else:
            answer = getattr(client, domain).get(profile_id=profile_id, params=params)
        return answer["status"], answer["json"]

    account = found["account"]
    calls: list[tuple[str, str, str, str | None, dict[str, Any] | None]] = [
        ("account.get()", "/api/v1/accounts", "account", None, None),
        ("account.get(params={'gte': id})", "/api/v1/accounts", "account", None, {"gte": account}),
        ("account.get(profile_id=id)", "/api/v1/accounts/{idOrAliasOrEvmAddress}", "account", account, None),
        ("transaction.get()", "/api/v1/transactions", "transaction", None, None),
        ("transaction.get(params={'lt': id})", "/api/v1/transactions", "transaction", None, {"lt": account}),
        (
            "transaction.get(params={'account.id': id, 'limit': 5})",
            "/api/v1/transactions",
            "transaction",
            None,
            {"account.id": account, "limit": 5},
        ),
        (
            "transaction.get(profile_id=transaction_id)",
            "/api/v1/transactions/{transactionId}",
            "transaction",
            found["transaction_id"],
            None,
        ),
        ("block.get()", "/api/v1/blocks", "block", None, None),
        ("block.get(profile_id=number)", "/api/v1/blocks/{hashOrNumber}", "block", str(found["block"]), None),
        ("network.get(profile_id='nodes')", "/api/v1/network/nodes", "network", "nodes", None),
        ("network.get(profile_id='supply')", "/api/v1/network/supply", "network", "supply", None),
        ("token.get()", "/api/v1/tokens", "token", None, None),
        # Paths that are not the reference's: the SDK's own names for these domains.
        ("schedule_transaction.get()", "/api/v1/schedule_transactions", "schedule_transaction", None, None),
        ("smart_contract.get()", "/api/v1/smart_contracts", "smart_contract", None, None),
        ("request('get', ..., 'state_proof_alpha')", "/api/v1/state_proof_alpha", "state_proof_alpha", None, None),
    ]
    for name, route, domain, profile_id, params in calls:
        call(name, route, functools.partial(get, domain, profile_id, params), status_200)
    network_files = [
        ("exchange_rate_file", "exchangerate", "no update of the exchange-rate file 0.0.112 in this history"),
        ("fee_schedule_file", "fees", "no update of the fee schedule 0.0.111 in this history"),
        ("stake_update", "stake", "no NodeStakeUpdate in this history"),
    ]
    for kind, name, why in network_files:
        route = f"/api/v1/network/{name}"
        if found[kind]:
            call(f"network.get(profile_id={name!r})", route, functools.partial(get, "network", name), status_200)
        else:
            skip(f"network.get(profile_id={name!r})", route, why)
    by_id = [
        ("topic", "request('get', ..., 'topic', profile_id=id)", "/api/v1/topics/{topicId}", ""),
        (
            "topic",
            "request('get', ..., 'topic', profile_id=id + '/messages')",
            "/api/v1/topics/{topicId}/messages",
            "/messages",
        ),
        ("token", "token.get(profile_id=id)", "/api/v1/tokens/{tokenId}", ""),
        ("token", "token.get(profile_id=id + '/balances')", "/api/v1/tokens/{tokenId}/balances", "/balances"),
    ]
    for kind, name, route, tail in by_id:
        if found.get(kind):
            call(name, route, functools.partial(get, kind, found[kind] + tail), status_200)
        else:
            skip(name, route, f"no {kind} in this history")


if __name__ == "__main__":
    main()
