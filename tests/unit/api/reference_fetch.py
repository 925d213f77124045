"""A GET through the query app in process, its status and its body checked against the reference
mirror node's OpenAPI: what the in-memory route tests ask with."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hedera_history.api import handle
from hedera_history.store.reader import HistoryReader

from tests.integration.api.reference_contract import ReferenceContract, load_reference_document

Fetch = Callable[..., Any]


def reference_fetcher(reader: HistoryReader) -> Fetch:
    """``fetch(url, status=200)``: the body of ``url`` (path and query string) from ``reader``."""
    contract = ReferenceContract(load_reference_document())

    def fetch(url: str, status: int = 200) -> Any:
        route, _, query_text = url.partition("?")
        query: dict[str, list[str]] = {}
        for pair in filter(None, query_text.split("&")):
            name, _, value = pair.partition("=")
            query.setdefault(name, []).append(value.replace("%3A", ":"))
        response = handle(lambda: reader, "GET", route, query, b"")
        assert response.status == status, (url, response.body)
        contract.validate(route, status, response.body)
        return response.body

    return fetch


def follow_links(get: Callable[[str], Any], url: str, key: str) -> list[Any]:
    """Every item under ``key`` of ``url``'s answer and of each page its ``links.next`` leads to,
    in order (``get``: a page's body by its URL)."""
    found: list[Any] = []
    link: str | None = url
    while link is not None:
        body = get(link)
        found.extend(body[key])
        link = body["links"]["next"]
    return found
