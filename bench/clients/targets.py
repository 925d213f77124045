"""What the clients ask for in a loaded history: ids found through our own REST answers, so the
same calls run on any history (an entity kind the history lacks leaves its calls skipped)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Get = Callable[[str], Any]
"""The JSON answer of a GET of a path under the API (raises on a non-200)."""

PAGES = 20
CREATIONS = {
    "CONTRACTCREATEINSTANCE": "contract",
    "CONSENSUSCREATETOPIC": "topic",
    "TOKENCREATION": "token",
    "SCHEDULECREATE": "schedule",
}


def transactions(get: Get) -> list[dict[str, Any]]:
    """The history's transactions, oldest first (at most ``PAGES`` pages of 100)."""
    found: list[dict[str, Any]] = []
    path: str | None = "/api/v1/transactions?order=asc&limit=100"
    for _ in range(PAGES):
        if path is None:
            break
        page = get(path)
        found.extend(page["transactions"])
        path = page["links"]["next"]
    return found


def payer(transaction: dict[str, Any]) -> str:
    return str(transaction["transaction_id"]).split("-", 1)[0]


def find_targets(get: Get, node_accounts: list[str], node_endpoints: bool) -> dict[str, Any]:
    """``node_accounts``: the nodes of the address book the history was loaded with;
    ``node_endpoints``: whether that book gives their addresses."""
    listed = transactions(get)
    if not listed:
        raise RuntimeError("the API serves no transactions: the history did not load")
    succeeded = [t for t in listed if t["result"] == "SUCCESS"]
    payers = list(dict.fromkeys(payer(t) for t in succeeded))
    created = [t["entity_id"] for t in succeeded if t["name"] == "CRYPTOCREATEACCOUNT" and t["entity_id"]]
    # An account whose creation (hence its key) the history holds, else one with a balance.
    candidates = created[:1] or payers
    accounts = [get(f"/api/v1/accounts/{a}?transactions=false") for a in candidates]
    account = next((a for a in accounts if a["balance"]["balance"] is not None), accounts[0])
    chosen = account["account"]
    listing = get("/api/v1/accounts?limit=100")["accounts"]
    aliased = [a for a in listing if not a["evm_address"].removeprefix("0x").startswith("0" * 24)]
    updated_files = {t["entity_id"] for t in succeeded if t["name"] in ("FILEUPDATE", "FILEAPPEND")}
    found: dict[str, Any] = {
        "account": chosen,
        "account_created_in_history": bool(created),
        "account_evm_address": account["evm_address"],
        "balance": account["balance"]["balance"],
        "other_account": next((p for p in payers if p != chosen), chosen),
        "alias_account": aliased[0]["account"] if aliased else None,
        "alias_evm_address": aliased[0]["evm_address"] if aliased else None,
        "exchange_rate_file": "0.0.112" in updated_files,
        "fee_schedule_file": "0.0.111" in updated_files,
        "stake_update": any(t["name"] == "NODESTAKEUPDATE" for t in succeeded),
        "transaction_id": listed[0]["transaction_id"],
        "block": listed[0]["block_number"],
        "last_timestamp": listed[-1]["consensus_timestamp"],
        "node_accounts": node_accounts,
        "node_endpoints": node_endpoints,
    }
    for transaction in listed:
        kind = CREATIONS.get(transaction["name"])
        if kind and transaction["result"] == "SUCCESS" and transaction["entity_id"] and kind not in found:
            found[kind] = transaction["entity_id"]
    if "token" in found:
        # The agent kit asks for each token the account holds.
        held = get(f"/api/v1/accounts/{chosen}/tokens?limit=100")["tokens"]
        found.update({f"held_token_{i}": token["token_id"] for i, token in enumerate(held)})
    if "contract" in found:
        found["contract_evm_address"] = get(f"/api/v1/contracts/{found['contract']}")["evm_address"]
    return found
