"""An account's history read page by page through ``HistoryReader.account_history``."""

from __future__ import annotations

from hedera_history.store.reader import HistoryReader


def history_pages(reader: HistoryReader, account: str, limit: int, until: int | None = None) -> list[list[int]]:
    """The consensus times of every page, newest first, following ``next_before`` to the end."""
    pages: list[list[int]] = []
    before = None
    while True:
        page = reader.account_history(account, before=before, until=until, limit=limit)
        assert not page.errors
        pages.append([e.consensus_ns for e in page.entries])
        if page.next_before is None:
            return pages
        before = page.next_before
