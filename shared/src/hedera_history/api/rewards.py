"""``GET /api/v1/accounts/{idOrAliasOrEvmAddress}/rewards``: the staking rewards paid to an account,
from the reward index (``store.reader_rewards``), as the reference lists its
``staking_reward_transfer`` rows: newest first unless ``order=asc``, ``limit`` 25 (at most 100),
``timestamp`` bounds, and ``links.next`` (the bounds on the far side and any ``eq`` kept, the page's
last timestamp as ``lt:``, ``gt:`` oldest first) when the page is full, as the reference links a full
page.

Unlike the reference, an account history holds no creation of answers an empty list, not a 404 (the
history may start after the account was created)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlencode

from hedera_history.api.entity_lookup import resolve_entity
from hedera_history.api.parse import MAX_I64
from hedera_history.api.query import Query, only, operator, order, page_limit
from hedera_history.api.render import timestamp
from hedera_history.api.transactions_list import parse_filters
from hedera_history.errors import RowDecodeError
from hedera_history.store.reader import HistoryReader
from hedera_history.store.reader_rewards import rewards_page
from hedera_history.store.reward_index import Reward

Reader = Callable[[], HistoryReader]
SkippedRows = Callable[[Sequence[RowDecodeError]], None]


def account_rewards(get_reader: Reader, account_text: str, query: Query, skipped: SkippedRows) -> dict[str, Any]:
    only(query, {"limit", "order", "timestamp"})
    limit = page_limit(query)
    descending = order(query, default="desc") == "desc"
    times = parse_filters({"timestamp": list(query.get("timestamp", []))})
    reader = get_reader()
    account = resolve_entity(reader, account_text, "idOrAliasOrEvmAddress")
    found: tuple[Reward, ...] = ()
    if times.low_ns <= times.high_ns:
        before = None if times.high_ns >= MAX_I64 else times.high_ns + 1
        page = rewards_page(reader, account, times.low_ns, before, limit, descending=descending)
        skipped(page.errors)
        found = page.rewards
    next_link = None
    if found and len(found) == limit:
        params: list[tuple[str, Any]] = [("limit", limit), ("order", "desc" if descending else "asc")]
        kept = ("eq", "gt", "gte") if descending else ("eq", "lt", "lte")
        params += [("timestamp", c) for c in query.get("timestamp", []) if operator(c, "timestamp")[0] in kept]
        params.append(("timestamp", f"{'lt' if descending else 'gt'}:{timestamp(found[-1].consensus_ns)}"))
        next_link = f"/api/v1/accounts/{account_text}/rewards?" + urlencode(params)
    rewards = [{"account_id": r.account, "amount": r.amount, "timestamp": timestamp(r.consensus_ns)} for r in found]
    return {"rewards": rewards, "links": {"next": next_link}}
