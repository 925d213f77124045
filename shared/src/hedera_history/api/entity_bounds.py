"""Range filters on entity ids and serial numbers as the reference takes them (``receiver.id``,
``token.id``, ``schedule.id``, ``serialnumber``...): ``eq:``, ``gt:``, ``gte:``, ``lt:``, ``lte:``
(and ``ne:`` where a route takes it), as inclusive bounds on the reference's encoded ids, and the
keyset order the reference pages by, where a secondary bound counts only at its primary's bound."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hedera_history.api.errors import InvalidParamsError
from hedera_history.api.parse import MAX_I64, parse_int
from hedera_history.api.query import Query, integer_bounds, operator
from hedera_history.api.transaction_filters import ENTITY_KEY_MAX, EntityKey, entity_key, entity_reference
from hedera_history.errors import RowLayoutError
from hedera_history.store.keys import MAX_U64, encode_entity_text

_OPERATORS = ("eq", "gt", "gte", "lt", "lte")


@dataclass(frozen=True, slots=True)
class Bounds:
    """Inclusive bounds on one field (None: unbounded on that side), and values left out."""

    low: int | None = None
    high: int | None = None
    excluded: frozenset[int] = frozenset()

    @property
    def empty(self) -> bool:
        return self.low is not None and self.high is not None and self.low > self.high

    def holds(self, value: int) -> bool:
        return (
            (self.low is None or value >= self.low)
            and (self.high is None or value <= self.high)
            and value not in self.excluded
        )


def entity_id(text: str, name: str) -> str:
    """An entity named by id (``shard.realm.num``, ``realm.num``, a bare num or a long-zero EVM address)."""
    found = entity_reference(text, name)
    if isinstance(found, bytes):
        raise InvalidParamsError(f"Invalid parameter: {name}")
    return found


def entity_bounds(query: Query, name: str) -> tuple[EntityKey, EntityKey]:
    """The inclusive range of ids ``eq:``, ``gt:``, ``gte:``, ``lt:`` and ``lte:`` on ``name``
    leave, as :func:`entity_key` orders ids (:func:`bounds`: on encoded ids)."""
    low: EntityKey = (0, 0, 0)
    high = ENTITY_KEY_MAX
    for condition in query.get(name, []):
        op, value = operator(condition, name)
        key = entity_key(entity_id(value, name))
        if op in ("gt", "gte", "eq"):
            low = max(low, (key[0], key[1], key[2] + 1) if op == "gt" else key)
        if op in ("lt", "lte", "eq"):
            high = min(high, (key[0], key[1], key[2] - 1) if op == "lt" else key)
        if op not in ("gt", "gte", "eq", "lt", "lte"):
            raise InvalidParamsError(f"Invalid parameter: {name}")
    return low, high


def entity_code(text: str, name: str) -> int:
    """An entity id in any form the reference takes (``shard.realm.num``, ``realm.num``, a num, a
    long-zero EVM address) as its encoded id; a 400 for anything else."""
    return encoded(entity_id(text, name), name)


def encoded(entity: str, name: str) -> int:
    """``shard.realm.num`` as its encoded id; a 400 naming ``name`` when it does not fit."""
    try:
        return encode_entity_text(entity)
    except RowLayoutError as e:
        raise InvalidParamsError(f"Invalid parameter: {name}") from e


def bounds(conditions: Sequence[str], name: str, *, entity: bool, allow_ne: bool = False) -> Bounds:
    """The bounds ``conditions`` on ``name`` leave; a 400 for an unknown operator or value."""
    numbered: list[str] = []
    excluded: set[int] = set()
    for condition in conditions:
        op, sep, text = condition.partition(":")
        if not sep:
            op, text = "eq", condition
        if op not in _OPERATORS and not (allow_ne and op == "ne"):
            raise InvalidParamsError(f"Invalid parameter: {name}")
        value = entity_code(text, name) if entity else parse_int(text, name, maximum=MAX_I64)
        if op == "ne":
            excluded.add(value)
        else:
            numbered.append(f"{op}:{value}")
    low, high = integer_bounds(numbered, name, maximum=MAX_U64)
    bounded_below = any(n.startswith(("gt", "eq")) for n in numbered)
    return Bounds(low if bounded_below else None, high, frozenset(excluded))


def keyset_holds(values: Sequence[int], fields: Sequence[Bounds]) -> bool:
    """Whether ``values`` (primary first) lie within ``fields`` in the reference's keyset order: a
    value past its field's lower (or upper) bound settles that side; at the bound, the next
    field's bound decides; a field without a bound on that side passes it to the next field."""
    return _within(values, [f.low for f in fields], above=True) and _within(
        values, [f.high for f in fields], above=False
    )


def _within(values: Sequence[int], limits: Sequence[int | None], *, above: bool) -> bool:
    for value, limit in zip(values, limits, strict=True):
        if limit is None or value == limit:
            continue
        return value > limit if above else value < limit
    return True
