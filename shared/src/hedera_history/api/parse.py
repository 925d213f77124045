"""Validation of caller input: block numbers, timestamps, account ids, hashes, transaction ids."""

from __future__ import annotations

import re
from typing import Any

from hedera_history.api.errors import InvalidParamsError
from hedera_history.errors import ConfigError
from hedera_history.times import seconds_nanos
from hedera_history.transaction_ids import parse_transaction_id as parse_id

MAX_I64 = 2**63 - 1
HASH_BYTES = 48
_ACCOUNT = re.compile(r"^(?:(\d{1,10})\.(\d{1,10})\.)?(\d{1,19})$")
_HEX = re.compile(r"^(?:0x)?([0-9a-fA-F]*)$")


def parse_int(value: Any, name: str, *, minimum: int = 0, maximum: int = MAX_I64) -> int:
    """An integer from JSON (int, not bool) or from a query string (decimal digits)."""
    if isinstance(value, bool):
        raise InvalidParamsError(f"{name} must be an integer")
    if isinstance(value, str):
        if not value.isascii() or not value.isdigit() or len(value) > 19:
            raise InvalidParamsError(f"{name} must be a non-negative integer, got {value[:40]!r}")
        value = int(value)
    if not isinstance(value, int):
        raise InvalidParamsError(f"{name} must be an integer")
    if not minimum <= value <= maximum:
        raise InvalidParamsError(f"{name} must be between {minimum} and {maximum}, got {value}")
    return value


def parse_timestamp(value: Any, name: str) -> int:
    """Consensus time in ns from an integer (ns) or a mirror-node string ``seconds.nanos``."""
    if isinstance(value, str):
        ns = seconds_nanos(value)
        if ns is None:
            raise InvalidParamsError(f"{name} must be a timestamp 'seconds.nanos', got {value[:40]!r}")
        if ns > MAX_I64:
            raise InvalidParamsError(f"{name} is out of range")
        return ns
    return parse_int(value, name)


def parse_account(value: Any, name: str = "account") -> str:
    """An account id ``shard.realm.num`` (or a bare ``num`` in shard 0, realm 0), canonical."""
    if not isinstance(value, str) or (match := _ACCOUNT.fullmatch(value)) is None:
        raise InvalidParamsError(f"{name} must be an account id like 0.0.1001")
    shard, realm, num = (int(g) if g is not None else 0 for g in match.groups())
    return f"{shard}.{realm}.{num}"


def parse_hash(value: Any, name: str = "hash") -> bytes:
    """A 48-byte transaction hash in hex (an optional 0x prefix)."""
    match = _HEX.fullmatch(value) if isinstance(value, str) else None
    if match is None or len(match.group(1)) != HASH_BYTES * 2:
        raise InvalidParamsError(f"{name} must be {HASH_BYTES * 2} hex digits")
    return bytes.fromhex(match.group(1))


def is_hash(value: str) -> bool:
    match = _HEX.fullmatch(value)
    return match is not None and len(match.group(1)) == HASH_BYTES * 2


def parse_transaction_id(value: Any, name: str = "transaction id") -> tuple[str, int]:
    """``0.0.1001-1657701968-041986003`` (mirror node) or ``0.0.1001@1657701968.041986003``:
    (payer, valid start ns), as :mod:`hedera_history.transaction_ids` reads them."""
    try:
        if not isinstance(value, str):
            raise ConfigError("not text")
        return parse_id(value)
    except ConfigError as e:
        raise InvalidParamsError(f"{name} must look like 0.0.1001-1657701968-041986003") from e


def parse_options(value: Any, names: tuple[str, ...]) -> dict[str, Any]:
    """A method's optional options object (None: no options), holding no other names than ``names``."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InvalidParamsError(f"options must be an object {{{', '.join(names)}}}")
    unknown = set(value) - set(names)
    if unknown:
        raise InvalidParamsError(f"unknown options: {', '.join(sorted(str(u) for u in unknown))[:200]}")
    return value


def parse_transaction_key(value: Any, name: str) -> bytes | tuple[str, int]:
    """A transaction named by its hash (the 48 bytes) or by its id ((payer, valid start ns))."""
    if isinstance(value, str) and is_hash(value):
        return parse_hash(value)
    return parse_transaction_id(value, name)
