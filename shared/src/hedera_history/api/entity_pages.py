"""One page of a listing held whole in memory (a token's holders, an account's relationships,
allowances, NFTs), in the order asked, with the reference's ``links.next``: the same query with
``<name>=gt:<last>`` (``lt:`` newest first), or for a listing paged by two keys,
``<first>=gte:<last's first>&<second>=gt:<last's second>`` (``lte:`` and ``lt:`` newest first)."""

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


def pair_bounds(low: tuple[Any, Any], high: tuple[Any, Any], *, by_first: bool) -> Callable[[tuple[Any, Any]], bool]:
    """Whether a (first, second) key lies within inclusive bounds: with the first key filtered
    (``by_first``), the bounds bound the pair as the reference's paging does
    (``first=gte:F&second=gt:S``: after (F, S)); without, the second bounds each item's."""
    return lambda pair: low <= pair <= high if by_first else low[1] <= pair[1] <= high[1]


def pair_page_of(
    items: Iterable[T],
    *,
    key: Callable[[T], tuple[Any, Any]],
    cursor: Callable[[T], tuple[Any, Any]],
    names: tuple[str, str],
    within: Callable[[tuple[Any, Any]], bool],
    limit: int,
    descending: bool,
    path: str,
) -> tuple[list[T], str | None]:
    """The first ``limit`` of ``items`` whose ``key`` is ``within`` (:func:`pair_bounds`), in ``key``
    order, and the link to the next page by the two ``names`` (None: none; ``cursor``: the values
    it names)."""
    ordered = sorted((item for item in items if within(key(item))), key=key, reverse=descending)
    page = ordered[:limit]
    if len(ordered) <= limit:
        return page, None
    side = "lt" if descending else "gt"
    first, second = cursor(page[-1])
    params: list[tuple[str, Any]] = [("limit", limit), ("order", "desc" if descending else "asc")]
    params += [(names[0], f"{side}e:{first}"), (names[1], f"{side}:{second}")]
    return page, f"{path}?" + urlencode(params)
