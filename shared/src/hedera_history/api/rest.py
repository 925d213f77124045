"""REST routes shaped like the Hedera mirror node (``/api/v1/...``), GET only."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlencode

from hedera_history.api.accounts import get_account
from hedera_history.api.accounts_list import list_accounts
from hedera_history.api.airdrops import outstanding_airdrops, received_airdrops
from hedera_history.api.allowances import crypto_allowances, nft_allowances, token_allowances
from hedera_history.api.balances import rest_balances
from hedera_history.api.blocks import get_block, list_blocks
from hedera_history.api.contract_entity import get_contract
from hedera_history.api.contract_logs import all_contract_logs, contract_logs
from hedera_history.api.contract_results import (
    contract_result_at,
    contract_results,
    get_contract_result,
    list_contract_results,
)
from hedera_history.api.contracts import contract_actions, contract_sidecars, contract_state_changes
from hedera_history.api.errata import rest_errata
from hedera_history.api.errors import InvalidParamsError, NotFoundError, NotServedError
from hedera_history.api.network_files import exchange_rate, network_fees
from hedera_history.api.network_nodes import network_nodes
from hedera_history.api.network_stake import network_stake
from hedera_history.api.network_supply import network_supply
from hedera_history.api.nfts import get_nft, list_account_nfts, list_token_nfts, nft_transactions
from hedera_history.api.parse import parse_account, parse_int, parse_timestamp, parse_transaction_key
from hedera_history.api.query import Query, only, operator, page_limit, single
from hedera_history.api.reference_routes import not_served_reason
from hedera_history.api.registered_nodes import registered_nodes
from hedera_history.api.render import render_transactions, timestamp
from hedera_history.api.rewards import account_rewards
from hedera_history.api.schedules import get_schedule, list_schedules
from hedera_history.api.status import rest_status
from hedera_history.api.token_list import list_tokens
from hedera_history.api.tokens import account_tokens, get_token, token_balances
from hedera_history.api.topics import get_topic, get_topic_message, list_topic_messages, topic_message_at
from hedera_history.api.transaction_filters import last_value
from hedera_history.api.transactions_list import list_transactions
from hedera_history.api.unsigned_blocks import mark_unsigned
from hedera_history.errors import RowDecodeError
from hedera_history.logs import event
from hedera_history.store.decode import StoredTransaction
from hedera_history.store.reader import HistoryReader

logger = logging.getLogger(__name__)


def get_transactions(get_reader: Callable[[], HistoryReader], key: str, query: Query) -> dict[str, Any]:
    only(query, {"nonce", "scheduled"})
    found: list[StoredTransaction] = []
    nonce_text, scheduled = last_value(query, "nonce"), last_value(query, "scheduled")
    transaction_key = parse_transaction_key(key, "transaction id")
    if isinstance(transaction_key, bytes):
        stored = get_reader().transaction_by_hash(transaction_key)
        found = [stored] if stored is not None else []
    else:
        payer, valid_start = transaction_key
        nonce = None if nonce_text is None else parse_int(nonce_text, "nonce", maximum=2**31 - 1)
        if scheduled not in (None, "true", "false"):
            raise InvalidParamsError("scheduled must be true or false")
        reader = get_reader()
        results = reader.transactions_by_id(payer, valid_start)
        if nonce is not None:
            results = [r for r in results if r.nonce == nonce]
        if scheduled is not None:
            results = [r for r in results if r.scheduled == (scheduled == "true")]
        found, errors = reader.transactions(results)
        log_skipped_rows(errors)
    if not found:
        raise NotFoundError(f"transaction {key[:100]} not found")
    rendered, skipped = render_transactions(found)
    if not rendered:
        raise skipped[0]
    log_skipped_rows(skipped)
    mark_unsigned(get_reader(), rendered)
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
    transactions, errors = reader.transactions(page.entries)
    rendered, skipped = render_transactions(transactions)
    log_skipped_rows([*errors, *skipped])
    mark_unsigned(reader, rendered)
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


_RouteHandler = Callable[..., dict[str, Any]]
"""Called as ``handler(reader, query, *segments)``, one segment per ``_ANY`` in its pattern."""
_ANY = "*"
"""In a route pattern: any one path segment, handed to the handler."""

_ROUTES: tuple[tuple[tuple[str, ...], _RouteHandler], ...] = (
    (("blocks",), lambda r, q: list_blocks(r, q, log_skipped_rows)),
    (("blocks", _ANY), lambda r, q, hash_or_number: get_block(r, hash_or_number, q)),
    (("transactions",), lambda r, q: list_transactions(r, q, log_skipped_rows)),
    (("accounts",), lambda r, q: list_accounts(r, q, log_skipped_rows)),
    (("accounts", _ANY), lambda r, q, account: get_account(r, account, q, log_skipped_rows)),
    (("transactions", _ANY), lambda r, q, key: get_transactions(r, key, q)),
    (("accounts", _ANY, "transactions"), lambda r, q, account: account_transactions(r, account, q)),
    (("contracts", "results"), lambda r, q: list_contract_results(r, q, log_skipped_rows)),
    (("contracts", "results", "logs"), lambda r, q: all_contract_logs(r, q, log_skipped_rows)),
    (("contracts", "results", _ANY), lambda r, q, key: get_contract_result(r, key, q)),
    (("contracts", _ANY), lambda r, q, contract: get_contract(r, contract, q)),
    (("contracts", _ANY, "results"), lambda r, q, contract: contract_results(r, contract, q, log_skipped_rows)),
    (("contracts", _ANY, "results", "logs"), lambda r, q, contract: contract_logs(r, contract, q, log_skipped_rows)),
    (("contracts", _ANY, "results", _ANY), lambda r, q, contract, at: contract_result_at(r, contract, at, q)),
    (("contracts", "results", _ANY, "actions"), lambda r, q, at: contract_actions(r, at, q)),
    (("contracts", "results", _ANY, "state"), lambda r, q, at: contract_state_changes(r, at, q)),
    (("contracts", "results", _ANY, "sidecars"), lambda r, q, at: contract_sidecars(r, at, q)),
    (("network", "nodes"), network_nodes),
    (("network", "exchangerate"), lambda r, q: exchange_rate(r, q, log_skipped_rows)),
    (("network", "fees"), lambda r, q: network_fees(r, q, log_skipped_rows)),
    (("network", "stake"), lambda r, q: network_stake(r, q, log_skipped_rows)),
    (("network", "supply"), network_supply),
    (("network", "registered-nodes"), lambda r, q: registered_nodes(r, q, log_skipped_rows)),
    (("topics", "messages", _ANY), lambda r, q, at: topic_message_at(r, at, q)),
    (("topics", _ANY), lambda r, q, topic: get_topic(r, topic, q, log_skipped_rows)),
    (("topics", _ANY, "messages"), lambda r, q, topic: list_topic_messages(r, topic, q, log_skipped_rows)),
    (("topics", _ANY, "messages", _ANY), lambda r, q, topic, sequence: get_topic_message(r, topic, sequence, q)),
    (("tokens",), lambda r, q: list_tokens(r, q, log_skipped_rows)),
    (("tokens", _ANY), lambda r, q, token: get_token(r, token, q, log_skipped_rows)),
    (("tokens", _ANY, "balances"), lambda r, q, token: token_balances(r, token, q, log_skipped_rows)),
    (("tokens", _ANY, "nfts"), lambda r, q, token: list_token_nfts(r, token, q, log_skipped_rows)),
    (("tokens", _ANY, "nfts", _ANY), lambda r, q, token, serial: get_nft(r, token, serial, q)),
    (("tokens", _ANY, "nfts", _ANY, "transactions"), lambda r, q, t, n: nft_transactions(r, t, n, q, log_skipped_rows)),
    (("accounts", _ANY, "tokens"), lambda r, q, account: account_tokens(r, account, q, log_skipped_rows)),
    (("accounts", _ANY, "nfts"), lambda r, q, account: list_account_nfts(r, account, q, log_skipped_rows)),
    (("accounts", _ANY, "allowances", "crypto"), lambda r, q, a: crypto_allowances(r, a, q, log_skipped_rows)),
    (("accounts", _ANY, "allowances", "tokens"), lambda r, q, a: token_allowances(r, a, q, log_skipped_rows)),
    (("accounts", _ANY, "allowances", "nfts"), lambda r, q, a: nft_allowances(r, a, q, log_skipped_rows)),
    (("accounts", _ANY, "airdrops", "outstanding"), lambda r, q, a: outstanding_airdrops(r, a, q, log_skipped_rows)),
    (("accounts", _ANY, "airdrops", "pending"), lambda r, q, a: received_airdrops(r, a, q, log_skipped_rows)),
    (("accounts", _ANY, "rewards"), lambda r, q, account: account_rewards(r, account, q, log_skipped_rows)),
    (("schedules",), lambda r, q: list_schedules(r, q, log_skipped_rows)),
    (("schedules", _ANY), lambda r, q, schedule: get_schedule(r, schedule, q, log_skipped_rows)),
    (("balances",), rest_balances),
    (("errata", _ANY), lambda r, q, consensus: rest_errata(r, consensus, q)),
    (("status",), lambda r, _q: rest_status(r)),
)
"""Path patterns under /api/v1, tried in order: the first that fits answers."""


def route(reader: Callable[[], HistoryReader], path: str, query: Query) -> dict[str, Any]:
    """The JSON body of a GET under /api/v1; raises NotFoundError for unknown paths."""
    reason = not_served_reason(path.rstrip("/"))
    if reason is not None:
        raise NotServedError(f"not served from history: {reason}")
    parts = path.rstrip("/").split("/")[3:]  # after "", "api", "v1"
    for pattern, handler in _ROUTES:
        segments = _fit(pattern, parts)
        if segments is not None:
            return handler(reader, query, *segments)
    raise NotFoundError(f"no route {path[:200]}")


def _fit(pattern: tuple[str, ...], parts: Sequence[str]) -> list[str] | None:
    """The segments standing in for ``_ANY`` when ``parts`` fits ``pattern``, else None."""
    if len(pattern) != len(parts):
        return None
    segments = []
    for expected, part in zip(pattern, parts, strict=True):
        if expected == _ANY:
            segments.append(part)
        elif expected != part:
            return None
    return segments
