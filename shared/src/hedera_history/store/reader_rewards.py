"""Read path of the staking reward index (``store.reward_index``): the rewards paid to an account, a
page at a time. As on every read path, only complete blocks count and rows an errata removed do not
exist. Newest first, a page is one scan of the account's range from a time; oldest first, the range
asked is read whole and reversed (there are no reverse scans)."""

from __future__ import annotations

from dataclasses import dataclass

from hedera_history.errors import RowDecodeError
from hedera_history.store.decode import AccountHistoryEntry
from hedera_history.store.gateway import StoredRow
from hedera_history.store.index_scan import scan_index
from hedera_history.store.reader import HistoryReader
from hedera_history.store.reader_entities import pointed_value
from hedera_history.store.reward_index import Reward, decode_reward_key, reward_range


@dataclass(frozen=True, slots=True)
class RewardPage:
    rewards: tuple[Reward, ...]
    """In the order asked."""
    errors: tuple[RowDecodeError, ...] = ()


def rewards_page(
    reader: HistoryReader,
    account: str,
    from_ns: int,
    before_ns: int | None,
    limit: int,
    *,
    descending: bool = True,
) -> RewardPage:
    """Up to ``limit`` rewards paid to ``account`` at or after ``from_ns`` and before ``before_ns``
    (None: no end), newest first unless not ``descending``."""
    errors: list[RowDecodeError] = []
    if before_ns is not None and before_ns <= max(from_ns, 0):
        return RewardPage(())
    found: list[Reward] = []
    for reward, _ in scan_index(reader, reward_range(account, before_ns, from_ns), _decode_reward, errors):
        found.append(reward)
        if descending and len(found) == limit:
            break
    page = found if descending else found[::-1][:limit]
    return RewardPage(tuple(page), tuple(errors))


def _decode_reward(row: StoredRow) -> tuple[Reward, AccountHistoryEntry] | None:
    reward = decode_reward_key(row.key)
    return pointed_value(row, reward, reward.consensus_ns)


__all__ = ["RewardPage", "rewards_page"]
