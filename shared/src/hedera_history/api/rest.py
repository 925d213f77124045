"""REST routes shaped like the Hedera mirror node (``/api/v1/...``), GET only."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import urlencode

from hedera_history.api.errors import InvalidParamsError, NotFoundError
from hedera_history.api.parse import (
    is_hash,
    parse_account,
    parse_hash,
    parse_int,
    parse_timestamp,
    parse_transaction_id,
)
from hedera_history.api.render import render_block, render_transaction, timestamp
from hedera_history.store.decode import StoredTransaction
from hedera_history.store.reader import MAX_BLOCK_RANGE, HistoryReader

DEFAULT_LIMIT = 25
MAX_LIMIT = 100
DESC_WINDOWS = 10
"""``order=desc`` looks back at most this many windows of MAX_BLOCK_RANGE block numbers."""

Query = Mapping[str, Sequence[str]]


def get_block(get_reader: Callable[[], HistoryReader], number_text: str) -> dict[str, Any]:
    if number_text.startswith("0x") or len(number_text) > 20:
        raise InvalidParamsError("blocks are looked up by number here, not by hash")
    number = parse_int(number_text, "block number")
    block = get_reader().get_block(number)
    if block is None:
        raise NotFoundError(f"block {number} not found")
    return render_block(block)


def list_blocks(get_reader: Callable[[], HistoryReader], query: Query) -> dict[str, Any]:
    _only(query, {"limit", "order", "block.number"})
    limit = _limit(query)
    order = _single(query, "order") or "asc"
    if order not in ("asc", "desc"):
        raise InvalidParamsError("order must be asc or desc")
    low, high = 0, None
    for condition in query.get("block.number", []):
        op, value = _operator(condition, "block.number")
        number = parse_int(value, "block.number")
        if op in ("gt", "gte", "eq"):
            low = max(low, number + 1 if op == "gt" else number)
        if op in ("lt", "lte", "eq"):
            bound = number - 1 if op == "lt" else number
            high = bound if high is None else min(high, bound)
    if order == "desc" and high is None:
        raise InvalidParamsError("order=desc needs an upper bound: block.number=lt:N or lte:N")
    reader = get_reader()
    if order == "asc":
        numbers = [] if high is not None and high < low else reader.get_blocks(low, high, limit)
        last_op = "gt"
    else:
        numbers = []
        top = high if high is not None else low - 1
        for _ in range(DESC_WINDOWS):
            if top < low or len(numbers) >= limit:
                break
            bottom = max(low, top - MAX_BLOCK_RANGE + 1)
            numbers.extend(reversed(reader.get_blocks(bottom, top)))
            top = bottom - 1
        numbers = numbers[:limit]
        last_op = "lt"
    blocks = [b for b in (reader.get_block(n) for n in numbers) if b is not None]
    next_link = None
    if len(numbers) == limit:
        params = {"limit": limit, "order": order, "block.number": f"{last_op}:{numbers[-1]}"}
        next_link = "/api/v1/blocks?" + urlencode(params)
    return {"blocks": [render_block(b) for b in blocks], "links": {"next": next_link}}


def get_transactions(get_reader: Callable[[], HistoryReader], key: str, query: Query) -> dict[str, Any]:
    _only(query, {"nonce", "scheduled"})
    found: list[StoredTransaction] = []
    if is_hash(key):
        stored = get_reader().transaction_by_hash(parse_hash(key))
        found = [stored] if stored is not None else []
    else:
        payer, valid_start = parse_transaction_id(key, "transaction id")
        nonce_text, scheduled = _single(query, "nonce"), _single(query, "scheduled")
        nonce = None if nonce_text is None else parse_int(nonce_text, "nonce", maximum=2**31 - 1)
        if scheduled not in (None, "true", "false"):
            raise InvalidParamsError("scheduled must be true or false")
        reader = get_reader()
        results = reader.transactions_by_id(payer, valid_start)
        if nonce is not None:
            results = [r for r in results if r.nonce == nonce]
        if scheduled is not None:
            results = [r for r in results if r.scheduled == (scheduled == "true")]
        found = [t for t in (reader.transaction(r.consensus_ns) for r in results) if t is not None]
    if not found:
        raise NotFoundError(f"transaction {key[:100]} not found")
    return {"transactions": [render_transaction(t) for t in found]}


def account_transactions(get_reader: Callable[[], HistoryReader], account_text: str, query: Query) -> dict[str, Any]:
    _only(query, {"limit", "order", "timestamp"})
    account = parse_account(account_text, "account id")
    limit = _limit(query)
    if (_single(query, "order") or "desc") != "desc":
        raise InvalidParamsError("account history is served newest first: order must be desc")
    before: int | None = None
    until: int | None = None
    for condition in query.get("timestamp", []):
        op, value = _operator(condition, "timestamp")
        ns = parse_timestamp(value, "timestamp")
        if op in ("lt", "lte"):
            bound = ns if op == "lt" else ns + 1
            before = bound if before is None else min(before, bound)
        elif op in ("gt", "gte"):
            bound = ns if op == "gt" else ns - 1
            until = bound if until is None else max(until, bound)
        else:
            raise InvalidParamsError("timestamp supports lt, lte, gt and gte")
    reader = get_reader()
    page = reader.account_history(account, before=before, until=until, limit=limit)
    transactions = [t for t in (reader.transaction(e.consensus_ns) for e in page.entries) if t is not None]
    next_link = None
    if page.next_before is not None:
        params: list[tuple[str, Any]] = [("limit", limit), ("timestamp", f"lt:{timestamp(page.next_before)}")]
        if until is not None:
            params.append(("timestamp", f"gt:{timestamp(until)}"))
        next_link = f"/api/v1/accounts/{account}/transactions?" + urlencode(params)
    return {"transactions": [render_transaction(t) for t in transactions], "links": {"next": next_link}}


def route(reader: Callable[[], HistoryReader], path: str, query: Query) -> dict[str, Any]:
    """The JSON body of a GET under /api/v1; raises NotFoundError for unknown paths."""
    parts = path.rstrip("/").split("/")[3:]  # after "", "api", "v1"
    match parts:
        case ["blocks"]:
            return list_blocks(reader, query)
        case ["blocks", number]:
            return get_block(reader, number)
        case ["transactions", key]:
            return get_transactions(reader, key, query)
        case ["accounts", account, "transactions"]:
            return account_transactions(reader, account, query)
    raise NotFoundError(f"no route {path[:200]}")


def _only(query: Query, allowed: set[str]) -> None:
    unknown = set(query) - allowed
    if unknown:
        raise InvalidParamsError(f"unknown query parameters: {', '.join(sorted(unknown))[:200]}")


def _single(query: Query, name: str) -> str | None:
    values = query.get(name, [])
    if len(values) > 1:
        raise InvalidParamsError(f"{name} may be given once")
    return values[0] if values else None


def _limit(query: Query) -> int:
    text = _single(query, "limit")
    return DEFAULT_LIMIT if text is None else parse_int(text, "limit", minimum=1, maximum=MAX_LIMIT)


def _operator(condition: str, name: str) -> tuple[str, str]:
    op, sep, value = condition.partition(":")
    if not sep:
        return "eq", condition
    if op not in ("eq", "gt", "gte", "lt", "lte"):
        raise InvalidParamsError(f"{name}: unknown operator {op[:10]!r}")
    return op, value
