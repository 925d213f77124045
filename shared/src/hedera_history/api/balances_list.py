"""``GET /api/v1/balances`` without one account: every account's derived hbar balance at a time,
as the reference lists them, from the ``balances`` table (``derived.rows``).

The table's account keys are ``shard.realm.num`` as text, so the listing goes in that order
(``0.0.10`` before ``0.0.2``) and only forwards (no reverse scan): ``order=asc`` only, and the
``account.id=gt:`` of ``links.next`` means "after, in this order". Each account costs two reads (its
first key, its newest balance at the time); a request looks at most MAX_ACCOUNTS_PER_PAGE accounts
and links on, so a page filtered by ``account.balance`` may be short without being the last.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from hedera_history.derived.balances import latest_entry, read_progress, read_start
from hedera_history.derived.query import mirror_timestamp
from hedera_history.store.gateway import BigtableGateway, KeyRange, RowQuery
from hedera_history.store.keys import ACCOUNT_SEPARATOR, account_prefix, prefix_end
from hedera_history.store.schema import BALANCES, BALANCES_FAMILY

BALANCES_PATH = "/api/v1/balances"
MAX_ACCOUNTS_PER_PAGE = 200
ACCOUNT_KEYS = KeyRange(b"0", b":")
"""Account rows start with a digit (the table's other rows with a letter)."""


@dataclass(frozen=True, slots=True)
class BalanceBounds:
    """``account.balance`` conditions: inclusive tinybar range (None: open)."""

    low: int | None = None
    high: int | None = None

    def keep(self, balance: int) -> bool:
        return (self.low is None or balance >= self.low) and (self.high is None or balance <= self.high)


def list_balances(
    gateway: BigtableGateway,
    *,
    at_ns: int | None,
    start_key: bytes,
    limit: int,
    bounds: BalanceBounds,
    kept_params: Sequence[tuple[str, str]],
    path: str = BALANCES_PATH,
) -> dict[str, Any]:
    """The balances of the accounts from ``start_key`` on, at ``at_ns`` (None: now); ``links.next``
    names ``path`` (the accounts listing pages the same way)."""
    progress = read_progress(gateway)
    empty: dict[str, Any] = {"timestamp": None, "balances": [], "links": {"next": None}}
    if progress is None:
        return empty
    as_of = progress.bound_ns if at_ns is None else min(at_ns, progress.bound_ns)
    start = read_start(gateway)
    if start is not None and as_of < start.bound_ns:
        return empty | {"timestamp": mirror_timestamp(as_of)}
    found: list[dict[str, Any]] = []
    cursor: str | None = None
    position = start_key
    for _ in range(MAX_ACCOUNTS_PER_PAGE):
        account = _next_account(gateway, position)
        if account is None:
            cursor = None
            break
        cursor = account
        position = prefix_end(account_prefix(account))
        entry = latest_entry(gateway, account, as_of)
        if entry is not None and bounds.keep(entry.balance):
            found.append({"account": account, "balance": entry.balance, "tokens": []})
            if len(found) == limit:
                break
    next_link = None
    if cursor is not None and _next_account(gateway, prefix_end(account_prefix(cursor))) is not None:
        params = [("limit", str(limit)), ("account.id", f"gt:{cursor}"), *kept_params]
        next_link = f"{path}?" + urlencode(params)
    return {"timestamp": mirror_timestamp(as_of), "balances": found, "links": {"next": next_link}}


def _next_account(gateway: BigtableGateway, position: bytes) -> str | None:
    query = RowQuery(
        ranges=(KeyRange(position, ACCOUNT_KEYS.end),),
        families=(BALANCES_FAMILY,),
        key_only=True,
        cells_per_row=1,
        limit=1,
    )
    for row in gateway.read_rows(BALANCES, query):
        return row.key.partition(ACCOUNT_SEPARATOR)[0].decode("ascii", "replace")
    return None
