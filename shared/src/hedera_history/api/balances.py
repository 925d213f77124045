"""Derived hbar balances (docs/errata.md): ``GET /api/v1/balances`` shaped like the mirror node's,
and JSON-RPC ``getBalance``. The answers come from ``derived.query``; this module checks the input.

REST: ``account.id`` (required, once; a bare id or ``eq:``) and ``timestamp`` (optional,
repeatable; a bare time, ``eq:`` or ``lte:`` = at or before it, ``lt:`` = before it). Without a
timestamp the answer is "now": as far as balances are applied.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hedera_history.api.errors import InvalidParamsError
from hedera_history.api.parse import parse_account, parse_timestamp
from hedera_history.api.query import Query, only, operator, single
from hedera_history.derived.query import rest_balances_body, rpc_get_balance_result
from hedera_history.store.reader import HistoryReader

Reader = Callable[[], HistoryReader]


def rest_balances(get_reader: Reader, query: Query) -> dict[str, Any]:
    only(query, {"account.id", "timestamp"})
    account_text = single(query, "account.id")
    if account_text is None:
        raise InvalidParamsError("account.id is required (balances are served one account at a time)")
    op, value = operator(account_text, "account.id")
    if op != "eq":
        raise InvalidParamsError("account.id takes one account id (eq:)")
    account = parse_account(value, "account.id")
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
    return rest_balances_body(get_reader().gateway, account, at_ns)


def rpc_get_balance(get_reader: Reader, params: dict[str, Any]) -> Any:
    """``[account, {"timestamp": "<seconds.nanos>" | ns}?]``."""
    account = parse_account(params["account"])
    options = params.get("options")
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise InvalidParamsError("options must be an object {timestamp}")
    unknown = set(options) - {"timestamp"}
    if unknown:
        raise InvalidParamsError(f"unknown options: {', '.join(sorted(str(u) for u in unknown))[:200]}")
    at_ns = parse_timestamp(options["timestamp"], "timestamp") if options.get("timestamp") is not None else None
    return rpc_get_balance_result(get_reader().gateway, account, at_ns)
