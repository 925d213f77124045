"""The staking reward index: the rewards paid to each account, newest first. Pure: keys and what one
transaction contributes.

``reward/<shard.realm.num>/<one's complement of the consensus ns, hex16>/<amount>``: one row per
entry of a record's ``paid_staking_rewards`` (the block stream's transaction results carry the same
list, ``formats.block_records``), whatever the record's status, as the reference writes a
``staking_reward_transfer`` row per entry. The amount (tinybar, decimal) is in the key, so a page of
``/accounts/{id}/rewards`` is one scan of the account's range from a time, no transaction read.

The rows live in ``account_history`` beside the entity index (``store.entity_index``), each with the
pointer cell an account's history entry has, so errata correct them and readers check their block's
completion alike.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from hedera_history.errors import RowLayoutError
from hedera_history.store.accounts import entity_text
from hedera_history.store.entity_index import REWARD_PREFIX
from hedera_history.store.keys import (
    ACCOUNT_SEPARATOR,
    check_entity_id,
    decode_hex16,
    hex16,
    ones_complement,
    time_range,
)


class Reward(NamedTuple):
    """What a reward row's key says."""

    account: str
    consensus_ns: int
    amount: int


def reward_index_keys(record: Any, consensus_ns: int) -> list[bytes]:
    """The reward rows of one record (most have none)."""
    keys: list[bytes] = []
    for paid in record.paid_staking_rewards:
        account = entity_text(paid.accountID)
        if account is not None:
            keys.append(reward_key(account, consensus_ns, paid.amount))
    return keys


def reward_key(account: str, consensus_ns: int, amount: int) -> bytes:
    return reward_prefix(account) + hex16(ones_complement(consensus_ns)) + b"/%d" % amount


def reward_prefix(account: str) -> bytes:
    return REWARD_PREFIX + check_entity_id(account).encode() + ACCOUNT_SEPARATOR


def reward_range(account: str, before_ns: int | None, from_ns: int) -> tuple[bytes, bytes]:
    """``[start, end)`` of the account's rewards paid before ``before_ns`` (None: all) and at or
    after ``from_ns``, newest first."""
    return time_range(reward_prefix(account), before_ns, from_ns)


def decode_reward_key(key: bytes) -> Reward:
    if not key.startswith(REWARD_PREFIX):
        raise RowLayoutError(f"not a reward index key: {key!r}")
    try:
        account, inverted, amount = key[len(REWARD_PREFIX) :].split(ACCOUNT_SEPARATOR)
        return Reward(check_entity_id(account.decode("ascii")), ones_complement(decode_hex16(inverted)), int(amount))
    except (ValueError, UnicodeDecodeError) as e:
        raise RowLayoutError(f"not a reward index key: {key!r}") from e


__all__ = ["Reward", "decode_reward_key", "reward_index_keys", "reward_key", "reward_prefix", "reward_range"]
