"""``GET /api/v1/accounts/{idOrAliasOrEvmAddress}`` as the mirror node answers it: the account, its
derived hbar balance (docs/errata.md; at the upper ``timestamp`` bound when there is one) and its
transactions newest first with ``links.next``.

History knows an account's transactions and balance, not its live state: key, memo, expiry,
staking settings and the like come back null (``decline_reward`` false, the schema has no null
there); docs/api.md lists them. An account with neither history nor a balance is a 404.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlencode

from hedera_history.api.errors import InvalidParamsError, NotFoundError, NotServedError
from hedera_history.api.parse import MAX_I64
from hedera_history.api.query import Query, only, order, page_limit
from hedera_history.api.render import timestamp
from hedera_history.api.transaction_filters import account_reference, last_value
from hedera_history.api.transactions_list import parse_filters, transactions_page
from hedera_history.derived.query import rest_balances_body
from hedera_history.errors import RowDecodeError
from hedera_history.store.reader import HistoryReader

Reader = Callable[[], HistoryReader]
SkippedRows = Callable[[Sequence[RowDecodeError]], None]

_LIVE_STATE_FIELDS = (
    "alias",
    "auto_renew_period",
    "created_timestamp",
    "delegation_address",
    "deleted",
    "ethereum_nonce",
    "expiry_timestamp",
    "key",
    "max_automatic_token_associations",
    "memo",
    "receiver_sig_required",
    "staked_account_id",
    "staked_node_id",
    "stake_period_start",
)


def long_zero_address(account: str) -> str:
    shard, realm, num = (int(part) for part in account.split("."))
    return "0x" + shard.to_bytes(4, "big").hex() + realm.to_bytes(8, "big").hex() + num.to_bytes(8, "big").hex()


def get_account(get_reader: Reader, account_text: str, query: Query, skipped: SkippedRows) -> dict[str, Any]:
    only(query, {"limit", "order", "timestamp", "transactiontype", "transactions"})
    account = account_reference(account_text, "idOrAliasOrEvmAddress")
    limit = page_limit(query)
    if order(query, default="desc") != "desc":
        raise NotServedError("account history is served newest first only (order=desc): no reverse index")
    with_transactions = last_value(query, "transactions")
    if with_transactions not in (None, "true", "false"):
        raise InvalidParamsError("Invalid parameter: transactions")
    kept = {name: values for name, values in query.items() if name in ("timestamp", "transactiontype")}
    filters = parse_filters({**kept, "account.id": [account]})
    reader = get_reader()
    transactions: list[dict[str, Any]] = []
    cursor: int | None = None
    if with_transactions != "false":
        transactions, cursor = transactions_page(reader, filters, limit, skipped)
    # As the reference: with a time bound, the account as it was then (the balance at that time).
    at_ns = filters.high_ns if filters.high_ns < MAX_I64 else None
    balance = rest_balances_body(reader.gateway, account, at_ns)
    found = balance["balances"]
    if not found and not transactions and not reader.account_history(account, limit=1).entries:
        raise NotFoundError(f"account {account} not found")
    next_link = None
    if cursor is not None:
        params: list[tuple[str, Any]] = [("limit", limit), ("timestamp", f"lt:{timestamp(cursor)}")]
        params.extend(("transactiontype", v) for v in query.get("transactiontype", [])[-1:])
        next_link = f"/api/v1/accounts/{account}?" + urlencode(params)
    return {
        "account": account,
        **dict.fromkeys(_LIVE_STATE_FIELDS),
        "balance": {
            "timestamp": balance["timestamp"],
            "balance": found[0]["balance"] if found else None,
            "tokens": [],
        },
        "decline_reward": False,
        "evm_address": long_zero_address(account),
        "transactions": transactions,
        "links": {"next": next_link},
    }
