"""``GET /api/v1/network/supply`` from the hbar balances we derive (docs/errata.md): the total supply
(50 billion hbar) and the released supply, the total less the balances of the accounts the
reference counts as unreleased (its default ``unreleasedSupplyAccounts``: 0.0.2, 0.0.42, 0.0.44-71,
0.0.73-87, 0.0.99-100, 0.0.200-349, 0.0.400-750) at ``timestamp`` (its upper bound; now without one).
Each account's newest derived balance by then is one read (``derived.balances.latest_entry``); an
account derived state holds no balance for counts 0. ``timestamp`` in the answer is the time the
derived balances are final to (or the time asked, when earlier). Before balances are derived, or
before application began, a 404, as the reference answers without balances.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hedera_history.api.errors import InvalidParamsError, NotFoundError
from hedera_history.api.parse import MAX_I64
from hedera_history.api.query import Query, only
from hedera_history.api.render import timestamp
from hedera_history.api.transactions_list import parse_filters
from hedera_history.derived.balances import latest_entry, read_progress, read_start
from hedera_history.store.reader import HistoryReader

Reader = Callable[[], HistoryReader]
TOTAL_SUPPLY = 50_000_000_000 * 100_000_000
UNRELEASED_ACCOUNTS = ((2, 2), (42, 42), (44, 71), (73, 87), (99, 100), (200, 349), (400, 750))
"""Inclusive ranges of ``0.0.<num>``."""


def network_supply(get_reader: Reader, query: Query) -> dict[str, Any]:
    only(query, {"timestamp"})
    filters = parse_filters({"timestamp": list(query.get("timestamp", []))})
    if filters.low_ns > filters.high_ns:
        raise InvalidParamsError("Lower timestamp cannot be higher than upper timestamp")
    gateway = get_reader().gateway
    progress = read_progress(gateway)
    if progress is None:
        raise NotFoundError("Not found")
    as_of = progress.bound_ns if filters.high_ns == MAX_I64 else min(filters.high_ns, progress.bound_ns)
    start = read_start(gateway)
    if (start is not None and as_of < start.bound_ns) or as_of < filters.low_ns:
        raise NotFoundError("Not found")
    unreleased = 0
    for low, high in UNRELEASED_ACCOUNTS:
        for num in range(low, high + 1):
            entry = latest_entry(gateway, f"0.0.{num}", as_of)
            unreleased += 0 if entry is None else entry.balance
    return {
        "released_supply": str(TOTAL_SUPPLY - unreleased),
        "timestamp": timestamp(as_of),
        "total_supply": str(TOTAL_SUPPLY),
    }
