"""``/api/v1/blocks`` and ``/api/v1/blocks/{hashOrNumber}`` as the mirror node serves them: newest
first by default, ``block.number`` and ``timestamp`` operators, ``links.next``."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlencode

from hedera_history.api.block_times import BlockClock, timestamp_block_bounds
from hedera_history.api.errors import NotFoundError
from hedera_history.api.parse import MAX_I64, parse_int
from hedera_history.api.query import Query, integer_bounds, only, order, page_limit
from hedera_history.api.render import render_block
from hedera_history.errors import RowDecodeError
from hedera_history.store.reader import HistoryReader

BLOCKS_PATH = "/api/v1/blocks"
_BLOCK_HASH = re.compile(r"^(?:0x)?(?:[0-9a-fA-F]{64}|[0-9a-fA-F]{96})$")

Reader = Callable[[], HistoryReader]
SkippedRows = Callable[[Sequence[RowDecodeError]], None]


def get_block(get_reader: Reader, hash_or_number: str, query: Query) -> dict[str, Any]:
    only(query, set())
    by_hash = _BLOCK_HASH.fullmatch(hash_or_number) is not None
    number = None if by_hash else parse_int(hash_or_number, "hashOrNumber")  # bad input: 400, no read
    reader = get_reader()
    if number is None:
        number = reader.block_number_for_hash(bytes.fromhex(hash_or_number.removeprefix("0x")))
        if number is None:
            raise NotFoundError(f"block {hash_or_number[:100]} not found")
    block = reader.get_block(number)
    if block is None:
        raise NotFoundError(f"block {number} not found")
    return render_block(block)


def list_blocks(get_reader: Reader, query: Query, skipped: SkippedRows) -> dict[str, Any]:
    """Complete blocks by number, newest first unless ``order=asc``."""
    only(query, {"limit", "order", "block.number", "timestamp"})
    limit = page_limit(query)
    direction = order(query, default="desc")
    low, high = integer_bounds(query.get("block.number", []), "block.number", maximum=MAX_I64)
    reader = get_reader()
    if query.get("timestamp"):
        low, high = timestamp_block_bounds(BlockClock(reader), query["timestamp"], low, high)
    if high is not None and high < low:
        return {"blocks": [], "links": {"next": None}}
    bound: tuple[str, int] | None = None
    if direction == "asc":
        numbers = reader.blocks_ascending(low, high, limit)
        if len(numbers) == limit:
            bound = ("gt", numbers[-1])
    else:
        page = reader.blocks_descending(high, low, limit)
        numbers = list(page.numbers)
        if page.resume_below is not None:
            bound = ("lt", page.resume_below)
    blocks, errors = reader.get_many_blocks(numbers)
    skipped(errors)
    return {"blocks": [render_block(b) for b in blocks], "links": {"next": _next(bound, direction, limit, low, high)}}


def _next(bound: tuple[str, int] | None, direction: str, limit: int, low: int, high: int | None) -> str | None:
    """The next page keeps the caller's other end of the range as a block number."""
    if bound is None:
        return None
    op, number = bound
    params: list[tuple[str, Any]] = [("limit", limit), ("order", direction), ("block.number", f"{op}:{number}")]
    if direction == "asc" and high is not None:
        params.append(("block.number", f"lte:{high}"))
    if direction == "desc" and low > 0:
        params.append(("block.number", f"gte:{low}"))
    return f"{BLOCKS_PATH}?" + urlencode(params)
