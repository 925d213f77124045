"""The ``balances`` table: row keys and cell layouts of derived hbar balances. Pure.

Rows (family ``b``; every key below starts with a letter or a digit, so they never collide):

- ``<account>/<one's complement of the time, hex16>``, qualifier ``v``: the account's balance
  after everything at that consensus time (``>qQ``: tinybar, block number; block ``2^64-1`` marks
  a snapshot row). An ascending scan of one account is newest first, as ``account_history``.
- ``c/<errata time hex16>/<errata id>``: a compensation, one qualifier per account (the account,
  ``>q`` tinybar delta); written by ``errata`` when it applies an errata, read by the applier.
- ``p/start``, qualifier ``s``: where application began (``>QQ``: first block, time bound).
- ``p/progress``, qualifier ``n``: the next block to apply and the time up to which balances are
  final (``>QQ``), written after each block.
- ``p/block/<block hex16>``: qualifier ``end`` (``>Q``: the time the block's slot ends), and one
  qualifier ``c/<errata time hex16>/<errata id>`` per compensation the block included.
- ``e/<slot end hex16>``, qualifier ``n``: the block whose slot ends then (``>Q``), to find the
  block a time falls in.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from hedera_history.errors import RowDecodeError
from hedera_history.store.encoding import decode_value, encode_value
from hedera_history.store.keys import (
    MAX_U64,
    account_prefix,
    decode_account_history_key,
    decode_hex16,
    hex16,
    ones_complement,
)
from hedera_history.store.model import Cell, Row
from hedera_history.store.schema import BALANCES, BALANCES_FAMILY

Q_BALANCE = b"v"
Q_START = b"s"
Q_NEXT = b"n"
Q_END = b"end"
START_KEY = b"p/start"
PROGRESS_KEY = b"p/progress"
STATE_TIMESTAMP = 0
"""Timestamp of the mutable cells (start, progress): always the same, so each write replaces the
last (a rewind writes an earlier progress, which a larger timestamp would hide)."""
SNAPSHOT_BLOCK = MAX_U64
"""The block number a snapshot's balance rows carry."""

_BALANCE = struct.Struct(">qQ")
_PAIR = struct.Struct(">QQ")
_U64 = struct.Struct(">Q")
_I64 = struct.Struct(">q")


@dataclass(frozen=True, slots=True)
class BalanceEntry:
    account: str
    consensus_ns: int
    """When the balance took this value."""
    balance: int
    """Tinybar."""
    block_number: int | None
    """The block of the change; None for a snapshot row."""


@dataclass(frozen=True, slots=True)
class Progress:
    next_block: int
    bound_ns: int
    """Balances as of this consensus time and earlier are final."""


@dataclass(frozen=True, slots=True)
class Compensation:
    """An errata's compensating transfers, summed per account, at the errata's time."""

    consensus_ns: int
    errata_id: str
    deltas: tuple[tuple[str, int], ...]
    """(account, tinybar), by account."""

    @property
    def qualifier(self) -> bytes:
        """How an applied block records that it included this compensation."""
        return compensation_key(self.consensus_ns, self.errata_id)


def row_key_for_balance(account: str, consensus_ns: int) -> bytes:
    return account_prefix(account) + hex16(ones_complement(consensus_ns))


def balance_range_at(account: str, at_ns: int) -> tuple[bytes, bytes]:
    """``[start, end)`` keys of ``account``'s rows at or before ``at_ns``, newest first."""
    prefix = account_prefix(account)
    return prefix + hex16(ones_complement(max(0, min(at_ns, MAX_U64)))), prefix[:-1] + bytes([prefix[-1] + 1])


def compensation_key(consensus_ns: int, errata_id: str) -> bytes:
    return b"c/" + hex16(consensus_ns) + b"/" + errata_id.encode("ascii")


COMPENSATION_PREFIX = b"c/"


def row_key_for_applied_block(block_number: int) -> bytes:
    return b"p/block/" + hex16(block_number)


def row_key_for_slot_end(end_ns: int) -> bytes:
    return b"e/" + hex16(end_ns)


SLOT_END_PREFIX = b"e/"


def one_cell_row(key: bytes, qualifier: bytes, payload: bytes, timestamp_micros: int) -> Row:
    """A ``balances`` row with one cell (the payload gets its encoding header)."""
    return Row(BALANCES, key, (Cell(BALANCES_FAMILY, qualifier, encode_value(payload), timestamp_micros),))


def encode_balance(balance: int, block_number: int | None) -> bytes:
    return _BALANCE.pack(balance, SNAPSHOT_BLOCK if block_number is None else block_number)


def decode_balance_entry(key: bytes, value: bytes) -> BalanceEntry:
    account, consensus_ns = decode_account_history_key(key)
    balance, block = _unpack(_BALANCE, decode_value(value), "balance")
    return BalanceEntry(account, consensus_ns, balance, None if block == SNAPSHOT_BLOCK else block)


def encode_pair(first: int, second: int) -> bytes:
    return _PAIR.pack(first, second)


def decode_pair(value: bytes, what: str) -> tuple[int, int]:
    first, second = _unpack(_PAIR, decode_value(value), what)
    return first, second


def encode_u64(value: int) -> bytes:
    return _U64.pack(value)


def decode_u64(value: bytes, what: str) -> int:
    return _unpack(_U64, decode_value(value), what)[0]


def encode_delta(delta: int) -> bytes:
    return _I64.pack(delta)


def decode_compensation(key: bytes, cells: dict[bytes, bytes]) -> Compensation:
    """A ``c/`` row back into its compensation (cells: qualifier -> stored value)."""
    parts = key.split(b"/")
    if len(parts) != 3 or parts[0] != b"c":
        raise RowDecodeError(f"not a compensation key: {key!r}")
    try:
        consensus_ns = decode_hex16(parts[1])
    except ValueError as e:
        raise RowDecodeError(f"compensation key {key!r}: {e}") from e
    deltas = tuple(
        sorted((q.decode("ascii", "replace"), _unpack(_I64, decode_value(v), "delta")[0]) for q, v in cells.items())
    )
    return Compensation(consensus_ns, parts[2].decode("ascii", "replace"), deltas)


def _unpack(layout: struct.Struct, payload: bytes, what: str) -> tuple[int, ...]:
    if len(payload) != layout.size:
        raise RowDecodeError(f"{what}: expected {layout.size} bytes, got {len(payload)}")
    return tuple(int(v) for v in layout.unpack(payload))
