"""Listings paged by two keys (an account's NFTs by token and serial, allowances by spender and
token): the bounds and the next link the reference's paging gives."""

from __future__ import annotations

from hedera_history.api.entity_pages import pair_bounds, pair_page_of

_PAIRS = [(2, 1), (1, 3), (1, 1), (2, 2), (3, 1), (1, 2)]


def _page(
    low: tuple[int, int], high: tuple[int, int], *, by_first: bool, descending: bool = False
) -> tuple[list[tuple[int, int]], str | None]:
    return pair_page_of(
        _PAIRS,
        key=lambda pair: pair,
        cursor=lambda pair: (f"0.0.{pair[0]}", pair[1]),
        names=("token.id", "serialnumber"),
        within=pair_bounds(low, high, by_first=by_first),
        limit=2,
        descending=descending,
        path="/api/v1/accounts/0.0.9/nfts",
    )


def test_the_first_key_filtered_bounds_the_pair() -> None:
    page, link = _page((1, 3), (9, 9), by_first=True)  # after (1, 2): token.id=gte:1&serialnumber=gt:2
    assert page == [(1, 3), (2, 1)]
    assert link == "/api/v1/accounts/0.0.9/nfts?limit=2&order=asc&token.id=gte%3A0.0.2&serialnumber=gt%3A1"
    assert _page((1, 3), (9, 9), by_first=True)[0] != _page((1, 3), (9, 9), by_first=False)[0]


def test_without_the_first_key_the_second_bounds_each_item() -> None:
    page, link = _page((0, 2), (9, 2), by_first=False, descending=True)
    assert page == [(2, 2), (1, 2)]
    assert link is None
    page, link = _page((0, 1), (9, 1), by_first=False, descending=True)
    assert page == [(3, 1), (2, 1)]
    assert link == "/api/v1/accounts/0.0.9/nfts?limit=2&order=desc&token.id=lte%3A0.0.2&serialnumber=lt%3A1"
