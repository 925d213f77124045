"""One page of a listing held whole in memory (a token's holders, an account's relationships,
allowances, NFTs), in the order asked, with the reference's ``links.next``: the same query with
``<name>=gt:<last>`` (``lt:`` newest first)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar
from urllib.parse import urlencode

from hedera_history.api.transaction_filters import entity_key

T = TypeVar("T")


def page_of(
    items: Iterable[T],
    *,
    cursor: Callable[[T], Any],
    sort_key: Callable[[T], Any] | None = None,
    name: str,
    limit: int,
    descending: bool,
    path: str,
    kept: Sequence[tuple[str, Any]] = (),
) -> tuple[list[T], str | None]:
    """The first ``limit`` of ``items`` in ``sort_key`` order (None: by the entity id ``cursor``
    gives, as the reference orders ids), and the link to the next page (None: none); ``kept``: the
    other parameters the next page repeats."""
    ordered = sorted(items, key=sort_key or (lambda item: entity_key(cursor(item))), reverse=descending)
    page = ordered[:limit]
    if len(ordered) <= limit:
        return page, None
    params: list[tuple[str, Any]] = [("limit", limit), ("order", "desc" if descending else "asc"), *kept]
    params.append((name, f"{'lt' if descending else 'gt'}:{cursor(page[-1])}"))
    return page, f"{path}?" + urlencode(params)
