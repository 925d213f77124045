"""Reading derived balances: an account's balance now, or at a consensus time.

Answers never run ahead of the applier: "now" is the time up to which balances are final (its
progress), and a later timestamp is capped there, so a block being applied is never half seen.
"""

from __future__ import annotations

from dataclasses import dataclass

from hedera_history.derived.rows import (
    PROGRESS_KEY,
    Q_BALANCE,
    Q_NEXT,
    Q_START,
    START_KEY,
    BalanceEntry,
    Progress,
    balance_range_at,
    decode_balance_entry,
    decode_pair,
)
from hedera_history.store.gateway import BigtableGateway, KeyRange, RowQuery
from hedera_history.store.schema import BALANCES, BALANCES_FAMILY


@dataclass(frozen=True, slots=True)
class AccountBalance:
    account: str
    balance: int
    """Tinybar."""
    changed_ns: int
    """When the balance last changed at or before ``as_of_ns`` (the snapshot time for a snapshot row)."""
    block_number: int | None
    """The block of that change; None when it came from a snapshot."""
    as_of_ns: int
    """The time the answer is for: the one asked, capped at the time balances are final up to."""


def read_progress(gateway: BigtableGateway) -> Progress | None:
    return _pair_row(gateway, PROGRESS_KEY, Q_NEXT, "progress")


def read_start(gateway: BigtableGateway) -> Progress | None:
    """Where application began: the first block and the time bound before it."""
    return _pair_row(gateway, START_KEY, Q_START, "start")


def latest_entry(gateway: BigtableGateway, account: str, at_ns: int) -> BalanceEntry | None:
    """``account``'s newest balance row at or before ``at_ns``."""
    start, end = balance_range_at(account, at_ns)
    query = RowQuery(ranges=(KeyRange(start, end),), families=(BALANCES_FAMILY,), limit=1)
    for row in gateway.read_rows(BALANCES, query):
        cell = row.cell(BALANCES_FAMILY, Q_BALANCE)
        if cell is not None:
            return decode_balance_entry(row.key, cell.value)
    return None


def account_balance(gateway: BigtableGateway, account: str, at_ns: int | None = None) -> AccountBalance | None:
    """The balance of ``account`` now (``at_ns`` None) or at ``at_ns``.

    None when nothing is applied yet, the time is before application began, or the account has
    no balance row by then (never funded, as far as derived state knows).
    """
    progress = read_progress(gateway)
    if progress is None:
        return None
    as_of = progress.bound_ns if at_ns is None else min(at_ns, progress.bound_ns)
    start = read_start(gateway)
    if start is not None and as_of < start.bound_ns:
        return None
    entry = latest_entry(gateway, account, as_of)
    if entry is None:
        return None
    return AccountBalance(account, entry.balance, entry.consensus_ns, entry.block_number, as_of)


def _pair_row(gateway: BigtableGateway, key: bytes, qualifier: bytes, what: str) -> Progress | None:
    for row in gateway.read_rows(BALANCES, RowQuery(keys=(key,))):
        cell = row.cell(BALANCES_FAMILY, qualifier)
        if cell is not None:
            return Progress(*decode_pair(cell.value, what))
    return None
