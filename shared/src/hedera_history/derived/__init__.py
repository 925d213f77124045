"""Derived state: account hbar balances computed from the transfer lists, stored as history.

``BalanceApplier`` applies complete blocks in order (and errata compensations at their times);
``ExclusiveBalanceApplier`` runs it only while holding the balance lease (one run at a time);
``balances.account_balance`` answers now / at a time; ``query`` shapes the API answers;
``snapshot`` seeds starting balances. See docs/errata.md (derived state).
"""

from hedera_history.derived.applier import ApplyReport, BalanceApplier
from hedera_history.derived.balances import AccountBalance, account_balance
from hedera_history.derived.lease import BalanceLease, ExclusiveBalanceApplier
from hedera_history.derived.snapshot import BalanceSnapshot, load_snapshot, parse_snapshot

__all__ = [
    "AccountBalance",
    "ApplyReport",
    "BalanceApplier",
    "BalanceLease",
    "BalanceSnapshot",
    "ExclusiveBalanceApplier",
    "account_balance",
    "load_snapshot",
    "parse_snapshot",
]
