"""REST routes shaped like the Hedera mirror node (``/api/v1/...``), GET only."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlencode

from hedera_history.api.accounts import get_account
from hedera_history.api.balances import rest_balances
from hedera_history.api.blocks import get_block, list_blocks
from hedera_history.api.contract_results import contract_result_at, contract_results, get_contract_result
from hedera_history.api.contracts import contract_actions, contract_sidecars, contract_state_changes
from hedera_history.api.errata import rest_errata
from hedera_history.api.errors import InvalidParamsError, NotFoundError, NotServedError
from hedera_history.api.network_nodes import network_nodes
from hedera_history.api.parse import (
    is_hash,
    parse_account,
    parse_hash,
    parse_int,
    parse_timestamp,
    parse_transaction_id,
)
from hedera_history.api.query import Query, only, operator, page_limit, single
from hedera_history.api.reference_routes import not_served_reason
from hedera_history.api.render import render_transactions, timestamp
from hedera_history.api.status import rest_status
from hedera_history.api.transaction_filters import last_value
from hedera_history.api.transactions_list import list_transactions
from hedera_history.errors import RowDecodeError
from hedera_history.logs import event
from hedera_history.store.decode import StoredTransaction
from hedera_history.store.reader import HistoryReader

logger = logging.getLogger(__name__)


def get_transactions(get_reader: Callable[[], HistoryReader], key: str, query: Query) -> dict[str, Any]:
    only(query, {"nonce", "scheduled"})
    found: list[StoredTransaction] = []
    nonce_text, scheduled = last_value(query, "nonce"), last_value(query, "scheduled")
    if is_hash(key):
        stored = get_reader().transaction_by_hash(parse_hash(key))
        found = [stored] if stored is not None else []
    else:
        payer, valid_start = parse_transaction_id(key, "transaction id")
        nonce = None if nonce_text is None else parse_int(nonce_text, "nonce", maximum=2**31 - 1)
        if scheduled not in (None, "true", "false"):
            raise InvalidParamsError("scheduled must be true or false")
        reader = get_reader()
        results = reader.transactions_by_id(payer, valid_start)
        if nonce is not None:
            results = [r for r in results if r.nonce == nonce]
        if scheduled is not None:
            results = [r for r in results if r.scheduled == (scheduled == "true")]
        found, errors = reader.transactions([r.consensus_ns for r in results])
        log_skipped_rows(errors)
    if not found:
        raise NotFoundError(f"transaction {key[:100]} not found")
    rendered, skipped = render_transactions(found)
    if not rendered:
        raise skipped[0]
    log_skipped_rows(skipped)
    return {"transactions": rendered}


def account_transactions(get_reader: Callable[[], HistoryReader], account_text: str, query: Query) -> dict[str, Any]:
    only(query, {"limit", "order", "timestamp"})
    account = parse_account(account_text, "account id")
    limit = page_limit(query)
    if (single(query, "order") or "desc") != "desc":
        raise InvalidParamsError("account history is served newest first: order must be desc")
    before: int | None = None
    until: int | None = None
    for condition in query.get("timestamp", []):
        op, value = operator(condition, "timestamp")
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
    transactions, errors = reader.transactions([e.consensus_ns for e in page.entries])
    rendered, skipped = render_transactions(transactions)
    log_skipped_rows([*errors, *skipped])
    next_link = None
    if page.next_before is not None:
        params: list[tuple[str, Any]] = [("limit", limit), ("timestamp", f"lt:{timestamp(page.next_before)}")]
        if until is not None:
            params.append(("timestamp", f"gt:{timestamp(until)}"))
        next_link = f"/api/v1/accounts/{account}/transactions?" + urlencode(params)
    return {"transactions": rendered, "links": {"next": next_link}}


def log_skipped_rows(errors: Sequence[RowDecodeError]) -> None:
    """Rows a listing left out because they do not decode (the rest of the answer stands)."""
    for error in errors:
        event(logger, "row skipped: it does not decode", logging.WARNING, reason=error.reason)


def route(reader: Callable[[], HistoryReader], path: str, query: Query) -> dict[str, Any]:
    """The JSON body of a GET under /api/v1; raises NotFoundError for unknown paths."""
    reason = not_served_reason(path.rstrip("/"))
    if reason is not None:
        raise NotServedError(f"not served from history: {reason}")
    parts = path.rstrip("/").split("/")[3:]  # after "", "api", "v1"
    match parts:
        case ["blocks"]:
            return list_blocks(reader, query, log_skipped_rows)
        case ["blocks", hash_or_number]:
            return get_block(reader, hash_or_number, query)
        case ["transactions"]:
            return list_transactions(reader, query, log_skipped_rows)
        case ["accounts", account]:
            return get_account(reader, account, query, log_skipped_rows)
        case ["transactions", key]:
            return get_transactions(reader, key, query)
        case ["accounts", account, "transactions"]:
            return account_transactions(reader, account, query)
        case ["contracts", "results", key]:
            return get_contract_result(reader, key, query)
        case ["contracts", contract, "results"]:
            return contract_results(reader, contract, query, log_skipped_rows)
        case ["contracts", contract, "results", consensus]:
            return contract_result_at(reader, contract, consensus, query)
        case ["contracts", "results", consensus, "actions"]:
            return contract_actions(reader, consensus, query)
        case ["contracts", "results", consensus, "state"]:
            return contract_state_changes(reader, consensus, query)
        case ["contracts", "results", consensus, "sidecars"]:
            return contract_sidecars(reader, consensus, query)
        case ["network", "nodes"]:
            return network_nodes(reader, query)
        case ["balances"]:
            return rest_balances(reader, query)
        case ["errata", consensus]:
            return rest_errata(reader, consensus, query)
        case ["status"]:
            return rest_status(reader)
    raise NotFoundError(f"no route {path[:200]}")
