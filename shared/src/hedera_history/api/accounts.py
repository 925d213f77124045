"""``GET /api/v1/accounts/{idOrAliasOrEvmAddress}`` as the mirror node answers it: the account, its
derived hbar balance (docs/errata.md; at the upper ``timestamp`` bound when there is one) and its
transactions newest first with ``links.next``.

The account is named by id, EVM address or alias (``api.entity_lookup``). Its key, memo, alias,
EVM address, creation time and deletion come from its creation and changes in history
(``api.entity_state``), as of the same time; what history does not carry as state (expiry,
staking settings and the like) comes back null (``decline_reward`` false, the schema has no null
there); docs/api.md lists them. An account with neither history nor a balance is a 404.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any
from urllib.parse import urlencode

from hedera_history.api.entity_lookup import resolve_entity
from hedera_history.api.entity_state import EntityState, entity_state, render_alias, render_key
from hedera_history.api.errors import InvalidParamsError, NotFoundError, NotServedError
from hedera_history.api.parse import MAX_I64
from hedera_history.api.query import Query, only, order, page_limit
from hedera_history.api.render import timestamp
from hedera_history.api.tokens import account_token_balances
from hedera_history.api.transaction_filters import entity_reference, last_value
from hedera_history.api.transactions_list import parse_filters, transactions_page
from hedera_history.derived.query import rest_balances_body
from hedera_history.errors import RowDecodeError
from hedera_history.store.reader import HistoryReader

Reader = Callable[[], HistoryReader]
SkippedRows = Callable[[Sequence[RowDecodeError]], None]

_LIVE_STATE_FIELDS = (
    "auto_renew_period",
    "delegation_address",
    "ethereum_nonce",
    "expiry_timestamp",
    "max_automatic_token_associations",
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
    entity_reference(account_text, "idOrAliasOrEvmAddress")  # a bad name is a 400 before any read
    limit = page_limit(query)
    if order(query, default="desc") != "desc":
        raise NotServedError("account history is served newest first only (order=desc): no reverse index")
    with_transactions = last_value(query, "transactions")
    if with_transactions not in (None, "true", "false"):
        raise InvalidParamsError("Invalid parameter: transactions")
    kept = {name: values for name, values in query.items() if name in ("timestamp", "transactiontype")}
    unbound = parse_filters(kept)  # a bad filter is a 400 before any read
    reader = get_reader()
    account = resolve_entity(reader, account_text, "idOrAliasOrEvmAddress")
    filters = replace(unbound, account=account)
    transactions: list[dict[str, Any]] = []
    cursor: int | None = None
    if with_transactions != "false":
        transactions, cursor = transactions_page(reader, filters, limit, skipped)
    # As the reference: with a time bound, the account as it was then (the balance at that time).
    at_ns = filters.high_ns if filters.high_ns < MAX_I64 else None
    balance = rest_balances_body(reader.gateway, account, at_ns)
    state = entity_state(reader, account, at_ns)
    skipped(state.errors)
    if (
        not balance["balances"]
        and not transactions
        and not state.found
        and not reader.account_history(account, limit=1).entries
    ):
        raise NotFoundError(f"account {account} not found")
    next_link = None
    if cursor is not None:
        params: list[tuple[str, Any]] = [("limit", limit), ("timestamp", f"lt:{timestamp(cursor)}")]
        params.extend(("transactiontype", v) for v in query.get("transactiontype", [])[-1:])
        next_link = f"/api/v1/accounts/{account}?" + urlencode(params)
    return {
        **account_info(account, state, balance, account_token_balances(reader, account, at_ns)),
        "transactions": transactions,
        "links": {"next": next_link},
    }


def account_info(
    account: str, state: EntityState, balance: dict[str, Any] | None, tokens: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """The reference's ``AccountInfo`` of an account: its state from history, its balance from a
    ``/balances``-shaped body (None: ``balance`` null, as ``balance=false`` asks) and its token
    balances (``api.tokens.account_token_balances``; none given: empty)."""
    found = [] if balance is None else balance["balances"]
    return {
        "account": account,
        **dict.fromkeys(_LIVE_STATE_FIELDS),
        "alias": render_alias(state.alias),
        "created_timestamp": None if state.created_ns is None else timestamp(state.created_ns),
        "deleted": state.deleted,
        "key": render_key(state.key),
        "memo": state.memo,
        "balance": None
        if balance is None
        else {
            "timestamp": balance["timestamp"],
            "balance": found[0]["balance"] if found else None,
            "tokens": tokens or [],
        },
        "decline_reward": False,
        "evm_address": "0x" + state.evm_address.hex() if state.evm_address else long_zero_address(account),
    }
