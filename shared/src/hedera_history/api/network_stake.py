"""``GET /api/v1/network/stake`` from the history we keep: the newest NodeStakeUpdate transaction
(``store.reader_stake``), read as the reference's importer reads it into its network stake and the
REST service renders it: ``stake_total`` the sum of the nodes' stakes, ``staking_period`` the day
after the period's end (from one nanosecond past it, 24 hours long), ``staking_period_duration``
in minutes, fee fractions as floats to 9 places (0 for a zero denominator), the rest as the body
carries them. Before the first update in history, the reference's 404 ("No network stake data
found")."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from hedera_history.api.errors import NotFoundError
from hedera_history.api.query import Query, only
from hedera_history.api.render import timestamp
from hedera_history.errors import CorruptFileError, RowDecodeError
from hedera_history.formats.transactions import transaction_body
from hedera_history.store.reader import HistoryReader
from hedera_history.store.reader_stake import newest_stake_update

Reader = Callable[[], HistoryReader]
SkippedRows = Callable[[Sequence[RowDecodeError]], None]
_DAY_NS = 86_400 * 1_000_000_000
_NS = 1_000_000_000
_COPIED = (
    "max_stake_rewarded",
    "max_staking_reward_rate_per_hbar",
    "max_total_reward",
    "reserved_staking_rewards",
    "reward_balance_threshold",
    "staking_periods_stored",
    "staking_reward_rate",
    "staking_start_threshold",
    "unreserved_staking_reward_balance",
)


def network_stake(get_reader: Reader, query: Query, skipped: SkippedRows) -> dict[str, Any]:
    only(query, set())
    stored, errors = newest_stake_update(get_reader())
    skipped(errors)
    update: Any = None
    if stored is not None:
        try:
            update = transaction_body(stored.transaction_bytes).node_stake_update
        except CorruptFileError:
            update = None
    if update is None:
        raise NotFoundError("Not Found", detail="No network stake data found")
    end = update.end_of_staking_period
    period_start = end.seconds * _NS + end.nanos + 1
    return {
        **{name: getattr(update, name) for name in _COPIED},
        "node_reward_fee_fraction": _fraction(update.node_reward_fee_fraction),
        "stake_total": sum(node.stake for node in update.node_stake),
        "staking_period": {"from": timestamp(period_start), "to": timestamp(period_start + _DAY_NS)},
        "staking_period_duration": update.staking_period,
        "staking_reward_fee_fraction": _fraction(update.staking_reward_fee_fraction),
    }


def _fraction(fraction: Any) -> float:
    if fraction.denominator == 0:
        return 0.0
    exact = Decimal(fraction.numerator) / Decimal(fraction.denominator)
    return float(exact.quantize(Decimal("1e-9"), rounding=ROUND_HALF_UP))
