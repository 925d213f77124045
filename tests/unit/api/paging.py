"""Reading a paged REST listing to its end in process, through its ``links.next``."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs, urlsplit

from hedera_history.api import handle
from hedera_history.store.reader import HistoryReader


def every_page(reader: HistoryReader, path: str, query: dict[str, list[str]], items: str) -> list[dict[str, Any]]:
    """The ``items`` of every page from ``path`` on, in order; each page must answer 200."""
    found: list[dict[str, Any]] = []
    while True:
        page = handle(lambda: reader, "GET", path, query, b"")
        assert page.status == 200, page.body
        json.dumps(page.body)  # always serialisable
        found.extend(page.body[items])
        link = page.body["links"]["next"]
        if link is None:
            return found
        parts = urlsplit(link)
        path, query = parts.path, parse_qs(parts.query)
