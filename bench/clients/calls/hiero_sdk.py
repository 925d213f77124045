"""hiero-sdk-python 0.3.0 (PyPI): its mirror-node REST calls, pointed at our API.

A ``Network`` of a name of our own (not mainnet, testnet, previewnet or solo) with
``mirror_address="HOST:PORT"`` takes its REST base from that address (``http://`` for 127.0.0.1
and localhost, ``https://`` otherwise): ``get_mirror_rest_url()`` is ``http://HOST:PORT/api/v1``.
Given no nodes, ``Network`` fetches them from ``/network/nodes`` of ``MIRROR_NODE_URLS[name]``,
which we add for the name. (Topic subscriptions use the mirror node's gRPC API, which we do not
serve.)
"""

from __future__ import annotations

import functools
import importlib
from typing import Any

from bench.clients.calls.record import call, equal, skip, targets

NAME = "hedera-history"


def main() -> None:
    found = targets()
    hiero: Any = importlib.import_module("hiero_sdk_python")
    host_port = found["base_url"].removeprefix("http://")
    hiero.Network.MIRROR_NODE_URLS[NAME] = found["base_url"]

    def nodes_from_mirror() -> Any:
        return hiero.Network(network=NAME, mirror_address=host_port).nodes

    def node_accounts(nodes: Any) -> str | None:
        got = sorted(str(node._account_id) for node in nodes)
        return None if got == sorted(found["node_accounts"]) else f"nodes {got}, expected {found['node_accounts']}"

    name = "Network(network, mirror_address): its nodes from /network/nodes"
    if found["node_endpoints"]:
        call(name, "/api/v1/network/nodes", nodes_from_mirror, node_accounts)
    else:
        skip(name, "/api/v1/network/nodes", "the history's address book gives no node address")
    node_module: Any = importlib.import_module("hiero_sdk_python.node")
    first = hiero.AccountId.from_string(found["node_accounts"][0])
    network = hiero.Network(
        network=NAME, nodes=[node_module._Node(first, "127.0.0.1:50211", None)], mirror_address=host_port
    )
    client = hiero.Client(network)
    account = hiero.AccountId.from_string(found["account"])
    evm = found["account_evm_address"].removeprefix("0x")

    call(
        "AccountId.populate_evm_address(client)",
        "/api/v1/accounts/{idOrAliasOrEvmAddress}",
        lambda: account.populate_evm_address(client).evm_address.to_string(),  # noqa: PLW0108 - called later
        lambda value: None if value.removeprefix("0x") == evm else f"evm address {value}, expected {evm}",
    )

    def account_number(address: str) -> str:
        return str(hiero.AccountId.from_evm_address(address, 0, 0).populate_account_num(client).num)

    by_address = [("long-zero", found["account"], evm)]
    if found["alias_account"]:
        by_address.append(("alias", found["alias_account"], found["alias_evm_address"].removeprefix("0x")))
    for kind, expected, address in by_address:
        call(
            f"AccountId.from_evm_address({kind}).populate_account_num(client)",
            "/api/v1/accounts/{idOrAliasOrEvmAddress}",
            functools.partial(account_number, address),
            equal(expected.split(".")[-1]),
        )
    balance_call = "MirrorNodeAccountBalanceQuery(account).execute(client)"
    if found["balance"] is None:
        skip(balance_call, "/api/v1/balances", "no balance of the account in this history (no starting balances)")
    else:
        call(
            balance_call,
            "/api/v1/balances",
            lambda: hiero.MirrorNodeAccountBalanceQuery(account).execute(client).hbars.to_tinybars(),  # noqa: PLW0108
            lambda value: None if value == found["balance"] else f"balance {value}, expected {found['balance']}",
        )
    if found.get("contract_evm_address"):
        contract_evm = found["contract_evm_address"].removeprefix("0x")
        call(
            "ContractId.from_evm_address(...).populate_contract_num(client)",
            "/api/v1/contracts/{contractIdOrAddress}",
            lambda: hiero.ContractId.from_evm_address(0, 0, contract_evm).populate_contract_num(client).contract,
            lambda value: (
                None if f"0.0.{value}" == found["contract"] else f"contract {value}, expected {found['contract']}"
            ),
        )
    else:
        skip("ContractId.populate_contract_num(client)", "/api/v1/contracts/{contractIdOrAddress}", "no contract")

    def fee_estimate() -> Any:
        client.set_operator(account, hiero.PrivateKey.generate_ed25519())
        transfer = hiero.TransferTransaction().add_hbar_transfer(account, -1).add_hbar_transfer(first, 1)
        return hiero.FeeEstimateQuery().set_transaction(transfer).execute(client)

    call(
        "FeeEstimateQuery().set_transaction(transfer).execute(client)",
        "/api/v1/network/fees",
        fee_estimate,
        lambda value: None,
        "POST",
    )
    call(
        "RegisteredNodeAddressBookQuery().execute(client)",
        "/api/v1/network/registered-nodes",
        lambda: hiero.RegisteredNodeAddressBookQuery().execute(client),
        lambda value: None,
    )


if __name__ == "__main__":
    main()
