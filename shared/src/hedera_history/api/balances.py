"""Derived hbar balances (docs/errata.md): ``GET /api/v1/balances`` shaped like the mirror node's,
and JSON-RPC ``getBalance``. The answers come from ``derived.query`` and ``api.balances_list``;
this module checks the input.

REST: ``account.id`` (a bare id or ``eq:``: one account; ``gt:`` / ``gte:`` or none: the listing),
``timestamp`` (optional, repeatable; a bare time, ``eq:`` or ``lte:`` = at or before it, ``lt:`` =
before it; without one the answer is "now": as far as balances are applied), and for the listing
``account.balance`` (operators), ``limit`` and ``order`` (``asc`` only).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hedera_history.api.balances_list import ACCOUNT_KEYS, BALANCES_PATH, BalanceBounds, list_balances
from hedera_history.api.errors import InvalidParamsError, NotServedError
from hedera_history.api.parse import parse_account, parse_int, parse_options, parse_timestamp
from hedera_history.api.query import Query, only, operator, order, page_limit, single
from hedera_history.api.transaction_filters import account_reference
from hedera_history.derived.query import rest_balances_body, rpc_get_balance_result
from hedera_history.store.keys import account_prefix, prefix_end
from hedera_history.store.reader import HistoryReader

Reader = Callable[[], HistoryReader]


def rest_balances(get_reader: Reader, query: Query) -> dict[str, Any]:
    only(query, {"account.id", "account.balance", "account.publickey", "limit", "order", "timestamp"})
    if query.get("account.publickey"):
        raise NotServedError("account.publickey: history does not keep accounts' keys")
    at_ns = _at(query)
    account_text = single(query, "account.id")
    op, value = operator(account_text, "account.id") if account_text is not None else ("gt", None)
    if op == "eq" and value is not None:
        page_limit(query)
        order(query, default="asc")  # checked as for a listing; one account has no order
        body = rest_balances_body(get_reader().gateway, account_reference(value, "account.id"), at_ns)
        bounds = _balance_bounds(query)
        return body | {"balances": [b for b in body["balances"] if bounds.keep(b["balance"])]}
    return balance_listing(get_reader, query, at_ns, BALANCES_PATH)


def balance_listing(get_reader: Reader, query: Query, at_ns: int | None, path: str) -> dict[str, Any]:
    """Every account's balance from the ``account.id`` (``gt:``/``gte:``) on, in key order, at
    ``at_ns`` (None: now), with ``account.balance`` bounds and ``limit``; ``links.next`` to ``path``."""
    account_text = single(query, "account.id")
    op, value = operator(account_text, "account.id") if account_text is not None else ("gt", None)
    if op not in ("gt", "gte"):
        raise InvalidParamsError("account.id: the listing goes forwards (gt: or gte:) or takes one account")
    start = ACCOUNT_KEYS.start
    if value is not None:
        prefix = account_prefix(account_reference(value, "account.id"))
        start = prefix_end(prefix) if op == "gt" else prefix
    if order(query, default="asc") != "asc":
        raise NotServedError("accounts are listed forwards in account key order only (order=asc)")
    kept = [("timestamp", c) for c in query.get("timestamp", [])]
    kept += [("account.balance", c) for c in query.get("account.balance", [])]
    kept += [("balance", c) for c in query.get("balance", [])]
    return list_balances(
        get_reader().gateway,
        at_ns=at_ns,
        start_key=start,
        limit=page_limit(query),
        bounds=_balance_bounds(query),
        kept_params=kept,
        path=path,
    )


def _at(query: Query) -> int | None:
    at_ns: int | None = None
    for condition in query.get("timestamp", []):
        op, value = operator(condition, "timestamp")
        if op not in ("eq", "lte", "lt"):
            raise InvalidParamsError("timestamp supports eq, lte and lt (the balance at or before a time)")
        ns = parse_timestamp(value, "timestamp")
        bound = ns - 1 if op == "lt" else ns
        if bound < 0:
            raise InvalidParamsError("timestamp lt:0 leaves no time")
        at_ns = bound if at_ns is None else min(at_ns, bound)
    return at_ns


def _balance_bounds(query: Query) -> BalanceBounds:
    low: int | None = None
    high: int | None = None
    for condition in query.get("account.balance", []):
        op, value = operator(condition, "account.balance")
        amount = parse_int(value, "account.balance")
        if op in ("gt", "gte", "eq"):
            bound = amount + 1 if op == "gt" else amount
            low = bound if low is None else max(low, bound)
        if op in ("lt", "lte", "eq"):
            bound = amount - 1 if op == "lt" else amount
            high = bound if high is None else min(high, bound)
    return BalanceBounds(low, high)


def rpc_get_balance(get_reader: Reader, params: dict[str, Any]) -> Any:
    """``[account, {"timestamp": "<seconds.nanos>" | ns}?]``."""
    account = parse_account(params["account"])
    options = parse_options(params.get("options"), ("timestamp",))
    at_ns = parse_timestamp(options["timestamp"], "timestamp") if options.get("timestamp") is not None else None
    return rpc_get_balance_result(get_reader().gateway, account, at_ns)
