"""Query-string helpers shared by the REST routes: allowed names, single values, limits, operators."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from hedera_history.api.errors import InvalidParamsError
from hedera_history.api.parse import parse_int

DEFAULT_LIMIT = 25
MAX_LIMIT = 100
OPERATORS = ("eq", "gt", "gte", "lt", "lte")

Query = Mapping[str, Sequence[str]]


def only(query: Query, allowed: set[str]) -> None:
    unknown = set(query) - allowed
    if unknown:
        raise InvalidParamsError(f"unknown query parameters: {', '.join(sorted(unknown))[:200]}")


def single(query: Query, name: str) -> str | None:
    values = query.get(name, [])
    if len(values) > 1:
        raise InvalidParamsError(f"{name} may be given once")
    return values[0] if values else None


def page_limit(query: Query) -> int:
    text = single(query, "limit")
    return DEFAULT_LIMIT if text is None else parse_int(text, "limit", minimum=1, maximum=MAX_LIMIT)


def order(query: Query, default: str = "asc") -> str:
    value = single(query, "order") or default
    if value not in ("asc", "desc"):
        raise InvalidParamsError("order must be asc or desc")
    return value


def operator(condition: str, name: str) -> tuple[str, str]:
    """``gt:5`` -> ("gt", "5"); a bare value is ``eq``."""
    op, sep, value = condition.partition(":")
    if not sep:
        return "eq", condition
    if op not in OPERATORS:
        raise InvalidParamsError(f"{name}: unknown operator {op[:10]!r}")
    return op, value


def integer_bounds(
    conditions: Sequence[str], name: str, *, maximum: int, low: int = 0, high: int | None = None
) -> tuple[int, int | None]:
    """The inclusive ``[low, high]`` that ``eq:``, ``gt:``, ``gte:``, ``lt:`` and ``lte:`` conditions
    on an integer leave (``high`` None: unbounded); an empty range comes back with high < low."""
    for condition in conditions:
        op, value = operator(condition, name)
        number = parse_int(value, name, maximum=maximum)
        if op in ("gt", "gte", "eq"):
            low = max(low, number + 1 if op == "gt" else number)
        if op in ("lt", "lte", "eq"):
            bound = number - 1 if op == "lt" else number
            high = bound if high is None else min(high, bound)
    return low, high
