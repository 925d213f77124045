"""Query and path values the mirror node's transaction routes share: an account given as an id or
a long-zero EVM address, and parameters where the last of several values counts."""

from __future__ import annotations

import base64
import binascii
import re

from hedera_history.api.errors import InvalidParamsError, NotServedError
from hedera_history.api.parse import parse_account
from hedera_history.api.query import Query, operator

_EVM_ADDRESS = re.compile(r"^(?:\d{1,10}\.){0,2}(?:0x)?([0-9a-fA-F]{40})$")
_REALM_NUM = re.compile(r"^(\d{1,10})\.(\d{1,19})$")
_ALIAS = re.compile(r"^(?:\d{1,10}\.){0,2}[A-Z2-7]{20,}$")
LONG_ZERO_PREFIX = "0" * 24
"""An EVM address whose first 12 bytes are zero names ``0.0.<last 8 bytes>``."""


def last_value(query: Query, name: str) -> str | None:
    """The reference honours the last value of a repeated parameter."""
    values = query.get(name, [])
    return values[-1] if values else None


def account_reference(text: str, name: str) -> str:
    """``shard.realm.num``, ``realm.num``, a bare num or a long-zero EVM address, as ``shard.realm.num``.
    An alias or another EVM address is a 501 here (:func:`entity_reference` takes them, for the
    routes that look them up in the entity index)."""
    found = entity_reference(text, name)
    if isinstance(found, bytes):
        raise NotServedError(f"{name}: accounts are found by id or long-zero EVM address here, not by alias")
    return found


def entity_reference(text: str, name: str) -> str | bytes:
    """An account or contract named in a path: its id ``shard.realm.num`` (from any id form or a
    long-zero EVM address), or the alias to look up: the 20 bytes of another EVM address, or the
    bytes of a base32 alias (``[shard.realm.]ALIAS``, as the reference takes them)."""
    match = _EVM_ADDRESS.fullmatch(text)
    if match is not None:
        hex_digits = match.group(1).lower()
        if hex_digits.startswith(LONG_ZERO_PREFIX):
            return f"0.0.{int(hex_digits[24:], 16)}"
        return bytes.fromhex(hex_digits)
    realm_num = _REALM_NUM.fullmatch(text)
    if realm_num is not None:  # the reference's ``realm.num`` form, in shard 0
        text = f"0.{realm_num.group(1)}.{realm_num.group(2)}"
    elif _ALIAS.fullmatch(text):
        encoded = text.rsplit(".", 1)[-1]
        try:
            return base64.b32decode(encoded + "=" * (-len(encoded) % 8))
        except binascii.Error as e:
            raise InvalidParamsError(f"Invalid parameter: {name}") from e
    try:
        return parse_account(text, name)
    except InvalidParamsError as e:
        raise InvalidParamsError(f"Invalid parameter: {name}") from e


EntityKey = tuple[int, int, int]
"""``(shard, realm, num)``: ids compare in this order, as the reference's encoded ids do."""
ENTITY_KEY_MAX: EntityKey = (2**15 - 1, 2**16 - 1, 2**38 - 1)


def account_id_filter(query: Query) -> str | None:
    """``account.id`` (one account, bare or ``eq:``) or None when not given or given as a range
    (:func:`account_id_range`)."""
    values = query.get("account.id", [])
    if not values or any(operator(value, "account.id")[0] != "eq" for value in values):
        return None
    if len(values) > 1:
        raise NotServedError("account.id: one account at a time here")
    return account_reference(operator(values[0], "account.id")[1], "account.id")


def account_id_range(query: Query) -> tuple[EntityKey, EntityKey] | None:
    """The inclusive range ``account.id`` operators (``gt:``, ``gte:``, ``lt:``, ``lte:``) leave,
    None when ``account.id`` is absent or one account (:func:`account_id_filter`)."""
    values = query.get("account.id", [])
    ops = [operator(value, "account.id") for value in values]
    if not ops or all(op == "eq" for op, _ in ops):
        return None
    low: EntityKey = (0, 0, 0)
    high = ENTITY_KEY_MAX
    for op, value in ops:
        key = entity_key(account_reference(value, "account.id"))
        if op == "eq":
            raise InvalidParamsError("account.id: eq and a range together")
        if op in ("gt", "gte"):
            low = max(low, _next_key(key) if op == "gt" else key)
        elif op in ("lt", "lte"):
            high = min(high, _previous_key(key) if op == "lt" else key)
    return low, high


def entity_key(entity: str) -> EntityKey:
    shard, realm, num = (int(part) for part in entity.split("."))
    return shard, realm, num


def _next_key(key: EntityKey) -> EntityKey:
    return (key[0], key[1], key[2] + 1)


def _previous_key(key: EntityKey) -> EntityKey:
    return (key[0], key[1], key[2] - 1) if key[2] > 0 else (key[0], key[1] - 1, ENTITY_KEY_MAX[2])
