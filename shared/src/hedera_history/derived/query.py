"""Balance answers shaped for the query API (which parses the request and calls these).

- REST, like the mirror node's ``GET /api/v1/balances?account.id=0.0.N&timestamp=<secs.nanos>``:
  ``{"timestamp": ..., "balances": [{"account", "balance", "tokens": []}], "links": {"next": null}}``
  (an empty ``balances`` list when the account has no balance by then).
- JSON-RPC ``getBalance`` with params ``[account]`` or ``[account, {"timestamp": "<secs.nanos>"}]``:
  ``{"context": {"timestamp", "block", "changed_at"}, "value": tinybar}``, ``value`` null when
  unknown (``block`` and ``changed_at``: where the balance last changed).
"""

from __future__ import annotations

from typing import Any

from hedera_history.derived.balances import AccountBalance, account_balance, read_progress
from hedera_history.store.gateway import BigtableGateway

NS_PER_SECOND = 1_000_000_000


def mirror_timestamp(ns: int) -> str:
    return f"{ns // NS_PER_SECOND}.{ns % NS_PER_SECOND:09d}"


def rest_balances_body(gateway: BigtableGateway, account: str, at_ns: int | None = None) -> dict[str, Any]:
    """The mirror-node shaped body of ``/api/v1/balances?account.id=<account>[&timestamp=...]``."""
    found = account_balance(gateway, account, at_ns)
    as_of = found.as_of_ns if found is not None else _as_of(gateway, at_ns)
    return {
        "timestamp": None if as_of is None else mirror_timestamp(as_of),
        "balances": [] if found is None else [{"account": account, "balance": found.balance, "tokens": []}],
        "links": {"next": None},
    }


def rpc_get_balance_result(gateway: BigtableGateway, account: str, at_ns: int | None = None) -> dict[str, Any]:
    """The ``result`` of JSON-RPC ``getBalance``."""
    found: AccountBalance | None = account_balance(gateway, account, at_ns)
    as_of = found.as_of_ns if found is not None else _as_of(gateway, at_ns)
    return {
        "context": {
            "timestamp": None if as_of is None else mirror_timestamp(as_of),
            "block": None if found is None else found.block_number,
            "changed_at": None if found is None else mirror_timestamp(found.changed_ns),
        },
        "value": None if found is None else found.balance,
    }


def _as_of(gateway: BigtableGateway, at_ns: int | None) -> int | None:
    progress = read_progress(gateway)
    if progress is None:
        return None
    return progress.bound_ns if at_ns is None else min(at_ns, progress.bound_ns)
