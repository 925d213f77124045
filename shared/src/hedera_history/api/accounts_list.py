"""``GET /api/v1/accounts``: the accounts history knows a balance of (the derived balances' table,
``api.balances_list``), each as ``/accounts/{id}`` answers it without its transactions: its state
from its creation and changes in history (``api.entity_state``) and its balance now.

As the balances listing: in account key order (``shard.realm.num`` as text: ``0.0.10`` before
``0.0.2``), forwards only (``order=asc``; ``desc`` is a 501), ``account.id`` ``gt:``/``gte:`` where
to start (a bare id or ``eq:``: that account alone), ``account.balance`` bounds, ``limit``,
``links.next`` by ``account.id=gt:``; ``balance=false`` leaves ``balance`` null. ``account.publickey``
is a 501 (no index by key). Each account costs its balance read and its entity rows' read.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from hedera_history.api.accounts import account_info
from hedera_history.api.balances import balance_listing
from hedera_history.api.entity_state import entity_state
from hedera_history.api.errors import InvalidParamsError, NotServedError
from hedera_history.api.query import Query, only, operator, single
from hedera_history.api.transaction_filters import account_reference
from hedera_history.derived.query import rest_balances_body
from hedera_history.errors import RowDecodeError
from hedera_history.store.reader import HistoryReader

Reader = Callable[[], HistoryReader]
SkippedRows = Callable[[Sequence[RowDecodeError]], None]
ACCOUNTS_PATH = "/api/v1/accounts"


def list_accounts(get_reader: Reader, query: Query, skipped: SkippedRows) -> dict[str, Any]:
    only(query, {"account.balance", "account.id", "account.publickey", "balance", "limit", "order"})
    if query.get("account.publickey"):
        raise NotServedError("account.publickey: history keeps no index of accounts by key")
    with_balance = single(query, "balance") or "true"
    if with_balance not in ("true", "false"):
        raise InvalidParamsError("Invalid parameter: balance")
    account_text = single(query, "account.id")
    reader = get_reader()
    op, value = operator(account_text, "account.id") if account_text is not None else ("gt", "")
    next_link: str | None = None
    if op == "eq":
        account = account_reference(value, "account.id")
        known = rest_balances_body(reader.gateway, account)["balances"] or entity_state(reader, account).found
        accounts = [account] if known else []
    else:
        page = balance_listing(lambda: reader, query, None, ACCOUNTS_PATH)
        accounts = [b["account"] for b in page["balances"]]
        next_link = page["links"]["next"]
    answers = []
    for account in accounts:
        state = entity_state(reader, account)
        skipped(state.errors)
        balance = rest_balances_body(reader.gateway, account) if with_balance == "true" else None
        answers.append(account_info(account, state, balance))
    return {"accounts": answers, "links": {"next": next_link}}
