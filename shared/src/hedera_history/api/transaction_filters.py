"""Query and path values the mirror node's transaction routes share: an account given as an id or
a long-zero EVM address, and parameters where the last of several values counts."""

from __future__ import annotations

import re

from hedera_history.api.errors import InvalidParamsError, NotServedError
from hedera_history.api.parse import parse_account
from hedera_history.api.query import Query, operator

_EVM_ADDRESS = re.compile(r"^(?:0x)?([0-9a-fA-F]{40})$")
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
    An alias or another EVM address needs the account's creation, which history has but does not index."""
    match = _EVM_ADDRESS.fullmatch(text)
    if match is not None:
        hex_digits = match.group(1).lower()
        if not hex_digits.startswith(LONG_ZERO_PREFIX):
            raise NotServedError(f"{name}: accounts are found by id or long-zero EVM address here, not by alias")
        return f"0.0.{int(hex_digits[24:], 16)}"
    realm_num = _REALM_NUM.fullmatch(text)
    if realm_num is not None:  # the reference's ``realm.num`` form, in shard 0
        text = f"0.{realm_num.group(1)}.{realm_num.group(2)}"
    elif _ALIAS.fullmatch(text):
        raise NotServedError(f"{name}: accounts are found by id or long-zero EVM address here, not by alias")
    try:
        return parse_account(text, name)
    except InvalidParamsError as e:
        raise InvalidParamsError(f"Invalid parameter: {name}") from e


def account_id_filter(query: Query) -> str | None:
    """``account.id`` (one account, bare or ``eq:``) or None when not given."""
    values = query.get("account.id", [])
    if not values:
        return None
    if len(values) > 1:
        raise NotServedError("account.id: one account at a time here")
    op, value = operator(values[0], "account.id")
    if op != "eq":
        raise NotServedError("account.id: one account (eq) here, not a range")
    return account_reference(value, "account.id")
