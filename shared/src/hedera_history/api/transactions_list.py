"""``GET /api/v1/transactions`` as the mirror node lists it: newest first by default, ``account.id``
(one account, or a range: ``gte:``, ``lt:``, ...), ``timestamp`` operators, ``transactiontype``,
``result`` (success/fail), ``type`` (credit/debit), ``limit`` and ``links.next`` (a ``timestamp``
cursor, as the reference's).

Without ``account.id``, or with a range of accounts, the listing walks complete blocks (newest first
or oldest first) and reads each block's transactions, a range keeping those that move hbar, tokens
or an NFT of an account in it; with one account, the account's history index (newest first only).
A request looks at a bounded number of blocks or history rows: when filters leave the page short at
that bound, ``links.next`` still says where to go on, so a page may be short without being the last.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from hedera_history import hapi
from hedera_history.api.block_times import BlockClock
from hedera_history.api.entities import transaction_type_name
from hedera_history.api.errors import InvalidParamsError, NotFoundError, NotServedError
from hedera_history.api.parse import MAX_I64, parse_timestamp
from hedera_history.api.query import Query, only, operator, order, page_limit
from hedera_history.api.render import render_transactions, timestamp
from hedera_history.api.transaction_filters import (
    EntityKey,
    account_id_filter,
    account_id_range,
    entity_key,
    last_value,
)
from hedera_history.api.unsigned_blocks import mark_unsigned
from hedera_history.errors import RowDecodeError
from hedera_history.store.decode import StoredTransaction
from hedera_history.store.reader import HistoryReader

TRANSACTIONS_PATH = "/api/v1/transactions"
MAX_BLOCKS_PER_PAGE = 50
"""Blocks one request reads at most (the page ends there, with a link to go on)."""
MAX_HISTORY_ROWS_PER_PAGE = 1000
BLOCK_STEP = 10
SUCCESS_RESULTS = frozenset({"SUCCESS", "FEE_SCHEDULE_FILE_PART_UPLOADED", "SUCCESS_BUT_MISSING_EXPECTED_OPERATION"})
"""What the reference counts as ``result=success``; everything else is ``fail``."""
TYPE_NAMES = frozenset(
    transaction_type_name(f.name) for f in hapi.TransactionBody.DESCRIPTOR.oneofs_by_name["data"].fields
)

Reader = Callable[[], HistoryReader]
SkippedRows = Callable[[Sequence[RowDecodeError]], None]


@dataclass(frozen=True, slots=True)
class Filters:
    low_ns: int
    high_ns: int
    """Inclusive consensus-time range."""
    account: str | None
    type_name: str | None
    result: str | None
    credit: str | None
    account_range: tuple[EntityKey, EntityKey] | None = None
    """``account.id`` as a range: a transaction moving hbar, tokens or an NFT of an account in it."""

    def keep(self, rendered: dict[str, Any]) -> bool:
        if self.type_name is not None and rendered["name"] != self.type_name:
            return False
        if self.result is not None and (rendered["result"] in SUCCESS_RESULTS) != (self.result == "success"):
            return False
        if self.account_range is not None and not any(self._in_range(a) for a in _moved_accounts(rendered)):
            return False
        if self.credit is not None:
            wanted = 1 if self.credit == "credit" else -1
            return any(t["amount"] * wanted > 0 and self._named(t["account"]) for t in rendered["transfers"])
        return True

    def _named(self, account: str) -> bool:
        if self.account_range is not None:
            return self._in_range(account)
        return self.account is None or account == self.account

    def _in_range(self, account: str | None) -> bool:
        if account is None or self.account_range is None:
            return False
        low, high = self.account_range
        return low <= entity_key(account) <= high


def _moved_accounts(rendered: dict[str, Any]) -> Iterator[str | None]:
    """The accounts of a rendered transaction's hbar, token and NFT transfers."""
    yield from (t["account"] for t in rendered["transfers"])
    yield from (t["account"] for t in rendered.get("token_transfers") or [])
    for nft in rendered.get("nft_transfers") or []:
        yield nft["sender_account_id"]
        yield nft["receiver_account_id"]


def parse_filters(query: Query) -> Filters:
    low, high = 0, MAX_I64
    for condition in query.get("timestamp", []):
        op, value = operator(condition, "timestamp")
        ns = parse_timestamp(value, "timestamp")
        if op in ("gt", "gte", "eq"):
            low = max(low, ns + 1 if op == "gt" else ns)
        if op in ("lt", "lte", "eq"):
            high = min(high, ns - 1 if op == "lt" else ns)
    type_name = last_value(query, "transactiontype")
    if type_name is not None:
        type_name = type_name.upper()
        if type_name not in TYPE_NAMES:
            raise InvalidParamsError("Invalid parameter: transactiontype")
    result = last_value(query, "result")
    if result not in (None, "success", "fail"):
        raise InvalidParamsError("Invalid parameter: result")
    credit = last_value(query, "type")
    if credit not in (None, "credit", "debit"):
        raise InvalidParamsError("Invalid parameter: type")
    return Filters(low, high, account_id_filter(query), type_name, result, credit, account_id_range(query))


def list_transactions(get_reader: Reader, query: Query, skipped: SkippedRows) -> dict[str, Any]:
    only(query, {"account.id", "limit", "order", "timestamp", "transactiontype", "result", "type"})
    limit = page_limit(query)
    direction = order(query, default="desc")
    filters = parse_filters(query)
    if filters.account is not None and direction == "asc":
        raise NotServedError("an account's transactions are listed newest first only (order=desc)")
    reader = get_reader()
    found: list[dict[str, Any]] = []
    cursor: int | None = None
    if filters.low_ns <= filters.high_ns:
        if filters.account is not None:
            candidates = _account_candidates(reader, filters, skipped)
        else:
            candidates = _block_candidates(reader, filters, direction, skipped)
        for item in candidates:
            if isinstance(item, int):  # the walk stopped at its bound: go on from there
                cursor = item
                break
            if filters.keep(item):
                found.append(item)
                if len(found) == limit:
                    cursor = _ns(item["consensus_timestamp"])
                    break
    mark_unsigned(reader, found)
    return {"transactions": found, "links": {"next": _next_link(query, direction, limit, cursor)}}


def transactions_page(
    reader: HistoryReader, filters: Filters, limit: int, skipped: SkippedRows
) -> tuple[list[dict[str, Any]], int | None]:
    """An account's transactions newest first (the ``/accounts/{id}`` embedding): the page and the
    cursor of the next (exclusive upper bound, ns), None at the end."""
    found: list[dict[str, Any]] = []
    cursor: int | None = None
    for item in _account_candidates(reader, filters, skipped):
        if isinstance(item, int):
            cursor = item
            break
        if filters.keep(item):
            found.append(item)
            if len(found) == limit:
                cursor = _ns(item["consensus_timestamp"])
                break
    mark_unsigned(reader, found)
    return found, cursor


def _ns(stamp: str) -> int:
    return parse_timestamp(stamp, "timestamp")


def _rendered(stored: list[StoredTransaction], skipped: SkippedRows) -> list[dict[str, Any]]:
    rendered, errors = render_transactions(stored)
    skipped(errors)
    return rendered


def _account_candidates(
    reader: HistoryReader, filters: Filters, skipped: SkippedRows
) -> Iterator[dict[str, Any] | int]:
    """The account's transactions newest first; an int (the next ``before``) when the bound is hit."""
    if filters.account is None:
        return
    before = filters.high_ns + 1 if filters.high_ns < MAX_I64 else None
    until = filters.low_ns - 1 if filters.low_ns > 0 else None
    read = 0
    while True:
        page = reader.account_history(filters.account, before=before, until=until, limit=100)
        skipped(page.errors)
        stored, errors = reader.transactions(page.entries)
        skipped(errors)
        yield from _rendered(stored, skipped)
        read += len(page.entries)
        if page.next_before is None:
            return
        before = page.next_before
        if read >= MAX_HISTORY_ROWS_PER_PAGE:
            yield before
            return


def _block_candidates(
    reader: HistoryReader, filters: Filters, direction: str, skipped: SkippedRows
) -> Iterator[dict[str, Any] | int]:
    """Transactions of complete blocks in ``direction`` within the time range; an int (a time
    cursor) when the block bound is hit."""
    clock = BlockClock(reader)
    if clock.span() is None:
        return
    low_block = clock.first_ending_from(filters.low_ns)
    high_block = clock.first_ending_from(filters.high_ns)
    read = 0
    if direction == "desc":
        top: int | None = high_block
        while top is not None and top >= low_block:
            page = reader.blocks_descending(top, low_block, BLOCK_STEP)
            for number in page.numbers:
                if read == MAX_BLOCKS_PER_PAGE:
                    yield _block_span(reader, number)[1] + 1
                    return
                read += 1
                yield from reversed(_block_rendered(reader, number, filters, skipped))
            top = page.resume_below - 1 if page.resume_below is not None else None
    else:
        start = low_block
        while True:
            numbers = reader.blocks_ascending(start, high_block, BLOCK_STEP)
            for number in numbers:
                if read == MAX_BLOCKS_PER_PAGE:
                    yield _block_span(reader, number)[0] - 1
                    return
                read += 1
                yield from _block_rendered(reader, number, filters, skipped)
            if len(numbers) < BLOCK_STEP:
                return
            start = numbers[-1] + 1


def _block_span(reader: HistoryReader, number: int) -> tuple[int, int]:
    """The consensus start and end of a block not read yet (the cursor goes just outside it)."""
    block = reader.get_block(number)
    if block is None:  # completion never goes back: a block listed complete stays so
        raise NotFoundError(f"block {number} not found")
    return block.consensus_start, block.consensus_end


def _block_rendered(reader: HistoryReader, number: int, filters: Filters, skipped: SkippedRows) -> list[dict[str, Any]]:
    stored, errors = reader.block_transactions(number)
    skipped(errors)
    return _rendered([t for t in stored if filters.low_ns <= t.consensus_ns <= filters.high_ns], skipped)


def _next_link(query: Query, direction: str, limit: int, cursor: int | None) -> str | None:
    """The same query with the time bound moved past ``cursor`` (exclusive)."""
    if cursor is None:
        return None
    params: list[tuple[str, Any]] = [
        (k, v) for k, values in query.items() if k not in ("timestamp", "limit") for v in values
    ]
    params.append(("limit", limit))
    kept = ("gt", "gte") if direction == "desc" else ("lt", "lte")
    for condition in query.get("timestamp", []):
        op, _ = operator(condition, "timestamp")
        if op in kept:
            params.append(("timestamp", condition))
    params.append(("timestamp", f"{'lt' if direction == 'desc' else 'gt'}:{timestamp(cursor)}"))
    return f"{TRANSACTIONS_PATH}?" + urlencode(params)
